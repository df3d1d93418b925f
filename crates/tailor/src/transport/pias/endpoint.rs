//! One host's PIAS: DCTCP's endpoint (`tcp::TcpEndpoint`, unchanged) whose outgoing
//! packets are tagged with their multi-level-feedback-queue level on the way to the NIC
//! (PIAS §3.1, §4.1: tagging at the end host, "packet tagging" module).
//!
//! The level needs no state of its own: a data segment carries its offset in the
//! message, and the offset is the bytes the message sent before it (one connection per
//! message). PIAS's ns-2 code tags each data packet by that offset
//! (`piasPrio(seqno - startseq_)`), so a retransmitted segment goes at the level it first
//! went at, and packets without data — ACKs, and SYN / SYN-ACK when a handshake is
//! modelled — at the highest level (`iph->prio() = 0` when `datalen == 0`).

use super::PacketLevel;
use crate::net::ids::ConnId;
use crate::net::int::{self, Stack};
use crate::net::packet::{Packet, Priority};
use crate::sim::Time;
use crate::transport::tcp::{Segment, TcpEndpoint};
use crate::transport::{Counters, Endpoint, EndpointEvent, Message, TimerKey, Transmit};

/// The counter names of data packets sent per level (`summary.json`'s
/// `transport_counters`): the demotion is visible in results.
const LEVEL_COUNTERS: [&str; 8] = [
    "data_packets_level_0",
    "data_packets_level_1",
    "data_packets_level_2",
    "data_packets_level_3",
    "data_packets_level_4",
    "data_packets_level_5",
    "data_packets_level_6",
    "data_packets_level_7",
];

/// Chooses each packet's level from the demotion thresholds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tagger {
    /// Increasing message-byte offsets: the bytes below `thresholds[0]` go at level 0,
    /// those from `thresholds[i - 1]` below `thresholds[i]` at level i, the rest at level
    /// `thresholds.len()`.
    pub thresholds: Vec<u64>,
    pub packet_level: PacketLevel,
}

impl Tagger {
    /// The level of the message byte at `offset` (the bytes sent before it).
    pub fn byte_level(&self, offset: u64) -> Priority {
        self.thresholds.partition_point(|&a| a <= offset) as Priority
    }

    /// The level of a data packet carrying bytes [seq, seq + len): its first byte's
    /// (PIAS), or its last byte's, the lowest of its bytes' levels (Homa §5.2).
    pub fn data_level(&self, seq: u64, len: u32) -> Priority {
        match self.packet_level {
            PacketLevel::FirstByte => self.byte_level(seq),
            PacketLevel::LastByte => self.byte_level(seq + (len as u64).max(1) - 1),
        }
    }

    /// The level of any packet TCP sends: data by its bytes, the rest at level 0.
    pub fn level(&self, seg: &Segment) -> Priority {
        match *seg {
            Segment::Data { seq, len, .. } => self.data_level(seq, len),
            Segment::Ack { .. } | Segment::Syn { .. } | Segment::SynAck { .. } => 0,
        }
    }
}

pub struct PiasEndpoint {
    tcp: TcpEndpoint,
    tagger: Tagger,
    /// Data packets sent per level (the last counter takes any level beyond it).
    per_level: [u64; LEVEL_COUNTERS.len()],
}

impl PiasEndpoint {
    pub fn new(tcp: TcpEndpoint, tagger: Tagger) -> PiasEndpoint {
        PiasEndpoint { tcp, tagger, per_level: [0; LEVEL_COUNTERS.len()] }
    }
}

impl Endpoint for PiasEndpoint {
    fn on_message(&mut self, now: Time, msg: &Message) {
        self.tcp.on_message(now, msg);
    }
    fn on_packet(&mut self, now: Time, msg: &Message, pkt: &Packet, int: Option<&Stack>) {
        self.tcp.on_packet(now, msg, pkt, int);
    }
    fn on_timer(&mut self, now: Time, key: TimerKey) {
        self.tcp.on_timer(now, key);
    }
    fn on_framed(&mut self, msg: &Message, channel: u32, end: u64) {
        self.tcp.on_framed(msg, channel, end);
    }
    fn on_finished(&mut self, conn: ConnId) {
        self.tcp.on_finished(conn);
    }
    fn poll_transmit(&mut self, now: Time, int: &mut int::Pool) -> Option<Transmit> {
        let mut t = self.tcp.poll_transmit(now, int)?;
        let seg = Segment::decode(&t.hdr).expect("TCP's endpoint sends TCP segments");
        let level = self.tagger.level(&seg);
        if t.payload > 0 {
            self.per_level[(level as usize).min(LEVEL_COUNTERS.len() - 1)] += 1;
        }
        t.prio = Some(level);
        Some(t)
    }
    fn poll_event(&mut self) -> Option<EndpointEvent> {
        self.tcp.poll_event()
    }
    fn counters(&self, out: &mut Counters) {
        self.tcp.counters(out);
        let used = self.tagger.thresholds.len() + 1;
        for (name, n) in LEVEL_COUNTERS.iter().zip(self.per_level).take(used) {
            out.add(name, n);
        }
    }
}
