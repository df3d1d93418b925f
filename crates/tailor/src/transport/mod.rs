//! Transports as sans-IO state machines, one endpoint per host (quinn-proto style).
//!
//! A transport is two things:
//! - a [`Transport`]: its configuration, read from a scenario table by its registry
//!   entry (`registry`), which builds endpoints, computes a message's ideal latency and
//!   tells the fast model and the advisor what they need to know of it;
//! - an [`Endpoint`] per host that uses it: one state machine that sees all of its
//!   host's messages of that transport. It is fed inputs — a message to send, a packet
//!   that arrived, one of its own timers that fired — with the current time, and polled
//!   for outputs: its next packet (only when its host's NIC has room), timers to arm, and
//!   the messages it completed. It never sees the event queue or the network, so tests
//!   drive it with scripted exchanges (`tcp::tests`, `raw`).
//!
//! Adding a transport is a folder here and a line in `registry::TRANSPORTS`
//! (docs/architecture.md, "Add a transport"; `raw` is the worked example).

pub mod homa;
pub mod ndp;
pub mod path;
pub mod pfabric;
pub mod phost;
pub mod pias;
pub mod pl2;
pub mod raw;
pub mod rdma;
pub mod rds;
pub mod registry;
mod slab;
pub mod tcp;
#[cfg(test)]
mod test_support;
pub mod workers;

use crate::net::ids::{ClassId, ConnId, HostId};
use crate::net::int::Stack;
use crate::net::packet::{Ecn, Flags, Header, Packet, Priority};
use crate::net::topology::NetSpec;
use crate::sim::Time;
use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// A transport's configuration as a scenario gives it; shared by every endpoint it builds.
pub type TransportConfig = Arc<dyn Transport>;

/// A configured transport.
pub trait Transport: fmt::Debug + Send + Sync {
    /// Its `kind` in a scenario's `[transport]` table (and in `summary.json`).
    fn name(&self) -> &'static str;
    /// The endpoint of one host.
    fn endpoint(&self, host: HostId) -> Box<dyn Endpoint>;
    /// The latency of a message of `size` bytes alone in the empty network on `path`
    /// (DESIGN.md, "Ideal latency and slowdown").
    fn ideal(&self, path: &path::Path, size: u64) -> Time;
    /// True if its packets collect in-band telemetry (the ports then stamp it).
    fn collects_telemetry(&self) -> bool {
        false
    }
    /// True if its endpoints obey PFC's pauses themselves (`Endpoint::on_pause`): the
    /// engine then tells them, rather than holding their host's NIC queue (the RDMA NIC
    /// checks a queue pair's priority before it builds a packet).
    fn obeys_pause(&self) -> bool {
        false
    }
    /// True if its endpoints keep persistent connections (`Message::channel`: a class's
    /// `connections`); otherwise every message goes on a connection of its own.
    fn persistent_connections(&self) -> bool {
        false
    }
    /// Bytes on the wire of its largest packet (a full data packet, headers and framing
    /// included): a buffer, queue limit or token bucket smaller than this passes none of
    /// its full packets, and the scenario refuses one.
    fn full_packet(&self) -> u64;
    /// Message bytes a full data packet carries (its segment's payload): the decomposition
    /// counts a message's packets with it (`decomposed::solo`). Without a value of its own,
    /// `full_packet`, which counts no more packets than the transport sends.
    fn segment_payload(&self) -> u64 {
        self.full_packet()
    }
    /// The largest send its segmentation offload hands the NIC at once (`lso`), if it
    /// has one: a packet-timing mechanism the fluid model does not have.
    fn segmentation_offload(&self) -> Option<u64> {
        None
    }
    /// The same transport on links `factor` times faster than `net`'s (the advisor's
    /// re-check): what is sized in packets or bytes per round trip scales with the links.
    fn scaled(&self, factor: f64, net: &NetSpec) -> TransportConfig;
    /// The congestion-control family the SWP fast model has a preset for, if any.
    fn model_family(&self) -> Option<ModelFamily> {
        None
    }
    /// The transport configured for the traffic it will carry, if it depends on it (Homa
    /// derives its priority levels and cutoffs from the message sizes, §3.4): called once
    /// by the scenario after the classes are read; Err says why it cannot (the scenario
    /// reports it at the transport's table).
    fn bind(&self, traffic: &Traffic) -> Result<Option<TransportConfig>, String> {
        let _ = traffic;
        Ok(None)
    }
    /// Bytes it puts on the wire for one message of `size` bytes in the empty network,
    /// both ways, headers and control packets included, retransmissions not: what a load
    /// given on the wire (`load_basis = "wire"`) counts. None if it does not say.
    fn wire_bytes(&self, size: u64) -> Option<f64> {
        let _ = size;
        None
    }
    /// How it puts a message of `size` bytes on the wire when alone: its data packets in
    /// the order it sends them, as runs of equal packets, control packets left out. For
    /// engines that place packets themselves (the SRPT oracle, `crate::oracle`). A
    /// transport that answers promises that its `ideal` is its source's transmit delay
    /// plus these packets' store-and-forward pipeline on the forward path (the last
    /// byte's arrival), so that a message sent alone back to back meets its ideal. None
    /// if it does not say, or its ideal is more than that (TCP's waits for the last ACK).
    fn frames(&self, size: u64) -> Option<Vec<Frames>> {
        let _ = size;
        None
    }
    /// What it chose for this run that a reader needs to see (Homa's levels and cutoffs),
    /// for `summary.json`'s `transport_settings`; Null when nothing.
    fn settings(&self) -> serde_json::Value {
        serde_json::Value::Null
    }
    /// For tests and tools that need the concrete configuration.
    fn as_any(&self) -> &dyn Any;
}

/// A run of `count` equal data packets of a message (`Transport::frames`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Frames {
    pub count: u64,
    /// Message bytes each carries.
    pub payload: u32,
    /// Bytes each puts on the wire, headers and framing included.
    pub wire: u32,
}

/// What the fast model knows how to stand for (docs/model.md, "Presets").
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum ModelFamily {
    /// ECN-marking window control with segments of `mss` bytes: preset SWP-D (the
    /// calibrated form's additive increase is one segment per RTT, docs/model.md).
    Dctcp { mss: u32 },
    /// Telemetry-driven window control with target utilization `eta`: preset SWP-H.
    Hpcc { eta: f64 },
}

/// The traffic of the classes that use one transport (`Transport::bind`).
#[derive(Clone, Debug)]
pub struct Traffic<'a> {
    pub classes: Vec<ClassTraffic<'a>>,
}

#[derive(Clone, Debug)]
pub struct ClassTraffic<'a> {
    pub name: &'a str,
    /// Its size distribution; None for a trace.
    pub sizes: Option<&'a crate::workload::SizeDist>,
    /// Its mean message rate (messages per second), for mixing classes; 0 if unknown.
    pub rate: f64,
    /// The fraction of its reference capacity it offers (its `load`, on the basis the
    /// scenario gives); None when it is given as a rate or replays a trace.
    pub load: Option<f64>,
}

impl Traffic<'_> {
    /// The message sizes of every class together as point masses, each class weighted by
    /// its message rate; None if a class has no size distribution.
    pub fn atoms(&self) -> Option<Vec<(u64, f64)>> {
        let total: f64 = self.classes.iter().map(|c| c.rate).sum();
        let mut out = Vec::new();
        for c in &self.classes {
            let w = if total > 0.0 { c.rate / total } else { 1.0 / self.classes.len() as f64 };
            out.extend(c.sizes?.atoms().into_iter().map(|(s, p)| (s, p * w)));
        }
        out.sort_by_key(|a| a.0);
        Some(out)
    }
}

/// A message as its endpoints know it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub conn: ConnId,
    pub class: ClassId,
    pub src: HostId,
    pub dst: HostId,
    /// Message bytes (the receiver reads it as a length field a header would carry).
    pub size: u64,
    pub start: Time,
    /// Its part in an RPC, if it has one.
    pub rpc: Rpc,
    /// The persistent connection it is sent on (a class's `connections`: HULL §6.2's 16
    /// connections per client and server). None: a connection of its own.
    pub channel: Option<Channel>,
}

/// A message's part in a remote procedure call (Homa §3.1, §3.6).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Rpc {
    #[default]
    OneWay,
    /// A request: its arrival triggers a response from its receiver.
    Request,
    /// The response to `request` (finished by then: the id names it, it is not live).
    Response { request: ConnId },
}

pub use crate::ids::Channel;
pub use crate::sim::TimerKey;

/// A packet an endpoint wants sent (from its host) to `dst`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Transmit {
    pub conn: ConnId,
    pub dst: HostId,
    /// The class of the message it belongs to.
    pub class: ClassId,
    pub hdr: Header,
    pub wire_bytes: u32,
    /// Message bytes carried.
    pub payload: u32,
    pub ecn: Ecn,
    /// The priority level the transport chooses; None takes the class's fixed level.
    pub prio: Option<Priority>,
    /// Its rank within the level, for ports that serve by rank (`Packet::rank`); 0 if
    /// the transport does not rank its packets.
    pub rank: u32,
    pub flags: Flags,
    /// The packet's INT stack in the network's pool (HPCC), if it carries one: the
    /// endpoint puts it there when it builds the packet (`poll_transmit`'s `int`), so a
    /// stack of a few hundred bytes is not copied along with every packet.
    pub int: Option<crate::net::int::Slot>,
}

/// An endpoint's output besides packets.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EndpointEvent {
    /// Arm a timer.
    Timer(TimerKey, Time),
    /// A message is complete (the sender has its last ACK, the receiver its last byte:
    /// whichever the transport counts).
    Completed(ConnId),
    /// Its receiver has the message whole, in order, and that is when it completes (TCP's
    /// `completion = "delivery"`): it is recorded now, while its connection's state and its
    /// packets live on until `Completed` (the sender's last ACK) forgets it.
    Delivered(ConnId),
    /// A message's place in its persistent connection's byte stream, for its receiver:
    /// the connection's number and the stream offset one past its last byte. This is the
    /// framing an application writes into a stream (a length before each message), which
    /// the simulator's bytes do not carry; the engine hands it to the receiver's endpoint
    /// (`Endpoint::on_framed`).
    Framed(ConnId, u32, u64),
}

/// One host's state machine for one transport.
pub trait Endpoint: Send {
    /// A message this host sends.
    fn on_message(&mut self, now: Time, msg: &Message);
    /// A packet for this host of a message still active, with its INT stack if any.
    fn on_packet(&mut self, now: Time, msg: &Message, pkt: &Packet, int: Option<&Stack>);
    /// A timer this endpoint armed fired (it may be stale: the endpoint decides).
    fn on_timer(&mut self, now: Time, key: TimerKey);
    /// The message is complete (either end reported it): forget its state.
    fn on_finished(&mut self, conn: ConnId);
    /// Where the message ends in persistent connection `channel`'s byte stream
    /// (`EndpointEvent::Framed`, from its sender's endpoint), for its receiver; endpoints
    /// that do not frame ignore it.
    fn on_framed(&mut self, msg: &Message, channel: u32, end: u64) {
        let _ = (msg, channel, end);
    }
    /// True if `on_finished` left it something to send or a timer to arm (a PL2 thread
    /// freed from a message that will get no GRT): the engine then polls it as after any
    /// other input. Endpoints whose `on_finished` only forgets say false.
    fn needs_poll(&self) -> bool {
        false
    }
    /// PFC paused (or resumed) `priority` at its host's NIC, for transports that obey
    /// pauses themselves (`Transport::obeys_pause`).
    fn on_pause(&mut self, now: Time, priority: Priority, paused: bool) {
        let _ = (now, priority, paused);
    }
    /// The next packet to hand to the NIC; asked only while the NIC has room. A packet
    /// that carries an INT stack puts it in `int`, the network's pool.
    fn poll_transmit(&mut self, now: Time, int: &mut crate::net::int::Pool) -> Option<Transmit>;
    /// What else it has for the engine: timers to arm (the engine calls `on_timer(key)`
    /// at that time), then messages it saw complete. One call per output, None when done
    /// (one poll for both: a dyn call per packet less).
    fn poll_event(&mut self) -> Option<EndpointEvent>;
    /// Adds its counters (for `summary.json`'s `transport_counters`).
    fn counters(&self, out: &mut Counters) {
        let _ = out;
    }
}

pub use crate::measure::counters::Counters;
