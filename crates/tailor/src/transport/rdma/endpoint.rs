//! One host's RDMA NIC (the HPCC programs' `RdmaHw` and the transmit side of their
//! `QbbNetDevice`), as a sans-IO endpoint:
//!
//! - **Sending**: a queue pair per message, served per packet in round robin, starting
//!   after the one that sent last. A queue pair may send when its priority is not paused,
//!   it has bytes left, its window is open (bytes in flight below W, or below W·R/R_max
//!   with a variable window; checked before a packet, so one packet may overshoot) and its
//!   pacing time has come: after a packet of S wire bytes the next may leave S/R later, R
//!   its controller's rate (`rate_bound`) or the line rate.
//! - **ACKs first**: the ACKs and NACKs this host owes as a receiver leave before any
//!   data, unless their priority is paused: the data's, or none with `ack_high_priority`
//!   (the programs' `ACK_HIGH_PRIO`; in the network the ACKs keep the data's priority).
//! - **Receiving**: in-order data advances the next expected byte and is ACKed when that
//!   reaches `ack_interval` or a multiple of `chunk`; a gap is NACKed (at most once per
//!   `nack_interval` for the same byte) and the packet discarded; a copy is discarded.
//!   Every ACK and NACK echoes the data's CE mark, send time and INT stack.
//! - **Recovery**: go-back-N: a NACK sends the queue pair back to its first unacknowledged
//!   byte (with `back_to_zero`, both ends round down to a chunk). There is no
//!   retransmission timer, as in the programs: a lost last packet is never resent.
//!
//! The NIC decides each packet when its link is idle (`[host] nic_depth = 0`), so PFC's
//! pauses reach it here (`Endpoint::on_pause`) rather than at a queue.

use super::cc::{Feedback, RateControl};
use super::wire::Segment;
use super::Config;
use crate::net::ids::ConnId;
use crate::net::int::{self, Stack};
use crate::net::packet::{Ecn, Flags, Packet, Priority};
use crate::sim::{Rate, Time};
use crate::transport::slab::Slab;
use crate::transport::{Counters, Endpoint, EndpointEvent, Message, TimerKey, Transmit};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;
use std::sync::Arc;

/// The timer that wakes the NIC when the next paced packet is due.
const WAKE: u64 = u64::MAX;

/// A queue pair's sending side.
struct Qp {
    msg: Message,
    snd_nxt: u64,
    snd_una: u64,
    /// One past the highest byte ever sent (go-back-N moves `snd_nxt` below it).
    high: u64,
    next_avail: Time,
    /// Wire bytes of the packet it sent last (HPCC re-times by it).
    last_wire: u32,
    cc: Box<dyn RateControl>,
    /// The controller's timer as armed with the engine.
    timer: Option<Time>,
    done: bool,
}

/// A queue pair's receiving side.
#[derive(Default)]
struct Rx {
    expected: u64,
    nack_hold: Time,
    last_nack: Option<u64>,
    /// When it last sent a CNP (with `cnp_interval`).
    last_cnp: Option<Time>,
}

/// An ACK or NACK waiting in the NIC's high-priority queue.
struct Reply {
    msg: Message,
    seg: Segment,
    int: Option<Stack>,
}

#[derive(Default)]
struct Stats {
    data_packets: u64,
    data_bytes: u64,
    retransmitted_bytes: u64,
    acks: u64,
    nacks: u64,
    ecn_echoes: u64,
    cnps: u64,
    go_backs: u64,
    discarded: u64,
}

pub struct RdmaEndpoint {
    cfg: Arc<Config>,
    qps: Slab<Qp>,
    /// Slots of the live queue pairs, in round-robin order.
    order: Vec<u32>,
    /// The index in `order` to scan from.
    rr: usize,
    rx: FxHashMap<ConnId, Rx>,
    replies: VecDeque<Reply>,
    /// PFC priorities paused at this NIC, a bit each.
    paused: u8,
    /// The pacing wake armed with the engine.
    wake: Option<Time>,
    events: VecDeque<EndpointEvent>,
    stats: Stats,
}

impl RdmaEndpoint {
    pub fn new(cfg: Arc<Config>) -> RdmaEndpoint {
        RdmaEndpoint {
            cfg,
            qps: Slab::new(),
            order: Vec::new(),
            rr: 0,
            rx: FxHashMap::default(),
            replies: VecDeque::new(),
            paused: 0,
            wake: None,
            events: VecDeque::new(),
            stats: Stats::default(),
        }
    }

    fn is_paused(&self, p: Priority) -> bool {
        p < 8 && self.paused & 1 << p != 0
    }

    /// The window in bytes now (None: no window).
    fn window(cfg: &Config, qp: &Qp) -> Option<u64> {
        if cfg.window == 0 {
            return None;
        }
        if !cfg.variable_window {
            return Some(cfg.window);
        }
        let w = (cfg.window as u128 * qp.cc.rate() as u128 / cfg.line_bps as u128) as u64;
        Some(w.max(1))
    }

    /// May `qp` send now, pacing aside?
    fn ready(&self, qp: &Qp) -> bool {
        !qp.done
            && qp.snd_nxt < qp.msg.size
            && !self.is_paused(self.cfg.priority)
            && Self::window(&self.cfg, qp).is_none_or(|w| qp.snd_nxt - qp.snd_una < w)
    }

    fn transmit_reply(&mut self, pool: &mut int::Pool) -> Option<Transmit> {
        let ack_level = if self.cfg.ack_high_priority { 0 } else { self.cfg.priority };
        if self.replies.is_empty() || self.is_paused(ack_level) {
            return None;
        }
        let r = self.replies.pop_front().expect("checked");
        let mut flags = Flags::empty();
        if matches!(r.seg, Segment::Reply { ecn: true, .. } | Segment::Cnp) {
            flags.insert(Flags::ECHO);
        }
        Some(Transmit {
            conn: r.msg.conn,
            dst: r.msg.src,
            class: r.msg.class,
            hdr: r.seg.encode(),
            wire_bytes: self.cfg.ack_bytes,
            payload: 0,
            ecn: Ecn::NotEct,
            prio: Some(self.cfg.priority),
            rank: 0,
            flags,
            int: r.int.map(|s| pool.insert(s)),
        })
    }

    /// The next queue pair in round robin that may send now, if any.
    fn next_due(&self, now: Time) -> Option<usize> {
        let n = self.order.len();
        (0..n).map(|i| (self.rr + i) % n).find(|&i| {
            let qp = self.qps.items[self.order[i] as usize].as_ref().expect("ordered slots are live");
            qp.next_avail <= now && self.ready(qp)
        })
    }

    fn transmit_data(&mut self, now: Time, i: usize, pool: &mut int::Pool) -> Transmit {
        let cfg = Arc::clone(&self.cfg);
        self.rr = i + 1;
        let qp = self.qps.get(self.order[i]);
        let len = (cfg.mss as u64).min(qp.msg.size - qp.snd_nxt) as u32;
        let seg = Segment::Data { seq: qp.snd_nxt, len, sent: now };
        let wire = len + cfg.header;
        let resent = qp.snd_nxt < qp.high;
        qp.snd_nxt += len as u64;
        qp.high = qp.high.max(qp.snd_nxt);
        qp.last_wire = wire;
        qp.cc.on_sent(wire as u64);
        let rate = if cfg.rate_bound { qp.cc.rate() } else { cfg.line_bps };
        qp.next_avail = now + Rate::from_bps(rate.max(1)).ser(wire as u64);
        let msg = qp.msg;
        self.stats.data_packets += 1;
        self.stats.data_bytes += wire as u64;
        if resent {
            self.stats.retransmitted_bytes += len as u64;
        }
        let (flags, int) = if cfg.collects_int {
            (Flags::COLLECT_INT, Some(pool.insert(Stack::default())))
        } else {
            (Flags::empty(), None)
        };
        Transmit {
            conn: msg.conn,
            dst: msg.dst,
            class: msg.class,
            hdr: seg.encode(),
            wire_bytes: wire,
            payload: len,
            ecn: Ecn::Ect,
            prio: Some(cfg.priority),
            rank: 0,
            flags,
            int,
        }
    }

    /// Arms the wake for the earliest paced queue pair, if it is earlier than the one armed.
    fn arm_wake(&mut self, now: Time) {
        let next = self
            .order
            .iter()
            .map(|&s| self.qps.items[s as usize].as_ref().expect("ordered slots are live"))
            .filter(|qp| qp.next_avail > now && self.ready(qp))
            .map(|qp| qp.next_avail)
            .min();
        if let Some(at) = next {
            if self.wake.is_none_or(|w| w <= now || at < w) {
                self.wake = Some(at);
                self.events.push_back(EndpointEvent::Timer(TimerKey::new(WAKE), at));
            }
        }
    }

    /// Arms a queue pair's controller timer if it is earlier than the one armed.
    fn arm_cc(events: &mut VecDeque<EndpointEvent>, qp: &mut Qp, now: Time) {
        if let Some(at) = qp.cc.next_timer() {
            if qp.timer.is_none_or(|t| t <= now || at < t) {
                qp.timer = Some(at);
                events.push_back(EndpointEvent::Timer(TimerKey::new(qp.msg.conn.key()), at));
            }
        }
    }

    fn on_data(&mut self, now: Time, msg: &Message, pkt: &Packet, seg: Segment, int: Option<&Stack>) {
        let Segment::Data { seq, len, sent } = seg else { return };
        let cfg = &self.cfg;
        let rx = self.rx.entry(msg.conn).or_default();
        let mut ecn = pkt.ecn() == Ecn::Ce;
        if let Some(interval) = cfg.cnp_interval {
            // DCQCN's NP (§3.1): a CNP on a marked packet unless one went within the
            // interval; the ACKs then echo nothing.
            if ecn && rx.last_cnp.is_none_or(|t| now >= t + interval) {
                rx.last_cnp = Some(now);
                self.stats.cnps += 1;
                self.replies.push_back(Reply { msg: *msg, seg: Segment::Cnp, int: None });
            }
            ecn = false;
        }
        let nack = match seq.cmp(&rx.expected) {
            std::cmp::Ordering::Equal => {
                rx.expected += len as u64;
                if rx.expected < cfg.ack_interval && !rx.expected.is_multiple_of(cfg.chunk) {
                    return;
                }
                false
            }
            std::cmp::Ordering::Greater => {
                if now < rx.nack_hold && rx.last_nack == Some(rx.expected) {
                    self.stats.discarded += 1;
                    return;
                }
                rx.nack_hold = now + cfg.nack_interval;
                rx.last_nack = Some(rx.expected);
                if cfg.back_to_zero {
                    rx.expected = rx.expected / cfg.chunk * cfg.chunk;
                }
                true
            }
            std::cmp::Ordering::Less => {
                self.stats.discarded += 1;
                return;
            }
        };
        if nack {
            self.stats.nacks += 1;
        } else {
            self.stats.acks += 1;
        }
        self.stats.ecn_echoes += ecn as u64;
        let seg = Segment::Reply { seq: rx.expected, nack, ecn, sent };
        self.replies.push_back(Reply { msg: *msg, seg, int: int.copied() });
    }

    /// A CNP: congestion feedback with nothing acknowledged.
    fn on_cnp(&mut self, now: Time, msg: &Message) {
        let Some(slot) = self.qps.slot(msg.conn) else { return };
        let qp = self.qps.get(slot);
        let fb = Feedback { now, ack: qp.snd_una, ecn: true, rtt: Time::ZERO, int: None, snd_nxt: qp.snd_nxt };
        qp.cc.on_feedback(&fb);
        Self::arm_cc(&mut self.events, qp, now);
    }

    fn on_reply(&mut self, now: Time, msg: &Message, seg: Segment, int: Option<&Stack>) {
        let Segment::Reply { seq, nack, ecn, sent } = seg else { return };
        let Some(slot) = self.qps.slot(msg.conn) else { return };
        let cfg = Arc::clone(&self.cfg);
        let qp = self.qps.get(slot);
        let acked = if cfg.back_to_zero { seq / cfg.chunk * cfg.chunk } else { seq };
        qp.snd_una = qp.snd_una.max(acked);
        if qp.snd_una >= qp.msg.size && !qp.done {
            qp.done = true;
            self.events.push_back(EndpointEvent::Completed(msg.conn));
        }
        if nack {
            qp.snd_nxt = qp.snd_una;
            self.stats.go_backs += 1;
        }
        let fb = Feedback { now, ack: seq, ecn, rtt: now.saturating_sub(sent), int, snd_nxt: qp.snd_nxt };
        let before = qp.cc.rate();
        qp.cc.on_feedback(&fb);
        let after = qp.cc.rate();
        if after != before && qp.cc.retimes() && qp.last_wire > 0 {
            // `ChangeRate`: the packet scheduled after the last one moves by the change in
            // that packet's transmission time.
            let old = Rate::from_bps(before.max(1)).ser(qp.last_wire as u64);
            let new = Rate::from_bps(after.max(1)).ser(qp.last_wire as u64);
            qp.next_avail =
                if new >= old { qp.next_avail + (new - old) } else { qp.next_avail.saturating_sub(old - new) };
        }
        Self::arm_cc(&mut self.events, qp, now);
    }
}

impl Endpoint for RdmaEndpoint {
    fn on_message(&mut self, now: Time, msg: &Message) {
        let qp = Qp {
            msg: *msg,
            snd_nxt: 0,
            snd_una: 0,
            high: 0,
            next_avail: now,
            last_wire: 0,
            cc: self.cfg.control.make(&self.cfg),
            timer: None,
            done: false,
        };
        let slot = self.qps.insert(msg.conn, qp);
        self.order.push(slot);
    }

    fn on_packet(&mut self, now: Time, msg: &Message, pkt: &Packet, int: Option<&Stack>) {
        match Segment::decode(&pkt.hdr) {
            Some(seg @ Segment::Data { .. }) => self.on_data(now, msg, pkt, seg, int),
            Some(seg @ Segment::Reply { .. }) => self.on_reply(now, msg, seg, int),
            Some(Segment::Cnp) => self.on_cnp(now, msg),
            None => {}
        }
    }

    fn on_timer(&mut self, now: Time, key: TimerKey) {
        let k = key.get();
        if k == WAKE {
            if self.wake == Some(now) {
                self.wake = None;
            }
            return;
        }
        let conn = ConnId { slot: k as u32, gen: (k >> 32) as u32 };
        let Some(slot) = self.qps.slot(conn) else { return };
        let qp = self.qps.get(slot);
        if qp.timer != Some(now) {
            return;
        }
        qp.timer = None;
        qp.cc.on_timer(now);
        Self::arm_cc(&mut self.events, qp, now);
    }

    fn on_finished(&mut self, conn: ConnId) {
        self.rx.remove(&conn);
        if let Some((slot, _)) = self.qps.remove(conn) {
            let i = self.order.iter().position(|&s| s == slot).expect("a live queue pair is ordered");
            self.order.remove(i);
            if self.rr > i {
                self.rr -= 1;
            }
        }
    }

    fn on_pause(&mut self, _now: Time, priority: Priority, paused: bool) {
        if priority < 8 {
            if paused {
                self.paused |= 1 << priority;
            } else {
                self.paused &= !(1 << priority);
            }
        }
    }

    fn poll_transmit(&mut self, now: Time, pool: &mut int::Pool) -> Option<Transmit> {
        if let Some(t) = self.transmit_reply(pool) {
            return Some(t);
        }
        if let Some(i) = self.next_due(now) {
            return Some(self.transmit_data(now, i, pool));
        }
        self.arm_wake(now);
        None
    }

    fn poll_event(&mut self) -> Option<EndpointEvent> {
        self.events.pop_front()
    }

    fn counters(&self, out: &mut Counters) {
        let s = &self.stats;
        out.add("data_packets", s.data_packets);
        out.add("data_bytes", s.data_bytes);
        out.add("retransmitted_bytes", s.retransmitted_bytes);
        out.add("acks", s.acks);
        out.add("nacks", s.nacks);
        out.add("ecn_echoes", s.ecn_echoes);
        out.add("cnps", s.cnps);
        out.add("go_back_n", s.go_backs);
        out.add("discarded_packets", s.discarded);
    }
}
