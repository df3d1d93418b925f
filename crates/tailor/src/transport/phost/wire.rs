//! pHost's packets on the wire (Gao et al., CoNEXT 2015, §3) and how a message is cut.
//!
//! Sizes follow the pHost authors' simulator (NetSys/simulator: a 40-byte header on every
//! packet, `hdr_size`, and 1,460 message bytes in a full one, `mss`): each packet is an
//! IP datagram of at most 1,500 bytes whose first 40 bytes are IP (20) and pHost (20)
//! headers, in an Ethernet frame (14 B header, 4 B CRC, payload padded to 46 B) with 8 B
//! of preamble and a 12 B gap, as tailor counts every transport on the Homa fabric
//! (docs/homa.md, "Packets"). So a full DATA packet is 1,538 bytes on the wire and carries
//! 1,460 message bytes; an RTS, a TOKEN or an ACK is padded to the 64-byte minimum frame:
//! 84 bytes on the wire.
//!
//! The header is encoded in the packet's opaque [`Header`] words: word 0 holds the tag
//! (0x40 + kind) in its low byte, flags in the next, the packet index in its high half;
//! word 1 the token number.

use crate::net::packet::Header;

/// Framing: the bytes around a pHost header on the wire.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Wire {
    /// The largest IP datagram (the MTU).
    pub mtu: u32,
    /// IP and pHost headers (the simulator's `hdr_size`).
    pub header: u32,
    /// Ethernet header and CRC, preamble and inter-packet gap.
    pub framing: u32,
    /// The smallest Ethernet payload (shorter datagrams are padded).
    pub min_payload: u32,
}

impl Wire {
    /// The pHost simulator's header and MTU in the Homa fabric's frames.
    pub const PAPER: Wire = Wire { mtu: 1500, header: 40, framing: 38, min_payload: 46 };

    /// Message bytes in a full DATA packet (the simulator's `mss`).
    pub fn payload(&self) -> u32 {
        self.mtu - self.header
    }
    /// Bytes on the wire of a packet carrying `payload` message bytes.
    pub fn bytes(&self, payload: u32) -> u32 {
        (self.header + payload).max(self.min_payload) + self.framing
    }
    /// Bytes on the wire of an RTS, TOKEN or ACK.
    pub fn control(&self) -> u32 {
        self.bytes(0)
    }
    /// Bytes on the wire of a full DATA packet.
    pub fn full(&self) -> u32 {
        self.bytes(self.payload())
    }
    /// Packets of a message of `size` bytes (at least one: an empty message is announced).
    pub fn packets(&self, size: u64) -> u32 {
        size.div_ceil(self.payload() as u64).max(1) as u32
    }
    /// Packet `i` of a message of `size` bytes: its offset and length.
    pub fn chunk(&self, size: u64, i: u32) -> (u64, u32) {
        let start = i as u64 * self.payload() as u64;
        (start, (size.min(start + self.payload() as u64) - start.min(size)) as u32)
    }
}

/// What a pHost packet says (§3).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Request to send: a new message (its size travels with it, §3).
    Rts,
    /// Packet `index` of a message, sent on token number `token`; `free` if the token
    /// was one of the sender's free tokens (§3), which sets its priority level.
    Data { index: u32, token: u32, free: bool },
    /// Token number `token`: the sender may send one packet, packet `index` wanted.
    Token { index: u32, token: u32 },
    /// The receiver has the whole message.
    Ack,
}

const TAG: u64 = 0x40;

impl Kind {
    pub fn encode(self) -> Header {
        match self {
            Kind::Rts => Header([TAG, 0, 0]),
            Kind::Data { index, token, free } => {
                Header([(TAG + 1) | (free as u64) << 8 | (index as u64) << 32, token as u64, 0])
            }
            Kind::Token { index, token } => Header([(TAG + 2) | (index as u64) << 32, token as u64, 0]),
            Kind::Ack => Header([TAG + 3, 0, 0]),
        }
    }

    pub fn decode(h: &Header) -> Option<Kind> {
        let w = h.0[0];
        let index = (w >> 32) as u32;
        let token = h.0[1] as u32;
        match w & 0xff {
            0x40 => Some(Kind::Rts),
            0x41 => Some(Kind::Data { index, token, free: (w >> 8) & 1 == 1 }),
            0x42 => Some(Kind::Token { index, token }),
            0x43 => Some(Kind::Ack),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_packets_are_1538_bytes_and_control_packets_84() {
        let w = Wire::PAPER;
        assert_eq!(w.payload(), 1460);
        assert_eq!(w.full(), 1538);
        assert_eq!(w.control(), 84);
        assert_eq!(w.bytes(6), 84, "padded to the minimum frame");
        assert_eq!(w.bytes(7), 85);
    }

    #[test]
    fn a_message_is_cut_in_full_packets_and_a_last_one() {
        let w = Wire::PAPER;
        assert_eq!((w.packets(0), w.packets(1), w.packets(1460), w.packets(1461)), (1, 1, 1, 2));
        assert_eq!(w.chunk(3000, 0), (0, 1460));
        assert_eq!(w.chunk(3000, 2), (2920, 80));
        assert_eq!(w.chunk(0, 0), (0, 0));
    }

    #[test]
    fn headers_round_trip() {
        for k in [
            Kind::Rts,
            Kind::Data { index: 7, token: u32::MAX, free: true },
            Kind::Data { index: u32::MAX, token: 0, free: false },
            Kind::Token { index: 123_456, token: 99 },
            Kind::Ack,
        ] {
            assert_eq!(Kind::decode(&k.encode()), Some(k));
        }
        assert_eq!(Kind::decode(&Header([0x30, 0, 0])), None);
    }
}
