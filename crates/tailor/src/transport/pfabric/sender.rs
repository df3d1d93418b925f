//! The sending side of one message: pFabric's minimal rate control (§4.3), as the
//! authors' ns-2 agent (`Agent/TCP/FullTcp/Sack/MinTCP` in HomaSimulation's
//! `ns2_pfabric` branch, `tcp/tcp-full.cc`) does it with the Homa authors' settings.
//!
//! - A message starts at line rate: `init_cwnd` packets (12, about one BDP, §4.3) go at
//!   once. The window counts packets from the first one the receiver lacks (`cum`), as
//!   ns-2's `send_allowed`; it never grows past `max_cwnd`.
//! - Every ACK that moves `cum` opens the window: by one packet below `ssthresh` (slow
//!   start), by 1/cwnd above it. ACKs that do not move it (duplicates) change nothing:
//!   pFabric has no fast retransmission (§4.3; ns-2 `dynamic_dupack_ 1000000`). A hole
//!   there is mostly a packet evicted for more important traffic, which the timeout
//!   resends once that traffic has passed.
//! - The retransmission timeout is fixed (`rto`, no RTT estimate and no backoff: ns-2's
//!   `MinTcpAgent::rtt_timeout` returns `minrto_`). It runs while sent packets are
//!   unacknowledged, restarts when `cum` moves and stops when every sent packet is
//!   acknowledged. On a timeout the window falls to one packet and `ssthresh` to half of
//!   it (at least 2), and sending restarts from `cum`, skipping the packets the receiver
//!   said it has (its SACKs are kept: ns-2 `clear_on_timeout_ false`).
//! - After `probe_after` consecutive timeouts (5) the message enters probe mode (§4.3):
//!   one header-only probe per timeout instead of data, until any ACK comes back; then it
//!   slow-starts from one packet.
//!
//! Its packets' rank is its remaining size (§4.1): the message bytes not yet
//! acknowledged, cumulatively or selectively — ns-2's `prio_scheme_ 2`
//! (`maxseq − highest_ack − sack total`; the authors add a constant 10 to keep data below
//! their ACKs' 0, which tailor needs not: a message with a packet to send has ≥ 1 byte
//! unacknowledged).

use super::wire::{Segment, Wire};
use crate::sim::Time;

/// A set of packet indices.
#[derive(Clone, Debug, Default)]
pub struct Bits(Vec<u64>);

impl Bits {
    pub fn with_len(n: u64) -> Bits {
        Bits(vec![0; n.div_ceil(64) as usize])
    }
    pub fn get(&self, i: u64) -> bool {
        self.0[(i / 64) as usize] >> (i % 64) & 1 == 1
    }
    /// Adds `i`; true if it was not there.
    pub fn insert(&mut self, i: u64) -> bool {
        let (w, b) = ((i / 64) as usize, i % 64);
        let new = self.0[w] >> b & 1 == 0;
        self.0[w] |= 1 << b;
        new
    }
}

/// The rate control's parameters (the transport's configuration).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Control {
    pub init_cwnd: u32,
    pub max_cwnd: u32,
    pub rto: Time,
    /// Consecutive timeouts that start probe mode; None: never.
    pub probe_after: Option<u32>,
}

/// What the sender hands its endpoint to send.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Out {
    pub seg: Segment,
    /// Message bytes carried.
    pub payload: u32,
    /// It was sent before (a retransmission).
    pub again: bool,
}

pub struct Sender {
    wire: Wire,
    ctl: Control,
    size: u64,
    packets: u64,
    /// Packets the receiver has, as far as the sender knows (below `cum`, or SACKed).
    acked: Bits,
    acked_bytes: u64,
    /// The first packet the receiver lacks (its cumulative ACK).
    cum: u64,
    /// The next packet to consider sending.
    next: u64,
    /// One past the highest packet sent.
    high: u64,
    cwnd: f64,
    ssthresh: f64,
    /// Timeouts since the last ACK.
    timeouts: u32,
    probing: bool,
    probe_due: bool,
    rto_at: Option<Time>,
}

impl Sender {
    pub fn new(wire: Wire, ctl: Control, size: u64) -> Sender {
        let packets = wire.packets(size);
        Sender {
            wire,
            ctl,
            size,
            packets,
            acked: Bits::with_len(packets),
            acked_bytes: 0,
            cum: 0,
            next: 0,
            high: 0,
            cwnd: ctl.init_cwnd as f64,
            // Slow start up to the largest window (a standard TCP's "arbitrarily high").
            ssthresh: ctl.max_cwnd as f64,
            timeouts: 0,
            probing: false,
            probe_due: false,
            rto_at: None,
        }
    }

    /// The rank of its packets: message bytes not yet acknowledged (§4.1).
    pub fn remaining(&self) -> u64 {
        self.size - self.acked_bytes
    }

    /// When the retransmission timer fires, if it runs.
    pub fn deadline(&self) -> Option<Time> {
        self.rto_at
    }

    pub fn cwnd(&self) -> f64 {
        self.cwnd
    }

    pub fn is_probing(&self) -> bool {
        self.probing
    }

    /// Every packet acknowledged.
    pub fn is_done(&self) -> bool {
        self.cum >= self.packets
    }

    /// The next packet the window lets go, skipping those the receiver has.
    fn sendable(&mut self) -> Option<u64> {
        let limit = self.packets.min(self.cum + self.cwnd as u64);
        while self.next < limit && self.acked.get(self.next) {
            self.next += 1;
        }
        (self.next < limit).then_some(self.next)
    }

    /// Whether `poll_transmit` has something.
    pub fn can_send(&mut self) -> bool {
        if self.probing {
            return self.probe_due;
        }
        self.sendable().is_some()
    }

    pub fn poll_transmit(&mut self, now: Time) -> Option<Out> {
        let out = if self.probing {
            if !self.probe_due {
                return None;
            }
            self.probe_due = false;
            Out { seg: Segment::Probe, payload: 0, again: false }
        } else {
            let i = self.sendable()?;
            self.next = i + 1;
            let again = i < self.high;
            self.high = self.high.max(i + 1);
            Out { seg: Segment::Data { index: i }, payload: self.wire.payload(self.size, i), again }
        };
        // The timer starts with the first packet out when none runs (ns-2 `foutput`).
        self.rto_at.get_or_insert(now + self.ctl.rto);
        Some(out)
    }

    fn ack_packet(&mut self, i: u64) {
        if i < self.packets && self.acked.insert(i) {
            self.acked_bytes += self.wire.payload(self.size, i) as u64;
        }
    }

    /// An ACK: the receiver has every packet below `cum`, and packet `sack`.
    pub fn on_ack(&mut self, now: Time, cum: u64, sack: Option<u64>) {
        // Any packet from the receiver ends probe mode (ns-2 `recv`, `newack`).
        self.probing = false;
        self.probe_due = false;
        self.timeouts = 0;
        if let Some(s) = sack {
            self.ack_packet(s);
        }
        let cum = cum.min(self.packets);
        if cum <= self.cum {
            return;
        }
        for i in self.cum..cum {
            self.ack_packet(i);
        }
        self.cum = cum;
        self.next = self.next.max(cum);
        self.cwnd += if self.cwnd < self.ssthresh { 1.0 } else { 1.0 / self.cwnd };
        self.cwnd = self.cwnd.min(self.ctl.max_cwnd as f64);
        self.rto_at = (cum < self.high).then_some(now + self.ctl.rto);
    }

    /// The timer fired at `now`; false if it was not due (the deadline moved on).
    pub fn on_timeout(&mut self, now: Time) -> bool {
        if self.rto_at.is_none_or(|d| now < d) {
            return false;
        }
        self.timeouts += 1;
        if self.ctl.probe_after.is_some_and(|n| self.timeouts >= n) {
            self.probing = true;
        }
        self.probe_due = self.probing;
        self.ssthresh = ((self.cwnd as u64 / 2) as f64).max(2.0);
        self.cwnd = 1.0;
        self.next = self.cum;
        self.rto_at = Some(now + self.ctl.rto);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WIRE: Wire = Wire { mss: 1000, header: 78 };
    const CTL: Control = Control { init_cwnd: 3, max_cwnd: 4, rto: Time::from_us(24), probe_after: Some(2) };

    fn indices(s: &mut Sender, now: Time) -> Vec<u64> {
        std::iter::from_fn(|| s.poll_transmit(now))
            .map(|o| match o.seg {
                Segment::Data { index } => index,
                Segment::Probe => u64::MAX,
                Segment::Ack { .. } => unreachable!("a sender sends no ACK"),
            })
            .collect()
    }

    #[test]
    fn the_window_counts_from_the_first_missing_packet_and_sacked_packets_are_not_resent() {
        let mut s = Sender::new(WIRE, CTL, 10_000);
        assert_eq!(indices(&mut s, Time::ZERO), vec![0, 1, 2]);
        // Packet 0 lost, 1 and 2 arrive: duplicate ACKs move nothing (no fast retransmit).
        s.on_ack(Time::ZERO, 0, Some(1));
        s.on_ack(Time::ZERO, 0, Some(2));
        assert_eq!(indices(&mut s, Time::ZERO), Vec::<u64>::new());
        assert_eq!(s.remaining(), 8_000, "SACKed bytes are no longer counted");
        // The timeout resends 0 alone (window 1), not the SACKed 1 and 2.
        assert!(!s.on_timeout(Time::from_us(23)), "not due yet");
        assert!(s.on_timeout(Time::from_us(24)));
        assert_eq!(indices(&mut s, Time::from_us(24)), vec![0]);
        s.on_ack(Time::from_us(30), 3, Some(0));
        // cwnd 2 (slow start from 1 after the timeout), from cum = 3.
        assert_eq!(indices(&mut s, Time::from_us(30)), vec![3, 4]);
        assert_eq!(s.deadline(), Some(Time::from_us(54)), "restarted by the ACK that moved cum");
    }

    #[test]
    fn consecutive_timeouts_lead_to_probes_and_an_ack_ends_them() {
        let mut s = Sender::new(WIRE, CTL, 3_000);
        assert_eq!(indices(&mut s, Time::ZERO), vec![0, 1, 2]);
        assert!(s.on_timeout(Time::from_us(24)));
        assert_eq!(indices(&mut s, Time::from_us(24)), vec![0], "first timeout: one packet again");
        assert!(s.on_timeout(Time::from_us(48)));
        assert!(s.is_probing());
        assert_eq!(indices(&mut s, Time::from_us(48)), vec![u64::MAX], "second: a probe instead of data");
        assert!(s.on_timeout(Time::from_us(72)));
        assert_eq!(indices(&mut s, Time::from_us(72)), vec![u64::MAX], "one probe per timeout");
        s.on_ack(Time::from_us(80), 1, None);
        assert!(!s.is_probing());
        assert_eq!(indices(&mut s, Time::from_us(80)), vec![1, 2], "slow start again from cum");
    }

    #[test]
    fn the_window_grows_to_its_ceiling_and_the_timer_stops_when_all_is_acknowledged() {
        let mut s = Sender::new(WIRE, CTL, 20_000);
        assert_eq!(indices(&mut s, Time::ZERO).len(), 3);
        for cum in 1..=3 {
            s.on_ack(Time::ZERO, cum, Some(cum - 1));
        }
        assert_eq!(s.cwnd(), 4.0, "slow start stops at max_cwnd");
        let sent = indices(&mut s, Time::ZERO);
        assert_eq!(sent, vec![3, 4, 5, 6]);
        s.on_ack(Time::ZERO, 7, Some(6));
        assert_eq!(s.deadline(), None, "nothing unacknowledged");
        assert_eq!(s.remaining(), 13_000);
    }
}
