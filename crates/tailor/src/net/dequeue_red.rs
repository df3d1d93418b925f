//! ECN marking at dequeue on the instantaneous queue, per link rate, as the HPCC
//! authors' ns-3 programs' switches mark (their `SwitchMmu::ShouldSendCN`, keyed by the
//! `KMIN_MAP`, `KMAX_MAP` and `PMAX_MAP` of their config): `[switch] dequeue_red = {
//! kmin = "400KB", kmax = "1600KB", pmax = 0.2 }`, or one table per link rate, `[{ rate =
//! "100Gbps", kmin = ..., kmax = ..., pmax = ... }, ...]`, which must cover every rate
//! a switch port sends at.
//!
//! As a packet starts on the wire, x is the bytes left in its queue: above kmax the
//! packet is marked; above kmin it is marked with probability pmax·(x − kmin)/(kmax −
//! kmin); else not. This is DCQCN's CP (Zhu et al., SIGCOMM 2015, §3.1 and Fig. 5),
//! RED's ramp on the instantaneous queue with no average, applied at dequeue so the
//! mark reflects the queue the packet leaves behind. A mark sets CE on an ECN-capable
//! packet. Each port draws from its own stream of the scenario seed.

use super::marker::{Backlog, Departure, Marker};
use super::mechanism::{Configured, Installer, Keys, Mechanism, Parsed, Section};
use super::packet::{Ecn, Packet};
use super::port::PortRole;
use super::topology::{NetSpec, Shape};
use crate::input::units::show_rate;
use crate::input::Table;
use crate::sim::rng::{self, Stream};
use crate::sim::{Rate, Time};
use rand::Rng;
use std::sync::Arc;

/// One ramp: the thresholds in bytes and the marking probability at kmax.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Ramp {
    pub kmin: u64,
    pub kmax: u64,
    pub pmax: f64,
}

impl Ramp {
    /// The probability of marking a packet that leaves `x` bytes behind it.
    pub fn probability(&self, x: u64) -> f64 {
        if x > self.kmax {
            1.0
        } else if x > self.kmin {
            self.pmax * (x - self.kmin) as f64 / (self.kmax - self.kmin) as f64
        } else {
            0.0
        }
    }
}

/// The ramps: one for every switch port, or one per link rate.
#[derive(Clone, Debug, PartialEq)]
pub enum DequeueRedSpec {
    All(Ramp),
    ByRate(Vec<(Rate, Ramp)>),
}

impl DequeueRedSpec {
    fn ramp(&self, rate: Rate) -> Option<Ramp> {
        match self {
            DequeueRedSpec::All(r) => Some(*r),
            DequeueRedSpec::ByRate(v) => v.iter().find(|(r, _)| *r == rate).map(|(_, ramp)| *ramp),
        }
    }
}

pub struct DequeueRed {
    ramp: Ramp,
    rng: Stream,
}

impl Marker for DequeueRed {
    fn on_enqueue(&mut self, _now: Time, _backlog: Backlog, _pkt: &mut Packet) -> bool {
        false
    }

    fn on_dequeue(&mut self, _now: Time, dep: &mut Departure, pkt: &mut Packet) -> bool {
        if pkt.ecn() != Ecn::Ect {
            return false;
        }
        let p = self.ramp.probability(dep.queues.queue_bytes_of(pkt));
        let mark = p >= 1.0 || (p > 0.0 && self.rng.random::<f64>() < p);
        if mark {
            pkt.set_ecn(Ecn::Ce);
        }
        mark
    }

    fn sees_departures(&self) -> bool {
        true
    }
}

impl Configured for DequeueRedSpec {
    fn install(&self, net: &NetSpec, into: &mut dyn Installer) {
        for (i, port) in into.network().ports.iter_mut().enumerate() {
            if port.role == PortRole::HostNic {
                continue;
            }
            let ramp = self.ramp(port.rate).expect("parse checked that every switch port's rate has a ramp");
            let rng = rng::stream(net.seed, &format!("dequeue_red/{i}"));
            port.push_marker(Box::new(DequeueRed { ramp, rng }));
        }
    }
}

fn ramp(t: &mut Table) -> Result<Ramp, crate::input::ScenarioError> {
    let need = |t: &Table, key: &str, what: &str| t.error(key, format!("missing; accepted: {what}"));
    let kmin = t.size("kmin")?.ok_or_else(|| need(t, "kmin", "a size such as \"400KB\""))?;
    let kmax = t.size("kmax")?.ok_or_else(|| need(t, "kmax", "a size at or above kmin such as \"1600KB\""))?;
    if kmax < kmin {
        return Err(t.error("kmax", format!("is below kmin ({kmin} B); accepted: a size at or above kmin")));
    }
    let pmax = t.float("pmax", 0.0, 1.0)?.ok_or_else(|| need(t, "pmax", "a probability from 0 to 1"))?;
    Ok(Ramp { kmin, kmax, pmax })
}

fn parse(section: &mut Table, shape: &Shape) -> Parsed {
    if section.peek("dequeue_red").is_some_and(|v| v.is_table()) {
        let mut own = section.table("dequeue_red")?.expect("present");
        let r = ramp(&mut own)?;
        own.finish()?;
        return Ok(Arc::new(DequeueRedSpec::All(r)));
    }
    let tables = section.tables("dequeue_red")?;
    if tables.is_empty() {
        let m = "is empty; accepted: a table { kmin, kmax, pmax } or a list of them, each with the link rate it is for";
        return Err(section.error("dequeue_red", m));
    }
    let mut by_rate: Vec<(Rate, Ramp)> = Vec::new();
    for mut t in tables {
        let rate = t
            .rate("rate")?
            .ok_or_else(|| t.error("rate", "missing; accepted: the link rate this ramp is for, such as \"100Gbps\""))?;
        if by_rate.iter().any(|(r, _)| *r == rate) {
            return Err(t.error("rate", format!("{} is given twice; accepted: one ramp per rate", show_rate(rate))));
        }
        by_rate.push((rate, ramp(&mut t)?));
        t.finish()?;
    }
    for (_, link) in shape.links() {
        if !by_rate.iter().any(|(r, _)| *r == link.rate) {
            let have: Vec<String> = by_rate.iter().map(|(r, _)| show_rate(*r)).collect();
            let m = format!(
                "has no ramp for {}, a rate switch ports send at; accepted: a ramp for each link rate (given: {})",
                show_rate(link.rate),
                have.join(", ")
            );
            return Err(section.error("dequeue_red", m));
        }
    }
    Ok(Arc::new(DequeueRedSpec::ByRate(by_rate)))
}

/// The registry's entry (`net::mechanism`).
pub const MECHANISM: Mechanism = Mechanism {
    name: "dequeue_red",
    about: "ECN marking at dequeue on the instantaneous queue, per link rate (DCQCN's CP; the HPCC programs' KMIN/KMAX/PMAX)",
    used: |_| None,
    model_refuses: Some("the model marks the queue against q0 (a step), not a probability ramp at dequeue; accepted: --engine packet, or no dequeue_red"),
    install: None,
    oracle_refuses: None,
    decomposed_refuses: None,
    keys: &[Keys { section: Section::Switch, keys: &["dequeue_red"], parse }],
    link_keys: None,
    marks_at: None,
    report: None,
};

#[cfg(test)]
mod tests {
    use super::*;

    /// The programs' 100 Gb/s ramp: kmin 400 KB, kmax 1,600 KB, pmax 0.2.
    #[test]
    fn the_ramp_is_linear_between_kmin_and_kmax_then_certain() {
        let r = Ramp { kmin: 400_000, kmax: 1_600_000, pmax: 0.2 };
        assert_eq!(r.probability(400_000), 0.0);
        assert!((r.probability(1_000_000) - 0.1).abs() < 1e-12);
        assert!((r.probability(1_600_000) - 0.2).abs() < 1e-12);
        assert_eq!(r.probability(1_600_001), 1.0);
        // DCTCP's preset: kmin = kmax, pmax 1: a step above K.
        let step = Ramp { kmin: 30_000, kmax: 30_000, pmax: 1.0 };
        assert_eq!((step.probability(30_000), step.probability(30_001)), (0.0, 1.0));
    }
}
