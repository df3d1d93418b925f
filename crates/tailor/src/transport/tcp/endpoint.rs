//! One host's TCP: the sending end of each connection it opens and the receiving end of
//! each connection opened to it, in one endpoint.
//!
//! Each end keeps the one timer entry DESIGN.md asks for (its earliest deadline, re-armed
//! lazily: a later deadline waits for the pending entry to fire, so an RTO restarted by
//! every ACK costs no heap operation). A [`TimerKey`] is the end's slot and the slot's
//! timer generation; the generation survives the slot's reuse, so a firing meant for an
//! earlier end or an earlier deadline is recognised and ignored.
//!
//! Persistent connections (a class's `connections`, `Message::channel`): the messages a
//! host sends to one peer on one channel of a class are one TCP byte stream, in order,
//! with one congestion state (HULL §6.2: the testbed's client keeps 16 connections to
//! each server). The connection is one sending end here and one receiving end at the
//! peer, kept for the run; each message on it is indexed to it, and completes when the
//! stream's cumulative ACK passes its last byte. Its packets carry the message's id (the
//! ACKs that of the latest data received), so the flow table routes them.
//!
//! A message is complete when its sender has the last ACK (ns-3's flow completion time),
//! or, for an endpoint built `completing_at_receiver` (PIAS, measured as its authors'
//! and the Homa authors' ns-2 scripts measure one-way delivery), when its receiver has
//! the last byte.
//!
//! With `completion = "delivery"` (`Completion::Delivery`) a message completes when its
//! receiver has its last byte in order: the receiving end reports it `Delivered`, and the
//! sending end still reports it `Completed` at the last ACK, when both ends forget it, so
//! the connection sends exactly what it sends otherwise. On a persistent connection the
//! receiver learns where each message ends as an application reading the stream would
//! from its framing: the sending end reports each message's end offset as it appends it
//! (`EndpointEvent::Framed`), and the receiving end completes the messages whose ends
//! its in-order point `rcv_nxt` has passed, whatever segment carried their bytes.

use super::segment::{Out, Segment};
use super::sender::SenderStats;
use super::{Completion, Config, Receiver, Sender};
use crate::net::ids::{ClassId, ConnId, HostId};
use crate::net::int::{self, Stack};
use crate::net::packet::{Flags, Packet};
use crate::sim::Time;
use crate::transport::workers::Workers;
use crate::transport::{Channel, Counters, Endpoint, EndpointEvent, Message, TimerKey, Transmit};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

#[allow(clippy::large_enum_variant, reason = "a connection's ends are mostly senders; a box would cost each one a hop")]
enum End {
    Send(Sender),
    Recv(Receiver),
}

struct Half {
    conn: ConnId,
    /// The other end's host and the message's class (what its packets carry).
    peer: HostId,
    class: ClassId,
    end: End,
    /// When the pending timer entry fires, if one is pending.
    timer_at: Option<Time>,
    /// In `ready` / `dirty` already.
    ready: bool,
    dirty: bool,
    /// A persistent connection's end: its key and, sending, the end offset and id of
    /// each message not yet acknowledged whole.
    stream: Option<Box<Stream>>,
}

/// Where a persistent connection's number sits in a segment's header word 0 (plus one; 0:
/// none): above the kind (8 bits) and a data segment's length (32 bits), which
/// `Segment::decode` reads without these bits.
const CHANNEL_SHIFT: u32 = 40;

/// The persistent connection a packet's header names, if any.
fn channel_of(hdr: &crate::net::packet::Header) -> Option<u32> {
    ((hdr.0[0] >> CHANNEL_SHIFT) as u32).checked_sub(1)
}

/// (peer, class, channel, sending): a persistent connection's end at this host.
type StreamKey = (HostId, ClassId, u32, bool);

struct Stream {
    key: StreamKey,
    /// Each message's end offset in the stream and its id, in stream order: sending, those
    /// not yet acknowledged whole; receiving (`Completion::Delivery`), those framed and not
    /// yet delivered.
    messages: VecDeque<(u64, ConnId)>,
}

pub struct TcpEndpoint {
    cfg: Config,
    host: HostId,
    halves: Vec<Option<Half>>,
    /// Timer generation per slot, kept across reuse.
    timer_gen: Vec<u32>,
    free: Vec<u32>,
    /// (connection, true for the sending end) -> slot.
    index: FxHashMap<(ConnId, bool), u32>,
    /// Slots that may have a packet to send, in the order they became so.
    ready: VecDeque<u32>,
    /// Slots whose deadline may have moved since the last `poll_timer`.
    dirty: VecDeque<u32>,
    /// Completions, deliveries and framings for the engine, in order.
    events: VecDeque<EndpointEvent>,
    /// Sender counters of the connections completed here.
    stats: SenderStats,
    /// A message completes when its receiver has the last byte (not the sender's ACK).
    receiver_completes: bool,
    /// Persistent connections' ends, by key.
    streams: FxHashMap<StreamKey, u32>,
    /// A pool of workers per (receiver, class) (`Channel::Available`): its size and the
    /// messages waiting for an available connection, in arrival order.
    waiting: FxHashMap<(HostId, ClassId), Workers>,
    /// Messages that found no connection available and waited.
    waited: u64,
}

impl TcpEndpoint {
    pub fn new(cfg: Config, host: HostId) -> TcpEndpoint {
        TcpEndpoint {
            cfg,
            host,
            halves: Vec::new(),
            timer_gen: Vec::new(),
            free: Vec::new(),
            index: FxHashMap::default(),
            ready: VecDeque::new(),
            dirty: VecDeque::new(),
            events: VecDeque::new(),
            stats: SenderStats::default(),
            receiver_completes: false,
            streams: FxHashMap::default(),
            waiting: FxHashMap::default(),
            waited: 0,
        }
    }

    /// The same endpoint, reporting a message complete when its receiver (on this host)
    /// has the last byte; the sender then forgets it when the engine finishes it.
    pub fn completing_at_receiver(mut self) -> TcpEndpoint {
        self.receiver_completes = true;
        self
    }

    pub fn host(&self) -> HostId {
        self.host
    }

    fn insert(&mut self, msg: &Message, end: End) -> u32 {
        let (conn, sending) = (msg.conn, matches!(end, End::Send(_)));
        let peer = if sending { msg.dst } else { msg.src };
        let half = Half { conn, peer, class: msg.class, end, timer_at: None, ready: false, dirty: false, stream: None };
        let slot = match self.free.pop() {
            Some(s) => {
                self.halves[s as usize] = Some(half);
                s
            }
            None => {
                self.halves.push(Some(half));
                self.timer_gen.push(0);
                (self.halves.len() - 1) as u32
            }
        };
        self.index.insert((conn, sending), slot);
        slot
    }

    /// The end's state changed: it may have packets to send and a new deadline.
    fn touch(&mut self, slot: u32) {
        let h = self.halves[slot as usize].as_mut().expect("touching a live end");
        if !h.ready {
            h.ready = true;
            self.ready.push_back(slot);
        }
        if !h.dirty {
            h.dirty = true;
            self.dirty.push_back(slot);
        }
    }

    fn transmit(h: &Half, o: Out, pool: &mut int::Pool) -> Transmit {
        let mut flags = Flags::empty();
        if o.int.is_some() && o.seg.is_forward() {
            flags.insert(Flags::COLLECT_INT);
        }
        if let Segment::Ack { ece: true, .. } = o.seg {
            flags.insert(Flags::ECHO);
        }
        // On a persistent connection a data segment belongs to the message holding it.
        let conn = match (&h.stream, o.seg) {
            (Some(st), Segment::Data { seq, .. }) => {
                st.messages.iter().find(|&&(end, _)| end > seq).map_or(h.conn, |&(_, c)| c)
            }
            _ => h.conn,
        };
        let mut hdr = o.seg.encode();
        if let Some(st) = &h.stream {
            // The connection's number rides above the segment's own fields in word 0, as
            // a TCP header's ports name its connection (`channel_of`).
            hdr.0[0] |= (st.key.2 as u64 + 1) << CHANNEL_SHIFT;
        }
        Transmit {
            conn,
            dst: h.peer,
            class: h.class,
            hdr,
            wire_bytes: o.wire_bytes,
            payload: o.seg.payload(),
            ecn: o.ecn,
            prio: None,
            rank: 0,
            flags,
            int: o.int.map(|stack| pool.insert(*stack)),
        }
    }
}

impl Endpoint for TcpEndpoint {
    fn on_message(&mut self, now: Time, msg: &Message) {
        let slot = match msg.channel {
            Some(Channel::Available(n)) => {
                self.waiting.entry((msg.dst, msg.class)).or_insert_with(|| Workers::new(n)).queue.push_back(*msg);
                self.dispatch(now, msg.dst, msg.class);
                if self.waiting[&(msg.dst, msg.class)].queue.back() == Some(msg) {
                    self.waited += 1;
                }
                return;
            }
            Some(channel) => {
                let k = self.choose(msg, channel);
                self.send_on_stream(now, msg, k)
            }
            None => self.insert(msg, End::Send(Sender::new(self.cfg, msg.size))),
        };
        self.touch(slot);
    }

    /// A trimmed segment (its payload cut by a port) is a loss to TCP: the receiver
    /// ignores it and the sender recovers as from a drop.
    fn on_packet(&mut self, now: Time, msg: &Message, pkt: &Packet, int: Option<&Stack>) {
        let Some(seg) = Segment::decode(&pkt.hdr) else { return };
        if pkt.is_trimmed() {
            return;
        }
        let sending = !seg.is_forward();
        let slot = match self.index.get(&(pkt.conn, sending)) {
            Some(&s) => s,
            None if sending => return,
            None => match msg.channel {
                // The connection's number, as its packets' headers carry it.
                Some(_) => self.receive_on_stream(msg, channel_of(&pkt.hdr).unwrap_or(0)),
                None => self.insert(msg, End::Recv(Receiver::new(self.cfg, msg.size))),
            },
        };
        let delivery = self.cfg.completion == Completion::Delivery;
        let h = self.halves[slot as usize].as_mut().expect("indexed ends are live");
        if let Some(stream) = h.stream.as_mut() {
            match &mut h.end {
                End::Send(s) => {
                    s.handle_packet(now, &seg, int);
                    let acked = s.snd_una();
                    pop_through(stream, acked, |done| self.events.push_back(EndpointEvent::Completed(done)));
                }
                End::Recv(r) => {
                    // Its ACKs name the latest message received (a live flow).
                    h.conn = pkt.conn;
                    r.handle_packet(now, &seg, pkt.ecn(), int);
                    if delivery {
                        let read = r.rcv_nxt();
                        pop_through(stream, read, |done| self.events.push_back(EndpointEvent::Delivered(done)));
                    }
                }
            }
            self.touch(slot);
            return;
        }
        match &mut h.end {
            End::Recv(r) => {
                let was = r.completed_at.is_some();
                r.handle_packet(now, &seg, pkt.ecn(), int);
                if !was && r.completed_at.is_some() {
                    if self.receiver_completes {
                        self.events.push_back(EndpointEvent::Completed(pkt.conn));
                    } else if delivery {
                        self.events.push_back(EndpointEvent::Delivered(pkt.conn));
                    }
                }
            }
            End::Send(s) => {
                let was = s.is_complete();
                s.handle_packet(now, &seg, int);
                if s.is_complete() && !was {
                    add_stats(&mut self.stats, s.stats);
                    if !self.receiver_completes {
                        self.events.push_back(EndpointEvent::Completed(pkt.conn));
                    }
                }
            }
        }
        self.touch(slot);
    }

    fn on_framed(&mut self, msg: &Message, channel: u32, end: u64) {
        let slot = self.receive_on_stream(msg, channel);
        let h = self.halves[slot as usize].as_mut().expect("a stream's end is live");
        let (Some(stream), End::Recv(r)) = (h.stream.as_mut(), &h.end) else { unreachable!("a receiving stream end") };
        stream.messages.push_back((end, msg.conn));
        // A message of no bytes is delivered with the bytes before it.
        let read = r.rcv_nxt();
        pop_through(stream, read, |done| self.events.push_back(EndpointEvent::Delivered(done)));
    }

    fn on_timer(&mut self, now: Time, key: TimerKey) {
        let (slot, gen) = ((key.get() >> 32) as u32, key.get() as u32);
        if self.timer_gen.get(slot as usize) != Some(&gen) {
            return;
        }
        let Some(h) = self.halves[slot as usize].as_mut() else { return };
        h.timer_at = None;
        match &mut h.end {
            End::Send(s) => s.handle_timeout(now),
            End::Recv(r) => r.handle_timeout(now),
        }
        self.touch(slot);
    }

    fn on_finished(&mut self, conn: ConnId) {
        for sending in [true, false] {
            if let Some(slot) = self.index.remove(&(conn, sending)) {
                if self.halves[slot as usize].as_ref().is_some_and(|h| h.stream.is_some()) {
                    // A persistent connection outlives its messages.
                    continue;
                }
                // A sender finished by its receiver before its last ACK still counts.
                if let Some(Half { end: End::Send(s), .. }) = &self.halves[slot as usize] {
                    if !s.is_complete() {
                        add_stats(&mut self.stats, s.stats);
                    }
                }
                self.halves[slot as usize] = None;
                // A firing armed by the end that leaves must not reach the next one.
                let gen = &mut self.timer_gen[slot as usize];
                *gen = gen.wrapping_add(1);
                self.free.push(slot);
            }
        }
    }

    fn poll_transmit(&mut self, now: Time, pool: &mut int::Pool) -> Option<Transmit> {
        while let Some(&slot) = self.ready.front() {
            if let Some(h) = self.halves[slot as usize].as_mut() {
                let out = match &mut h.end {
                    End::Send(s) => s.poll_transmit(now),
                    End::Recv(r) => r.poll_transmit(),
                };
                if let Some(o) = out {
                    // Sending moves the deadline (the RTO starts with the first packet
                    // out), also when a bounded NIC pulls long after the input.
                    if !h.dirty {
                        h.dirty = true;
                        self.dirty.push_back(slot);
                    }
                    return Some(Self::transmit(h, o, pool));
                }
                h.ready = false;
                // A connection with nothing more to send now may be a worker that became
                // available: waiting messages take it.
                let pair = h.stream.as_ref().filter(|st| st.key.3).map(|st| (st.key.0, st.key.1));
                self.ready.pop_front();
                if let Some((dst, class)) = pair.filter(|p| self.waiting.get(p).is_some_and(|w| !w.queue.is_empty())) {
                    self.dispatch(now, dst, class);
                }
                continue;
            }
            self.ready.pop_front();
        }
        None
    }

    fn poll_event(&mut self) -> Option<EndpointEvent> {
        if let Some((key, at)) = self.next_timer() {
            return Some(EndpointEvent::Timer(key, at));
        }
        self.events.pop_front()
    }

    fn counters(&self, out: &mut Counters) {
        // Persistent connections count what they have sent so far.
        let mut total = self.stats;
        for h in self.halves.iter().flatten().filter(|h| h.stream.is_some()) {
            if let End::Send(s) = &h.end {
                add_stats(&mut total, s.stats);
            }
        }
        let s = &total;
        out.add("data_packets", s.data_packets);
        out.add("retransmits", s.retransmits);
        out.add("timeouts", s.timeouts);
        out.add("fast_recoveries", s.fast_recoveries);
        out.add("ecn_cuts", s.ecn_cuts);
        out.add("acks", s.acks);
        out.add("acked_bytes", s.acked_bytes);
        if self.cfg.dsack {
            out.add("dsack_acks", s.dsack_acks);
        }
        if !self.waiting.is_empty() {
            out.add("connection_waits", self.waited);
        }
    }
}

impl TcpEndpoint {
    /// The connection a message goes on: its own, or for a pool the first idle one (open
    /// or not yet opened), else the one with the fewest bytes not yet acknowledged.
    fn choose(&self, msg: &Message, channel: Channel) -> u32 {
        let n = match channel {
            Channel::Fixed(k) => return k,
            Channel::Pool(n) => n,
            Channel::Available(_) => unreachable!("waiting messages are dispatched, not chosen"),
        };
        let mut best = (u64::MAX, 0);
        for k in 0..n {
            let Some(&slot) = self.streams.get(&(msg.dst, msg.class, k, true)) else { return k };
            let Some(Half { end: End::Send(s), .. }) = &self.halves[slot as usize] else { continue };
            let left = s.unacknowledged();
            if left == 0 {
                return k;
            }
            best = best.min((left, k));
        }
        best.1
    }

    /// Messages waiting for an available connection to `dst` (`Channel::Available`) go on
    /// available ones (in turn: `Workers::pick`), in arrival order, while there are any.
    fn dispatch(&mut self, now: Time, dst: HostId, class: ClassId) {
        loop {
            let Some(w) = self.waiting.get(&(dst, class)).filter(|w| !w.queue.is_empty()) else { return };
            let Some(k) = w.pick(|k| self.available(dst, class, k)) else { return };
            let msg = self.waiting.get_mut(&(dst, class)).expect("just read").given(k);
            let slot = self.send_on_stream(now, &msg, k);
            self.touch(slot);
        }
    }

    /// A connection a worker's blocking send would be done with: not opened yet, or with
    /// nothing waiting to be sent (a short segment Nagle's rule holds is in the socket
    /// buffer: the send has returned).
    fn available(&self, dst: HostId, class: ClassId, k: u32) -> bool {
        let Some(&slot) = self.streams.get(&(dst, class, k, true)) else { return true };
        matches!(&self.halves[slot as usize], Some(Half { end: End::Send(s), .. }) if !s.has_unsent())
    }

    /// A message on persistent connection `channel` to its receiver: appended to the
    /// connection's stream, or the connection opened with it.
    fn send_on_stream(&mut self, now: Time, msg: &Message, channel: u32) -> u32 {
        let key = (msg.dst, msg.class, channel, true);
        let slot = match self.streams.get(&key) {
            Some(&slot) => {
                let h = self.halves[slot as usize].as_mut().expect("a stream's end is live");
                let End::Send(s) = &mut h.end else { unreachable!("a sending stream end sends") };
                let end = s.append(now, msg.size);
                h.stream.as_mut().expect("a stream end").messages.push_back((end, msg.conn));
                self.index.insert((msg.conn, true), slot);
                self.frame(msg.conn, channel, end);
                return slot;
            }
            None => self.insert(msg, End::Send(Sender::new(self.cfg, msg.size))),
        };
        let stream = Stream { key, messages: VecDeque::from([(msg.size, msg.conn)]) };
        self.open_stream(slot, stream);
        self.frame(msg.conn, channel, msg.size);
        slot
    }

    /// The message's end in its stream, told to its receiver when it completes there.
    fn frame(&mut self, conn: ConnId, channel: u32, end: u64) {
        if self.cfg.completion == Completion::Delivery {
            self.events.push_back(EndpointEvent::Framed(conn, channel, end));
        }
    }

    /// The first packet of a message on persistent connection `channel` from its sender:
    /// the connection's receiving end, opened on its first message.
    fn receive_on_stream(&mut self, msg: &Message, channel: u32) -> u32 {
        let key = (msg.src, msg.class, channel, false);
        if let Some(&slot) = self.streams.get(&key) {
            self.index.insert((msg.conn, false), slot);
            return slot;
        }
        // The stream has no end: its receiver never completes a message itself.
        let slot = self.insert(msg, End::Recv(Receiver::new(self.cfg, u64::MAX)));
        self.open_stream(slot, Stream { key, messages: VecDeque::new() });
        slot
    }

    fn open_stream(&mut self, slot: u32, stream: Stream) {
        self.streams.insert(stream.key, slot);
        self.halves[slot as usize].as_mut().expect("just inserted").stream = Some(Box::new(stream));
    }

    /// The next timer to arm: an end whose deadline came before its pending entry's.
    fn next_timer(&mut self) -> Option<(TimerKey, Time)> {
        while let Some(slot) = self.dirty.pop_front() {
            let Some(h) = self.halves[slot as usize].as_mut() else { continue };
            h.dirty = false;
            let deadline = match &h.end {
                End::Send(s) if s.is_complete() => None,
                End::Send(s) => s.poll_timeout(),
                End::Recv(r) => r.poll_timeout(),
            };
            let Some(d) = deadline else { continue };
            if h.timer_at.is_none_or(|t| d < t) {
                h.timer_at = Some(d);
                let gen = &mut self.timer_gen[slot as usize];
                *gen = gen.wrapping_add(1);
                return Some((TimerKey::new((slot as u64) << 32 | *gen as u64), d));
            }
        }
        None
    }
}

/// The stream's messages whose last byte is below `upto` leave it, in order, each to `done`.
fn pop_through(stream: &mut Stream, upto: u64, mut done: impl FnMut(ConnId)) {
    while stream.messages.front().is_some_and(|&(end, _)| end <= upto) {
        done(stream.messages.pop_front().expect("a front").1);
    }
}

fn add_stats(total: &mut SenderStats, s: SenderStats) {
    total.data_packets += s.data_packets;
    total.retransmits += s.retransmits;
    total.timeouts += s.timeouts;
    total.fast_recoveries += s.fast_recoveries;
    total.ecn_cuts += s.ecn_cuts;
    total.acks += s.acks;
    total.acked_bytes += s.acked_bytes;
    total.dsack_acks += s.dsack_acks;
}
