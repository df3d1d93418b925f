//! RFC 3168's ECN for NewReno and CUBIC (`Config::rfc3168`, HULL's TCP-ECN, §3.1): one
//! cut per window of data, CWR on the next new segment, the receiver's echo held until
//! CWR, no retransmission on a mark, and nothing ECN-capable with the option off.

use super::segment::{Out, Segment};
use super::tests::{cfg, sent as drain};
use super::{Config, Flavor, Receiver, Sender};
use crate::net::packet::Ecn;
use crate::sim::Time;

const MSS: u64 = 1000;

fn ecn(flavor: Flavor) -> Config {
    Config { rfc3168: true, ..cfg(flavor) }
}

fn ack(ack: u64, ece: bool) -> Segment {
    Segment::Ack { ack, ece, ts_echo: Time::ZERO, wnd: 0, tsval: 0, dsack: false }
}

fn data(seq: u64, cwr: bool) -> Segment {
    Segment::Data { seq, len: MSS as u32, ts: Time::ZERO, tsecr: 0, cwr }
}

/// (seq, cwr) of data packets.
fn seqs(outs: &[Out]) -> Vec<(u64, bool)> {
    outs.iter()
        .map(|o| match o.seg {
            Segment::Data { seq, cwr, .. } => (seq, cwr),
            other => panic!("unexpected {other:?}"),
        })
        .collect()
}

/// The ECE bits of the ACKs a receiver has queued.
fn eces(r: &mut Receiver) -> Vec<bool> {
    std::iter::from_fn(|| r.poll_transmit())
        .map(|o| match o.seg {
            Segment::Ack { ece, .. } => ece,
            other => panic!("unexpected {other:?}"),
        })
        .collect()
}

#[test]
fn newreno_halves_once_per_window_of_marks_without_retransmitting() {
    let mut s = Sender::new(ecn(Flavor::NewReno), 1000 * MSS);
    let first = seqs(&drain(&mut s, Time::ZERO));
    assert_eq!(first.len(), 10);
    let mut sent = first.clone();
    // Every ACK of the first window echoes ECE (the receiver's latch): one cut.
    for i in 1..=10 {
        s.handle_packet(Time::from_us(10), &ack(i * MSS, true), None);
        sent.extend(seqs(&drain(&mut s, Time::from_us(10))));
    }
    assert_eq!(s.stats.ecn_cuts, 1);
    assert_eq!(s.ssthresh(), 5 * MSS, "half of cwnd = 10 segments");
    assert_eq!((s.stats.retransmits, s.stats.fast_recoveries, s.stats.timeouts), (0, 0, 0));
    // Nothing resent: every sequence number went out once, in order.
    let numbers: Vec<u64> = sent.iter().map(|&(q, _)| q).collect();
    assert_eq!(numbers, (0..numbers.len() as u64).map(|i| i * MSS).collect::<Vec<_>>());
    // CWR on the first new segment after the cut, and on no other.
    assert_eq!(sent.iter().filter(|&&(_, c)| c).count(), 1);
    assert_eq!(sent.iter().position(|&(_, c)| c), Some(10), "the first segment after the initial window");
    // The window came down to ssthresh once the episode ended (an ACK past 10 MSS).
    s.handle_packet(Time::from_us(20), &ack(11 * MSS, false), None);
    assert_eq!(s.cwnd(), 5 * MSS);
    // The next window's ECE cuts again, from 5 segments to max(2.5, 2) segments.
    s.handle_packet(Time::from_us(30), &ack(12 * MSS, true), None);
    assert_eq!(s.stats.ecn_cuts, 2);
    assert_eq!(s.ssthresh(), 5 * MSS / 2);
}

#[test]
fn cubic_cuts_by_beta_on_a_mark() {
    let mut s = Sender::new(ecn(Flavor::Cubic(super::cubic::Params::default())), 1000 * MSS);
    drain(&mut s, Time::ZERO);
    s.handle_packet(Time::from_us(10), &ack(MSS, true), None);
    assert_eq!(s.stats.ecn_cuts, 1);
    assert_eq!(s.ssthresh(), 7 * MSS, "β = 0.7 of cwnd = 10 segments");
    assert_eq!(s.stats.retransmits, 0);
}

#[test]
fn a_loss_queues_cwr_too_and_retransmissions_carry_neither_cwr_nor_ect() {
    let mut s = Sender::new(ecn(Flavor::NewReno), 100 * MSS);
    let first = drain(&mut s, Time::ZERO);
    assert!(first.iter().all(|o| o.ecn == Ecn::Ect), "new data is ECT(0)");
    for _ in 0..3 {
        s.handle_packet(Time::from_us(10), &ack(0, false), None);
    }
    let out = drain(&mut s, Time::from_us(10));
    assert_eq!(seqs(&out)[0], (0, false), "the retransmission has no CWR");
    assert_eq!(out[0].ecn, Ecn::NotEct, "RFC 3168 §6.1.5: a retransmission is not ECT");
    // Further duplicates inflate the window: the next new segment carries CWR.
    for _ in 0..8 {
        s.handle_packet(Time::from_us(11), &ack(0, false), None);
    }
    let out = seqs(&drain(&mut s, Time::from_us(11)));
    assert_eq!(out.first(), Some(&(10 * MSS, true)), "{out:?}");
    assert!(out[1..].iter().all(|&(_, c)| !c));
}

#[test]
fn the_receiver_echoes_ece_from_a_mark_until_cwr() {
    let mut r = Receiver::new(ecn(Flavor::NewReno), 100 * MSS);
    // (CE, CWR) per segment, and the ECE each ACK carries.
    let script = [
        (false, false, false),
        (true, false, true),
        (false, false, true),
        (false, false, true),
        (false, true, false), // CWR ends the echo
        (false, false, false),
        (true, true, true), // a CWR segment that is itself marked: CWR first, then CE
        (false, false, true),
    ];
    for (i, &(ce, cwr, want)) in script.iter().enumerate() {
        let e = if ce { Ecn::Ce } else { Ecn::Ect };
        r.handle_packet(Time::from_ns(i as u64), &data(i as u64 * MSS, cwr), e, None);
        assert_eq!(eces(&mut r), vec![want], "segment {i}");
    }
}

#[test]
fn with_delayed_acks_the_marked_segment_is_acknowledged_at_once() {
    let mut r = Receiver::new(Config { delayed_ack: true, ..ecn(Flavor::NewReno) }, 100 * MSS);
    r.handle_packet(Time::ZERO, &data(0, false), Ecn::Ect, None);
    assert!(eces(&mut r).is_empty(), "an unmarked first segment waits for the second");
    r.handle_packet(Time::ZERO, &data(MSS, false), Ecn::Ce, None);
    assert_eq!(eces(&mut r), vec![true]);
    // Later segments are acknowledged every second one again, still echoing.
    r.handle_packet(Time::ZERO, &data(2 * MSS, false), Ecn::Ect, None);
    assert!(eces(&mut r).is_empty());
    r.handle_packet(Time::ZERO, &data(3 * MSS, false), Ecn::Ect, None);
    assert_eq!(eces(&mut r), vec![true]);
}

#[test]
fn off_by_default_nothing_is_ect_and_marks_are_not_echoed() {
    for flavor in [Flavor::NewReno, Flavor::Cubic(super::cubic::Params::default())] {
        let c = cfg(flavor);
        assert!(!c.rfc3168 && !c.ecn_capable());
        let mut s = Sender::new(c, 100 * MSS);
        assert!(drain(&mut s, Time::ZERO).iter().all(|o| o.ecn == Ecn::NotEct));
        let mut r = Receiver::new(c, 100 * MSS);
        r.handle_packet(Time::ZERO, &data(0, false), Ecn::Ce, None);
        let acks: Vec<Out> = std::iter::from_fn(|| r.poll_transmit()).collect();
        assert!(matches!(acks[..], [Out { seg: Segment::Ack { ece: false, .. }, ecn: Ecn::NotEct, .. }]));
        s.handle_packet(Time::from_us(10), &ack(MSS, true), None);
        assert_eq!(s.stats.ecn_cuts, 0, "an ECE the sender did not ask for is ignored");
    }
    // With the option on, ACKs are still not ECT (RFC 3168 §6.1.4).
    let mut r = Receiver::new(ecn(Flavor::NewReno), 100 * MSS);
    r.handle_packet(Time::ZERO, &data(0, false), Ecn::Ce, None);
    assert_eq!(r.poll_transmit().map(|o| o.ecn), Some(Ecn::NotEct));
}

/// A sender and a receiver joined by a 5 µs path that CE-marks every ECT data packet sent
/// while the sender's window exceeds `mark_above` bytes (a crude marking queue): the
/// window settles below it by cuts alone, without a loss or a retransmission.
#[test]
fn end_to_end_marks_hold_the_window_down_without_loss() {
    let c = Config { max_cwnd: Some(64), ..ecn(Flavor::NewReno) };
    let mut s = Sender::new(c, 2_000 * MSS);
    let mut r = Receiver::new(c, 2_000 * MSS);
    let delay = Time::from_us(5);
    let mark_above = 20 * MSS;
    let mut wire: Vec<(Time, bool, Out)> = Vec::new();
    let mut now = Time::ZERO;
    let mut peak_after_first_cut = 0;
    while !s.is_complete() {
        while let Some(mut o) = s.poll_transmit(now) {
            if o.ecn == Ecn::Ect && s.cwnd() > mark_above {
                o.ecn = Ecn::Ce;
            }
            wire.push((now + delay, true, o));
        }
        while let Some(o) = r.poll_transmit() {
            wire.push((now + delay, false, o));
        }
        if s.stats.ecn_cuts > 0 {
            peak_after_first_cut = peak_after_first_cut.max(s.cwnd());
        }
        let next = wire.iter().map(|w| w.0).chain(s.poll_timeout()).chain(r.poll_timeout()).min();
        now = next.expect("something pending");
        let (due, rest): (Vec<_>, Vec<_>) = wire.into_iter().partition(|w| w.0 <= now);
        wire = rest;
        for (_, fwd, o) in due {
            if fwd {
                r.handle_packet(now, &o.seg, o.ecn, None);
            } else {
                s.handle_packet(now, &o.seg, None);
            }
        }
        s.handle_timeout(now);
        r.handle_timeout(now);
    }
    assert!(s.stats.ecn_cuts >= 3, "{:?}", s.stats);
    assert_eq!((s.stats.retransmits, s.stats.timeouts), (0, 0));
    // After a cut the window regrows past the threshold by at most about one window's
    // growth before the next mark's cut (the max_cwnd of 64 segments is never reached).
    assert!(peak_after_first_cut <= 2 * mark_above, "{peak_after_first_cut}");
}
