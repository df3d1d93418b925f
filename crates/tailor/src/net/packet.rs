//! Packets as small validated values.
//!
//! A packet is a `Copy` struct; what it carries is an enum per transport message, so a
//! packet that is both a data segment and an ACK cannot be built (smoltcp's `Repr`
//! style). Sizes are what the wire sees: `wire_bytes` includes every header.

use super::ids::{ClassId, ConnId, HostId};
use crate::sim::Time;

/// ECN codepoint of the IP header (RFC 3168).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ecn {
    NotEct,
    Ect,
    Ce,
}

/// What the packet carries.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Header {
    /// A TCP data segment: bytes `[seq, seq + len)` of the message. `ts` is the
    /// timestamp option's TSval (the sender's clock when it was sent).
    TcpData { seq: u64, len: u32, ts: Time },
    /// A TCP acknowledgement of every byte below `ack`; `ece` echoes congestion
    /// (RFC 3168 / RFC 8257); `ts_echo` returns the TSval of the segment acknowledged.
    TcpAck { ack: u64, ece: bool, ts_echo: Time },
    /// Connection set-up (RFC 793 three-way handshake, first two legs).
    TcpSyn { ts: Time },
    TcpSynAck { ts_echo: Time },
    /// A packet of the raw message transport: bytes `[offset, offset + len)`.
    Raw { offset: u64, len: u32 },
}

impl Header {
    /// True for packets that travel from the message's sender to its receiver.
    pub fn is_forward(&self) -> bool {
        matches!(self, Header::TcpData { .. } | Header::TcpSyn { .. } | Header::Raw { .. })
    }
    /// Payload bytes of the message carried.
    pub fn payload(&self) -> u64 {
        match *self {
            Header::TcpData { len, .. } | Header::Raw { len, .. } => len as u64,
            _ => 0,
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Packet {
    pub conn: ConnId,
    /// The host that put the packet on the network and the one it is for.
    pub src: HostId,
    pub dst: HostId,
    pub class: ClassId,
    pub wire_bytes: u32,
    pub ecn: Ecn,
    pub hdr: Header,
    /// The packet's INT stack in the network's pool (HPCC connections only).
    pub int: Option<super::int::Slot>,
}
