//! One host's pHost: the messages it sends and the messages it receives, in one endpoint.
//!
//! Sender (§3): a new message sends its RTS, then spends its free tokens; after
//! that it sends one packet per token. Among its messages with a token to spend the NIC
//! takes the one with the fewest bytes left to send (SRPT; ties: older first), control
//! packets before any data. Tokens expire `token_expiry` after they arrive.
//!
//! Receiver (§3): one token per full-packet time of its downlink (the token clock),
//! to the message with the fewest bytes left to arrive (ties: announced first) among those
//! that may have one (`inbound`: window, passes). Messages that may not sit in a set
//! ordered by the time they may again, so choosing a token never scans them: a DATA
//! packet brings a message back early when it answers its window.
//!
//! Timers: `TOKEN` wakes the token clock (next slot, or the earliest parked message);
//! `TICK`, armed only with `rts_timeout`, re-sends the RTS of messages whose receiver
//! never spoke (a lost RTS and lost free packets leave it nothing else to go on).

use super::inbound::{Inbound, Wait};
use super::outbound::Outbound;
use super::wire::Kind;
use super::{Config, Wakeup};
use crate::net::ids::{ClassId, ConnId, HostId};
use crate::net::int::{Pool, Stack};
use crate::net::packet::{Ecn, Flags, Packet};
use crate::sim::Time;
use crate::transport::{Counters, Endpoint, EndpointEvent, Message, TimerKey, Transmit};
use std::collections::{BTreeSet, VecDeque};

use crate::transport::slab::Slab;

/// The sender's order: bytes left to send, start, then the message.
type ReadyKey = (u64, Time, u32, u32);
/// The receiver's order: bytes left to arrive, announcement order, slot.
type ActiveKey = (u64, u64, u32);

const TICK: TimerKey = TimerKey::new(0);
const TOKEN: TimerKey = TimerKey::new(1);

#[derive(Default)]
struct Stats {
    rts: u64,
    rts_resent: u64,
    data_packets: u64,
    free_packets: u64,
    scheduled_packets: u64,
    retransmitted_packets: u64,
    tokens_received: u64,
    tokens_wasted: u64,
    tokens_sent: u64,
    downgrades: u64,
    duplicate_packets: u64,
    stalled_ps: u64,
    backlogged_ps: u64,
    backlogged_bytes: u64,
}

pub struct PhostEndpoint {
    cfg: Config,
    out: Slab<Outbound>,
    ready: BTreeSet<ReadyKey>,
    control: VecDeque<Transmit>,
    inc: Slab<Inbound>,
    active: BTreeSet<ActiveKey>,
    parked: BTreeSet<(Time, u32)>,
    /// Messages parked on their window (their senders have not answered).
    window_parked: usize,
    /// The token clock: the next token goes no sooner.
    next_token_at: Time,
    /// The earliest TOKEN timer pending.
    armed: Option<Time>,
    /// Since when the token clock is free while senders owe answers.
    stalled_since: Option<Time>,
    /// Since when some message it knows wants packets (not waiting out a pass).
    backlogged_since: Option<Time>,
    seq: u64,
    events: VecDeque<EndpointEvent>,
    tick_armed: bool,
    /// The time of the latest input.
    now: Time,
    stats: Stats,
}

impl PhostEndpoint {
    pub fn new(cfg: Config) -> PhostEndpoint {
        PhostEndpoint {
            cfg,
            out: Slab::new(),
            ready: BTreeSet::new(),
            control: VecDeque::new(),
            inc: Slab::new(),
            active: BTreeSet::new(),
            parked: BTreeSet::new(),
            window_parked: 0,
            next_token_at: Time::ZERO,
            armed: None,
            stalled_since: None,
            backlogged_since: None,
            seq: 0,
            events: VecDeque::new(),
            tick_armed: false,
            now: Time::ZERO,
            stats: Stats::default(),
        }
    }

    /// Per message it sends: (tokens received, packets sent on them) (tests).
    pub fn spent_tokens(&self) -> Vec<(ConnId, u64, u64)> {
        self.out.items.iter().flatten().map(|o| (o.msg.conn, o.tokens_received, o.scheduled_sent)).collect()
    }

    fn ready_key(o: &Outbound, slot: u32) -> ReadyKey {
        (o.remaining(), o.msg.start, o.msg.conn.slot, slot)
    }

    fn active_key(m: &Inbound, slot: u32) -> ActiveKey {
        (m.remaining(), m.seq, slot)
    }

    fn control(&mut self, conn: ConnId, dst: HostId, class: ClassId, kind: Kind) {
        self.control.push_back(Transmit {
            conn,
            dst,
            class,
            hdr: kind.encode(),
            wire_bytes: self.cfg.wire.control(),
            payload: 0,
            ecn: Ecn::NotEct,
            prio: Some(self.cfg.high()),
            rank: 0,
            flags: Flags::empty(),
            int: None,
        });
    }

    fn arm_tick(&mut self, now: Time) {
        let Some(timeout) = self.cfg.rts_timeout else { return };
        if !self.tick_armed {
            self.tick_armed = true;
            self.events.push_back(EndpointEvent::Timer(TICK, now + Time::from_ps((timeout.ps() / 4).max(1))));
        }
    }

    /// Asks for a TOKEN timer at `at` unless one as early is pending.
    fn arm(&mut self, at: Time) {
        if self.armed.is_none_or(|a| at < a) {
            self.armed = Some(at);
            self.events.push_back(EndpointEvent::Timer(TOKEN, at));
        }
    }

    /// Re-sends the RTS of messages whose receiver never spoke and that have nothing to send.
    fn tick(&mut self, now: Time) {
        let Some(timeout) = self.cfg.rts_timeout else { return };
        let mut again = Vec::new();
        for o in self.out.items.iter_mut().flatten() {
            if !o.heard && o.idle() && now - o.rts_at >= timeout {
                o.rts_at = now;
                again.push((o.msg.conn, o.msg.dst, o.msg.class));
            }
        }
        for (conn, dst, class) in again {
            self.stats.rts_resent += 1;
            self.control(conn, dst, class, Kind::Rts);
        }
    }

    fn on_token(&mut self, now: Time, conn: ConnId, token: u32, index: u32) {
        let Some(slot) = self.out.slot(conn) else { return };
        self.stats.tokens_received += 1;
        let expires = now + self.cfg.token_expiry();
        let o = self.out.get(slot);
        o.receive(token, index, expires);
        let key = Self::ready_key(o, slot);
        self.ready.insert(key);
    }

    /// The receiver's record of `msg`, made when its RTS or first packet arrives.
    fn announce(&mut self, now: Time, msg: &Message) -> u32 {
        if let Some(slot) = self.inc.slot(msg.conn) {
            return slot;
        }
        self.seq += 1;
        let m = Inbound::new(&self.cfg.wire, msg, self.cfg.free_of(msg.size), self.seq, now, self.cfg.packet_time());
        let slot = self.inc.insert(msg.conn, m);
        let key = Self::active_key(self.inc.get(slot), slot);
        self.active.insert(key);
        slot
    }

    fn park(&mut self, slot: u32, wait: Wait) {
        let m = self.inc.get(slot);
        debug_assert!(m.parked.is_none());
        m.parked = Some(wait);
        self.window_parked += matches!(wait, Wait::Window(_)) as usize;
        self.parked.insert((wait.until(), slot));
        self.arm(wait.until());
    }

    fn unpark(&mut self, slot: u32) {
        let m = self.inc.get(slot);
        if let Some(wait) = m.parked.take() {
            self.window_parked -= matches!(wait, Wait::Window(_)) as usize;
            self.parked.remove(&(wait.until(), slot));
        }
    }

    /// After a DATA packet of a parked message: back among the candidates if it may have a
    /// token now, re-parked if what it waits for changed.
    fn recheck(&mut self, now: Time, slot: u32) {
        let rules = self.cfg.rules();
        let m = self.inc.get(slot);
        let Some(was) = m.parked else { return };
        let now_waits = m.check(now, rules).err();
        if now_waits == Some(was) {
            return;
        }
        self.unpark(slot);
        match now_waits {
            Some(w) => self.park(slot, w),
            None => {
                let key = Self::active_key(self.inc.get(slot), slot);
                self.active.insert(key);
            }
        }
    }

    /// The token clock (§3): if a token may go now, to the best message that may have one.
    fn pump(&mut self, now: Time) {
        if now < self.next_token_at {
            self.arm(self.next_token_at);
            return;
        }
        while let Some(&(t, slot)) = self.parked.first() {
            if t > now {
                break;
            }
            self.unpark(slot);
            let key = Self::active_key(self.inc.get(slot), slot);
            self.active.insert(key);
        }
        let rules = self.cfg.rules();
        while let Some(&key) = self.active.first() {
            let slot = key.2;
            let m = self.inc.get(slot);
            let before = m.downgrades;
            if let Err(w) = m.check(now, rules) {
                self.active.remove(&key);
                self.park(slot, w);
                continue;
            }
            let (token, index) = m.issue(now);
            let (conn, src, class) = (m.conn, m.src, m.class);
            self.stats.downgrades += (m.downgrades - before) as u64;
            if let Err(w) = m.check(now, rules) {
                self.active.remove(&key);
                self.park(slot, w);
            }
            self.stats.tokens_sent += 1;
            self.control(conn, src, class, Kind::Token { index, token });
            self.next_token_at = now + self.cfg.packet_time();
            self.arm(self.next_token_at);
            self.stall(now, false);
            return;
        }
        self.stall(now, self.window_parked > 0);
        if let Some(&(t, _)) = self.parked.first() {
            self.arm(t);
        }
    }

    /// Opens or closes a period in which the token clock is free while senders owe answers.
    fn stall(&mut self, now: Time, stalled: bool) {
        match (self.stalled_since, stalled) {
            (None, true) => self.stalled_since = Some(now),
            (Some(since), false) => {
                self.stats.stalled_ps += (now - since).ps();
                self.stalled_since = None;
            }
            _ => {}
        }
    }

    /// Opens or closes a backlogged period (some message it knows wants packets: one that
    /// may have a token, or waits for its sender to answer), counting `bytes` that arrived
    /// in an open one: the downlink time such a period leaves unused is bandwidth the
    /// receiver wanted and did not get (the pHost analog of Homa's Figure 16).
    fn track_backlog(&mut self, now: Time, bytes: u64) {
        let backlogged = !self.active.is_empty() || self.window_parked > 0;
        match (self.backlogged_since, backlogged) {
            (Some(_), true) => self.stats.backlogged_bytes += bytes,
            (Some(since), false) => {
                self.stats.backlogged_ps += (now - since).ps();
                self.stats.backlogged_bytes += bytes;
                self.backlogged_since = None;
            }
            (None, true) => self.backlogged_since = Some(now),
            (None, false) => {}
        }
    }

    fn on_data(&mut self, now: Time, msg: &Message, pkt: &Packet, index: u32, token: u32) {
        if pkt.is_trimmed() {
            // pHost has no use for a header without its payload: a loss (§3 recovers it).
            return;
        }
        // A new message wakes the token clock like its RTS; an answer only if configured so.
        let wake = self.cfg.wakeup == Wakeup::Arrivals || self.inc.slot(msg.conn).is_none();
        let slot = self.announce(now, msg);
        let m = self.inc.get(slot);
        let old = Self::active_key(m, slot);
        if !m.arrive(&self.cfg.wire, index, token) {
            self.stats.duplicate_packets += 1;
            self.recheck(now, slot);
            if wake {
                self.pump(now);
            }
            return;
        }
        // Its place among the candidates moves with the bytes it has left.
        if m.parked.is_none() {
            self.active.remove(&old);
        }
        let m = self.inc.get(slot);
        if m.complete() {
            let (src, class) = (m.src, m.class);
            self.events.push_back(EndpointEvent::Completed(msg.conn));
            self.control(msg.conn, src, class, Kind::Ack);
            self.forget_incoming(msg.conn);
        } else if m.parked.is_none() {
            let new = Self::active_key(m, slot);
            self.active.insert(new);
        } else {
            self.recheck(now, slot);
        }
        if wake {
            self.pump(now);
        }
    }

    fn forget_incoming(&mut self, conn: ConnId) {
        let Some(slot) = self.inc.slot(conn) else { return };
        self.unpark(slot);
        let key = Self::active_key(self.inc.get(slot), slot);
        self.active.remove(&key);
        self.inc.remove(conn);
        if self.window_parked == 0 {
            self.stall(self.now, false);
        }
    }
}

impl Endpoint for PhostEndpoint {
    fn on_message(&mut self, now: Time, msg: &Message) {
        self.now = now;
        self.stats.rts += 1;
        self.control(msg.conn, msg.dst, msg.class, Kind::Rts);
        let o = Outbound::new(&self.cfg.wire, *msg, self.cfg.free_of(msg.size), now);
        let slot = self.out.insert(msg.conn, o);
        let key = Self::ready_key(self.out.get(slot), slot);
        self.ready.insert(key);
        self.arm_tick(now);
    }

    fn on_packet(&mut self, now: Time, msg: &Message, pkt: &Packet, _int: Option<&Stack>) {
        self.now = now;
        match Kind::decode(&pkt.hdr) {
            Some(Kind::Rts) => {
                self.announce(now, msg);
                self.pump(now);
            }
            Some(Kind::Data { index, token, .. }) => self.on_data(now, msg, pkt, index, token),
            Some(Kind::Token { index, token }) => self.on_token(now, pkt.conn, token, index),
            // The engine finishes a message at both ends when its last byte arrives; an
            // ACK only ever reaches a sender that has forgotten it.
            Some(Kind::Ack) | None => {}
        }
        self.track_backlog(now, pkt.wire_bytes as u64);
    }

    fn on_timer(&mut self, now: Time, key: TimerKey) {
        self.now = now;
        if key == TOKEN {
            if self.armed == Some(now) {
                self.armed = None;
            }
            self.pump(now);
            self.track_backlog(now, 0);
        } else if key == TICK {
            self.tick_armed = false;
            self.tick(now);
            if !self.out.is_empty() {
                self.arm_tick(now);
            }
        }
    }

    fn on_finished(&mut self, conn: ConnId) {
        if let Some(slot) = self.out.slot(conn) {
            let key = Self::ready_key(self.out.get(slot), slot);
            self.ready.remove(&key);
            if let Some((_, o)) = self.out.remove(conn) {
                self.stats.tokens_wasted += o.unspent();
            }
        }
        self.forget_incoming(conn);
        self.track_backlog(self.now, 0);
    }

    fn poll_transmit(&mut self, now: Time, _int: &mut Pool) -> Option<Transmit> {
        if let Some(t) = self.control.pop_front() {
            return Some(t);
        }
        while let Some(key) = self.ready.pop_first() {
            let slot = key.3;
            let o = self.out.get(slot);
            self.stats.tokens_wasted += o.expire(now);
            let Some(s) = o.spend() else { continue };
            let (_, len) = self.cfg.wire.chunk(o.msg.size, s.index);
            let t = Transmit {
                conn: o.msg.conn,
                dst: o.msg.dst,
                class: o.msg.class,
                hdr: Kind::Data { index: s.index, token: s.token, free: s.free }.encode(),
                wire_bytes: self.cfg.wire.bytes(len),
                payload: len,
                ecn: Ecn::NotEct,
                prio: Some(if s.free { self.cfg.high() } else { self.cfg.low() }),
                rank: 0,
                flags: Flags::empty(),
                int: None,
            };
            if o.ready() {
                let key = Self::ready_key(o, slot);
                self.ready.insert(key);
            }
            let st = &mut self.stats;
            st.data_packets += 1;
            st.free_packets += s.free as u64;
            st.scheduled_packets += !s.free as u64;
            st.retransmitted_packets += s.again as u64;
            return Some(t);
        }
        None
    }

    fn poll_event(&mut self) -> Option<EndpointEvent> {
        self.events.pop_front()
    }

    fn counters(&self, out: &mut Counters) {
        let s = &self.stats;
        out.add("rts", s.rts);
        out.add("rts_resent", s.rts_resent);
        out.add("data_packets", s.data_packets);
        out.add("free_packets", s.free_packets);
        out.add("scheduled_packets", s.scheduled_packets);
        out.add("retransmitted_packets", s.retransmitted_packets);
        out.add("tokens_sent", s.tokens_sent);
        out.add("tokens_received", s.tokens_received);
        out.add("tokens_wasted", s.tokens_wasted);
        out.add("downgrades", s.downgrades);
        out.add("duplicate_packets", s.duplicate_packets);
        // A period still open counts up to the endpoint's latest input.
        let open = self.stalled_since.map_or(0, |since| (self.now - since).ps());
        out.add("stalled_ns", (s.stalled_ps + open) / 1000);
        let open = self.backlogged_since.map_or(0, |since| (self.now - since).ps());
        out.add("backlogged_ns", (s.backlogged_ps + open) / 1000);
        out.add("backlogged_wire_bytes", s.backlogged_bytes);
    }
}
