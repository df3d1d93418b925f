//! One host's pFabric: the messages it sends and those it receives, in one endpoint.
//!
//! pFabric's end hosts serve their own queue by priority too (§4.1): ACKs first (rank
//! 0, the authors' ACKs carry priority 0), then the message with the fewest bytes
//! unacknowledged among those its window lets send (ties: the older, then the lower
//! message id), each message's packets in order. With `[host] nic_depth = 0` the NIC
//! takes one packet when its link is idle and this is the choice; with `nic = "rank"` the
//! NIC queue makes the same choice from the ranks.
//!
//! Each sender keeps one pending timer entry, re-armed lazily (as TCP's endpoint): a
//! retransmission deadline restarted by every ACK waits for the pending entry to fire;
//! a [`TimerKey`] is the sender's slot and the slot's generation, kept across reuse, so a
//! firing meant for an earlier message or an earlier deadline is recognised.

use super::receiver::Receiver;
use super::sender::{Out, Sender};
use super::wire::Segment;
use super::Config;
use crate::net::ids::ConnId;
use crate::net::int::{Pool, Stack};
use crate::net::packet::{Ecn, Flags, Packet};
use crate::sim::Time;
use crate::transport::{Counters, Endpoint, EndpointEvent, Message, TimerKey, Transmit};
use rustc_hash::FxHashMap;
use std::collections::{BTreeSet, VecDeque};

/// The sending order: bytes unacknowledged, start time, message id, slot.
type ReadyKey = (u64, Time, u32, u32);

struct Outgoing {
    msg: Message,
    s: Sender,
    /// Its key in `ready` while it has a packet to send.
    ready: Option<ReadyKey>,
    /// When its pending timer entry fires, if one is pending.
    timer_at: Option<Time>,
    /// In `dirty` already.
    dirty: bool,
}

#[derive(Default)]
struct Stats {
    data_packets: u64,
    retransmitted_packets: u64,
    timeouts: u64,
    probes: u64,
    acks: u64,
    duplicate_packets: u64,
}

pub struct PfabricEndpoint {
    cfg: Config,
    out: Vec<Option<Outgoing>>,
    /// Timer generation per slot, kept across reuse.
    timer_gen: Vec<u32>,
    free: Vec<u32>,
    index: FxHashMap<ConnId, u32>,
    ready: BTreeSet<ReadyKey>,
    /// Slots whose deadline may have moved since the last `poll_event`.
    dirty: VecDeque<u32>,
    receiving: FxHashMap<ConnId, Receiver>,
    acks: VecDeque<Transmit>,
    completed: VecDeque<ConnId>,
    stats: Stats,
}

impl PfabricEndpoint {
    pub fn new(cfg: Config) -> PfabricEndpoint {
        PfabricEndpoint {
            cfg,
            out: Vec::new(),
            timer_gen: Vec::new(),
            free: Vec::new(),
            index: FxHashMap::default(),
            ready: BTreeSet::new(),
            dirty: VecDeque::new(),
            receiving: FxHashMap::default(),
            acks: VecDeque::new(),
            completed: VecDeque::new(),
            stats: Stats::default(),
        }
    }

    /// Its messages with a packet to send, with their bytes unacknowledged, in the
    /// order it serves them (tests).
    pub fn ready_messages(&self) -> Vec<(ConnId, u64)> {
        self.ready.iter().map(|&(left, _, _, slot)| (self.live(slot).msg.conn, left)).collect()
    }

    /// The sender of `conn`, if it still sends (tests).
    pub fn sender(&self, conn: ConnId) -> Option<&Sender> {
        self.index.get(&conn).map(|&slot| &self.live(slot).s)
    }

    fn live(&self, slot: u32) -> &Outgoing {
        self.out[slot as usize].as_ref().expect("an indexed slot is live")
    }

    /// A sender's state changed: its place in the sending order and its deadline.
    fn touch(&mut self, slot: u32) {
        let o = self.out[slot as usize].as_mut().expect("touching a live sender");
        if let Some(k) = o.ready.take() {
            self.ready.remove(&k);
        }
        if o.s.can_send() {
            let k = (o.s.remaining(), o.msg.start, o.msg.conn.slot, slot);
            self.ready.insert(k);
            o.ready = Some(k);
        }
        if !o.dirty {
            o.dirty = true;
            self.dirty.push_back(slot);
        }
    }

    fn transmit(
        &self,
        conn: ConnId,
        dst: crate::net::ids::HostId,
        class: crate::net::ids::ClassId,
        seg: Segment,
        payload: u32,
        rank: u64,
    ) -> Transmit {
        Transmit {
            conn,
            dst,
            class,
            hdr: seg.encode(),
            wire_bytes: self.cfg.wire.bytes(payload),
            payload,
            ecn: Ecn::NotEct,
            prio: None,
            rank: rank.min(u32::MAX as u64) as u32,
            flags: Flags::empty(),
            int: None,
        }
    }

    /// A data packet or a probe of `msg` arrived: acknowledge it, complete the message.
    fn receive(&mut self, msg: &Message, seg: Segment) {
        let packets = self.cfg.wire.packets(msg.size);
        let r = self.receiving.entry(msg.conn).or_insert_with(|| Receiver::new(packets));
        let answered = match seg {
            Segment::Data { index } => {
                if !r.on_data(index) {
                    self.stats.duplicate_packets += 1;
                }
                Some(index)
            }
            _ => None,
        };
        let (ack, done) = (r.ack(answered), r.is_complete());
        // An ACK goes back at once, before any data of this host (rank 0).
        let t = self.transmit(msg.conn, msg.src, msg.class, ack, 0, 0);
        self.acks.push_back(t);
        self.stats.acks += 1;
        if done && !self.completed.contains(&msg.conn) {
            self.completed.push_back(msg.conn);
        }
    }

    /// The next timer to arm: a sender whose deadline came before its pending entry's.
    fn next_timer(&mut self) -> Option<(TimerKey, Time)> {
        while let Some(slot) = self.dirty.pop_front() {
            let Some(o) = self.out[slot as usize].as_mut() else { continue };
            o.dirty = false;
            let Some(d) = o.s.deadline() else { continue };
            if o.timer_at.is_none_or(|t| d < t) {
                o.timer_at = Some(d);
                let gen = &mut self.timer_gen[slot as usize];
                *gen = gen.wrapping_add(1);
                return Some((TimerKey::new((slot as u64) << 32 | *gen as u64), d));
            }
        }
        None
    }
}

impl Endpoint for PfabricEndpoint {
    fn on_message(&mut self, _now: Time, msg: &Message) {
        let s = Sender::new(self.cfg.wire, self.cfg.control, msg.size);
        let o = Outgoing { msg: *msg, s, ready: None, timer_at: None, dirty: false };
        let slot = match self.free.pop() {
            Some(s) => {
                self.out[s as usize] = Some(o);
                s
            }
            None => {
                self.out.push(Some(o));
                self.timer_gen.push(0);
                (self.out.len() - 1) as u32
            }
        };
        self.index.insert(msg.conn, slot);
        self.touch(slot);
    }

    /// A trimmed packet (a port cut its payload) is a loss to pFabric: ignored.
    fn on_packet(&mut self, now: Time, msg: &Message, pkt: &Packet, _int: Option<&Stack>) {
        let Some(seg) = Segment::decode(&pkt.hdr) else { return };
        if pkt.is_trimmed() {
            return;
        }
        match seg {
            Segment::Ack { cum, sack } => {
                let Some(&slot) = self.index.get(&pkt.conn) else { return };
                self.out[slot as usize].as_mut().expect("live").s.on_ack(now, cum, sack);
                self.touch(slot);
            }
            _ => self.receive(msg, seg),
        }
    }

    fn on_timer(&mut self, now: Time, key: TimerKey) {
        let (slot, gen) = ((key.get() >> 32) as u32, key.get() as u32);
        if self.timer_gen.get(slot as usize) != Some(&gen) {
            return;
        }
        let Some(o) = self.out[slot as usize].as_mut() else { return };
        o.timer_at = None;
        if o.s.on_timeout(now) {
            self.stats.timeouts += 1;
        }
        self.touch(slot);
    }

    fn on_finished(&mut self, conn: ConnId) {
        self.receiving.remove(&conn);
        if let Some(slot) = self.index.remove(&conn) {
            let o = self.out[slot as usize].take().expect("an indexed slot is live");
            if let Some(k) = o.ready {
                self.ready.remove(&k);
            }
            // A firing armed for the message that leaves must not reach the next one.
            let gen = &mut self.timer_gen[slot as usize];
            *gen = gen.wrapping_add(1);
            self.free.push(slot);
        }
    }

    fn poll_transmit(&mut self, now: Time, _int: &mut Pool) -> Option<Transmit> {
        if let Some(a) = self.acks.pop_front() {
            return Some(a);
        }
        let &(left, _, _, slot) = self.ready.first()?;
        let o = self.out[slot as usize].as_mut().expect("a ready slot is live");
        let Out { seg, payload, again } = o.s.poll_transmit(now).expect("a ready sender has a packet");
        let (conn, dst, class) = (o.msg.conn, o.msg.dst, o.msg.class);
        match seg {
            Segment::Probe => self.stats.probes += 1,
            _ => {
                self.stats.data_packets += 1;
                self.stats.retransmitted_packets += again as u64;
            }
        }
        self.touch(slot);
        Some(self.transmit(conn, dst, class, seg, payload, left))
    }

    fn poll_event(&mut self) -> Option<EndpointEvent> {
        if let Some((key, at)) = self.next_timer() {
            return Some(EndpointEvent::Timer(key, at));
        }
        self.completed.pop_front().map(EndpointEvent::Completed)
    }

    fn counters(&self, out: &mut Counters) {
        let s = &self.stats;
        out.add("data_packets", s.data_packets);
        out.add("retransmitted_packets", s.retransmitted_packets);
        out.add("timeouts", s.timeouts);
        out.add("probes", s.probes);
        out.add("acks", s.acks);
        out.add("duplicate_packets", s.duplicate_packets);
    }
}
