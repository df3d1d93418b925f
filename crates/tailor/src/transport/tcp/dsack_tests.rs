//! D-SACK (`dsack = true`, RFC 2883): an ACK answering a segment whose bytes had all
//! arrived says so, and the sender does not count it towards a fast retransmit.
//! PL2's unsolicited bursts arrive twice when their GRT asks for a resend (§D.4); without
//! this, four duplicated segments draw four duplicate ACKs and a spurious fast retransmit.

use super::segment::Segment;
use super::tests::cfg;
use super::{Config, Flavor, Receiver, Sender};
use crate::net::packet::Ecn;
use crate::sim::Time;

const MSS: u64 = 1000;

fn with_dsack(dsack: bool) -> Config {
    Config { dsack, delayed_ack: false, ..cfg(Flavor::NewReno) }
}

fn data(seq: u64, len: u64) -> Segment {
    Segment::Data { seq, len: len as u32, ts: Time::ZERO, tsecr: 0, cwr: false }
}

fn dup_ack(ack: u64, dsack: bool) -> Segment {
    Segment::Ack { ack, ece: false, ts_echo: Time::ZERO, wnd: 0, tsval: 0, dsack }
}

/// (ack, dsack) of each ACK the receiver sends for `segs` (seq, len).
fn acks(cfg: Config, segs: &[(u64, u64)]) -> Vec<(u64, bool)> {
    let mut r = Receiver::new(cfg, 10 * MSS);
    let mut out = Vec::new();
    for &(seq, len) in segs {
        r.handle_packet(Time::ZERO, &data(seq, len), Ecn::NotEct, None);
        out.extend(std::iter::from_fn(|| r.poll_transmit()).map(|t| match t.seg {
            Segment::Ack { ack, dsack, .. } => (ack, dsack),
            s => panic!("{s:?}"),
        }));
    }
    out
}

#[test]
fn a_duplicated_segment_is_reported_as_one_only_with_dsack() {
    // Segments 0-3 arrive, then 1 and 2 again (a duplicated burst), then 3 and 4 with new bytes.
    let segs = [(0, MSS), (MSS, MSS), (2 * MSS, MSS), (3 * MSS, MSS), (MSS, MSS), (2 * MSS, MSS), (3 * MSS, 2 * MSS)];
    let on = acks(with_dsack(true), &segs);
    assert_eq!(on[4..], [(4 * MSS, true), (4 * MSS, true), (5 * MSS, false)], "a partly new segment is no duplicate");
    let off = acks(with_dsack(false), &segs);
    assert_eq!(off[4..], [(4 * MSS, false), (4 * MSS, false), (5 * MSS, false)]);
    assert_eq!(on[..4], off[..4], "in-order data is acknowledged alike");
}

#[test]
fn dsack_acks_do_not_start_a_fast_retransmit_but_other_duplicates_still_do() {
    for (dsack_on, flagged, retransmits) in [(true, true, false), (false, true, true), (true, false, true)] {
        let mut s = Sender::new(with_dsack(dsack_on), 100 * MSS);
        while s.poll_transmit(Time::ZERO).is_some() {}
        s.handle_packet(Time::from_us(10), &dup_ack(MSS, false), None);
        for _ in 0..4 {
            s.handle_packet(Time::from_us(11), &dup_ack(MSS, flagged), None);
        }
        let resent = std::iter::from_fn(|| s.poll_transmit(Time::from_us(11)))
            .any(|t| matches!(t.seg, Segment::Data { seq, .. } if seq == MSS));
        assert_eq!(
            (s.stats.fast_recoveries > 0, resent),
            (retransmits, retransmits),
            "dsack {dsack_on}, flagged {flagged}"
        );
        assert_eq!(s.stats.dsack_acks, if dsack_on && flagged { 4 } else { 0 });
    }
}
