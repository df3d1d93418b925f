//! pFabric's packets as the network carries them, and how a message is cut into them.
//!
//! A message of `size` bytes is cut into packets of `mss` message bytes (the last one
//! shorter; a 0-byte message is one empty packet): packet `i` holds bytes
//! `[i·mss, min((i + 1)·mss, size))`. Packets, not bytes, are what the sender numbers,
//! acknowledges and retransmits (the authors' ns-2 agent numbers bytes but only ever
//! sends whole segments, so the two agree).
//!
//! On the wire every packet carries `header` bytes besides its message bytes (default 78:
//! TCP/IP 40 as in the authors' ns-2 scripts, plus Ethernet's 14-byte header, 4-byte CRC,
//! 8-byte preamble and 12-byte gap) and is at least the 64-byte minimum frame with
//! preamble and gap: 84 bytes. ACKs and probes carry no message bytes: 84 bytes.
//!
//! The header is encoded in the packet's opaque words: word 0 holds the tag (0x50 + kind)
//! in its low byte, word 1 the packet index (DATA) or the cumulative acknowledgement
//! (ACK), word 2 the packet an ACK answers (`NONE` if it answers a probe).

use crate::net::packet::Header;

/// The smallest packet on the wire: a 64-byte Ethernet frame, 8 bytes of preamble and a
/// 12-byte gap.
pub const MIN_WIRE: u32 = 84;

/// What a pFabric packet is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    /// Packet `index` of the message.
    Data { index: u64 },
    /// A header-only packet sent in probe mode (§4.3): it asks for an ACK.
    Probe,
    /// The receiver has every packet below `cum`, and packet `sack` (the one this ACK
    /// answers; None for a probe): a cumulative ACK with one SACK block of one packet.
    Ack { cum: u64, sack: Option<u64> },
}

const DATA: u64 = 0x50;
const PROBE: u64 = 0x51;
const ACK: u64 = 0x52;
const NONE: u64 = u64::MAX;

impl Segment {
    pub fn encode(self) -> Header {
        match self {
            Segment::Data { index } => Header([DATA, index, 0]),
            Segment::Probe => Header([PROBE, 0, 0]),
            Segment::Ack { cum, sack } => Header([ACK, cum, sack.unwrap_or(NONE)]),
        }
    }

    /// None for a header another transport wrote.
    pub fn decode(h: &Header) -> Option<Segment> {
        let [w0, w1, w2] = h.0;
        Some(match w0 & 0xff {
            DATA => Segment::Data { index: w1 },
            PROBE => Segment::Probe,
            ACK => Segment::Ack { cum: w1, sack: (w2 != NONE).then_some(w2) },
            _ => return None,
        })
    }

    /// True for packets that travel from the message's sender to its receiver.
    pub fn is_forward(self) -> bool {
        !matches!(self, Segment::Ack { .. })
    }
}

/// How messages are cut and what their packets weigh on the wire.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Wire {
    /// Message bytes per full packet.
    pub mss: u32,
    /// Header bytes on the wire of every packet.
    pub header: u32,
}

impl Wire {
    /// Packets of a message of `size` bytes.
    pub fn packets(&self, size: u64) -> u64 {
        size.div_ceil(self.mss as u64).max(1)
    }

    /// Message bytes in packet `index` of a message of `size` bytes.
    pub fn payload(&self, size: u64, index: u64) -> u32 {
        let start = index.saturating_mul(self.mss as u64);
        size.saturating_sub(start).min(self.mss as u64) as u32
    }

    /// Bytes on the wire of a packet carrying `payload` message bytes.
    pub fn bytes(&self, payload: u32) -> u32 {
        (payload + self.header).max(MIN_WIRE)
    }

    /// Bytes on the wire of an ACK or a probe.
    pub fn control(&self) -> u32 {
        self.bytes(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_segment_survives_the_wire_and_a_foreign_header_does_not_decode() {
        for s in [
            Segment::Data { index: 0 },
            Segment::Data { index: u64::MAX - 1 },
            Segment::Probe,
            Segment::Ack { cum: 7, sack: Some(9) },
            Segment::Ack { cum: 0, sack: Some(0) },
            Segment::Ack { cum: 3, sack: None },
        ] {
            assert_eq!(Segment::decode(&s.encode()), Some(s));
        }
        assert_eq!(Segment::decode(&Header::default()), None);
        assert_eq!(Segment::decode(&Header([0x10, 0, 0])), None, "a TCP header is not pFabric's");
    }

    #[test]
    fn a_message_is_cut_into_full_packets_and_a_shorter_last_one_at_least_a_minimum_frame() {
        let w = Wire { mss: 1460, header: 78 };
        assert_eq!((w.packets(1), w.packets(1460), w.packets(1461), w.packets(0)), (1, 1, 2, 1));
        assert_eq!((w.payload(3000, 0), w.payload(3000, 2), w.payload(0, 0)), (1460, 80, 0));
        // A full packet is 1,538 bytes on the wire, as Homa's; ACKs and tiny packets 84.
        assert_eq!((w.bytes(1460), w.bytes(80), w.bytes(1), w.control()), (1538, 158, 84, 84));
    }
}
