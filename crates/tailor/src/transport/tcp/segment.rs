//! TCP's header as the network carries it, and the packet a TCP end wants sent.
//!
//! A [`Segment`] is encoded into the network's opaque three-word [`Header`]: word 0
//! holds the kind in its low byte, the length (data, bits 8-38, with the CWR bit 39) or the
//! ECE bit and the advertised window (ACK, bits 9-39) above it (bits 40 up are the
//! endpoint's connection number);
//! word 1 the sequence or acknowledgement number (on an ACK, bit 63 is the D-SACK flag:
//! no message reaches 2^63 bytes); word 2 the timestamp option (TSval,
//! or TSecr on ACK and SYN-ACK) in its low 52 bits and the coarse timestamp of the
//! receive window (`receiver::RcvWindow`) in its top 12. A header another transport wrote does not decode.

use crate::net::int::Stack;
use crate::net::packet::{Ecn, Header};
use crate::sim::Time;

/// What a TCP packet carries.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    /// A data segment: bytes `[seq, seq + len)` of the message. `ts` is the timestamp
    /// option's TSval (the sender's clock when it was sent).
    /// `tsecr` echoes the receiver's coarse TSval (`Ack::tsval`), 0 when none. `cwr`:
    /// the sender has reduced its window since the receiver's ECE (RFC 3168 §6.1.2).
    Data {
        seq: u64,
        len: u32,
        ts: Time,
        tsecr: u32,
        cwr: bool,
    },
    /// An acknowledgement of every byte below `ack`; `ece` echoes congestion (RFC 3168 /
    /// RFC 8257); `ts_echo` returns the TSval of the segment acknowledged; `wnd` is the
    /// advertised receive window in bytes (the sender may send up to `ack + wnd`), 0 when
    /// the receiver models none (`Config::rwnd`: the window is unlimited).
    /// `tsval` is the receiver's clock in ticks of `RcvWindow::clock` modulo 2^24 (Linux's
    /// TSval counts jiffies), 0 when no window is modelled; data echoes it for the
    /// receiver's RTT estimate. `dsack`: the ACK answers a segment whose bytes had all
    /// arrived before (RFC 2883; `Config::dsack`).
    Ack {
        ack: u64,
        ece: bool,
        ts_echo: Time,
        wnd: u64,
        tsval: u32,
        dsack: bool,
    },
    /// Connection set-up (RFC 793 three-way handshake, first two legs).
    Syn {
        ts: Time,
    },
    SynAck {
        ts_echo: Time,
    },
}

/// Kind tags in word 0's low byte: 0x10 upwards, so that a zeroed header is not TCP.
const DATA: u64 = 0x10;
const ACK: u64 = 0x11;
const SYN: u64 = 0x12;
const SYN_ACK: u64 = 0x13;
/// The largest window word 0 holds between the ECE bit and the persistent connection's
/// number (bits 40 up, `endpoint`): 2^31 - 1 bytes.
pub const WND_MAX: u64 = (1 << 31) - 1;
/// The coarse timestamps' width: 12 bits, above the 52 bits of picoseconds (75 minutes
/// of simulated time) the fine timestamp keeps in word 2. An RTT is read modulo 4,096 ticks.
pub const TS_MASK: u64 = (1 << 12) - 1;
const TIME_MASK: u64 = (1 << 52) - 1;
/// The D-SACK flag in an ACK's word 1.
const DSACK: u64 = 1 << 63;
/// The largest data length word 0 holds below the CWR bit: 2^31 - 1 bytes (a segment is
/// at most an MSS, at most 1 GiB).
pub const LEN_MAX: u32 = (1 << 31) - 1;

/// Word 2: a fine timestamp with a coarse tick count above it.
fn with_tick(t: Time, tick: u32) -> u64 {
    debug_assert!(t.ps() <= TIME_MASK, "a timestamp beyond 75 minutes of simulated time");
    (t.ps() & TIME_MASK) | (tick as u64 & TS_MASK) << 52
}

impl Segment {
    pub fn encode(self) -> Header {
        match self {
            Segment::Data { seq, len, ts, tsecr, cwr } => {
                debug_assert!(len <= LEN_MAX, "a segment longer than 2^31 - 1 bytes");
                Header([DATA | ((len & LEN_MAX) as u64) << 8 | (cwr as u64) << 39, seq, with_tick(ts, tsecr)])
            }
            Segment::Ack { ack, ece, ts_echo, wnd, tsval, dsack } => {
                debug_assert!(ack < DSACK, "an acknowledgement number beyond 2^63");
                Header([
                    ACK | (ece as u64) << 8 | wnd.min(WND_MAX) << 9,
                    ack | (dsack as u64) << 63,
                    with_tick(ts_echo, tsval),
                ])
            }
            Segment::Syn { ts } => Header([SYN, 0, ts.ps()]),
            Segment::SynAck { ts_echo } => Header([SYN_ACK, 0, ts_echo.ps()]),
        }
    }

    pub fn decode(h: &Header) -> Option<Segment> {
        let [w0, w1, w2] = h.0;
        Some(match w0 & 0xff {
            DATA => Segment::Data {
                seq: w1,
                len: (w0 >> 8) as u32 & LEN_MAX,
                ts: Time::from_ps(w2 & TIME_MASK),
                tsecr: (w2 >> 52) as u32,
                cwr: (w0 >> 39) & 1 == 1,
            },
            ACK => Segment::Ack {
                ack: w1 & !DSACK,
                ece: (w0 >> 8) & 1 == 1,
                ts_echo: Time::from_ps(w2 & TIME_MASK),
                wnd: (w0 >> 9) & WND_MAX,
                tsval: (w2 >> 52) as u32,
                dsack: w1 & DSACK != 0,
            },
            SYN => Segment::Syn { ts: Time::from_ps(w2) },
            SYN_ACK => Segment::SynAck { ts_echo: Time::from_ps(w2) },
            _ => return None,
        })
    }

    /// True for segments that travel from the message's sender to its receiver.
    pub fn is_forward(&self) -> bool {
        matches!(self, Segment::Data { .. } | Segment::Syn { .. })
    }

    /// Message bytes carried.
    pub fn payload(&self) -> u32 {
        match *self {
            Segment::Data { len, .. } => len,
            _ => 0,
        }
    }
}

/// A packet one end of a connection wants sent; its endpoint adds the connection and
/// turns it into the network's `Transmit`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Out {
    pub seg: Segment,
    pub wire_bytes: u32,
    pub ecn: Ecn,
    /// The INT stack the packet starts with: an empty one on HPCC data (the ports fill
    /// it), the echoed one on HPCC ACKs; None for packets without telemetry. Boxed: a
    /// stack is 328 bytes, and held by value it made every segment of every TCP-family
    /// transport that size, copied at each step of the queue of segments to send
    /// (cachegrind: 15 % of the write misses at 1,024 hosts; docs/performance.md).
    pub int: Option<Box<Stack>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_segment_survives_the_wire_and_a_foreign_header_does_not_decode() {
        let t = Time::from_ps(123_456_789);
        for s in [
            Segment::Data { seq: u64::MAX - 5, len: LEN_MAX, ts: t, tsecr: 0, cwr: false },
            Segment::Data { seq: u64::MAX - 5, len: LEN_MAX, ts: t, tsecr: 0, cwr: true },
            Segment::Data { seq: 1, len: 1448, ts: t, tsecr: TS_MASK as u32, cwr: true },
            Segment::Ack { ack: 77, ece: true, ts_echo: t, wnd: 0, tsval: 0, dsack: false },
            Segment::Ack { ack: 0, ece: false, ts_echo: Time::ZERO, wnd: 4 << 20, tsval: 5, dsack: true },
            Segment::Ack { ack: 1, ece: true, ts_echo: t, wnd: WND_MAX, tsval: TS_MASK as u32, dsack: false },
            Segment::Ack { ack: (1 << 63) - 1, ece: false, ts_echo: t, wnd: 0, tsval: 0, dsack: true },
            Segment::Syn { ts: t },
            Segment::SynAck { ts_echo: t },
        ] {
            assert_eq!(Segment::decode(&s.encode()), Some(s));
            // The endpoint's persistent-connection number rides in word 0's bits 40 up.
            let mut h = s.encode();
            h.0[0] |= 0xff_ffff << 40;
            assert_eq!(Segment::decode(&h), Some(s), "the connection number leaves {s:?} intact");
        }
        assert_eq!(Segment::decode(&Header::default()), None);
    }
}
