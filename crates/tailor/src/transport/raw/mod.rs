//! The raw message transport: no congestion control, no acknowledgements.
//!
//! A sender hands every packet of a message to its NIC as fast as the NIC takes them
//! (so packets leave at line rate); the receiver counts bytes and the message completes
//! when the last one arrives. A lost (or trimmed) packet is never recovered: the
//! message stays incomplete. This is the transport of queueing-theory checks (M/M/1
//! through one port) and a building block for transports whose pacing lives elsewhere.
//!
//! It is also the worked example of adding a transport (docs/architecture.md): this
//! folder holds its configuration and table (`mod.rs`), its header ([`Chunk`]), its
//! per-host endpoint (`endpoint`), and `registry::TRANSPORTS` names [`ENTRY`].

mod endpoint;

pub use endpoint::RawEndpoint;

use crate::input::{ScenarioError, Table};
use crate::measure::ideal::{pipeline, Train};
use crate::net::ids::HostId;
use crate::net::packet::Header;
use crate::net::topology::NetSpec;
use crate::sim::Time;
use crate::transport::path::Path;
use crate::transport::registry::Entry;
use crate::transport::{Endpoint, Frames, Transport, TransportConfig};
use std::sync::Arc;

/// Its line in the registry.
pub const ENTRY: Entry = Entry {
    name: "raw",
    about: "every packet of a message at once, no acknowledgements, no recovery",
    keys: &["kind", "mss", "header"],
    parse,
};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Payload bytes per packet.
    pub mtu_payload: u32,
    /// Header bytes per packet on the wire.
    pub header: u32,
}

/// `[transport] kind = "raw"`: `mss` and `header`, as the TCP family reads them.
pub fn parse(t: &mut Table, _net: &NetSpec) -> Result<TransportConfig, ScenarioError> {
    let (mss, header) = super::tcp::table::mss_header(t)?;
    Ok(Arc::new(Config { mtu_payload: mss as u32, header: header as u32 }))
}

impl Transport for Config {
    fn name(&self) -> &'static str {
        ENTRY.name
    }
    fn endpoint(&self, _host: HostId) -> Box<dyn Endpoint> {
        Box::new(RawEndpoint::new(*self))
    }
    /// The last bit of the message reaching the receiver.
    fn ideal(&self, p: &Path, size: u64) -> Time {
        p.src_tx_delay + pipeline(&p.fwd, Train::of(size, self.mtu_payload as u64, self.header as u64))
    }
    /// Its packets: the ideal above is their pipeline.
    fn frames(&self, size: u64) -> Option<Vec<Frames>> {
        let t = Train::of(size, self.mtu_payload as u64, self.header as u64);
        let full = Frames { count: t.packets - 1, payload: self.mtu_payload, wire: t.full as u32 };
        let last = Frames { count: 1, payload: (t.last - self.header as u64) as u32, wire: t.last as u32 };
        Some([full, last].into_iter().filter(|f| f.count > 0).collect())
    }
    /// Nothing is sized per round trip.
    fn scaled(&self, _factor: f64, _net: &NetSpec) -> TransportConfig {
        Arc::new(*self)
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The raw header: bytes `[offset, offset + len)` of the message. Word 0 holds the tag
/// 0x20 in its low byte and `len` above it, word 1 the offset.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    pub offset: u64,
    pub len: u32,
}

const TAG: u64 = 0x20;

impl Chunk {
    pub fn encode(self) -> Header {
        Header([TAG | (self.len as u64) << 8, self.offset, 0])
    }
    pub fn decode(h: &Header) -> Option<Chunk> {
        (h.0[0] & 0xff == TAG).then(|| Chunk { offset: h.0[1], len: (h.0[0] >> 8) as u32 })
    }
}

/// The sending side of one message: the next chunk to cut.
pub struct Sender {
    cfg: Config,
    size: u64,
    next: u64,
}

impl Sender {
    pub fn new(cfg: Config, size: u64) -> Sender {
        Sender { cfg, size, next: 0 }
    }

    /// The next chunk and its wire bytes, until the message is all sent.
    pub fn poll_transmit(&mut self) -> Option<(Chunk, u32)> {
        if self.next >= self.size {
            return None;
        }
        let len = (self.cfg.mtu_payload as u64).min(self.size - self.next) as u32;
        let chunk = Chunk { offset: self.next, len };
        self.next += len as u64;
        Some((chunk, len + self.cfg.header))
    }
}

/// The receiving side of one message: bytes counted.
pub struct Receiver {
    size: u64,
    received: u64,
    pub completed_at: Option<Time>,
}

impl Receiver {
    pub fn new(size: u64) -> Receiver {
        Receiver { size, received: 0, completed_at: None }
    }

    pub fn handle_chunk(&mut self, now: Time, chunk: Chunk) {
        self.received += chunk.len as u64;
        if self.received >= self.size && self.completed_at.is_none() {
            self.completed_at = Some(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_sender_segments_the_message_and_receiver_completes_on_the_last_byte() {
        let cfg = Config { mtu_payload: 1000, header: 50 };
        let mut s = Sender::new(cfg, 2_500);
        let pkts: Vec<(Chunk, u32)> = std::iter::from_fn(|| s.poll_transmit()).collect();
        assert_eq!(pkts.iter().map(|p| p.1).collect::<Vec<_>>(), vec![1050, 1050, 550]);
        let mut r = Receiver::new(2_500);
        for (i, (c, _)) in pkts.iter().enumerate() {
            assert!(r.completed_at.is_none());
            assert_eq!(Chunk::decode(&c.encode()), Some(*c));
            r.handle_chunk(Time::from_ns(i as u64), *c);
        }
        assert_eq!(r.completed_at, Some(Time::from_ns(2)));
    }
}
