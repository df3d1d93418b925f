//! Switch latency as a measured quantity (HULL §5.2, §6): how long packets wait at a
//! port, from joining its queue to starting on its link.
//!
//! Two recorders, both streaming into histograms:
//!
//! - **Probes** (`[[class]] probe = true`): the packets of a probe class record their wait
//!   at every port they cross, per (class, port). HULL's Latency Measurement Module
//!   timestamps a 1,500-byte ping every 1 ms as it enters and leaves the congested switch;
//!   a periodic probe class is that measurement. Each probe packet is matched by its
//!   message and header, so this is exact under any scheduler.
//! - **Every packet** (`[record] sojourn = <ports>`): every packet's wait at the selected
//!   ports. A port serves each of its queues in arrival order (the scenario refuses the
//!   schedulers and overflow verdicts that do not), so each queue's arrivals are matched
//!   to its departures in order, with no per-packet key.
//!
//! The wait excludes the packet's own serialization (store-and-forward adds one packet
//! time per hop whatever the queue); a packet that finds the port idle waits 0.
//! Histograms keep 3 significant digits in nanoseconds up to 100 s.

use super::Simulation;
use crate::net::ids::{ConnId, PortId};
use crate::net::packet::{Header, Packet};
use crate::sim::Time;
use hdrhistogram::Histogram;
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::collections::VecDeque;

/// Waits at one port (or of one probe class at one port).
#[derive(Clone)]
pub struct Waits {
    hist: Histogram<u64>,
    sum_ps: u128,
}

impl Default for Waits {
    fn default() -> Self {
        Waits { hist: Histogram::new_with_bounds(1, 100_000_000_000, 3).expect("valid bounds"), sum_ps: 0 }
    }
}

impl Waits {
    fn record(&mut self, wait: Time) {
        self.sum_ps += wait.ps() as u128;
        self.hist.saturating_record(wait.ps() / 1_000);
    }

    /// Count, mean and percentiles in µs (nearest rank, as the message statistics).
    pub fn stats(&self) -> SojournStats {
        let n = self.hist.len();
        let us = |q: f64| self.hist.value_at_quantile(q) as f64 / 1e3;
        SojournStats {
            count: n,
            mean_us: if n == 0 { 0.0 } else { self.sum_ps as f64 / n as f64 / 1e6 },
            p50_us: us(0.5),
            p90_us: us(0.9),
            p99_us: us(0.99),
            p999_us: us(0.999),
            max_us: self.hist.max() as f64 / 1e3,
        }
    }
}

/// What a port's (or a probe's) waits came to, µs.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SojournStats {
    pub count: u64,
    pub mean_us: f64,
    pub p50_us: f64,
    pub p90_us: f64,
    pub p99_us: f64,
    pub p999_us: f64,
    pub max_us: f64,
}

/// One recorded port: the arrival times waiting in each of its queues, and its waits.
#[derive(Default)]
struct PortWaits {
    waiting: Vec<VecDeque<Time>>,
    waits: Waits,
}

pub struct Recorder {
    /// Per port: recorded or not.
    ports: Vec<Option<Box<PortWaits>>>,
    /// Probe classes, by class index.
    probe: Vec<bool>,
    /// Arrival of each probe packet in a queue, by port, message and header.
    probe_waiting: FxHashMap<(PortId, ConnId, Header), Time>,
    /// Waits of probe packets, by (class index, port).
    probes: std::collections::BTreeMap<(usize, usize), Waits>,
}

impl Recorder {
    pub fn new(ports: usize, recorded: &[PortId], probe: Vec<bool>) -> Recorder {
        let mut p: Vec<Option<Box<PortWaits>>> = (0..ports).map(|_| None).collect();
        for id in recorded {
            p[id.index()] = Some(Box::default());
        }
        Recorder { ports: p, probe, probe_waiting: FxHashMap::default(), probes: Default::default() }
    }

    fn is_probe(&self, pkt: &Packet) -> bool {
        self.probe.get(pkt.class.index()).copied().unwrap_or(false)
    }

    /// Whether `enqueued` needs the queue a packet joins at port `p` (a recorded port).
    pub fn records(&self, p: PortId) -> bool {
        self.ports[p.index()].is_some()
    }

    /// `pkt` joined queue `q` of port `p` at `now` (`q`: only for recorded ports).
    pub fn enqueued(&mut self, p: PortId, q: Option<usize>, now: Time, pkt: &Packet) {
        if let (Some(port), Some(q)) = (self.ports[p.index()].as_mut(), q) {
            if port.waiting.len() <= q {
                port.waiting.resize_with(q + 1, VecDeque::new);
            }
            port.waiting[q].push_back(now);
        }
        if self.is_probe(pkt) {
            self.probe_waiting.insert((p, pkt.conn, pkt.hdr), now);
        }
    }

    /// `pkt` left queue `q` of port `p` for the wire at `now`.
    pub fn started(&mut self, p: PortId, q: Option<usize>, now: Time, pkt: &Packet) {
        if let (Some(port), Some(q)) = (self.ports[p.index()].as_mut(), q) {
            if let Some(arrived) = port.waiting.get_mut(q).and_then(VecDeque::pop_front) {
                port.waits.record(now - arrived);
            }
        }
        if self.is_probe(pkt) {
            if let Some(arrived) = self.probe_waiting.remove(&(p, pkt.conn, pkt.hdr)) {
                self.probes.entry((pkt.class.index(), p.index())).or_default().record(now - arrived);
            }
        }
    }

    /// The waits of port `p`, if recorded.
    pub fn port(&self, p: usize) -> Option<SojournStats> {
        self.ports[p].as_ref().map(|w| w.waits.stats())
    }

    /// Probe waits: (class index, port index, stats), by class then port.
    pub fn probes(&self) -> impl Iterator<Item = (usize, usize, SojournStats)> + '_ {
        self.probes.iter().map(|(&(c, p), w)| (c, p, w.stats()))
    }
}

impl Simulation {
    /// Records every packet's wait at the ports `recorded` (`[record] sojourn`) and the
    /// waits of the probe classes' packets at every port (`probe[class]`).
    pub fn record_sojourn(&mut self, recorded: &[PortId], probe: Vec<bool>) {
        if recorded.is_empty() && !probe.iter().any(|&p| p) {
            return;
        }
        self.sojourn = Some(Box::new(Recorder::new(self.net.ports.len(), recorded, probe)));
    }
}
