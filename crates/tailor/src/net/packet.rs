//! Packets as small `Copy` values.
//!
//! The network reads the fields every packet has — addresses, class, priority, size,
//! ECN, flags — and nothing else. What a transport puts in its header is opaque here
//! ([`Header`]: three words whose layout the transport's own module defines and checks,
//! `transport::tcp::Segment`, `transport::raw::Chunk`), so adding a transport adds no
//! variant to a network type. Sizes are what the wire sees: `wire_bytes` includes every
//! header; `payload` is the part of it that is message data.

use super::ids::{ClassId, ConnId, HostId};

/// ECN codepoint of the IP header (RFC 3168).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ecn {
    NotEct,
    Ect,
    Ce,
}

/// A transport's header as the network carries it: opaque words. Each transport encodes
/// its own header type into them and decodes it back (its module documents the layout).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Header(pub [u64; 3]);

/// A packet priority level: 0 is served first. Ports that queue by priority keep a
/// configurable number of levels; a packet above the last level joins the last.
pub type Priority = u8;

/// Per-packet flags the network acts on.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Flags(u8);

impl Flags {
    /// The packet collects in-band telemetry at every egress port it leaves (HPCC data).
    pub const COLLECT_INT: Flags = Flags(1);
    /// A port cut the payload and forwarded the header (NDP-style trimming).
    pub const TRIMMED: Flags = Flags(2);

    pub const fn empty() -> Flags {
        Flags(0)
    }
    pub fn contains(self, f: Flags) -> bool {
        self.0 & f.0 == f.0
    }
    pub fn insert(&mut self, f: Flags) {
        self.0 |= f.0;
    }
    pub const fn with(self, f: Flags) -> Flags {
        Flags(self.0 | f.0)
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Packet {
    /// The message the packet belongs to (the engine's flow id, also the ECMP key).
    pub conn: ConnId,
    /// The host that put the packet on the network and the one it is for.
    pub src: HostId,
    pub dst: HostId,
    pub class: ClassId,
    /// Its priority level, set by its transport (or its class's fixed level).
    pub prio: Priority,
    pub flags: Flags,
    pub ecn: Ecn,
    pub wire_bytes: u32,
    /// Message bytes carried (0 on control packets and after trimming).
    pub payload: u32,
    pub hdr: Header,
    /// The packet's INT stack in the network's pool (HPCC connections only).
    pub int: Option<super::int::Slot>,
}

impl Packet {
    pub fn is_trimmed(&self) -> bool {
        self.flags.contains(Flags::TRIMMED)
    }

    /// A packet for tests of ports and schedulers: `wire_bytes` on the wire, all of it
    /// header, priority 0.
    pub fn scripted(conn: ConnId, class: ClassId, wire_bytes: u32, hdr: Header) -> Packet {
        Packet {
            conn,
            src: HostId::new(0),
            dst: HostId::new(1),
            class,
            prio: 0,
            flags: Flags::empty(),
            ecn: Ecn::NotEct,
            wire_bytes,
            payload: 0,
            hdr,
            int: None,
        }
    }
}
