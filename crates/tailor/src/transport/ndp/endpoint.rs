//! One host's NDP: the messages it sends and the messages it receives, in one endpoint.
//!
//! Sender (§3.2): a message's first window goes at once; after that each PULL lets one
//! packet go. The host's transmit queue is one FIFO of such permissions across all its
//! messages, control packets (ACK, NACK, PULL) ahead of data: NDP's sender does not
//! prioritise among its messages, so a short message waits behind the first windows of
//! the messages before it (the head-of-line blocking the Homa paper reports, §5.2).
//!
//! Receiver (§3.2–§3.3): every DATA packet is ACKed and every trimmed header NACKed at
//! once; each adds a pull request for its message. One pull queue per host serves the
//! messages with requests round robin, one PULL per packet-time of the packet it pulls
//! at the host's link rate, so the pulled data arrives at the rate the downlink drains.
//! When the pacer is free as an ACK or NACK leaves, the pull rides in it (htsim's pull
//! bit). Timers (§3.3): one periodic tick per host, every quarter `rto`, sends again the
//! packets silent for `rto` and, for a message whose pulled packets stopped arriving,
//! its last PULL (a lost PULL is made good only by a later one).

use super::incoming::{Arrival, Incoming};
use super::outgoing::Outgoing;
use super::wire::Kind;
use super::Config;
use crate::net::ids::{ClassId, ConnId, HostId};
use crate::net::int::{Pool, Stack};
use crate::net::packet::{Ecn, Flags, Packet, Priority};
use crate::sim::Time;
use crate::transport::{Counters, Endpoint, EndpointEvent, Message, TimerKey, Transmit};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// Headers and control packets go in the switches' high-priority queue, data in the low
/// one (§3.1).
pub const CONTROL_LEVEL: Priority = 0;
pub const DATA_LEVEL: Priority = 1;

const TICK: TimerKey = TimerKey::new(0);
const PACER: TimerKey = TimerKey::new(1);

#[derive(Default)]
struct Stats {
    data_packets: u64,
    data_bytes: u64,
    retransmitted_packets: u64,
    timeouts: u64,
    acks: u64,
    nacks: u64,
    pulls: u64,
    pulls_on_feedback: u64,
    repulls: u64,
    idle_pulls: u64,
    duplicate_packets: u64,
    incoming_ps: u64,
    incoming_bytes: u64,
}

pub struct NdpEndpoint {
    cfg: Config,
    out: FxHashMap<ConnId, Outgoing>,
    /// Permissions to send one packet, in the order they came (first windows, pulls).
    fifo: VecDeque<ConnId>,
    control: VecDeque<Transmit>,
    inc: FxHashMap<ConnId, Incoming>,
    /// The pull queue: messages with pull requests, served round robin.
    pull_queue: VecDeque<ConnId>,
    /// The pacer's next free time, and the pacer timer pending.
    next_pull_at: Time,
    pacer_armed: Option<Time>,
    tick_armed: bool,
    /// Since when it has an incomplete incoming message (wasted downlink bandwidth).
    incoming_since: Option<Time>,
    now: Time,
    events: VecDeque<EndpointEvent>,
    stats: Stats,
}

impl NdpEndpoint {
    pub fn new(cfg: Config) -> NdpEndpoint {
        NdpEndpoint {
            cfg,
            out: FxHashMap::default(),
            fifo: VecDeque::new(),
            control: VecDeque::new(),
            inc: FxHashMap::default(),
            pull_queue: VecDeque::new(),
            next_pull_at: Time::ZERO,
            pacer_armed: None,
            tick_armed: false,
            incoming_since: None,
            now: Time::ZERO,
            events: VecDeque::new(),
            stats: Stats::default(),
        }
    }

    fn arm_tick(&mut self, now: Time) {
        if !self.tick_armed {
            self.tick_armed = true;
            let quarter = Time::from_ps((self.cfg.rto.ps() / 4).max(1));
            self.events.push_back(EndpointEvent::Timer(TICK, now + quarter));
        }
    }

    fn control(&mut self, conn: ConnId, dst: HostId, class: ClassId, kind: Kind) {
        match kind {
            Kind::Ack { .. } => self.stats.acks += 1,
            Kind::Nack { .. } => self.stats.nacks += 1,
            Kind::Pull { .. } => self.stats.pulls += 1,
            Kind::Data { .. } => unreachable!("data goes through the FIFO"),
        }
        self.control.push_back(Transmit {
            conn,
            dst,
            class,
            hdr: kind.encode(),
            wire_bytes: self.cfg.wire.control(),
            payload: 0,
            ecn: Ecn::NotEct,
            prio: Some(CONTROL_LEVEL),
            rank: 0,
            flags: Flags::empty(),
            int: None,
        });
    }

    /// Sends the pulls that are due: one per packet-time of what the last one pulled,
    /// round robin over the messages with requests (§3.2–§3.3). A pull for the message
    /// whose ACK or NACK is the last control packet waiting rides in it.
    fn pace(&mut self) {
        let now = self.now;
        while self.next_pull_at <= now {
            let Some(conn) = self.pull_queue.pop_front() else { break };
            let Some(m) = self.inc.get_mut(&conn) else { continue };
            m.in_queue = false;
            let Some((pull, bytes)) = m.take_pull(&self.cfg.wire) else { continue };
            let (src, class) = (m.src, m.class);
            if m.queued > 0 {
                m.in_queue = true;
                self.pull_queue.push_back(conn);
            }
            self.next_pull_at = now + self.cfg.line_rate.ser(bytes as u64);
            let rides = self.control.back_mut().filter(|t| t.conn == conn).and_then(|t| {
                let k = Kind::decode(&t.hdr)?.with_pull(pull)?;
                t.hdr = k.encode();
                Some(())
            });
            match rides {
                Some(()) => self.stats.pulls_on_feedback += 1,
                None => self.control(conn, src, class, Kind::Pull { pull }),
            }
        }
        if !self.pull_queue.is_empty() && self.pacer_armed.is_none_or(|a| a <= now || self.next_pull_at < a) {
            self.pacer_armed = Some(self.next_pull_at);
            self.events.push_back(EndpointEvent::Timer(PACER, self.next_pull_at));
        }
    }

    /// A DATA packet or a trimmed header of a message this host receives.
    fn on_data(&mut self, now: Time, msg: &Message, pkt: &Packet, offset: u64, len: u32) {
        let cfg = &self.cfg;
        let m = self.inc.entry(pkt.conn).or_insert_with(|| {
            Incoming::new(&cfg.wire, pkt.conn, msg.src, msg.class, msg.size, cfg.blind_packets(msg.size), now)
        });
        let i = m.index_of(offset);
        let kind = match m.arrive(i, pkt.is_trimmed(), now) {
            Arrival::Trimmed => Kind::Nack { offset, len, pull: 0 },
            Arrival::New => Kind::Ack { offset, pull: 0 },
            Arrival::Duplicate => {
                self.stats.duplicate_packets += 1;
                Kind::Ack { offset, pull: 0 }
            }
        };
        let (src, class, done) = (m.src, m.class, m.complete());
        let join = m.queued > 0 && !m.in_queue;
        m.in_queue |= join;
        // The period opens as its first packet has arrived: that packet's bytes crossed
        // the downlink before it.
        self.incoming_since.get_or_insert(now);
        self.arm_tick(now);
        if done {
            // Its last byte is here: the message is complete (the sender forgets it when
            // the engine says so, so no ACK is needed for it).
            self.events.push_back(EndpointEvent::Completed(pkt.conn));
            self.forget_incoming(pkt.conn);
            return;
        }
        self.control(pkt.conn, src, class, kind);
        if join {
            self.pull_queue.push_back(pkt.conn);
        }
        self.pace();
    }

    /// Drops the record of an incoming message (its entry in the pull queue is skipped
    /// when reached).
    fn forget_incoming(&mut self, conn: ConnId) {
        if self.inc.remove(&conn).is_some() && self.inc.is_empty() {
            if let Some(since) = self.incoming_since.take() {
                self.stats.incoming_ps += (self.now - since).ps();
            }
        }
    }

    /// ACK, NACK or PULL for a message this host sends.
    fn on_feedback(&mut self, conn: ConnId, kind: Kind) {
        let Some(o) = self.out.get_mut(&conn) else { return };
        let pull = match kind {
            Kind::Ack { offset, pull } => {
                o.on_ack(offset);
                pull
            }
            Kind::Nack { offset, pull, .. } => {
                if o.on_nack(offset) && o.banked > 0 {
                    // A pull that found nothing to send is spent on the retransmission.
                    o.banked -= 1;
                    self.fifo.push_back(conn);
                }
                pull
            }
            Kind::Pull { pull } => pull,
            Kind::Data { .. } => unreachable!("data is handled by the receiver"),
        };
        let n = o.on_pull(pull);
        self.fifo.extend(std::iter::repeat_n(conn, n as usize));
    }

    /// The periodic check (§3.3): packets silent for `rto` are sent again at once; a
    /// message whose pulled packets stopped arriving gets its last PULL again.
    fn tick(&mut self, now: Time) {
        let rto = self.cfg.rto;
        let mut conns: Vec<ConnId> = self.out.iter().filter(|(_, o)| o.in_flight()).map(|(c, _)| *c).collect();
        conns.sort_unstable_by_key(|c| (c.slot, c.gen));
        for conn in conns {
            let o = self.out.get_mut(&conn).expect("listed");
            let n = o.expire(now, rto);
            self.stats.timeouts += n as u64;
            self.fifo.extend(std::iter::repeat_n(conn, n as usize));
        }
        let mut silent: Vec<(ConnId, HostId, ClassId, u32)> = Vec::new();
        for m in self.inc.values_mut() {
            if m.expecting() && now - m.last_heard >= rto {
                m.last_heard = now;
                silent.push((m.conn, m.src, m.class, m.pulls));
            }
        }
        silent.sort_unstable_by_key(|s| (s.0.slot, s.0.gen));
        for (conn, src, class, pull) in silent {
            self.stats.repulls += 1;
            self.control(conn, src, class, Kind::Pull { pull });
        }
    }
}

impl Endpoint for NdpEndpoint {
    fn on_message(&mut self, now: Time, msg: &Message) {
        self.now = now;
        let o = Outgoing::new(&self.cfg.wire, *msg);
        let blind = self.cfg.blind_packets(msg.size);
        self.out.insert(msg.conn, o);
        self.fifo.extend(std::iter::repeat_n(msg.conn, blind as usize));
        self.arm_tick(now);
    }

    fn on_packet(&mut self, now: Time, msg: &Message, pkt: &Packet, _int: Option<&Stack>) {
        self.now = now;
        if self.incoming_since.is_some() {
            self.stats.incoming_bytes += pkt.wire_bytes as u64;
        }
        match Kind::decode(&pkt.hdr) {
            Some(Kind::Data { offset, len, .. }) => self.on_data(now, msg, pkt, offset, len),
            Some(k) => self.on_feedback(pkt.conn, k),
            None => {}
        }
    }

    fn on_timer(&mut self, now: Time, key: TimerKey) {
        self.now = now;
        if key == PACER {
            if self.pacer_armed == Some(now) {
                self.pacer_armed = None;
            }
            self.pace();
            return;
        }
        if key != TICK {
            return;
        }
        self.tick_armed = false;
        self.tick(now);
        if !self.out.is_empty() || !self.inc.is_empty() {
            self.arm_tick(now);
        }
    }

    fn on_finished(&mut self, conn: ConnId) {
        self.out.remove(&conn);
        self.forget_incoming(conn);
    }

    fn poll_transmit(&mut self, now: Time, _int: &mut Pool) -> Option<Transmit> {
        if let Some(t) = self.control.pop_front() {
            return Some(t);
        }
        while let Some(conn) = self.fifo.pop_front() {
            let Some(o) = self.out.get_mut(&conn) else { continue };
            let Some((kind, wire_bytes, payload)) = o.next_packet(&self.cfg.wire, now) else {
                o.banked += 1;
                self.stats.idle_pulls += 1;
                continue;
            };
            self.stats.data_packets += 1;
            self.stats.data_bytes += payload as u64;
            if let Kind::Data { retransmit: true, .. } = kind {
                self.stats.retransmitted_packets += 1;
            }
            return Some(Transmit {
                conn,
                dst: o.msg.dst,
                class: o.msg.class,
                hdr: kind.encode(),
                wire_bytes,
                payload,
                ecn: Ecn::NotEct,
                prio: Some(DATA_LEVEL),
                rank: 0,
                flags: Flags::empty(),
                int: None,
            });
        }
        None
    }

    fn poll_event(&mut self) -> Option<EndpointEvent> {
        self.events.pop_front()
    }

    fn counters(&self, out: &mut Counters) {
        let s = &self.stats;
        out.add("data_packets", s.data_packets);
        out.add("data_bytes", s.data_bytes);
        out.add("retransmitted_packets", s.retransmitted_packets);
        out.add("timeouts", s.timeouts);
        out.add("acks", s.acks);
        out.add("nacks", s.nacks);
        out.add("pulls", s.pulls);
        out.add("pulls_on_feedback", s.pulls_on_feedback);
        out.add("repulls", s.repulls);
        out.add("idle_pulls", s.idle_pulls);
        out.add("duplicate_packets", s.duplicate_packets);
        // A period still open counts up to the endpoint's latest input.
        let open = self.incoming_since.map_or(0, |since| (self.now - since).ps());
        out.add("incoming_ns", (s.incoming_ps + open) / 1000);
        out.add("incoming_wire_bytes", s.incoming_bytes);
    }
}
