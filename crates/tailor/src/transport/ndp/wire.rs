//! NDP's packets on the wire (Handley et al. SIGCOMM 2017 §3.2) and how a message is cut
//! into them.
//!
//! NDP's simulator ran 9,000-byte packets; the Homa paper ran it with the 1,500-byte MTU
//! of its own fabric (§5.2) and only on W5, whose sizes are whole packets of 1,442 bytes.
//! tailor frames NDP as it frames Homa (docs/homa.md, "Packets"): an IP (20 B) + UDP
//! (8 B) datagram of at most 1,500 bytes in an Ethernet frame (14 B header, 4 B CRC, a
//! payload padded to 46 B) with 8 B of preamble and a 12 B gap. A DATA packet carries a
//! 30-byte NDP header, so a full packet is 1,538 bytes on the wire with 1,442 message
//! bytes (W5's unit), and what trimming leaves of it is 96 bytes. ACK, NACK and PULL are
//! minimum frames: 84 bytes on the wire (htsim's 64-byte control packets, framed).
//!
//! The header lives in the packet's opaque words: word 0 holds the tag (0x70 + kind) in
//! its low byte, a flag above it and a length from bit 16; word 1 an offset; word 2 a
//! cumulative pull number (§3.2: a lost PULL is made good by the next one).

use crate::net::packet::Header;

/// Framing of NDP's packets.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Wire {
    /// The largest IP datagram (the MTU).
    pub mtu: u32,
    /// IP and UDP headers.
    pub ip: u32,
    /// Ethernet header and CRC, preamble and inter-packet gap.
    pub framing: u32,
    /// The smallest Ethernet payload (shorter datagrams are padded).
    pub min_payload: u32,
    /// NDP header of a DATA packet (what trimming keeps).
    pub header: u32,
    /// NDP header of an ACK, NACK or PULL.
    pub control_header: u32,
}

impl Wire {
    /// The Homa paper's fabric (module doc).
    pub const PAPER: Wire = Wire { mtu: 1500, ip: 28, framing: 38, min_payload: 46, header: 30, control_header: 16 };

    /// Bytes on the wire of a DATA packet carrying `payload` message bytes.
    pub fn data(&self, payload: u32) -> u32 {
        (self.ip + self.header + payload).max(self.min_payload) + self.framing
    }
    /// Message bytes in a full DATA packet.
    pub fn payload(&self) -> u32 {
        self.mtu - self.ip - self.header
    }
    /// Bytes on the wire of a full DATA packet.
    pub fn full(&self) -> u32 {
        self.data(self.payload())
    }
    /// Bytes on the wire of an ACK, NACK or PULL.
    pub fn control(&self) -> u32 {
        (self.ip + self.control_header).max(self.min_payload) + self.framing
    }
}

/// A message of `size` bytes cut into full packets and a last one that may be short
/// (what NDP's simulator could not send, and tailor must: W1–W4).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub size: u64,
    per: u32,
}

impl Layout {
    pub fn new(wire: &Wire, size: u64) -> Layout {
        Layout { size, per: wire.payload() }
    }
    /// Packets: at least one (an empty message still announces itself).
    pub fn packets(&self) -> u32 {
        self.size.div_ceil(self.per as u64).max(1) as u32
    }
    /// Packet `i`: its offset and length.
    pub fn chunk(&self, i: u32) -> (u64, u32) {
        let start = i as u64 * self.per as u64;
        (start, (self.size - start).min(self.per as u64) as u32)
    }
    /// The packet that starts at `offset` (a packet boundary).
    pub fn index_of(&self, offset: u64) -> u32 {
        (offset / self.per as u64) as u32
    }
}

/// What an NDP packet says (§3.2).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Message bytes `[offset, offset + len)`; `retransmit` when sent again.
    Data { offset: u64, len: u32, retransmit: bool },
    /// The packet at `offset` arrived whole; `pull` > 0 also pulls up to that number.
    Ack { offset: u64, pull: u32 },
    /// The packet at `offset` arrived trimmed (its `len` bytes are to be sent again).
    Nack { offset: u64, len: u32, pull: u32 },
    /// Send one packet per pull up to cumulative number `pull`.
    Pull { pull: u32 },
}

const TAG: u64 = 0x70;

impl Kind {
    pub fn encode(self) -> Header {
        match self {
            Kind::Data { offset, len, retransmit } => {
                Header([TAG | (retransmit as u64) << 8 | (len as u64) << 16, offset, 0])
            }
            Kind::Ack { offset, pull } => Header([TAG + 1, offset, pull as u64]),
            Kind::Nack { offset, len, pull } => Header([(TAG + 2) | (len as u64) << 16, offset, pull as u64]),
            Kind::Pull { pull } => Header([TAG + 3, 0, pull as u64]),
        }
    }

    pub fn decode(h: &Header) -> Option<Kind> {
        let w = h.0[0];
        let len = (w >> 16) as u32;
        let pull = h.0[2] as u32;
        match w & 0xff {
            0x70 => Some(Kind::Data { offset: h.0[1], len, retransmit: (w >> 8) & 1 != 0 }),
            0x71 => Some(Kind::Ack { offset: h.0[1], pull }),
            0x72 => Some(Kind::Nack { offset: h.0[1], len, pull }),
            0x73 => Some(Kind::Pull { pull }),
            _ => None,
        }
    }

    /// The same ACK or NACK carrying pull number `pull` (the receiver's pacer was free
    /// when it was sent: htsim's pull bit, one control packet instead of two).
    pub fn with_pull(self, pull: u32) -> Option<Kind> {
        match self {
            Kind::Ack { offset, pull: 0 } => Some(Kind::Ack { offset, pull }),
            Kind::Nack { offset, len, pull: 0 } => Some(Kind::Nack { offset, len, pull }),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_packets_carry_w5s_unit_and_trimming_leaves_96_bytes() {
        let w = Wire::PAPER;
        assert_eq!((w.payload(), w.full(), w.control()), (1_442, 1_538, 84));
        assert_eq!(w.data(0), 96, "a trimmed DATA packet");
        assert_eq!(w.data(1), 97);
        let l = Layout::new(&w, 3 * 1_442 + 5);
        assert_eq!((l.packets(), l.chunk(2), l.chunk(3)), (4, (2_884, 1_442), (4_326, 5)));
        assert_eq!(l.index_of(4_326), 3);
        assert_eq!(Layout::new(&w, 0).packets(), 1);
    }

    #[test]
    fn headers_round_trip_and_only_feedback_carries_a_pull() {
        for k in [
            Kind::Data { offset: 1 << 40, len: 1_442, retransmit: true },
            Kind::Data { offset: 0, len: 7, retransmit: false },
            Kind::Ack { offset: 99, pull: 3 },
            Kind::Nack { offset: 1_442, len: 1_442, pull: 0 },
            Kind::Pull { pull: u32::MAX },
        ] {
            assert_eq!(Kind::decode(&k.encode()), Some(k));
        }
        assert_eq!(Kind::decode(&Header([0x30, 0, 0])), None, "a Homa header is not NDP's");
        assert_eq!(Kind::Ack { offset: 5, pull: 0 }.with_pull(2), Some(Kind::Ack { offset: 5, pull: 2 }));
        assert_eq!(Kind::Ack { offset: 5, pull: 1 }.with_pull(2), None, "already pulls");
        assert_eq!(Kind::Pull { pull: 1 }.with_pull(2), None);
    }
}
