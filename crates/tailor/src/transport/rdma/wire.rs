//! The RDMA NIC's headers (the HPCC programs' `SeqTsHeader` and `qbbHeader`): a data
//! packet carries its byte sequence, payload length and send time; an ACK or NACK the
//! receiver's next expected byte, whether the data packet it answers was CE-marked
//! (the programs' CNP flag) and the data's send time (TIMELY's RTT; the programs carry
//! it in their INT header); a CNP (DCQCN's congestion notification packet, §3.1, with
//! `cnp_interval`) names only its queue pair.
//!
//! Word 0 holds a tag in its low byte, flags in the next and the payload length above;
//! word 1 the sequence; word 2 the time in picoseconds.

use crate::net::packet::Header;
use crate::sim::Time;

const DATA: u64 = 0x30;
const ACK: u64 = 0x31;
const NACK: u64 = 0x32;
const CNP: u64 = 0x33;
const ECN_ECHO: u64 = 1 << 8;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    Data {
        seq: u64,
        len: u32,
        sent: Time,
    },
    /// An ACK (`nack` false) or NACK of everything before `seq`.
    Reply {
        seq: u64,
        nack: bool,
        ecn: bool,
        sent: Time,
    },
    /// A congestion notification (DCQCN's NP, §3.1).
    Cnp,
}

impl Segment {
    pub fn encode(self) -> Header {
        match self {
            Segment::Data { seq, len, sent } => Header([DATA | (len as u64) << 16, seq, sent.ps()]),
            Segment::Reply { seq, nack, ecn, sent } => {
                let tag = if nack { NACK } else { ACK };
                Header([tag | if ecn { ECN_ECHO } else { 0 }, seq, sent.ps()])
            }
            Segment::Cnp => Header([CNP, 0, 0]),
        }
    }

    pub fn decode(h: &Header) -> Option<Segment> {
        let [w0, seq, t] = h.0;
        let sent = Time::from_ps(t);
        match w0 & 0xff {
            DATA => Some(Segment::Data { seq, len: (w0 >> 16) as u32, sent }),
            ACK | NACK => Some(Segment::Reply { seq, nack: w0 & 0xff == NACK, ecn: w0 & ECN_ECHO != 0, sent }),
            CNP => Some(Segment::Cnp),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_round_trip() {
        let all = [
            Segment::Data { seq: 123_456_789, len: 1000, sent: Time::from_ns(42) },
            Segment::Reply { seq: 7, nack: false, ecn: true, sent: Time::from_us(3) },
            Segment::Reply { seq: 0, nack: true, ecn: false, sent: Time::ZERO },
            Segment::Cnp,
        ];
        for s in all {
            assert_eq!(Segment::decode(&s.encode()), Some(s));
        }
        assert_eq!(Segment::decode(&Header([0x20, 0, 0])), None);
    }
}
