//! Markers: pipeline stages that look at (and may mark) each packet a port admits.
//!
//! The DCTCP step marker (Alizadeh et al., SIGCOMM 2010, §3.1; RFC 8257 §3.1) sets CE
//! on an ECN-capable packet when the instantaneous backlog it finds on arrival, not
//! counting itself, is at least K bytes. Phantom queues (HULL §4) implement the same
//! trait: they see every admitted packet and keep their own virtual backlog.

use super::packet::{Ecn, Packet};
use crate::sim::Time;

/// What an arriving packet finds waiting: at the whole port and in its own queue.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Backlog {
    pub port: u64,
    pub queue: u64,
}

pub trait Marker: Send {
    /// Called for each admitted packet before it joins its queue. Returns true if the
    /// packet was marked.
    fn on_enqueue(&mut self, now: Time, backlog: Backlog, pkt: &mut Packet) -> bool;
}

/// Sets CE when the backlog found on arrival is at least the threshold: the port's
/// backlog against `port`, or — for a class with its own threshold in `per_class` — the
/// backlog of that class's queue (per-queue ECN, SWP's per-class signals).
pub struct EcnStep {
    pub port: Option<u64>,
    pub per_class: Vec<Option<u64>>,
}

impl EcnStep {
    pub fn port(threshold: u64) -> Self {
        EcnStep { port: Some(threshold), per_class: Vec::new() }
    }
}

impl Marker for EcnStep {
    fn on_enqueue(&mut self, _now: Time, backlog: Backlog, pkt: &mut Packet) -> bool {
        let over = match self.per_class.get(pkt.class.index()).copied().flatten() {
            Some(k) => backlog.queue >= k,
            None => self.port.is_some_and(|k| backlog.port >= k),
        };
        if over && pkt.ecn == Ecn::Ect {
            pkt.ecn = Ecn::Ce;
            return true;
        }
        false
    }
}
