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
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Header(pub [u64; 3]);

/// A packet priority level: 0 is served first. Ports that queue by priority keep a
/// configurable number of levels; a packet above the last level joins the last.
pub type Priority = u8;

/// Per-packet flags the network acts on, and the ECN codepoint (its two low bits: every
/// queue and link holds packets by value, so the packet stays within one cache line).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Flags(u8);

const ECN_BITS: u8 = 0b11;

impl Flags {
    /// The packet collects in-band telemetry at every egress port it leaves (HPCC data).
    pub const COLLECT_INT: Flags = Flags(4);
    /// A port cut the payload and forwarded the header (NDP-style trimming).
    pub const TRIMMED: Flags = Flags(8);
    /// The packet echoes congestion back to its sender (TCP's ECE bit, RFC 3168 §6.1):
    /// a header bit hardware on the path can read, as HULL's pacer does to choose the
    /// flows it paces (§4.2).
    pub const ECHO: Flags = Flags(16);
    /// The packet uses a timeslot its sender reserved at its ToR (PL2, `net::pl2`).
    pub const RESERVED: Flags = Flags(32);
    /// The packet was sent before its reservation was granted (PL2 §D.4): its ToR may
    /// drop it.
    pub const UNSOLICITED: Flags = Flags(64);
    /// A MAC control frame (PFC's PAUSE or RESUME, `net::memory`): the MAC at the far end
    /// of its link takes it; nothing forwards it.
    pub const CONTROL: Flags = Flags(128);

    fn ecn(self) -> Ecn {
        match self.0 & ECN_BITS {
            0 => Ecn::NotEct,
            1 => Ecn::Ect,
            _ => Ecn::Ce,
        }
    }
    fn set_ecn(&mut self, e: Ecn) {
        let bits = match e {
            Ecn::NotEct => 0,
            Ecn::Ect => 1,
            Ecn::Ce => 2,
        };
        self.0 = self.0 & !ECN_BITS | bits;
    }

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

/// A packet: 64 bytes, one cache line (`tests`), held by value in every queue and link.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Packet {
    /// The message the packet belongs to (the engine's flow id, also the ECMP key).
    pub conn: ConnId,
    /// The host that put the packet on the network and the one it is for.
    pub src: HostId,
    pub dst: HostId,
    pub class: ClassId,
    pub wire_bytes: u32,
    /// Bytes of `wire_bytes` that are headers (the rest is message data).
    pub header_bytes: u16,
    /// Its priority level, set by its transport (or its class's fixed level).
    pub prio: Priority,
    /// A finer order than `prio` for ports that serve by rank (pFabric's remaining
    /// message size, Alizadeh et al. SIGCOMM 2013 §4.1): lower is served first; 0 when
    /// its transport does not set one.
    pub rank: u32,
    /// Flags and the ECN codepoint (`ecn`, `set_ecn`).
    pub flags: Flags,
    pub hdr: Header,
    /// The packet's INT stack in the network's pool (HPCC connections only).
    pub int: Option<super::int::Slot>,
}

impl Packet {
    /// Message bytes carried (0 on control packets and after trimming).
    pub fn payload(&self) -> u32 {
        self.wire_bytes - self.header_bytes as u32
    }
    pub fn ecn(&self) -> Ecn {
        self.flags.ecn()
    }
    pub fn set_ecn(&mut self, e: Ecn) {
        self.flags.set_ecn(e)
    }

    pub fn is_trimmed(&self) -> bool {
        self.flags.contains(Flags::TRIMMED)
    }

    /// A packet for tests of ports and schedulers: `wire_bytes` on the wire, all of it
    /// header (up to 64 KiB), priority 0, not ECN-capable.
    pub fn scripted(conn: ConnId, class: ClassId, wire_bytes: u32, hdr: Header) -> Packet {
        Packet {
            conn,
            src: HostId::new(0),
            dst: HostId::new(1),
            class,
            wire_bytes,
            header_bytes: wire_bytes.min(u16::MAX as u32) as u16,
            prio: 0,
            rank: 0,
            flags: Flags::empty(),
            hdr,
            int: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packet_is_one_cache_line_and_keeps_its_ecn_beside_its_flags() {
        assert_eq!(std::mem::size_of::<Packet>(), 64);
        let mut p = Packet::scripted(ConnId { slot: 0, gen: 0 }, ClassId::new(0), 100, Header::default());
        p.flags.insert(Flags::TRIMMED);
        for e in [Ecn::Ect, Ecn::Ce, Ecn::NotEct, Ecn::Ce] {
            p.set_ecn(e);
            assert_eq!(p.ecn(), e);
            assert!(p.is_trimmed() && !p.flags.contains(Flags::COLLECT_INT));
        }
    }
}
