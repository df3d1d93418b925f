//! A switch memory that admits packets by the port they came in through and holds senders
//! back with MAC control frames: what the engine knows of PFC (`net::pfc`, docs/pfc.md)
//! without naming it, as it reaches every mechanism through the registry.
//!
//! The engine tells the memory each counted packet that joins or leaves a switch port,
//! sends the control frames it asks for ahead of the port's queue, and at the far end of
//! the link applies what a frame says to the port there (`Port::paused`). When a hold
//! takes effect, or a held ingress loses its last byte at a port, it asks whether the
//! held port can ever move again.

use super::ids::PortId;
use super::mechanism::Fields;
use super::packet::Packet;
use super::Network;
use crate::sim::Time;

/// What a departure released.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Released {
    /// The port the packet came in through.
    pub ingress: PortId,
    /// A frame that port must now send (a RESUME).
    pub frame: Option<Packet>,
    /// The ingress still holds its sender and no longer has bytes at this egress: a hold
    /// may have become permanent.
    pub recheck: bool,
}

/// Ports holding each other in a cycle, none of which can move again.
#[derive(Clone, Debug, PartialEq)]
pub struct Stuck {
    pub at: Time,
    pub priority: u8,
    /// The held ports of the cycle, each waiting for the next one's switch to drain.
    pub ports: Vec<PortId>,
}

/// A memory's counters by port and priority (`Memory::table`).
pub struct Table {
    pub file: &'static str,
    pub header: &'static str,
    /// Per port: its rows' cells after the port, node and role columns.
    pub rows: Vec<Vec<String>>,
}

pub trait Memory: Send {
    /// Whether it counts `pkt` (a lossless priority's, not a control frame).
    fn counts(&self, pkt: &Packet) -> bool;
    /// Whether the switch takes counted `pkt` in through `ingress` (a refusal is a drop).
    fn admit(&mut self, ingress: PortId, pkt: &Packet) -> bool;
    /// Counted `pkt`, in through `ingress`, joined queue `queue` of `egress`: the frame
    /// `ingress` must now send, if any (a PAUSE).
    fn enqueued(&mut self, ingress: PortId, egress: PortId, queue: usize, pkt: &Packet) -> Option<Packet>;
    /// Counted `pkt` left queue `queue` of `egress`.
    fn dequeued(&mut self, egress: PortId, queue: usize, pkt: &Packet) -> Released;
    /// A control frame reached `port` at `now`: the priority it holds (true) or releases.
    fn landed(&mut self, now: Time, port: PortId, frame: &Packet) -> (u8, bool);
    /// The cycle that holds `port` (held for `priority`) forever, if there is one.
    fn stuck(&self, net: &Network, port: PortId, priority: u8) -> Option<Vec<PortId>>;
    /// Keeps what `stuck` found, for the report.
    fn record(&mut self, stuck: Stuck);
    /// Closes what is still open at the end of the run.
    fn settle(&mut self, now: Time);
    /// Its counters (summary.json's `network.<its name>`).
    fn report(&self) -> Fields;
    /// Its counters per port and priority, for a file beside ports.csv: the file's name,
    /// its header, and for every port the row of each priority it counts, after the port,
    /// node and role columns the caller writes.
    fn table(&self) -> Table;
    /// For a reader of its own counters (tests, a mechanism's report).
    fn as_any(&self) -> &dyn std::any::Any;
}
