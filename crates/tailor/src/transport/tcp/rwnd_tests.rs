//! The receive window (`Config::rwnd`, `receiver::RcvWindow`): Linux's auto-tuning grows
//! the advertised window per RTT from the bytes read, up to 3/4 of the buffer's ceiling;
//! and the sender's rule for when cwnd may grow (`CwndLimited`).

use super::receiver::CwndLimited::{self, Burst, Tso};
use super::receiver::RcvWindow;
use super::segment::{Out, Segment};
use super::tests::cfg;
use super::{Config, Flavor, Receiver, Sender};
use crate::sim::Time;
use std::collections::VecDeque;

const MSS: u64 = 1000;
const ONE_WAY: Time = Time::from_us(50);

fn with(rwnd: RcvWindow, max_cwnd: Option<u32>) -> Config {
    // An RTO far above the 100 us RTT: no spurious timeout ends slow start.
    let (min_rto, initial_rto) = (Time::from_ms(10), Time::from_ms(10));
    Config { rwnd: Some(rwnd), max_cwnd, min_rto, initial_rto, ..cfg(Flavor::NewReno) }
}

/// One flow of `size` bytes over a lossless 1 Tb/s path (8 ns a segment, so that segments
/// arrive one by one, not merged into one ACK) of fixed delay: the window each ACK
/// advertised, by the time it left the receiver, and the most bytes ever in flight.
fn run(c: Config, size: u64) -> (Vec<(Time, u64)>, u64) {
    let (mut s, mut r) = (Sender::new(c, size), Receiver::new(c, size));
    let mut wire: VecDeque<(Time, bool, Out)> = VecDeque::new();
    let (mut now, mut windows, mut flight, mut free) = (Time::ZERO, Vec::new(), 0, Time::ZERO);
    while !s.is_complete() {
        while let Some(t) = s.poll_transmit(now) {
            free = free.max(now) + Time::from_ns(8);
            wire.push_back((free + ONE_WAY, true, t));
        }
        flight = flight.max(s.in_flight());
        while let Some(t) = r.poll_transmit() {
            if let Segment::Ack { wnd, .. } = t.seg {
                windows.push((now, wnd));
            }
            wire.push_back((now + ONE_WAY, false, t));
        }
        let Some(next) = wire.iter().map(|w| w.0).min() else { break };
        now = next;
        while let Some(i) = wire.iter().position(|w| w.0 <= now) {
            let (_, fwd, t) = wire.remove(i).expect("found");
            match fwd {
                true => r.handle_packet(now, &t.seg, t.ecn, None),
                false => s.handle_packet(now, &t.seg, None),
            }
        }
    }
    assert!(s.is_complete(), "the flow completes");
    (windows, flight)
}

/// The window advertised at the end of each round trip (2 × one-way delay).
fn per_rtt(windows: &[(Time, u64)]) -> Vec<u64> {
    let rtt = ONE_WAY.ps() * 2;
    let rounds = windows.last().map_or(0, |w| w.0.ps() / rtt + 1);
    (0..rounds).filter_map(|k| windows.iter().rev().find(|w| w.0.ps() / rtt == k).map(|w| w.1)).collect()
}

#[test]
fn the_window_doubles_every_rtt_or_two_while_the_reader_keeps_up_and_stops_at_three_quarters_of_max() {
    let c = with(
        RcvWindow {
            autotune: true,
            initial: 10 * MSS,
            max: 4_000 * MSS,
            clock: Time::from_us(10),
            cwnd_limited: Burst,
        },
        None,
    );
    let (windows, flight) = run(c, 20_000 * MSS);
    let w = per_rtt(&windows);
    let ceiling = 3_000 * MSS;
    assert!(windows.iter().all(|&(_, x)| (10 * MSS..=ceiling).contains(&x)), "within [initial, 3/4 max]");
    assert!(flight <= ceiling);
    assert_eq!(*w.last().expect("rounds"), ceiling, "reaches the ceiling: {w:?}");
    // Twice what was read per RTT: from 10 KB to 3 MB (300x, 8.2 doublings) at 1 to
    // 2 RTTs a doubling at most (the interval is at least one RTT estimate, which the coarse
    // clock rounds up), never more than doubling (plus one ACK's slack) a round.
    let rounds = w.iter().position(|&x| x == ceiling).expect("reaches the ceiling");
    assert!((8..=18).contains(&rounds), "{rounds} rounds: {w:?}");
    assert!(w.windows(2).all(|p| p[1] as f64 <= 2.3 * p[0] as f64), "{w:?}");
}

#[test]
fn a_sender_that_sends_little_per_rtt_keeps_the_window_bounded() {
    // The sender never has more than 20 segments out: the bytes read per RTT stay 20 KB,
    // and the window stays near twice that, far below the 3 MB ceiling.
    let c = with(
        RcvWindow {
            autotune: true,
            initial: 10 * MSS,
            max: 4_000 * MSS,
            clock: Time::from_us(10),
            cwnd_limited: Burst,
        },
        Some(20),
    );
    let (windows, _) = run(c, 2_000 * MSS);
    let top = windows.iter().map(|w| w.1).max().expect("ACKs");
    assert!((40 * MSS..=80 * MSS).contains(&top), "window {top}");
}

#[test]
fn without_autotuning_the_window_and_the_flight_stay_at_initial() {
    let c = with(
        RcvWindow {
            autotune: false,
            initial: 16 * MSS,
            max: 4_000 * MSS,
            clock: Time::from_us(10),
            cwnd_limited: Burst,
        },
        None,
    );
    let (windows, flight) = run(c, 2_000 * MSS);
    assert!(windows.iter().all(|w| w.1 == 16 * MSS));
    assert_eq!(flight, 16 * MSS);
}

#[test]
fn cwnd_does_not_grow_while_the_receive_window_limits_the_sender() {
    // Linux grows cwnd only when cwnd limits (`tcp_is_cwnd_limited`): held at 16 segments
    // by the receiver, the sender's cwnd stays within the window, 3 segments' slack and
    // the one ACK that crosses it.
    let c = with(
        RcvWindow {
            autotune: false,
            initial: 16 * MSS,
            max: 4_000 * MSS,
            clock: Time::from_us(10),
            cwnd_limited: Burst,
        },
        None,
    );
    let mut s = Sender::new(c, 1_000 * MSS);
    let mut r = Receiver::new(c, 1_000 * MSS);
    let mut now = Time::ZERO;
    for _ in 0..50 {
        while let Some(t) = s.poll_transmit(now) {
            r.handle_packet(now, &t.seg, t.ecn, None);
        }
        now += Time::from_us(100);
        while let Some(a) = r.poll_transmit() {
            s.handle_packet(now, &a.seg, None);
        }
    }
    assert!(s.cwnd() <= 20 * MSS, "cwnd {}", s.cwnd());
}

/// A sender with 64-segment sends (LSO) and a receive window far above cwnd: 40 segments
/// out, two ACKs of two segments each. The first finds the flight at cwnd, so both rules
/// grow cwnd (slow start: 40 -> 42). The window is then open by 4 segments, under a third
/// of cwnd, so the sender defers (Linux's TSO deferral) and sends nothing. The second ACK
/// finds the flight 4 segments below cwnd: more than three segments of slack, so `Burst`
/// holds cwnd at 42, while under `Tso` 4 x 3 < 42 and cwnd grows to 44.
fn cwnd_after_deferred_acks(rule: CwndLimited) -> u64 {
    let w = RcvWindow {
        autotune: false,
        initial: 10_000 * MSS,
        max: 40_000 * MSS,
        clock: Time::from_us(10),
        cwnd_limited: rule,
    };
    let c = Config { init_cwnd: 40, lso: Some(64 * MSS), ..with(w, None) };
    let mut s = Sender::new(c, 1_000 * MSS);
    let now = Time::from_us(10);
    assert_eq!(std::iter::from_fn(|| s.poll_transmit(now)).count(), 40, "the initial window in one send");
    let ack = |a: u64| Segment::Ack {
        ack: a * MSS,
        ece: false,
        ts_echo: Time::ZERO,
        wnd: 10_000 * MSS,
        tsval: 0,
        dsack: false,
    };
    s.handle_packet(now, &ack(2), None);
    assert_eq!(s.cwnd(), 42 * MSS, "a full window grows under either rule");
    assert!(s.poll_transmit(now).is_none(), "open by 4 of 42 segments: TSO deferral waits");
    s.handle_packet(now, &ack(4), None);
    s.cwnd()
}

#[test]
fn under_lso_the_tso_rule_grows_cwnd_where_the_burst_rule_waits() {
    assert_eq!(cwnd_after_deferred_acks(Burst), 42 * MSS);
    assert_eq!(cwnd_after_deferred_acks(Tso), 44 * MSS);
}

#[test]
fn the_cwnd_limited_rules_are_linuxs() {
    // tcp_max_burst: within three segments; tcp_tso_win_divisor = 3: a third of cwnd unsent.
    assert!(Burst.holds(37 * MSS, 40 * MSS, MSS) && !Burst.holds(36 * MSS, 40 * MSS, MSS));
    assert!(Tso.holds(27 * MSS, 40 * MSS, MSS) && !Tso.holds(26 * MSS, 40 * MSS, MSS));
    assert!(Tso.holds(50 * MSS, 40 * MSS, MSS) && Burst.holds(50 * MSS, 40 * MSS, MSS), "a full window is limited");
}
