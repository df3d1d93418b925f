//! Scripted exchanges for the HPCC sender: ACKs carry crafted INT stacks, the tests read
//! the window, the reference window and the pacing (HPCC, SIGCOMM 2019, Algorithm 1).
//!
//! The path is one 10 Gbps hop and T = 10 us, so a line-rate window is 12,500 B and a
//! hop record `TX` bytes and T later than the previous one reads txRate = line rate.

use super::hpcc::Params;
use super::segment::Segment;
use super::{Config, Flavor, Receiver, Sender};
use crate::net::ids::PortId;
use crate::net::int::{Hop, Stack};
use crate::net::packet::Ecn;
use crate::sim::{Rate, Time};

const MSS: u64 = 1000;
const T: Time = Time::from_us(10);
/// Bytes the hop sends in T at line rate.
const TX: u64 = 12_500;
const W_AI: u64 = 100;

fn params(w_init: u64) -> Params {
    Params { eta: 0.95, max_stage: 5, w_ai: W_AI, w_init, base_rtt: T, line_rate: Rate::from_gbps(10) }
}

fn cfg(w_init: u64) -> Config {
    Config { init_cwnd: w_init.div_ceil(MSS) as u32, ..super::tests::cfg(Flavor::Hpcc(params(w_init))) }
}

/// One hop's record: `at` (in units of T), bytes sent so far, queue behind the packet.
fn int(at: u64, tx: u64, qlen: u64) -> Stack {
    let ts = Time::from_ps(at * T.ps());
    Stack::of(&[Hop { port: PortId::new(1), qlen, tx_bytes: tx, ts, rate: Rate::from_gbps(10) }])
}

fn ack(s: &mut Sender, now: Time, ack: u64, stack: &Stack) {
    s.handle_packet(
        now,
        &Segment::Ack { ack, ece: false, ts_echo: Time::ZERO, wnd: 0, tsval: 0, dsack: false },
        Some(stack),
    );
}

/// Sends everything the window and the pacing allow from `now` until `until`; returns
/// the send times.
fn send_until(s: &mut Sender, mut now: Time, until: Time) -> Vec<Time> {
    let mut times = Vec::new();
    loop {
        while let Some(t) = s.poll_transmit(now) {
            assert!(matches!(t.seg, Segment::Data { .. }));
            assert_eq!(t.int.as_deref(), Some(&Stack::default()), "data starts with an empty INT stack");
            assert_eq!(t.ecn, Ecn::NotEct);
            times.push(now);
        }
        match s.poll_timeout() {
            Some(d) if d > now && d <= until => now = d,
            _ => return times,
        }
    }
}

fn window(s: &Sender) -> (u64, u64, u32) {
    let h = s.controller::<super::hpcc::Control>().expect("an HPCC sender");
    assert_eq!(s.cwnd(), h.window(), "the open-state cwnd is HPCC's W");
    (h.window(), h.reference(), h.inc_stage())
}

#[test]
fn starts_with_a_line_rate_window_paced_at_line_rate() {
    let mut s = Sender::new(cfg(TX), 1000 * MSS);
    assert_eq!(s.cwnd(), TX);
    let times = send_until(&mut s, Time::ZERO, Time::from_us(4));
    // 1050 wire bytes at 10 Gbps: one packet every 840 ns.
    let expect: Vec<Time> = (0..5).map(|i| Time::from_ns(840 * i)).collect();
    assert_eq!(times, expect);
}

#[test]
fn a_smaller_window_paces_at_w_over_t() {
    let mut s = Sender::new(cfg(4_000), 1000 * MSS);
    let times = send_until(&mut s, Time::ZERO, Time::from_us(8));
    // R = 4000 B / 10 us: 1050 B every 2.625 us.
    assert_eq!(times, vec![Time::ZERO, Time::from_ps(2_625_000), Time::from_ps(5_250_000), Time::from_ps(7_875_000)]);
}

#[test]
fn an_over_utilized_hop_cuts_w_to_wc_over_u_by_eta_plus_w_ai_and_wc_moves_once_per_rtt() {
    let mut s = Sender::new(cfg(TX), 1000 * MSS);
    assert_eq!(send_until(&mut s, Time::ZERO, Time::from_us(5)).len(), 6);
    // The first ACK only records the stack (nothing to difference it with).
    ack(&mut s, Time::from_us(5), 1_000, &int(1, 0, TX));
    assert_eq!(window(&s), (TX, TX, 0));
    // Line rate and a queue of one BDP: u = 1 + 1 = 2 over tau = T, so U = 2.
    // W = 12500 / (2 / 0.95) + 100 = 6037.5; still inside the first round trip
    // (ack 2000 <= snd_nxt 6000 when the stack was recorded): W_c stays.
    ack(&mut s, Time::from_us(6), 2_000, &int(2, TX, TX));
    assert_eq!(window(&s), (6_037, TX, 0));
    // The same signal again: W is computed from W_c, not compounded on W.
    ack(&mut s, Time::from_us(7), 3_000, &int(3, 2 * TX, TX));
    assert_eq!(window(&s), (6_037, TX, 0));
    // In flight 3000 of 6037: three more packets, paced at W / T (1.739 us apart);
    // snd_nxt = 9000.
    assert_eq!(send_until(&mut s, Time::from_us(7), Time::from_us(11)).len(), 3);
    // The first ACK beyond 6000 starts a new round: W_c takes W.
    ack(&mut s, Time::from_us(11), 7_000, &int(4, 3 * TX, TX));
    assert_eq!(window(&s), (6_037, 6_037, 0));
    // Within that round W follows the new W_c: 6037.5 * 0.475 + 100 = 2967.8.
    ack(&mut s, Time::from_us(12), 8_000, &int(5, 4 * TX, TX));
    assert_eq!(window(&s), (2_967, 6_037, 0));
}

#[test]
fn under_utilized_hops_add_w_ai_per_rtt_for_max_stage_rounds_then_increase_multiplicatively() {
    let mut s = Sender::new(cfg(4_000), 1000 * MSS);
    let mut now = Time::ZERO;
    let mut acked = 0;
    let mut seen = Vec::new();
    for round in 0..9u64 {
        send_until(&mut s, now, now + Time::from_us(20));
        now += Time::from_us(20);
        // Everything sent is acknowledged; the hop ran at half the line rate, no queue.
        acked += s.in_flight();
        ack(&mut s, now, acked, &int(round + 1, round * TX / 2, 0));
        seen.push(window(&s));
    }
    // Round 0 records; rounds 1-5: U = 0.5 < eta, W_c + W_AI and incStage + 1; round 6
    // reached maxStage: W = W_c / (0.5 / 0.95) + W_AI = 4500 * 1.9 + 100; then additive
    // again; the window never exceeds line rate x T.
    let expect = vec![
        (4_000, 4_000, 0),
        (4_100, 4_100, 1),
        (4_200, 4_200, 2),
        (4_300, 4_300, 3),
        (4_400, 4_400, 4),
        (4_500, 4_500, 5),
        (8_650, 8_650, 0),
        (8_750, 8_750, 1),
        (8_850, 8_850, 2),
    ];
    assert_eq!(seen, expect);
}

#[test]
fn u_is_an_ewma_over_the_ack_interval_and_other_ports_are_skipped() {
    let mut s = Sender::new(cfg(TX), 1000 * MSS);
    send_until(&mut s, Time::ZERO, Time::from_us(5));
    ack(&mut s, Time::from_us(5), 1_000, &int(10, 0, 0));
    // A quarter of T later at 2x line rate: u = 2, U = 0.75 * 1 + 0.25 * 2 = 1.25.
    let quarter =
        Stack::of(&[Hop { ts: Time::from_ps(10 * T.ps() + T.ps() / 4), tx_bytes: TX / 2, ..int(10, 0, 0).hops()[0] }]);
    ack(&mut s, Time::from_us(5), 2_000, &quarter);
    let u = s.controller::<super::hpcc::Control>().unwrap().utilization();
    assert!((u - 1.25).abs() < 1e-12, "U = {u}");
    // A record from another port (the path changed) gives no sample: nothing moves.
    let w = window(&s);
    let moved = Stack::of(&[Hop { port: PortId::new(9), ..int(11, 5 * TX, 5 * TX).hops()[0] }]);
    ack(&mut s, Time::from_us(6), 3_000, &moved);
    assert_eq!(window(&s), w);
    assert_eq!(s.controller::<super::hpcc::Control>().unwrap().utilization(), u);
}

#[test]
fn one_packet_may_enter_an_empty_pipe_whatever_the_window() {
    let mut s = Sender::new(cfg(TX), 1000 * MSS);
    send_until(&mut s, Time::ZERO, Time::ZERO);
    ack(&mut s, Time::from_us(1), 1_000, &int(1, 0, 100 * TX));
    // A huge queue: U = 101, W = 12500 / (101 / 0.95) + 100 = 217 bytes < one segment.
    ack(&mut s, Time::from_us(1), 1_000, &int(2, TX, 100 * TX));
    assert_eq!(s.cwnd(), 217);
    assert_eq!(s.in_flight(), 0);
    let t = send_until(&mut s, Time::from_us(1), Time::from_us(100));
    assert_eq!(t.len(), 1, "one packet, then the window holds");
}

#[test]
fn the_receiver_echoes_the_stack_of_the_latest_segment() {
    let mut r = Receiver::new(cfg(TX), 10 * MSS);
    let stack = int(3, 7, 9);
    r.handle_packet(
        Time::ZERO,
        &Segment::Data { seq: 0, len: MSS as u32, ts: Time::ZERO, tsecr: 0, cwr: false },
        Ecn::NotEct,
        Some(&stack),
    );
    let a = r.poll_transmit().expect("an ACK");
    assert!(matches!(a.seg, Segment::Ack { ack: MSS, .. }));
    assert_eq!(a.int.as_deref(), Some(&stack));
    assert_eq!(a.wire_bytes, 50);
}
