//! RED marking (Floyd and Jacobson, "Random Early Detection Gateways for Congestion
//! Avoidance", IEEE/ACM ToN 1993, §4 and Fig. 2) at every switch port: `[switch] red =
//! { min = "20KB", max = "60KB", max_p = 0.1, weight = 0.002 }`.
//!
//! At each arriving packet the port's average queue is updated as an EWMA of the backlog
//! it finds, `avg ← (1 − w)·avg + w·q`; after the port was idle, `avg ← (1 − w)^m·avg`
//! first, m the packets of 1,500 B its link could have sent while idle (§4's `f(time −
//! q_time)`). Below `min` nothing is marked; at or above `max` every ECN-capable packet
//! is; between, the packet is marked with `p_a = p_b / (1 − count·p_b)`, `p_b = max_p·(avg
//! − min)/(max − min)`, count the packets since the last mark, which spaces marks evenly
//! rather than geometrically. A mark sets CE on an ECN-capable packet; a packet that is not
//! ECN-capable passes (RED's drops are the buffer's here: this is its marking only). Each
//! port draws from its own stream of the scenario seed, so runs repeat exactly.

use super::marker::{Backlog, Departure, Marker};
use super::mechanism::{own_table, Configured, Installer, Keys, Mechanism, Parsed, Section};
use super::packet::{Ecn, Packet};
use super::port::PortRole;
use super::topology::{NetSpec, Shape};
use crate::input::Table;
use crate::sim::rng::{self, Stream};
use crate::sim::{Rate, Time};
use rand::Rng;
use std::sync::Arc;

/// RED's parameters (§4's min_th, max_th, max_p, w_q).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RedSpec {
    pub min: u64,
    pub max: u64,
    pub max_p: f64,
    pub weight: f64,
}

/// The size of a typical packet, for the idle decay's m.
const TYPICAL_PACKET: u64 = 1_500;

/// One port's RED state.
pub struct Red {
    spec: RedSpec,
    avg: f64,
    /// Packets since the last mark while avg was between the thresholds (−1: below min).
    count: i64,
    /// When the port last went empty, and its link's rate (None: it is not idle).
    idle_since: Option<(Time, Rate)>,
    rng: Stream,
}

impl Red {
    pub fn new(spec: RedSpec, rng: Stream) -> Red {
        Red { spec, avg: 0.0, count: -1, idle_since: Some((Time::ZERO, Rate::from_gbps(1))), rng }
    }

    /// The average queue after a packet that finds `q` bytes arrives at `now`.
    pub fn average(&mut self, now: Time, q: u64) -> f64 {
        let w = self.spec.weight;
        if let (0, Some((since, rate))) = (q, self.idle_since) {
            let m = rate.bytes_in(now - since) as f64 / TYPICAL_PACKET as f64;
            self.avg *= (1.0 - w).powf(m);
        }
        self.idle_since = None;
        self.avg = (1.0 - w) * self.avg + w * q as f64;
        self.avg
    }

    /// The probability of marking the packet at average `avg` with `count` unmarked
    /// packets before it (after `count` was incremented for it): Fig. 2's p_a.
    pub fn probability(&self, avg: f64, count: i64) -> f64 {
        let RedSpec { min, max, max_p, .. } = self.spec;
        if avg < min as f64 {
            return 0.0;
        }
        if avg >= max as f64 {
            return 1.0;
        }
        let pb = max_p * (avg - min as f64) / (max - min) as f64;
        let left = 1.0 - count as f64 * pb;
        if left <= pb {
            1.0
        } else {
            (pb / left).min(1.0)
        }
    }

    /// Whether the packet that finds `q` bytes at `now` is marked (Fig. 2).
    pub fn decide(&mut self, now: Time, q: u64) -> bool {
        let avg = self.average(now, q);
        if avg < self.spec.min as f64 {
            self.count = -1;
            return false;
        }
        self.count += 1;
        let p = self.probability(avg, self.count);
        let mark = p >= 1.0 || self.rng.random::<f64>() < p;
        if mark {
            self.count = 0;
        }
        mark
    }
}

impl Marker for Red {
    fn on_enqueue(&mut self, now: Time, backlog: Backlog, pkt: &mut Packet) -> bool {
        if self.decide(now, backlog.port) && pkt.ecn() == Ecn::Ect {
            pkt.set_ecn(Ecn::Ce);
            return true;
        }
        false
    }

    fn on_dequeue(&mut self, now: Time, dep: &mut Departure, _pkt: &mut Packet) -> bool {
        if dep.queues.bytes() == 0 {
            self.idle_since = Some((now, dep.rate));
        }
        false
    }

    fn sees_departures(&self) -> bool {
        true
    }
}

impl Configured for RedSpec {
    fn install(&self, net: &NetSpec, into: &mut dyn Installer) {
        for (i, port) in into.network().ports.iter_mut().enumerate() {
            if port.role != PortRole::HostNic {
                port.push_marker(Box::new(Red::new(*self, rng::stream(net.seed, &format!("red/{i}")))));
            }
        }
    }
}

fn parse(section: &mut Table, _shape: &Shape) -> Parsed {
    let mut own = own_table(section, "red")?;
    let t = &mut own;
    let need = |t: &Table, key: &str, what: &str| t.error(key, format!("missing; accepted: {what}"));
    let min = t.size("min")?.ok_or_else(|| need(t, "min", "a size such as \"20KB\""))?;
    let max = t.size("max")?.ok_or_else(|| need(t, "max", "a size above min such as \"60KB\""))?;
    if max <= min {
        return Err(t.error("max", format!("is not above min ({min} B); accepted: a size above min")));
    }
    let max_p = t.float("max_p", 1e-6, 1.0)?.unwrap_or(0.1);
    let weight = t.float("weight", 1e-6, 1.0)?.unwrap_or(0.002);
    own.finish()?;
    Ok(Arc::new(RedSpec { min, max, max_p, weight }))
}

/// The registry's entry (`net::mechanism`).
pub const MECHANISM: Mechanism = Mechanism {
    name: "red",
    about: "RED's ECN marking on the average queue at every switch port (Floyd & Jacobson 1993)",
    used: |_| None,
    model_refuses: Some("the model marks the queue against q0 (a step), not RED's averaged probability; accepted: --engine packet, or no red"),
    install: None,
    oracle_refuses: None,
    decomposed_refuses: None,
    keys: &[Keys { section: Section::Switch, keys: &["red"], parse }],
    link_keys: None,
    marks_at: None,
    report: None,
};

#[cfg(test)]
mod tests {
    use super::*;

    fn red(weight: f64) -> Red {
        Red::new(RedSpec { min: 10_000, max: 30_000, max_p: 0.1, weight }, rng::stream(1, "red-test"))
    }

    #[test]
    fn probabilities_are_fig_2s_by_hand() {
        let r = red(0.002);
        // avg 20 KB: p_b = 0.1 · (20 − 10)/(30 − 10) = 0.05.
        assert_eq!(r.probability(20_000.0, 0), 0.05);
        // p_a = 0.05 / (1 − 10 · 0.05) = 0.1; at count 19, 1 − 0.95 = 0.05 ≤ p_b: certain.
        assert!((r.probability(20_000.0, 10) - 0.1).abs() < 1e-12);
        assert_eq!(r.probability(20_000.0, 19), 1.0);
        // avg 25 KB: p_b = 0.075; count 4: 0.075 / 0.7.
        assert!((r.probability(25_000.0, 4) - 0.075 / 0.7).abs() < 1e-12);
        assert_eq!(r.probability(9_999.0, 50), 0.0);
        assert_eq!(r.probability(30_000.0, 0), 1.0);
    }

    #[test]
    fn the_average_is_an_ewma_that_decays_while_idle() {
        let mut r = red(0.5);
        let t = Time::from_us(1);
        assert_eq!(r.average(t, 1_000), 500.0);
        assert_eq!(r.average(t, 1_000), 750.0);
        // Idle for 12 µs at 1 Gbps: 1,500 B = 12 µs, so m = 1 and avg halves first.
        r.idle_since = Some((Time::from_us(2), Rate::from_gbps(1)));
        assert_eq!(r.average(Time::from_us(14), 0), 750.0 * 0.5 * 0.5);
    }

    #[test]
    fn at_a_steady_average_marks_are_evenly_spaced_at_the_rate_fig_2_gives() {
        // With w = 1 the average is the queue: 20 KB gives p_b = 0.05, and the gap
        // between marks is uniform on 1..=19 (Fig. 2 counts from 1 after a mark: §7), a rate
        // of 1/10.
        let mut r = red(1.0);
        let n = 200_000;
        let marks = (0..n).filter(|_| r.decide(Time::from_us(1), 20_000)).count();
        let rate = marks as f64 / n as f64;
        assert!((rate - 0.1).abs() < 0.002, "{rate}");
    }
}
