//! Homa's packets on the wire (§3, Figure 3) and how a message is cut into them.
//!
//! Sizes follow the authors' simulator (HomaSimulation `HomaPkt`, see docs/homa.md):
//! every packet is an IP (20 B) + UDP (8 B) datagram of at most `mtu` bytes in an
//! Ethernet frame (14 B header, 4 B CRC, padded to a 46-byte payload) with 8 B of
//! preamble and a 12 B gap on the link. A DATA packet of a message's unscheduled part
//! carries a 30-byte Homa header (it must tell the receiver the message's length and
//! the sender's unscheduled limit), a scheduled one 16 bytes; so a full packet is 1538
//! bytes on the wire either way and carries 1,442 or 1,456 message bytes.
//!
//! The Homa header is encoded in the packet's opaque [`Header`] words: word 0 holds the
//! tag (0x30 + kind) in its low byte and a kind-specific small field above it, words 1
//! and 2 the offsets.

use crate::net::packet::{Header, Priority};

/// Framing: the bytes around a Homa header on the wire.
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
    /// Homa header of an unscheduled DATA packet.
    pub unscheduled_header: u32,
    /// Homa header of a scheduled DATA packet.
    pub scheduled_header: u32,
    /// Homa header of a GRANT, RESEND or BUSY.
    pub control_header: u32,
}

impl Wire {
    /// The authors' simulator's sizes (docs/homa.md, "Packets").
    pub const PAPER: Wire = Wire {
        mtu: 1500,
        ip: 28,
        framing: 38,
        min_payload: 46,
        unscheduled_header: 30,
        scheduled_header: 16,
        control_header: 15,
    };

    /// Bytes on the wire of a datagram holding a Homa header of `header` bytes and
    /// `payload` message bytes.
    pub fn bytes(&self, header: u32, payload: u32) -> u32 {
        (self.ip + header + payload).max(self.min_payload) + self.framing
    }
    /// Message bytes in a full unscheduled DATA packet.
    pub fn unscheduled_payload(&self) -> u32 {
        self.mtu - self.ip - self.unscheduled_header
    }
    /// Message bytes in a full scheduled DATA packet.
    pub fn scheduled_payload(&self) -> u32 {
        self.mtu - self.ip - self.scheduled_header
    }
    /// Bytes on the wire of a GRANT, RESEND or BUSY.
    pub fn control(&self) -> u32 {
        self.bytes(self.control_header, 0)
    }
    /// Bytes on the wire of the largest packet.
    pub fn full(&self) -> u32 {
        self.mtu.max(self.min_payload) + self.framing
    }
}

/// How a message of `size` bytes with `unscheduled` of them sent blindly is cut into
/// packets: first the unscheduled part in packets of `Wire::unscheduled_payload`, then
/// the rest in packets of `Wire::scheduled_payload`. Packet boundaries are fixed by the
/// message alone, so a grant, a RESEND and a retransmission all name whole packets.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub size: u64,
    /// Bytes sent without a grant: min(size, the sender's unscheduled limit).
    pub unscheduled: u64,
    u_len: u32,
    s_len: u32,
}

impl Layout {
    pub fn new(wire: &Wire, size: u64, limit: u64) -> Layout {
        Layout {
            size,
            unscheduled: size.min(limit),
            u_len: wire.unscheduled_payload(),
            s_len: wire.scheduled_payload(),
        }
    }

    /// Unscheduled packets: at least one (a message always announces itself).
    pub fn unscheduled_packets(&self) -> u32 {
        self.unscheduled.div_ceil(self.u_len as u64).max(1) as u32
    }

    pub fn packets(&self) -> u32 {
        self.unscheduled_packets() + (self.size - self.unscheduled).div_ceil(self.s_len as u64) as u32
    }

    /// Packet `i`: its offset and length.
    pub fn chunk(&self, i: u32) -> (u64, u32) {
        let nu = self.unscheduled_packets();
        let (start, end) = if i < nu {
            let start = i as u64 * self.u_len as u64;
            (start, (start + self.u_len as u64).min(self.unscheduled))
        } else {
            let start = self.unscheduled + (i - nu) as u64 * self.s_len as u64;
            (start, (start + self.s_len as u64).min(self.size))
        };
        (start, (end - start) as u32)
    }

    /// The packet that starts at `offset` (a packet boundary).
    pub fn index_of(&self, offset: u64) -> u32 {
        if offset < self.unscheduled || self.unscheduled == self.size {
            (offset / self.u_len as u64) as u32
        } else {
            self.unscheduled_packets() + ((offset - self.unscheduled) / self.s_len as u64) as u32
        }
    }

    pub fn is_scheduled(&self, i: u32) -> bool {
        i >= self.unscheduled_packets()
    }

    /// The end of the packet holding byte `offset - 1`: `offset` rounded up to a packet
    /// boundary (what a grant up to `offset` lets the sender send).
    pub fn round_up(&self, offset: u64) -> u64 {
        if offset == 0 {
            return 0;
        }
        let (start, len) = self.chunk(self.index_of(offset - 1));
        start + len as u64
    }
}

/// What a Homa packet says (Figure 3).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Bytes `[offset, offset + len)` of a message. `unscheduled` is the sender's blind
    /// limit for it (the receiver needs it to know which bytes it must grant); `incast`
    /// marks a request sent while its client had many RPCs outstanding (§3.6).
    Data { offset: u64, len: u32, unscheduled: u64, retransmit: bool, incast: bool },
    /// The sender may send up to `offset` at priority `prio`.
    Grant { offset: u64, prio: Priority },
    /// Send `[offset, offset + len)` again, at priority `prio`.
    Resend { offset: u64, len: u32, prio: Priority },
    /// The sender has the message but is busy with shorter ones.
    Busy,
}

const TAG: u64 = 0x30;

impl Kind {
    pub fn encode(self) -> Header {
        match self {
            Kind::Data { offset, len, unscheduled, retransmit, incast } => Header([
                TAG | (retransmit as u64) << 8 | (incast as u64) << 9 | (len as u64) << 16,
                offset,
                unscheduled,
            ]),
            Kind::Grant { offset, prio } => Header([(TAG + 1) | (prio as u64) << 8, offset, 0]),
            Kind::Resend { offset, len, prio } => {
                Header([(TAG + 2) | (prio as u64) << 8 | (len as u64) << 16, offset, 0])
            }
            Kind::Busy => Header([TAG + 3, 0, 0]),
        }
    }

    pub fn decode(h: &Header) -> Option<Kind> {
        let w = h.0[0];
        let small = ((w >> 8) & 0xff) as u8;
        let len = (w >> 16) as u32;
        match w & 0xff {
            0x30 => Some(Kind::Data {
                offset: h.0[1],
                len,
                unscheduled: h.0[2],
                retransmit: small & 1 != 0,
                incast: small & 2 != 0,
            }),
            0x31 => Some(Kind::Grant { offset: h.0[1], prio: small }),
            0x32 => Some(Kind::Resend { offset: h.0[1], len, prio: small }),
            0x33 => Some(Kind::Busy),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_papers_full_packets_are_1538_bytes_either_way() {
        let w = Wire::PAPER;
        assert_eq!(w.unscheduled_payload(), 1442);
        assert_eq!(w.scheduled_payload(), 1456);
        assert_eq!(w.bytes(w.unscheduled_header, 1442), 1538);
        assert_eq!(w.bytes(w.scheduled_header, 1456), 1538);
        assert_eq!(w.full(), 1538);
        // A grant is padded to the 64-byte minimum frame: 84 bytes with preamble and gap.
        assert_eq!(w.control(), 84);
    }

    #[test]
    fn a_layout_cuts_unscheduled_then_scheduled_packets() {
        let w = Wire::PAPER;
        let l = Layout::new(&w, 20_000, 9_328);
        assert_eq!(l.unscheduled_packets(), 7);
        assert_eq!(l.chunk(6), (8_652, 676));
        assert_eq!(l.chunk(7), (9_328, 1_456));
        assert_eq!(l.packets(), 7 + (20_000u64 - 9_328).div_ceil(1_456) as u32);
        let last = l.packets() - 1;
        let (o, n) = l.chunk(last);
        assert_eq!(o + n as u64, 20_000);
        for i in 0..l.packets() {
            assert_eq!(l.index_of(l.chunk(i).0), i);
        }
        assert_eq!(l.round_up(9_329), 9_328 + 1_456);
        assert_eq!(l.round_up(9_328), 9_328);
        let small = Layout::new(&w, 1, 9_328);
        assert_eq!((small.packets(), small.chunk(0)), (1, (0, 1)));
        assert!(!small.is_scheduled(0));
    }

    #[test]
    fn headers_round_trip() {
        for k in [
            Kind::Data { offset: 1 << 40, len: 1456, unscheduled: 9_328, retransmit: true, incast: false },
            Kind::Data { offset: 0, len: 100, unscheduled: 300, retransmit: false, incast: true },
            Kind::Grant { offset: 12_345, prio: 7 },
            Kind::Resend { offset: 99, len: 1442, prio: 3 },
            Kind::Busy,
        ] {
            assert_eq!(Kind::decode(&k.encode()), Some(k));
        }
        assert_eq!(Kind::decode(&Header([0x20, 0, 0])), None);
    }
}
