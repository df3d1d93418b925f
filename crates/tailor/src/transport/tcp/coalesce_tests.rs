//! Coalescing on a persistent connection (`Config::coalesce`, docs/transport.md): the
//! connection is a byte stream, so messages share segments, and a short segment of new
//! data waits under Nagle's rule with Minshall's variant (Linux's `tcp_nagle_check`).

use super::segment::Segment;
use super::tests::{cfg, data_sent as drain};
use super::{Config, Flavor, Sender};
use crate::sim::Time;

const MSS: u64 = 1000;

fn ack(ack: u64) -> Segment {
    Segment::Ack { ack, ece: false, ts_echo: Time::ZERO, wnd: 0, tsval: 0, dsack: false }
}

fn with(coalesce: bool) -> Config {
    Config { coalesce, ..cfg(Flavor::Off) }
}

/// Two small messages queued behind an unacknowledged short segment go out together, in
/// one segment, when its ACK comes; without coalescing each leaves at once on its own.
#[test]
fn two_small_messages_behind_an_unacked_short_segment_share_one_segment() {
    let t = Time::from_us(1);
    let mut s = Sender::new(with(true), 200);
    assert_eq!(drain(&mut s, Time::ZERO), [(0, 200)]);
    s.append(t, 300);
    s.append(t, 400);
    assert_eq!(drain(&mut s, t), [], "held while the 200 B segment is unacknowledged");
    s.handle_packet(Time::from_us(2), &ack(200), None);
    assert_eq!(drain(&mut s, Time::from_us(2)), [(200, 700)], "one segment carries both");
    s.handle_packet(Time::from_us(3), &ack(900), None);
    assert!(s.is_complete());

    let mut off = Sender::new(with(false), 200);
    assert_eq!(drain(&mut off, Time::ZERO), [(0, 200)]);
    off.append(t, 300);
    off.append(t, 400);
    assert_eq!(drain(&mut off, t), [(200, 300), (500, 400)], "one segment per message, at once");
}

/// Bytes that fill a segment leave at once, across the messages' boundaries; only the
/// short remainder waits for the ACK.
#[test]
fn a_full_segment_leaves_at_once_across_message_boundaries() {
    let t = Time::from_us(1);
    let mut s = Sender::new(with(true), 200);
    drain(&mut s, Time::ZERO);
    for size in [600, 700, 500] {
        s.append(t, size);
    }
    assert_eq!(drain(&mut s, t), [(200, 1000)], "the 1,800 B behind: one full segment, 800 B wait");
    s.handle_packet(Time::from_us(2), &ack(200), None);
    assert_eq!(drain(&mut s, Time::from_us(2)), [(1200, 800)]);
}

/// A message alone on its connection (its only short segment is its tail) is cut and
/// sent exactly as without coalescing.
#[test]
fn a_lone_message_sends_the_same_with_and_without_coalescing() {
    for size in [1, 999, 1000, 2500, 10_001] {
        let mut on = Sender::new(with(true), size);
        let mut off = Sender::new(with(false), size);
        assert_eq!(drain(&mut on, Time::ZERO), drain(&mut off, Time::ZERO), "{size} B");
    }
    let newreno = |coalesce| Config { coalesce, ..cfg(Flavor::NewReno) };
    let (mut on, mut off) = (Sender::new(newreno(true), 12_345), Sender::new(newreno(false), 12_345));
    for k in 0..12 {
        let now = Time::from_us(k);
        assert_eq!(drain(&mut on, now), drain(&mut off, now));
        on.handle_packet(now, &ack(k * MSS), None);
        off.handle_packet(now, &ack(k * MSS), None);
    }
}

/// Nagle's rule holds new data only: after a timeout, the go-back-N resend of a short
/// segment leaves at once (and carries the bytes appended behind it).
#[test]
fn retransmissions_never_wait() {
    let mut s = Sender::new(with(true), 200);
    drain(&mut s, Time::ZERO);
    s.append(Time::from_us(1), 300);
    assert_eq!(drain(&mut s, Time::from_us(1)), []);
    let rto = s.poll_timeout().expect("an RTO is armed");
    s.handle_timeout(rto);
    assert_eq!(drain(&mut s, rto), [(0, 500)]);
}

/// A connection whose earlier short segment was acknowledged sends the next short one at
/// once (Minshall: only one short segment is outstanding at a time).
#[test]
fn a_short_segment_leaves_at_once_when_no_short_one_is_outstanding() {
    let t = Time::from_us(1);
    let mut s = Sender::new(with(true), 2000);
    assert_eq!(drain(&mut s, Time::ZERO), [(0, 1000), (1000, 1000)], "full segments only");
    s.append(t, 300);
    assert_eq!(drain(&mut s, t), [(2000, 300)], "full segments in flight hold nothing back");
    s.append(t, 300);
    assert_eq!(drain(&mut s, t), [], "now a short one is out");
}
