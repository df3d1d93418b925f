//! Markers: pipeline stages that look at (and may mark) each packet a port admits, and
//! each packet it puts on the wire.
//!
//! The DCTCP step marker (Alizadeh et al., SIGCOMM 2010, §3.1; RFC 8257 §3.1) sets CE
//! on an ECN-capable packet when the instantaneous backlog it finds on arrival, not
//! counting itself, is at least K bytes. Phantom queues (HULL §4) implement the same
//! trait: they see every admitted packet and every departure, and keep their own virtual
//! backlog. HPCC's INT stamp is a departure stage (`int::IntStamp`).

use super::ids::PortId;
use super::int;
use super::packet::{Ecn, Packet};
use super::sched::Scheduler;
use crate::sim::{Rate, Time};

/// What an arriving packet finds waiting: at the whole port and in its own queue.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Backlog {
    pub port: u64,
    pub queue: u64,
}

/// What a departing packet leaves behind: the port, its queues once the packet is out
/// of them, the bytes the port sent before it, and the network's INT pool.
pub struct Departure<'a> {
    pub port: PortId,
    pub rate: Rate,
    pub tx_bytes: u64,
    pub queues: &'a dyn Scheduler,
    pub int: &'a mut int::Pool,
}

pub trait Marker: Send {
    /// Called for each admitted packet before it joins its queue. Returns true if the
    /// packet was marked.
    fn on_enqueue(&mut self, now: Time, backlog: Backlog, pkt: &mut Packet) -> bool;
    /// Called for each packet as it starts on the link, if `sees_departures`. Returns
    /// true if it was marked.
    fn on_dequeue(&mut self, now: Time, dep: &mut Departure, pkt: &mut Packet) -> bool {
        let _ = (now, dep, pkt);
        false
    }
    /// Whether it looks at departures (a port calls only those that do: a call per packet
    /// costs ~4 % of a DCTCP run).
    fn sees_departures(&self) -> bool {
        false
    }
    /// The marker itself, for a port that holds a common marker by value (`Stage`);
    /// None: it stays boxed.
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }
}

/// A marker stage as a port holds it: DCTCP's step (the marker of most ports that mark)
/// in the port itself, any other boxed. The box was a cache line fetched from memory on
/// every packet at a thousand hosts (docs/performance.md, "A thousand hosts").
/// Dereferences to the marker.
pub enum Stage {
    Step(EcnStep),
    Boxed(Box<dyn Marker>),
}

impl Stage {
    pub fn new(m: Box<dyn Marker>) -> Stage {
        match m.as_any().and_then(|a| a.downcast_ref::<EcnStep>()) {
            Some(step) => Stage::Step(step.clone()),
            None => Stage::Boxed(m),
        }
    }
}

impl std::ops::Deref for Stage {
    type Target = dyn Marker;
    fn deref(&self) -> &(dyn Marker + 'static) {
        match self {
            Stage::Step(s) => s,
            Stage::Boxed(b) => b.as_ref(),
        }
    }
}

impl std::ops::DerefMut for Stage {
    fn deref_mut(&mut self) -> &mut (dyn Marker + 'static) {
        match self {
            Stage::Step(s) => s,
            Stage::Boxed(b) => b.as_mut(),
        }
    }
}

/// Sets CE when the backlog found on arrival is at least the threshold: the port's
/// backlog against `port`, or — for a class with its own threshold in `per_class` — the
/// backlog of that class's queue (per-queue ECN, SWP's per-class signals).
#[derive(Clone, Debug)]
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
        if over && pkt.ecn() == Ecn::Ect {
            pkt.set_ecn(Ecn::Ce);
            return true;
        }
        false
    }
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}
