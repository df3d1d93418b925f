//! Scripted exchanges and a two-endpoint virtual-time harness for the TCP state machines.

use super::segment::Out;
use super::segment::Segment;
use super::{Config, Flavor, Receiver, Sender};
use crate::net::packet::Ecn;
use crate::sim::Time;
use std::collections::VecDeque;

const MSS: u64 = 1000;

/// The scripted exchanges' configuration (MSS 1000 B, 10 segments, 100 us RTO), shared
/// with the HPCC tests.
pub(super) fn cfg(flavor: Flavor) -> Config {
    Config {
        flavor,
        rfc3168: false,
        mss: MSS as u32,
        header: 50,
        init_cwnd: 10,
        max_cwnd: None,
        delayed_ack: false,
        delack_timeout: Time::from_us(10),
        min_rto: Time::from_us(100),
        initial_rto: Time::from_us(100),
        rto_granularity: Time::from_ps(1),
        handshake: false,
        prr: super::cc::PrrVariant::Rfc6937,
        dupack_threshold: Some(3),
        lso: None,
        restart_after_idle: false,
        coalesce: true,
        rwnd: None,
        dsack: false,
        completion: super::Completion::Ack,
    }
}

fn dctcp() -> Flavor {
    Flavor::Dctcp { g: 1.0 / 16.0, initial_alpha: 1.0 }
}

/// Template: an ACK; the test states only what matters.
fn ack(ack: u64, ece: bool) -> Segment {
    Segment::Ack { ack, ece, ts_echo: Time::ZERO, wnd: 0, tsval: 0, dsack: false }
}

fn data(seq: u64) -> Segment {
    Segment::Data { seq, len: MSS as u32, ts: Time::ZERO, tsecr: 0, cwr: false }
}

/// Every segment the sender lets out at `now` (the other TCP test files share it).
pub(super) fn sent(s: &mut Sender, now: Time) -> Vec<Out> {
    std::iter::from_fn(|| s.poll_transmit(now)).collect()
}

/// Every data segment the sender lets out at `now`, as (seq, len); anything else panics.
pub(super) fn data_sent(s: &mut Sender, now: Time) -> Vec<(u64, u32)> {
    sent(s, now)
        .into_iter()
        .map(|o| match o.seg {
            Segment::Data { seq, len, .. } => (seq, len),
            other => panic!("unexpected {other:?}"),
        })
        .collect()
}

/// The sequence numbers of the data segments the sender lets out at `now`.
fn drain(s: &mut Sender, now: Time) -> Vec<u64> {
    data_sent(s, now).into_iter().map(|(seq, _)| seq).collect()
}

#[test]
fn sends_the_initial_window_then_one_segment_per_ack_in_slow_start() {
    let mut s = Sender::new(cfg(Flavor::NewReno), 100 * MSS);
    assert_eq!(drain(&mut s, Time::ZERO), (0..10).map(|i| i * MSS).collect::<Vec<_>>());
    s.handle_packet(Time::from_us(10), &ack(MSS, false), None);
    // cwnd 11: two new segments (one freed + one grown).
    assert_eq!(drain(&mut s, Time::from_us(10)), vec![10 * MSS, 11 * MSS]);
    assert_eq!(s.cwnd(), 11 * MSS);
}

#[test]
fn only_the_tail_may_be_a_partial_segment() {
    let mut c = cfg(Flavor::NewReno);
    c.init_cwnd = 2;
    let mut s = Sender::new(c, 2 * MSS + 10);
    let sent: Vec<Out> = std::iter::from_fn(|| s.poll_transmit(Time::ZERO)).collect();
    assert_eq!(sent.len(), 2);
    s.handle_packet(Time::from_us(1), &ack(MSS, false), None);
    let tail = s.poll_transmit(Time::from_us(1)).expect("tail fits");
    assert_eq!(tail.wire_bytes, 10 + 50);
}

#[test]
fn dctcp_receiver_echoes_ce_on_exactly_the_acks_of_marked_segments() {
    let mut r = Receiver::new(cfg(dctcp()), 10 * MSS);
    let marks = [false, true, true, false, true];
    let mut eces = Vec::new();
    for (i, &ce) in marks.iter().enumerate() {
        let ecn = if ce { Ecn::Ce } else { Ecn::Ect };
        r.handle_packet(Time::from_ns(i as u64), &data(i as u64 * MSS), ecn, None);
        match r.poll_transmit().expect("one ACK per segment").seg {
            Segment::Ack { ack, ece, .. } => {
                assert_eq!(ack, (i as u64 + 1) * MSS);
                eces.push(ece);
            }
            h => panic!("{h:?}"),
        }
        assert!(r.poll_transmit().is_none());
    }
    assert_eq!(eces, marks);
}

#[test]
fn dctcp_delayed_acks_flush_the_old_ce_state_first() {
    let mut c = cfg(dctcp());
    c.delayed_ack = true;
    let mut r = Receiver::new(c, 10 * MSS);
    r.handle_packet(Time::ZERO, &data(0), Ecn::Ect, None);
    assert!(r.poll_transmit().is_none(), "first segment's ACK is delayed");
    r.handle_packet(Time::ZERO, &data(MSS), Ecn::Ce, None);
    // The CE state changed: the unmarked segment is acknowledged at once, without ECE.
    let first: Vec<Segment> = std::iter::from_fn(|| r.poll_transmit()).map(|t| t.seg).collect();
    assert_eq!(first, vec![Segment::Ack { ack: MSS, ece: false, ts_echo: Time::ZERO, wnd: 0, tsval: 0, dsack: false }]);
    // The marked segment's ACK is delayed until the next one, and carries ECE.
    r.handle_packet(Time::ZERO, &data(2 * MSS), Ecn::Ce, None);
    let acks: Vec<Segment> = std::iter::from_fn(|| r.poll_transmit()).map(|t| t.seg).collect();
    assert_eq!(acks.len(), 1);
    assert!(matches!(acks[0], Segment::Ack { ack, ece: true, .. } if ack == 3 * MSS));
}

#[test]
fn ecn_cuts_the_window_at_most_once_per_window() {
    let mut s = Sender::new(cfg(dctcp()), 1000 * MSS);
    drain(&mut s, Time::ZERO);
    // Every ACK of the first window carries ECE: one cut only.
    for i in 1..=10 {
        s.handle_packet(Time::from_us(10), &ack(i * MSS, true), None);
        drain(&mut s, Time::from_us(10));
    }
    assert_eq!(s.stats.ecn_cuts, 1);
    // alpha was 1: ssthresh = cwnd / 2.
    assert_eq!(s.ssthresh(), 5 * MSS);
    // An ACK past the recovery point (10 MSS) with ECE starts the next window's cut.
    s.handle_packet(Time::from_us(20), &ack(11 * MSS, true), None);
    assert_eq!(s.stats.ecn_cuts, 2);
}

#[test]
fn newreno_ignores_ece() {
    let mut s = Sender::new(cfg(Flavor::NewReno), 100 * MSS);
    drain(&mut s, Time::ZERO);
    s.handle_packet(Time::from_us(10), &ack(MSS, true), None);
    assert_eq!(s.stats.ecn_cuts, 0);
    assert_eq!(s.cwnd(), 11 * MSS);
}

#[test]
fn three_duplicate_acks_trigger_fast_retransmit() {
    let mut s = Sender::new(cfg(Flavor::NewReno), 100 * MSS);
    drain(&mut s, Time::ZERO);
    // Segment 0 lost: the receiver acknowledges nothing new four times.
    s.handle_packet(Time::from_us(10), &ack(0, false), None);
    s.handle_packet(Time::from_us(10), &ack(0, false), None);
    assert!(drain(&mut s, Time::from_us(10)).is_empty());
    s.handle_packet(Time::from_us(10), &ack(0, false), None);
    let sent = drain(&mut s, Time::from_us(10));
    assert_eq!(sent.first(), Some(&0), "retransmits the hole");
    assert_eq!(s.stats.fast_recoveries, 1);
    assert_eq!(s.ssthresh(), 5 * MSS);
}

#[test]
fn without_a_dupack_threshold_only_the_rto_retransmits() {
    let mut s = Sender::new(Config { dupack_threshold: None, ..cfg(dctcp()) }, 100 * MSS);
    drain(&mut s, Time::ZERO);
    // Reordering over sprayed paths: many duplicates, no retransmission, no cut.
    for _ in 0..20 {
        s.handle_packet(Time::from_us(10), &ack(0, false), None);
        assert!(drain(&mut s, Time::from_us(10)).is_empty());
    }
    assert_eq!((s.stats.fast_recoveries, s.stats.retransmits), (0, 0));
    assert_eq!(s.cwnd(), 10 * MSS);
    let rto = s.poll_timeout().expect("armed");
    s.handle_timeout(rto);
    assert_eq!(drain(&mut s, rto), vec![0], "the RTO resends the hole");
    // A threshold of 5 waits for the fifth duplicate.
    let mut s = Sender::new(Config { dupack_threshold: Some(5), ..cfg(Flavor::NewReno) }, 100 * MSS);
    drain(&mut s, Time::ZERO);
    for i in 1..=5 {
        s.handle_packet(Time::from_us(10), &ack(0, false), None);
        assert_eq!(s.stats.fast_recoveries, u64::from(i == 5), "after {i} duplicates");
    }
}

#[test]
fn rto_fires_after_min_rto_and_goes_back_to_one_segment() {
    let mut s = Sender::new(cfg(Flavor::NewReno), 100 * MSS);
    drain(&mut s, Time::ZERO);
    let deadline = s.poll_timeout().expect("armed with data in flight");
    assert_eq!(deadline, Time::from_us(100));
    s.handle_timeout(Time::from_us(99));
    assert_eq!(s.stats.timeouts, 0, "an early call does nothing");
    s.handle_timeout(deadline);
    assert_eq!(s.stats.timeouts, 1);
    assert_eq!(s.cwnd(), MSS);
    assert_eq!(drain(&mut s, deadline), vec![0]);
    // Exponential backoff: the next deadline is 2 RTO later.
    assert_eq!(s.poll_timeout(), Some(deadline + Time::from_us(200)));
}

/// Two endpoints joined by a fixed one-way delay; `drop` decides the fate of each data
/// packet by its transmission index. Returns the completion time and sender stats.
fn pair(c: Config, size: u64, delay: Time, drop: impl Fn(usize) -> bool) -> (Time, super::sender::SenderStats) {
    let mut s = Sender::new(c, size);
    let mut r = Receiver::new(c, size);
    // (arrival time, to_receiver, packet)
    let mut wire: VecDeque<(Time, bool, Out)> = VecDeque::new();
    let mut now = Time::ZERO;
    let mut sent = 0usize;
    for _ in 0..1_000_000 {
        while let Some(t) = s.poll_transmit(now) {
            if !drop(sent) {
                wire.push_back((now + delay, true, t));
            }
            sent += 1;
        }
        while let Some(t) = r.poll_transmit() {
            wire.push_back((now + delay, false, t));
        }
        if s.is_complete() {
            return (now, s.stats);
        }
        let next_wire = wire.iter().map(|w| w.0).min();
        let next_timer = [s.poll_timeout(), r.poll_timeout()].into_iter().flatten().min();
        now = match (next_wire, next_timer) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b).expect("something pending"),
        };
        let due: Vec<_> = wire.iter().filter(|w| w.0 <= now).cloned().collect();
        wire.retain(|w| w.0 > now);
        for (_, fwd, t) in due {
            if fwd {
                r.handle_packet(now, &t.seg, t.ecn, t.int.as_deref());
            } else {
                s.handle_packet(now, &t.seg, t.int.as_deref());
            }
        }
        s.handle_timeout(now);
        r.handle_timeout(now);
    }
    panic!("did not complete");
}

#[test]
fn harness_lone_flow_completes_in_one_round_trip_per_window() {
    let d = Time::from_us(5);
    let (t, st) = pair(cfg(Flavor::NewReno), 5 * MSS, d, |_| false);
    assert_eq!(t, Time::from_us(10));
    assert_eq!(st.retransmits + st.timeouts, 0);
}

#[test]
fn harness_handshake_costs_one_round_trip() {
    let mut c = cfg(Flavor::NewReno);
    c.handshake = true;
    let (t, _) = pair(c, 5 * MSS, Time::from_us(5), |_| false);
    assert_eq!(t, Time::from_us(20));
}

#[test]
fn harness_recovers_a_single_loss_by_fast_retransmit() {
    let (t, st) = pair(cfg(Flavor::NewReno), 50 * MSS, Time::from_us(5), |i| i == 3);
    assert_eq!(st.fast_recoveries, 1);
    assert_eq!(st.timeouts, 0);
    assert!(t > Time::from_us(20));
}

#[test]
fn harness_recovers_a_lost_tail_by_timeout() {
    // The last segment (index 4 of 5) is lost: no dupacks can follow, only the RTO.
    let (t, st) = pair(cfg(Flavor::NewReno), 5 * MSS, Time::from_us(5), |i| i == 4);
    assert_eq!(st.timeouts, 1);
    assert!(t >= Time::from_us(100));
}

#[test]
fn harness_dctcp_with_marks_and_delayed_acks_completes() {
    let mut c = cfg(dctcp());
    c.delayed_ack = true;
    let (_, st) = pair(c, 200 * MSS, Time::from_us(5), |_| false);
    assert_eq!(st.timeouts, 0);
}

#[test]
fn receiver_reassembles_out_of_order_segments_with_duplicate_acks() {
    let mut r = Receiver::new(cfg(Flavor::NewReno), 4 * MSS);
    let acks = |r: &mut Receiver| -> Vec<u64> {
        std::iter::from_fn(|| r.poll_transmit())
            .map(|t| match t.seg {
                Segment::Ack { ack, .. } => ack,
                h => panic!("{h:?}"),
            })
            .collect()
    };
    for (seq, expect) in [(0, MSS), (2 * MSS, MSS), (3 * MSS, MSS), (MSS, 4 * MSS), (MSS, 4 * MSS)] {
        r.handle_packet(Time::ZERO, &data(seq), Ecn::NotEct, None);
        assert_eq!(acks(&mut r), vec![expect], "after segment at {seq}");
    }
    assert_eq!(r.rcv_nxt(), 4 * MSS);
    assert_eq!(r.completed_at, Some(Time::ZERO));
}

/// Segmentation offload (HULL §4.1): a send is at most `lso` bytes (45,000 B here: 45
/// segments of 1,000 B, as 64 KB carries 45 of 1,448 B) and leaves back to back; with the window full, ACKs that open it by less than a third of
/// cwnd are held (TSO deferral) until a third has opened, which is then sent at once.
#[test]
fn lso_sends_bursts_of_at_most_64kb_and_defers_small_ones() {
    let cfg = Config { init_cwnd: 90, max_cwnd: Some(90), lso: Some(45_000), ..cfg(Flavor::NewReno) };
    let mut s = Sender::new(cfg, 10_000_000);
    let burst = |s: &mut Sender, now: Time| {
        let mut n = 0;
        while s.poll_transmit(now).is_some() {
            n += 1;
        }
        n
    };
    let t0 = Time::from_us(1);
    assert_eq!(burst(&mut s, t0), 90, "two sends of 45 segments fill the window of 90");
    let mut acked = 0u64;
    let mut bursts = Vec::new();
    for k in 1..=60u64 {
        acked += MSS;
        let now = t0 + Time::from_us(k);
        s.handle_packet(
            now,
            &Segment::Ack { ack: acked, ece: false, ts_echo: t0, wnd: 0, tsval: 0, dsack: false },
            None,
        );
        bursts.push(burst(&mut s, now));
    }
    // 29 ACKs open 29 segments (< 30 = cwnd / 3): deferred; the 30th releases 30 at once.
    assert!(bursts[..29].iter().all(|&b| b == 0), "{bursts:?}");
    assert_eq!(bursts[29], 30, "{bursts:?}");
    assert!(bursts[30..59].iter().all(|&b| b == 0) && bursts[59] == 30, "{bursts:?}");
}

/// Without LSO every ACK releases what it opened.
#[test]
fn without_lso_each_ack_releases_what_it_opens() {
    let cfg = Config { init_cwnd: 90, max_cwnd: Some(90), ..cfg(Flavor::NewReno) };
    let mut s = Sender::new(cfg, 10_000_000);
    let t0 = Time::from_us(1);
    while s.poll_transmit(t0).is_some() {}
    s.handle_packet(
        t0 + Time::from_us(1),
        &Segment::Ack { ack: MSS, ece: false, ts_echo: t0, wnd: 0, tsval: 0, dsack: false },
        None,
    );
    assert!(s.poll_transmit(t0 + Time::from_us(1)).is_some());
    assert!(s.poll_transmit(t0 + Time::from_us(1)).is_none());
}
