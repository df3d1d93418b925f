//! Switch agents: a per-switch hook at ingress and egress (PL2's ToR agent hands out
//! timeslots).
//!
//! An agent sees each packet that arrives at its switch before the switch forwards it,
//! and may forward it (possibly rewritten), consume it or drop it; it sees each packet as
//! it leaves one of the switch's ports (a P4 egress pipeline); it may also emit packets
//! of its own, which the switch routes like any other, and arm timers. Like an endpoint,
//! it never sees the event queue: the engine feeds it and polls it.

use super::ids::SwitchId;
use super::packet::Packet;
use crate::sim::{Time, TimerKey};

/// What happens to an arriving packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ingress {
    /// The switch forwards it (as the agent left it).
    Forward,
    /// The agent keeps it: it goes no further (counted as delivered to the switch).
    Consume,
    /// The agent drops it (counted among the network's drops: PL2's unsolicited packets
    /// beyond the threshold).
    Drop,
}

/// `Any`: a mechanism's report reads its own agents' counters by downcasting
/// (`net::mechanism::Ran`).
pub trait SwitchAgent: std::any::Any + Send {
    /// A packet arrived at `switch`.
    fn on_arrival(&mut self, now: Time, switch: SwitchId, pkt: &mut Packet) -> Ingress;
    /// A packet starts its transmission from one of `switch`'s ports (it has left the
    /// port's queue).
    fn on_departure(&mut self, now: Time, switch: SwitchId, pkt: &Packet) {
        let _ = (now, switch, pkt);
    }
    /// A timer this agent armed fired.
    fn on_timer(&mut self, now: Time, key: TimerKey);
    /// A packet the agent sends from its switch.
    fn poll_emit(&mut self) -> Option<Packet>;
    /// A timer to arm.
    fn poll_timer(&mut self) -> Option<(TimerKey, Time)>;
}
