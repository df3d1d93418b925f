//! One host's Homa: the messages it sends and the messages it receives, in one endpoint.
//!
//! The sender side keeps its messages with packets ready in a set ordered by bytes left
//! to send (then age): the NIC pulls from its head (SRPT, §3.2), after any control
//! packet. The receiver side keeps the messages it still has bytes to grant in a set
//! ordered by ungranted bytes (§3.4) and, after every DATA packet, grants to the best
//! message of each of the first `degree` senders in that order (§3.5).
//!
//! Both sides share one periodic timer, armed while the endpoint holds a message: every
//! quarter of `resend_timeout` it looks for silence (§3.7), so a loss is noticed between
//! one and one and a quarter timeouts after the last packet, for one event per host per
//! tick instead of one per message.

use super::incoming::Incoming;
use super::outgoing::Outgoing;
use super::wire::Kind;
use super::Config;
use crate::net::ids::{ClassId, ConnId, HostId};
use crate::net::int::{Pool, Stack};
use crate::net::packet::{Ecn, Flags, Packet, Priority};
use crate::sim::Time;
use crate::transport::{Counters, Endpoint, EndpointEvent, Message, Rpc, TimerKey, Transmit};
use rustc_hash::FxHashMap;
use std::collections::{BTreeSet, VecDeque};

use crate::transport::slab::Slab;
use stats::Stats;

mod grants;
mod stats;

/// The sender's order: bytes left, then start time, then the message.
type ReadyKey = (u64, Time, u32, u32);
/// The receiver's order: ungranted bytes, then size, then arrival order.
type SchedKey = (u64, u64, u64, u32);

pub struct HomaEndpoint {
    cfg: Config,
    out: Slab<Outgoing>,
    ready: BTreeSet<ReadyKey>,
    control: VecDeque<Transmit>,
    /// BUSYs for messages this receiver holds back: sent after the other control packets.
    held: VecDeque<Transmit>,
    inc: Slab<Incoming>,
    sched: BTreeSet<SchedKey>,
    /// Per sender, its messages in `sched`; `waiting` counts the senders with some.
    per_sender: FxHashMap<HostId, u32>,
    waiting: usize,
    /// Since when `waiting` has had its value (the histogram).
    waiting_since: Time,
    /// Sticky slots (`Config::sticky_slots`): the slot (0 = the highest scheduled level)
    /// of the first sender granted to, that sender and the one after it, at the last
    /// grant round.
    sticky: Option<(usize, HostId, Option<HostId>)>,
    /// Since when more senders wait for grants than it grants to (Figure 16).
    oversubscribed_since: Option<Time>,
    seq: u64,
    events: VecDeque<EndpointEvent>,
    tick_armed: bool,
    /// The time of the latest input (`on_finished` has none of its own).
    now: Time,
    /// The earliest time a paced grant is due, found by the last `regrant`, and the
    /// earliest grant timer pending.
    grant_timer: Option<Time>,
    grant_timer_armed: Option<Time>,
    /// Grants the DATA packets that arrived still allow (`Config::grant_on_arrival`).
    grant_credit: u32,
    /// Bytes on the wire granted (or sent blind) to this host and not yet arrived.
    outstanding: u64,
    /// RPCs this host issued whose responses have not arrived (§3.6).
    outstanding_rpcs: u64,
    /// Requests that arrived marked for incast, until their response starts.
    incast_requests: rustc_hash::FxHashSet<ConnId>,
    stats: Stats,
}

const TICK: TimerKey = TimerKey::new(0);
const GRANT: TimerKey = TimerKey::new(1);

impl HomaEndpoint {
    pub fn new(cfg: Config) -> HomaEndpoint {
        HomaEndpoint {
            cfg,
            out: Slab::new(),
            ready: BTreeSet::new(),
            control: VecDeque::new(),
            held: VecDeque::new(),
            inc: Slab::new(),
            sched: BTreeSet::new(),
            per_sender: FxHashMap::default(),
            waiting: 0,
            waiting_since: Time::ZERO,
            sticky: None,
            oversubscribed_since: None,
            seq: 0,
            events: VecDeque::new(),
            tick_armed: false,
            now: Time::ZERO,
            grant_timer: None,
            grant_timer_armed: None,
            grant_credit: 0,
            outstanding: 0,
            outstanding_rpcs: 0,
            incast_requests: Default::default(),
            stats: Stats::default(),
        }
    }

    /// Bytes on the wire granted or sent blind to this host and not arrived yet (tests).
    pub fn outstanding(&self) -> u64 {
        self.outstanding
    }

    /// Of those, the bytes of scheduled packets: what its grants let in (tests).
    pub fn granted_outstanding(&self) -> u64 {
        self.inc.items.iter().flatten().map(|m| m.outstanding() - m.unscheduled_outstanding(&self.cfg)).sum()
    }

    /// Its messages with a packet ready to send, and the bytes each has left (tests).
    pub fn ready_messages(&self) -> Vec<(ConnId, u64)> {
        self.ready
            .iter()
            .map(|&(left, _, _, slot)| (self.out.items[slot as usize].as_ref().expect("live").msg.conn, left))
            .collect()
    }

    fn ready_key(o: &Outgoing, slot: u32) -> ReadyKey {
        (o.remaining(), o.msg.start, o.msg.conn.slot, slot)
    }

    fn arm_tick(&mut self, now: Time) {
        let Some(timeout) = self.cfg.resend_timeout else { return };
        if !self.tick_armed {
            self.tick_armed = true;
            let quarter = Time::from_ps((timeout.ps() / 4).max(1));
            self.events.push_back(EndpointEvent::Timer(TICK, now + quarter));
        }
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
            prio: Some(self.cfg.levels().physical(0)),
            rank: 0,
            flags: Flags::empty(),
            int: None,
        });
    }

    /// Drops the record of an incoming message, and what it had outstanding; false if
    /// there was none.
    fn forget_incoming(&mut self, conn: ConnId) -> bool {
        let Some(slot) = self.inc.slot(conn) else { return false };
        self.unschedule(slot);
        if let Some((_, m)) = self.inc.remove(conn) {
            self.outstanding -= m.outstanding();
        }
        true
    }

    fn on_data(&mut self, now: Time, msg: &Message, pkt: &Packet, offset: u64, unscheduled: u64, flags: (bool, bool)) {
        let (retransmit, incast) = flags;
        let slot = match self.inc.slot(pkt.conn) {
            Some(s) => s,
            None => {
                self.seq += 1;
                let m = Incoming::new(&self.cfg, msg, unscheduled, self.seq, now);
                self.outstanding += m.outstanding();
                let schedulable = m.granted < m.size();
                let slot = self.inc.insert(pkt.conn, m);
                if schedulable {
                    let key = Self::sched_key(self.inc.get(slot), slot);
                    self.sched.insert(key);
                    self.sender_waits(pkt.src, 1);
                }
                self.arm_tick(now);
                slot
            }
        };
        self.stats.level_bytes[(pkt.prio as usize).min(7)] += pkt.wire_bytes as u64;
        let cfg = &self.cfg;
        let m = self.inc.items[slot as usize].as_mut().expect("live");
        let i = m.layout.index_of(offset);
        let before = m.outstanding();
        let new = m.arrive(cfg, i, now);
        self.outstanding = self.outstanding + m.outstanding() - before;
        let gap = if new && cfg.resend_on_gap { m.gap_below(i) } else { None };
        if let Some((offset, len)) = gap {
            // Out of order (PL2's RDS, §F.1): what is missing below this packet was lost.
            let (conn, src, class) = (m.conn, m.src, m.class);
            let prio = if offset < m.layout.unscheduled { 0 } else { m.prio };
            self.stats.gap_resends += 1;
            self.control(conn, src, class, Kind::Resend { offset, len, prio });
        }
        let m = self.inc.items[slot as usize].as_mut().expect("live");
        if !new {
            self.stats.duplicate_packets += 1;
            if retransmit {
                // A probe for a message it knows: say so, so the sender stops probing.
                let (conn, src, class, granted, prio) = (m.conn, m.src, m.class, m.granted, m.prio);
                self.control(conn, src, class, Kind::Grant { offset: granted, prio });
            }
            return;
        }
        if m.complete() {
            match msg.rpc {
                Rpc::Request if incast => {
                    self.incast_requests.insert(pkt.conn);
                }
                Rpc::Response { .. } => self.outstanding_rpcs = self.outstanding_rpcs.saturating_sub(1),
                _ => {}
            }
            self.events.push_back(EndpointEvent::Completed(pkt.conn));
            self.forget_incoming(pkt.conn);
        }
        if self.cfg.grant_on_arrival {
            self.grant_credit = 1;
        }
        self.regrant();
        self.track_oversubscription(now, pkt.wire_bytes as u64);
    }

    fn on_grant(&mut self, offset: u64, prio: Priority, conn: ConnId) {
        let Some(slot) = self.out.slot(conn) else { return };
        let o = self.out.get(slot);
        if o.grant(offset, prio) && o.ready() {
            let key = Self::ready_key(o, slot);
            self.ready.insert(key);
        }
    }

    fn on_resend(&mut self, offset: u64, len: u32, prio: Priority, conn: ConnId) {
        let Some(slot) = self.out.slot(conn) else { return };
        self.stats.resends += 1;
        let o = self.out.get(slot);
        o.resend(offset, len, prio);
        let key = Self::ready_key(o, slot);
        let (dst, class) = (o.msg.dst, o.msg.class);
        self.ready.insert(key);
        if self.ready.first().is_some_and(|k| k.3 != slot) {
            // Shorter messages go first: tell the receiver to keep waiting.
            self.stats.busy += 1;
            self.control(conn, dst, class, Kind::Busy);
        }
    }

    /// Silence (§3.7): RESENDs for messages that stopped arriving, probes for messages
    /// whose receiver never answered.
    fn tick(&mut self, now: Time) {
        let Some(timeout) = self.cfg.resend_timeout else { return };
        let mut resends = Vec::new();
        let mut busy = Vec::new();
        let half = Time::from_ps(timeout.ps() / 2);
        for m in self.inc.items.iter_mut().flatten() {
            if m.expecting() && now - m.last_heard >= timeout {
                if let Some((offset, len)) = m.first_missing() {
                    m.last_heard = now;
                    let prio = if offset < m.layout.unscheduled { 0 } else { m.prio };
                    resends.push((m.conn, m.src, m.class, offset, len, prio));
                }
            } else if self.cfg.receiver_busy && !m.expecting() && !m.complete() && now - m.last_heard >= half {
                // Held back (every granted byte arrived, more to come): tell the sender,
                // which would otherwise probe a message its receiver is keeping waiting
                // (RAMCloud's client sends BUSY each timer tick for such a response).
                m.last_heard = now;
                busy.push((m.conn, m.src, m.class));
            }
        }
        for (conn, src, class, offset, len, prio) in resends {
            self.control(conn, src, class, Kind::Resend { offset, len, prio });
        }
        self.stats.held_busy += busy.len() as u64;
        for (conn, src, class) in busy {
            self.control(conn, src, class, Kind::Busy);
            // Behind the GRANTs and RESENDs to come: a receiver holding back a thousand
            // messages sends a thousand BUSYs a tick, and each costs its host the
            // packet's time and software delay; a GRANT queued behind them all would
            // idle the downlink for that long (tailor reproduce homa-fig10, 1,000 RPCs).
            let t = self.control.pop_back().expect("just queued");
            self.held.push_back(t);
        }
        for slot in 0..self.out.items.len() as u32 {
            let Some(o) = self.out.items[slot as usize].as_mut() else { continue };
            if !o.heard && o.idle() && now - o.last_sent >= timeout {
                o.probe();
                o.last_sent = now;
                self.stats.probes += 1;
                let key = Self::ready_key(o, slot);
                self.ready.insert(key);
            }
        }
    }
}

impl Endpoint for HomaEndpoint {
    fn on_message(&mut self, now: Time, msg: &Message) {
        self.now = now;
        let mut limit = self.cfg.unscheduled_bytes;
        let mut incast = false;
        match msg.rpc {
            Rpc::Request => {
                self.outstanding_rpcs += 1;
                incast = self.cfg.incast_threshold.is_some_and(|t| self.outstanding_rpcs > t);
            }
            Rpc::Response { request } if self.incast_requests.remove(&request) => {
                // A client about to receive many responses asked for this one to be
                // mostly scheduled (§3.6).
                limit = limit.min(self.cfg.incast_unscheduled);
                self.stats.incast_responses += 1;
            }
            _ => {}
        }
        let mut o = Outgoing::new(&self.cfg, *msg, limit, now);
        o.incast = incast;
        let slot = self.out.insert(msg.conn, o);
        let key = Self::ready_key(self.out.get(slot), slot);
        self.ready.insert(key);
        self.arm_tick(now);
    }

    fn on_packet(&mut self, now: Time, msg: &Message, pkt: &Packet, _int: Option<&Stack>) {
        self.now = now;
        match Kind::decode(&pkt.hdr) {
            Some(Kind::Data { offset, unscheduled, retransmit, incast, .. }) => {
                self.on_data(now, msg, pkt, offset, unscheduled, (retransmit, incast))
            }
            Some(Kind::Grant { offset, prio }) => self.on_grant(offset, prio, pkt.conn),
            Some(Kind::Resend { offset, len, prio }) => self.on_resend(offset, len, prio, pkt.conn),
            Some(Kind::Busy) => {
                if let Some(slot) = self.inc.slot(pkt.conn) {
                    self.inc.get(slot).last_heard = now;
                } else if let Some(slot) = self.out.slot(pkt.conn) {
                    // Its receiver knows it and holds it back: no probe (§3.7 leaves
                    // loss to receivers).
                    let o = self.out.get(slot);
                    o.heard = true;
                    o.last_sent = now;
                }
            }
            None => {}
        }
    }

    fn on_timer(&mut self, now: Time, key: TimerKey) {
        self.now = now;
        if key == GRANT {
            if self.grant_timer_armed == Some(now) {
                self.grant_timer_armed = None;
            }
            self.regrant();
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
        if let Some(slot) = self.out.slot(conn) {
            let key = Self::ready_key(self.out.get(slot), slot);
            self.ready.remove(&key);
            self.out.remove(conn);
        }
        if self.forget_incoming(conn) {
            self.regrant();
        }
    }

    fn poll_transmit(&mut self, now: Time, _int: &mut Pool) -> Option<Transmit> {
        if let Some(t) = self.control.pop_front().or_else(|| self.held.pop_front()) {
            return Some(t);
        }
        let key = self.ready.pop_first()?;
        let slot = key.3;
        let cfg = &self.cfg;
        let o = self.out.items[slot as usize].as_mut().expect("ready messages are live");
        let (kind, wire_bytes, payload, prio) = o.next_packet(cfg, now).expect("a ready message has a packet");
        if let Kind::Data { retransmit: true, .. } = kind {
            self.stats.retransmitted_packets += 1;
        }
        self.stats.data_packets += 1;
        self.stats.data_bytes += payload as u64;
        let t = Transmit {
            conn: o.msg.conn,
            dst: o.msg.dst,
            class: o.msg.class,
            hdr: kind.encode(),
            wire_bytes,
            payload,
            ecn: Ecn::NotEct,
            prio: Some(cfg.levels().physical(prio)),
            rank: 0,
            flags: Flags::empty(),
            int: None,
        };
        if o.ready() {
            let key = Self::ready_key(o, slot);
            self.ready.insert(key);
        }
        Some(t)
    }

    fn poll_event(&mut self) -> Option<EndpointEvent> {
        self.events.pop_front()
    }

    fn counters(&self, out: &mut Counters) {
        self.report(out)
    }
}
