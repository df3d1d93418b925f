//! Markers: pipeline stages that look at (and may mark) each packet a port admits.
//!
//! The DCTCP step marker (Alizadeh et al., SIGCOMM 2010, §3.1; RFC 8257 §3.1) sets CE
//! on an ECN-capable packet when the instantaneous backlog it finds on arrival, not
//! counting itself, is at least K bytes. Phantom queues (HULL §4) implement the same
//! trait: they see every admitted packet and keep their own virtual backlog.

use super::packet::{Ecn, Packet};
use crate::sim::Time;

pub trait Marker: Send {
    /// Called for each admitted packet before it joins the queue; `backlog` is the
    /// bytes already waiting at the port. Returns true if the packet was marked.
    fn on_enqueue(&mut self, now: Time, backlog: u64, pkt: &mut Packet) -> bool;
}

/// Sets CE when the backlog found on arrival is at least `threshold` bytes.
pub struct EcnStep {
    pub threshold: u64,
}

impl Marker for EcnStep {
    fn on_enqueue(&mut self, _now: Time, backlog: u64, pkt: &mut Packet) -> bool {
        if backlog >= self.threshold && pkt.ecn == Ecn::Ect {
            pkt.ecn = Ecn::Ce;
            return true;
        }
        false
    }
}
