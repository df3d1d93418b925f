//! The phantom queue (HULL, Alizadeh et al. NSDI 2012, §2.1 and §5.1; Table 3).
//!
//! A phantom queue is a counter in series with a port's link, not a queue: it simulates
//! the backlog of a virtual link draining at γ·C (`drain`, below the line rate C) that
//! every packet leaving the port crosses, and sets CE on ECN-capable packets while that
//! virtual backlog is at or above its threshold. Marks then come from utilization, before
//! any real queue forms, which leaves the "bandwidth headroom" (1 − γ)·C.
//!
//! Counter semantics (the paper's NetFPGA increments the counter per packet and
//! decrements it by the drain rate every 800 ns; this is the exact, continuous form):
//!
//! - the counter sees a packet when the port starts putting it on the link (a departure
//!   stage: it is in series with the port, so it sees the line-rate output, never the
//!   input burst);
//! - at each packet it first drains: `v ← max(0, v − γC·(t − t_last))`, so an idle port
//!   drains it to zero, floored there, and an idle period costs no event;
//! - then it compares: the packet is marked if `v ≥ threshold`, the virtual backlog the
//!   packet finds ahead of it (as DCTCP's step marker compares the real backlog found on
//!   arrival, not counting the packet: with Table 3's 1 KB threshold and 1,500-byte
//!   packets, counting the packet itself would mark every packet);
//! - then it adds the packet's wire bytes.
//!
//! Arithmetic is exact: the counter is held in bit-picoseconds (bytes × 8 × 10^12), so
//! draining `γC·dt` is an integer product (`drain_bps × dt_ps`) and no rounding drifts
//! over a long run. A port with a phantom queue does no physical-queue marking (the
//! scenario reader and the topology builder install one or the other).

use super::marker::{Backlog, Departure, Marker};
use super::packet::{Ecn, Packet};
use crate::sim::{Rate, Time};

/// Bit-picoseconds per byte: the unit of the counter.
const BYTE: u128 = 8 * 1_000_000_000_000;

/// How fast a phantom queue drains: a fraction γ of the port's rate, or a rate.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Drain {
    Fraction(f64),
    Rate(Rate),
}

impl Drain {
    /// The drain rate on a port of rate `line`.
    pub fn on(self, line: Rate) -> Rate {
        match self {
            Drain::Fraction(g) => Rate::from_bps(((line.bps() as f64 * g).round() as u64).max(1)),
            Drain::Rate(r) => r,
        }
    }
}

/// The phantom queue's settings (`drain`, `threshold`), as a scenario gives them.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PhantomSpec {
    pub drain: Drain,
    pub threshold: u64,
}

/// One port's phantom queue.
pub struct PhantomQueue {
    drain: Rate,
    threshold: u128,
    /// The virtual backlog in bit-picoseconds, as of `last`.
    v: u128,
    last: Time,
}

impl PhantomQueue {
    pub fn new(drain: Rate, threshold: u64) -> PhantomQueue {
        PhantomQueue { drain, threshold: threshold as u128 * BYTE, v: 0, last: Time::ZERO }
    }

    /// Drains the counter up to `now`.
    fn drain_to(&mut self, now: Time) {
        let dt = now.ps().saturating_sub(self.last.ps()) as u128;
        self.v = self.v.saturating_sub(self.drain.bps() as u128 * dt);
        self.last = self.last.max(now);
    }

    /// The virtual backlog in bytes (rounded down) as of the last packet.
    pub fn backlog_bytes(&self) -> u64 {
        (self.v / BYTE) as u64
    }

    /// A packet of `bytes` leaves at `now`: drain, compare, add. True if the virtual
    /// backlog it found was at or above the threshold.
    pub fn depart(&mut self, now: Time, bytes: u64) -> bool {
        self.drain_to(now);
        let over = self.v >= self.threshold;
        self.v += bytes as u128 * BYTE;
        over
    }
}

impl Marker for PhantomQueue {
    fn on_enqueue(&mut self, _now: Time, _backlog: Backlog, _pkt: &mut Packet) -> bool {
        false
    }
    fn on_dequeue(&mut self, now: Time, _dep: &mut Departure, pkt: &mut Packet) -> bool {
        let over = self.depart(now, pkt.wire_bytes as u64);
        if over && pkt.ecn() == Ecn::Ect {
            pkt.set_ecn(Ecn::Ce);
            return true;
        }
        false
    }
    fn sees_departures(&self) -> bool {
        true
    }
}

/// The registry's entry (`net::mechanism`): `topology::build` places the queues from
/// `[switch] phantom` and the links' `phantom`.
pub const MECHANISM: super::mechanism::Mechanism = super::mechanism::Mechanism {
    name: "phantom",
    about: "HULL's phantom queues: ECN marks from a virtual link draining below line rate",
    used: |net| {
        if net.phantom.is_some() {
            return Some("switch.phantom".into());
        }
        let mut links = net.shape.links().into_iter();
        links.find(|(_, l)| matches!(l.phantom, super::topology::LinkPhantom::Set(_))).map(|(key, _)| format!("topology.{key}.phantom"))
    },
    model_refuses: Some("the model has no phantom queues (its marking is the real queue's against q0); accepted: --engine packet, or no phantom queue"),
    install: None,
    oracle_refuses: None,
    keys: None,
    report: None,
};

#[cfg(test)]
mod tests {
    use super::*;

    /// A train of 1,500-byte packets at line rate (1 Gbps: one every 12 µs) into a phantom
    /// queue draining at 950 Mbps with a 1 KB threshold (HULL's Table 3). Each packet adds
    /// 1,500 B and the 12 µs until the next drains 1,425 B: the counter grows by 75 B a
    /// packet. By hand: after packet 1 it holds 1,500 B; packet 2 finds 75 B (drained
    /// 1,425), so it is not marked … every packet finds 75·(k−1) B, so packet k is marked
    /// once 75·(k−1) ≥ 1,000, i.e. from packet 15 (k − 1 = 14: 1,050 B) on.
    #[test]
    fn a_line_rate_train_is_marked_from_the_packet_that_finds_the_threshold() {
        let line = Rate::from_gbps(1);
        let mut pq = PhantomQueue::new(Drain::Fraction(0.95).on(line), 1_000);
        let gap = line.ser(1_500);
        assert_eq!(gap, Time::from_us(12));
        let marks: Vec<bool> = (0..20).map(|k| pq.depart(Time::from_ps(gap.ps() * k), 1_500)).collect();
        let first = marks.iter().position(|&m| m).unwrap();
        assert_eq!(first, 14, "packet 15 (index 14) finds 1,050 B");
        assert!(marks[first..].iter().all(|&m| m), "the counter only grows while the train lasts");
        // After packet 20 the counter holds 19·75 + 1,500 = 2,925 B.
        assert_eq!(pq.backlog_bytes(), 2_925);
    }

    /// Gaps wider than the drain time empty the counter (floored at zero, no negative
    /// credit): packets spaced at the drain rate or slower are never marked.
    #[test]
    fn traffic_below_the_drain_rate_is_never_marked_and_idle_drains_to_zero() {
        let line = Rate::from_gbps(10);
        let mut pq = PhantomQueue::new(Drain::Fraction(0.9).on(line), 1);
        // Threshold 1 B: a packet is marked iff it finds any virtual backlog at all.
        let drain_time = Drain::Fraction(0.9).on(line).ser(1_500);
        let mut t = Time::ZERO;
        for _ in 0..100 {
            assert!(!pq.depart(t, 1_500));
            t += drain_time;
        }
        // One packet a hair early finds a few bytes left.
        assert!(pq.depart(t - Time::from_ps(1_000), 1_500));
        // A long idle period: empty again, not negative.
        assert!(!pq.depart(t + Time::from_ms(10), 1_500));
        assert_eq!(pq.backlog_bytes(), 1_500);
    }

    #[test]
    fn a_drain_given_as_a_rate_is_used_as_is() {
        assert_eq!(Drain::Rate(Rate::from_bps(950_000_000)).on(Rate::from_gbps(10)).bps(), 950_000_000);
        assert_eq!(Drain::Fraction(0.95).on(Rate::from_gbps(10)).bps(), 9_500_000_000);
    }
}
