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
    needs: "",
    parse,
};

/// UDP: the raw transport's behaviour (no congestion control, no acknowledgements, no
/// recovery) with IP and UDP headers in every packet; what PL2's testbed sends with VMA's
/// UDP (§F.1).
pub const UDP: Entry = Entry {
    name: "udp",
    about: "datagrams: every packet of a message at once, no acknowledgements, no recovery",
    keys: &["kind", "mss", "header"],
    needs: "",
    parse: parse_udp,
};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// `raw` or `udp`.
    pub name: &'static str,
    /// Payload bytes per packet.
    pub mtu_payload: u32,
    /// Header bytes per packet on the wire.
    pub header: u32,
}

/// `[transport] kind = "raw"`: `mss` and `header`, as the TCP family reads them.
pub fn parse(t: &mut Table, _net: &NetSpec) -> Result<TransportConfig, ScenarioError> {
    let (mss, header) = super::tcp::table::mss_header(t)?;
    Ok(Arc::new(Config { name: ENTRY.name, mtu_payload: mss as u32, header: header as u32 }))
}

/// `[transport] kind = "udp"`: `mss` (1,472 B, a 1,500 B IP packet) and `header` (46 B:
/// Ethernet with its FCS, IPv4, UDP).
pub fn parse_udp(t: &mut Table, _net: &NetSpec) -> Result<TransportConfig, ScenarioError> {
    let (mss, header) = super::tcp::table::mss_header_or(t, (1472, 46))?;
    Ok(Arc::new(Config { name: UDP.name, mtu_payload: mss as u32, header: header as u32 }))
}

impl Transport for Config {
    fn name(&self) -> &'static str {
        self.name
    }
    fn full_packet(&self) -> u64 {
        self.mtu_payload as u64 + self.header as u64
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

/// The receiving side of one message: bytes counted once each. A chunk can arrive twice
/// when a layer below resends it (PL2 resends a burst whose unsolicited copy may have
/// passed, §D.4); chunks start at multiples of the sender's `mtu_payload`, so one bit
/// per chunk tells a copy from a new one.
pub struct Receiver {
    size: u64,
    mtu_payload: u64,
    received: u64,
    seen: Seen,
    pub completed_at: Option<Time>,
}

/// Chunks received: inline for messages of up to 64 chunks (no allocation), else a
/// bitmap.
enum Seen {
    Inline(u64),
    Heap(Vec<u64>),
}

impl Seen {
    /// Marks chunk `i`; false if it was marked already.
    fn mark(&mut self, i: u64) -> bool {
        let (word, bit) = ((i / 64) as usize, 1u64 << (i % 64));
        let w = match self {
            Seen::Inline(w) if word == 0 => w,
            Seen::Inline(_) => return true,
            Seen::Heap(v) => match v.get_mut(word) {
                Some(w) => w,
                None => return true,
            },
        };
        let new = *w & bit == 0;
        *w |= bit;
        new
    }
}

impl Receiver {
    pub fn new(size: u64, mtu_payload: u32) -> Receiver {
        let mtu_payload = mtu_payload.max(1) as u64;
        let chunks = size.div_ceil(mtu_payload);
        let seen = if chunks <= 64 { Seen::Inline(0) } else { Seen::Heap(vec![0; chunks.div_ceil(64) as usize]) };
        Receiver { size, mtu_payload, received: 0, seen, completed_at: None }
    }

    pub fn handle_chunk(&mut self, now: Time, chunk: Chunk) {
        if !self.seen.mark(chunk.offset / self.mtu_payload) {
            return;
        }
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
        let cfg = Config { name: "raw", mtu_payload: 1000, header: 50 };
        let mut s = Sender::new(cfg, 2_500);
        let pkts: Vec<(Chunk, u32)> = std::iter::from_fn(|| s.poll_transmit()).collect();
        assert_eq!(pkts.iter().map(|p| p.1).collect::<Vec<_>>(), vec![1050, 1050, 550]);
        let mut r = Receiver::new(2_500, 1000);
        for (i, (c, _)) in pkts.iter().enumerate() {
            assert!(r.completed_at.is_none());
            assert_eq!(Chunk::decode(&c.encode()), Some(*c));
            r.handle_chunk(Time::from_ns(i as u64), *c);
        }
        assert_eq!(r.completed_at, Some(Time::from_ns(2)));
    }

    /// A chunk that arrives twice counts once (PL2's resent bursts, §D.4): the message
    /// completes on its last new byte, not early on a copy.
    #[test]
    fn a_duplicate_chunk_counts_once() {
        for size in [2_500u64, 100_000] {
            let mut r = Receiver::new(size, 1000);
            let mut s = Sender::new(Config { name: "raw", mtu_payload: 1000, header: 50 }, size);
            let chunks: Vec<Chunk> = std::iter::from_fn(|| s.poll_transmit()).map(|c| c.0).collect();
            for (i, c) in chunks.iter().enumerate().take(chunks.len() - 1) {
                r.handle_chunk(Time::from_ns(i as u64), *c);
                r.handle_chunk(Time::from_ns(i as u64), *c);
            }
            assert!(r.completed_at.is_none(), "size {size}: complete before its last chunk");
            r.handle_chunk(Time::from_ns(1_000), *chunks.last().unwrap());
            assert_eq!(r.completed_at, Some(Time::from_ns(1_000)));
        }
    }
}
