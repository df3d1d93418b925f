//! One host's PL2 sending threads around its inner transport's endpoint (§D.2.1, §D.4,
//! §E): what the inner endpoint sends is cut into bursts, each thread takes one burst at
//! a time through RSV, GRT, the wait of eq. 2 and the NIC.

use super::Config;
use crate::net::ids::{ClassId, ConnId, HostId};
use crate::net::int::Stack;
use crate::net::packet::{Ecn, Flags, Packet};
use crate::net::pl2::Control;
use crate::sim::rng::{stream, Stream as Rng};
use crate::sim::Time;
use crate::transport::workers::Workers;
use crate::transport::{Counters, Endpoint, EndpointEvent, Message, TimerKey, Transmit};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// A byte stream the inner transport keeps in order: a message, or a persistent
/// connection (receiver, class, channel).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
enum ByteStream {
    Message(ConnId),
    Connection(HostId, ClassId, u32),
}

/// Timer keys of the threads carry this bit (the inner endpoint's never do).
const OWN: u64 = 1 << 63;

/// The packets of one burst: one message's, at most K, to one receiver.
#[derive(Clone, Debug)]
struct Burst {
    conn: ConnId,
    packets: Vec<Transmit>,
    /// Its unsolicited copy went out before (Algorithm 3 line 18).
    resent: bool,
}

#[derive(Clone, Debug)]
enum State {
    Idle,
    /// The RSV is out and the GRT awaited; `unsolicited`: the burst left with the RSV.
    Awaiting {
        burst: Burst,
        rsv_at: Time,
        unsolicited: bool,
    },
    /// The GRT came; the host acts on it at `at` (its host delay later).
    Arrived {
        burst: Burst,
        rsv_at: Time,
        unsolicited: bool,
        send: u32,
        recv: u32,
        at: Time,
    },
    /// The burst leaves at `at` (eq. 2's wait).
    Holding {
        burst: Burst,
        at: Time,
    },
    /// The burst is in the NIC; the thread's send returns when it has left (§E), at `at`.
    Sending {
        at: Time,
    },
}

/// What a thread knew from its last GRT (Algorithm 3's lastChosenTimeslot and
/// lastResponseTime), and for which receiver.
#[derive(Copy, Clone, Debug)]
struct Last {
    dst: HostId,
    chosen: u32,
    at: Time,
}

#[derive(Debug)]
struct Thread {
    queue: VecDeque<Transmit>,
    state: State,
    last: Option<Last>,
}

impl Thread {
    fn load(&self) -> usize {
        self.queue.len() + usize::from(!matches!(self.state, State::Idle))
    }
}

/// What the host side of PL2 did (summed into `summary.json`'s `transport_counters`).
#[derive(Copy, Clone, Debug, Default)]
struct Stats {
    bursts: u64,
    unsolicited: u64,
    resent: u64,
    grts: u64,
    /// Eq. 2's waits, summed (ns), and the exchanges' measured delays (ns).
    wait_ns: u64,
    exchange_ns: u64,
    passed: u64,
    /// Messages that found no worker's connection available and waited.
    waited: u64,
}

pub struct Pl2Endpoint {
    cfg: Config,
    host: HostId,
    inner: Box<dyn crate::transport::Endpoint>,
    threads: Vec<Thread>,
    /// The thread holding packets of a stream, and how many (later ones join it, so a
    /// stream's packets keep their order).
    owner: FxHashMap<ByteStream, (usize, usize)>,
    /// The persistent connection of each message sent on one (`Channel::Fixed`): its
    /// messages are one stream. A message on a connection of its own is its own stream.
    streams: FxHashMap<ConnId, ByteStream>,
    /// Packets of each message the threads hold (queued or in a burst): a finished message
    /// with none is forgotten without scanning the threads' queues.
    held: FxHashMap<ConnId, usize>,
    /// Packets for the NIC, in order.
    ready: VecDeque<Transmit>,
    timers: VecDeque<(TimerKey, Time)>,
    /// When the NIC will have sent all it was handed (eq. 2's pending bytes).
    nic_free: Time,
    rng: Rng,
    /// A message finished under a thread (its GRT will not come): poll again.
    kicked: bool,
    /// The time of the last input (the NIC clock's floor where no `now` is given).
    now_hint: Time,
    /// A pool of workers per (receiver, class) (`Channel::Available`): its size and the
    /// messages waiting for an available connection, in arrival order.
    waiting: FxHashMap<(HostId, ClassId), Workers>,
    /// Connections handed a message since the inner endpoint was last drained: busy
    /// though no thread holds their packets yet.
    fresh: Vec<ByteStream>,
    stats: Stats,
}

impl Pl2Endpoint {
    pub fn new(cfg: Config, host: HostId) -> Pl2Endpoint {
        let inner = cfg.over.endpoint(host);
        let threads =
            (0..cfg.threads).map(|_| Thread { queue: VecDeque::new(), state: State::Idle, last: None }).collect();
        let rng = stream(cfg.seed, &format!("pl2/host_delay/{}", host.index()));
        Pl2Endpoint {
            cfg,
            host,
            inner,
            threads,
            owner: FxHashMap::default(),
            streams: FxHashMap::default(),
            held: FxHashMap::default(),
            ready: VecDeque::new(),
            timers: VecDeque::new(),
            nic_free: Time::ZERO,
            rng,
            kicked: false,
            now_hint: Time::ZERO,
            waiting: FxHashMap::default(),
            fresh: Vec::new(),
            stats: Stats::default(),
        }
    }

    /// A packet of the inner endpoint: its message's thread (or the least loaded one)
    /// queues it, or it passes unscheduled (no payload, or a receiver outside the rack).
    fn take(&mut self, tx: Transmit) {
        let rack = &self.cfg.rack;
        if tx.payload == 0 || rack[self.host.index()] != rack[tx.dst.index()] {
            self.stats.passed += 1;
            self.ready.push_back(tx);
            return;
        }
        let threads = &self.threads;
        let stream = self.stream(tx.conn);
        let entry = self.owner.entry(stream).or_insert_with(|| {
            let i = (0..threads.len()).min_by_key(|&i| threads[i].load()).expect("at least one thread");
            (i, 0)
        });
        entry.1 += 1;
        *self.held.entry(tx.conn).or_insert(0) += 1;
        self.threads[entry.0].queue.push_back(tx);
    }

    fn stream(&self, conn: ConnId) -> ByteStream {
        self.streams.get(&conn).copied().unwrap_or(ByteStream::Message(conn))
    }

    /// Every idle thread with packets starts its next burst.
    fn start_idle(&mut self, now: Time) {
        for i in 0..self.threads.len() {
            if matches!(self.threads[i].state, State::Idle) && !self.threads[i].queue.is_empty() {
                self.start_burst(i, now);
            }
        }
    }

    /// Algorithm 3's scheduleBurst: up to K packets of the head stream (a message, or the
    /// messages of one persistent connection, as a stack sends a socket's buffer), an
    /// RSV for them, and the burst itself at once if the last GRT allows it (§D.4).
    fn start_burst(&mut self, i: usize, now: Time) {
        let k = self.cfg.burst as usize;
        let streams = &self.streams;
        let stream_of = |c: ConnId| streams.get(&c).copied().unwrap_or(ByteStream::Message(c));
        let th = &mut self.threads[i];
        let first = th.queue.pop_front().expect("a thread with packets");
        let stream = stream_of(first.conn);
        let mut packets = vec![first];
        while packets.len() < k && th.queue.front().is_some_and(|p| stream_of(p.conn) == stream) {
            packets.push(th.queue.pop_front().expect("peeked"));
        }
        let rsv = Transmit {
            hdr: Control::Rsv { demand: packets.len() as u32 }.encode(),
            wire_bytes: self.cfg.control_bytes,
            payload: 0,
            ecn: Ecn::NotEct,
            prio: Some(self.cfg.control_priority),
            rank: 0,
            flags: Flags::empty(),
            int: None,
            ..first
        };
        let t = self.cfg.unsolicited_below;
        let unsolicited = th.last.is_some_and(|l| l.dst == first.dst && l.chosen < t && now - l.at <= self.cfg.recent);
        self.ready.push_back(rsv);
        self.stats.bursts += 1;
        if unsolicited {
            self.stats.unsolicited += 1;
            for p in &packets {
                self.ready.push_back(self.data(*p, Flags::UNSOLICITED));
            }
        }
        let burst = Burst { conn: first.conn, packets, resent: false };
        self.threads[i].state = State::Awaiting { burst, rsv_at: now, unsolicited };
    }

    /// A data packet as PL2 sends it: flagged for the ToR, below the control level (PL2
    /// has no in-network priorities, §G: a class's level does not apply).
    fn data(&self, mut p: Transmit, flag: Flags) -> Transmit {
        p.flags.insert(flag);
        let below = self.cfg.control_priority.saturating_add(1);
        p.prio = Some(p.prio.map_or(below, |l| l.max(below)));
        p
    }

    /// The GRT of thread `i`'s burst, acted on now (Algorithm 3's receiveGRT, eq. 2).
    #[allow(clippy::too_many_arguments, reason = "the GRT's fields, unpacked where it is read")]
    fn act_on_grt(&mut self, i: usize, now: Time, burst: Burst, rsv_at: Time, unsolicited: bool, send: u32, recv: u32) {
        let chosen = send.max(recv);
        let exchange = now - rsv_at;
        let pending = self.nic_free.saturating_sub(now + self.cfg.tx_delay);
        let slot_wait = Time::from_ps(self.cfg.slot.ps().saturating_mul(chosen as u64));
        let wait = slot_wait.saturating_sub(exchange + pending);
        self.stats.grts += 1;
        self.stats.exchange_ns += exchange.ps() / 1_000;
        let dst = burst.packets[0].dst;
        self.threads[i].last = Some(Last { dst, chosen, at: now });
        if unsolicited && chosen <= self.cfg.unsolicited_below {
            // The unsolicited burst stands (lines 16-20 resend only above t).
            self.done_with(&burst);
            self.threads[i].state = State::Idle;
            return;
        }
        let mut burst = burst;
        if unsolicited {
            // Sent again: the ToR tells the copy from a first sending (`net::pl2`).
            self.stats.resent += 1;
            burst.resent = true;
        }
        self.stats.wait_ns += wait.ps() / 1_000;
        self.hold(i, burst, now + wait, now);
    }

    /// Thread `i` sends `burst` at `at` (now if it is due).
    fn hold(&mut self, i: usize, burst: Burst, at: Time, now: Time) {
        if at <= now {
            self.release(i, burst);
        } else {
            self.threads[i].state = State::Holding { burst, at };
            self.timers.push_back((TimerKey::new(OWN | i as u64), at));
        }
    }

    /// The burst goes to the NIC; the thread's send returns once it has left.
    fn release(&mut self, i: usize, burst: Burst) {
        self.done_with(&burst);
        let flag = if burst.resent { Flags::RESERVED.with(Flags::UNSOLICITED) } else { Flags::RESERVED };
        for p in &burst.packets {
            self.ready.push_back(self.data(*p, flag));
        }
        // The NIC clock counts packets as they are polled: the send returns when what the
        // NIC has, what waits to be polled and this burst have left.
        let bytes: u64 = self.ready.iter().map(|p| p.wire_bytes as u64).sum();
        let at = self.nic_free.max(self.now_hint + self.cfg.tx_delay) + self.cfg.rate.ser(bytes);
        self.threads[i].state = State::Sending { at };
        self.timers.push_back((TimerKey::new(OWN | i as u64), at));
    }

    /// A burst's packets no longer hold their message's thread.
    fn done_with(&mut self, burst: &Burst) {
        for p in &burst.packets {
            if let Some(n) = self.held.get_mut(&p.conn) {
                *n -= 1;
                if *n == 0 {
                    self.held.remove(&p.conn);
                }
            }
        }
        let stream = self.stream(burst.conn);
        if let Some(e) = self.owner.get_mut(&stream) {
            e.1 = e.1.saturating_sub(burst.packets.len());
            if e.1 == 0 {
                self.owner.remove(&stream);
            }
        }
    }

    /// A message on a persistent connection of the inner transport: its stream is that
    /// connection's, so its packets keep their order on one thread.
    fn give(&mut self, now: Time, msg: &Message) {
        if let Some(crate::transport::Channel::Fixed(c)) = msg.channel {
            self.streams.insert(msg.conn, ByteStream::Connection(msg.dst, msg.class, c));
        }
        self.inner.on_message(now, msg);
    }

    /// Waiting messages (`Channel::Available`) go, in arrival order, to connections of
    /// their pair that are available (in turn: `Workers::pick`): no thread holds a packet of it and
    /// it was not handed a message since the inner endpoint was drained (the worker's
    /// send has returned: §E, a send returns once its bursts have left). Under PL2 the
    /// inner TCP has no congestion control (§D.5), so what it has not sent is here.
    /// Returns whether any went.
    fn dispatch(&mut self, now: Time) -> bool {
        let mut any = false;
        let pairs: Vec<(HostId, ClassId)> =
            self.waiting.iter().filter(|(_, w)| !w.queue.is_empty()).map(|(&p, _)| p).collect();
        for (dst, class) in pairs {
            loop {
                let w = &self.waiting[&(dst, class)];
                if w.queue.is_empty() {
                    break;
                }
                let free = |k: u32| {
                    let s = ByteStream::Connection(dst, class, k);
                    !self.owner.contains_key(&s) && !self.fresh.contains(&s)
                };
                let Some(k) = w.pick(free) else { break };
                let msg = self.waiting.get_mut(&(dst, class)).expect("just read").given(k);
                self.fresh.push(ByteStream::Connection(dst, class, k));
                self.give(now, &Message { channel: Some(crate::transport::Channel::Fixed(k)), ..msg });
                any = true;
            }
        }
        any
    }

    /// Thread `i`'s deadline came (or a stale timer: nothing is due).
    fn advance(&mut self, i: usize, now: Time) {
        match std::mem::replace(&mut self.threads[i].state, State::Idle) {
            State::Arrived { burst, rsv_at, unsolicited, send, recv, at } if at <= now => {
                self.act_on_grt(i, now, burst, rsv_at, unsolicited, send, recv)
            }
            State::Holding { burst, at } if at <= now => self.release(i, burst),
            State::Sending { at } if at <= now => {}
            other => self.threads[i].state = other,
        }
    }

    /// The GRT for `conn`: the thread awaiting it acts after the host delay.
    fn on_grt(&mut self, now: Time, conn: ConnId, send: u32, recv: u32) {
        let Some(i) =
            self.threads.iter().position(|t| matches!(&t.state, State::Awaiting { burst, .. } if burst.conn == conn))
        else {
            return;
        };
        let State::Awaiting { burst, rsv_at, unsolicited } = std::mem::replace(&mut self.threads[i].state, State::Idle)
        else {
            unreachable!("found awaiting")
        };
        let delay = self.cfg.host_delay.sample(&mut self.rng);
        if delay == Time::ZERO {
            self.act_on_grt(i, now, burst, rsv_at, unsolicited, send, recv);
        } else {
            let at = now + delay;
            self.threads[i].state = State::Arrived { burst, rsv_at, unsolicited, send, recv, at };
            self.timers.push_back((TimerKey::new(OWN | i as u64), at));
        }
    }
}

impl Endpoint for Pl2Endpoint {
    fn on_message(&mut self, now: Time, msg: &Message) {
        self.now_hint = now;
        if let (Some(crate::transport::Channel::Available(n)), true) =
            (msg.channel, self.cfg.over.persistent_connections())
        {
            self.waiting.entry((msg.dst, msg.class)).or_insert_with(|| Workers::new(n)).queue.push_back(*msg);
            self.dispatch(now);
            if self.waiting[&(msg.dst, msg.class)].queue.back() == Some(msg) {
                self.stats.waited += 1;
            }
            return;
        }
        self.give(now, msg);
    }

    fn on_packet(&mut self, now: Time, msg: &Message, pkt: &Packet, int: Option<&Stack>) {
        self.now_hint = now;
        match Control::decode(&pkt.hdr) {
            Some(Control::Grt { send, recv }) => self.on_grt(now, pkt.conn, send, recv),
            // An RSV reaches a host only if no agent took it: nothing to do with it here.
            Some(Control::Rsv { .. }) => {}
            None => self.inner.on_packet(now, msg, pkt, int),
        }
    }

    fn on_timer(&mut self, now: Time, key: TimerKey) {
        self.now_hint = now;
        let k = key.get();
        if k & OWN != 0 {
            self.advance((k & !OWN) as usize, now);
        } else {
            self.inner.on_timer(now, key);
        }
    }

    fn on_framed(&mut self, msg: &Message, channel: u32, end: u64) {
        self.inner.on_framed(msg, channel, end);
    }
    fn on_finished(&mut self, conn: ConnId) {
        self.inner.on_finished(conn);
        let stream = self.stream(conn);
        let mut purged = 0;
        // Usually every packet has been sent and nothing is held: no queue is scanned.
        let holds = self.held.remove(&conn).is_some();
        for th in &mut self.threads {
            if holds {
                let before = th.queue.len();
                th.queue.retain(|p| p.conn != conn);
                purged += before - th.queue.len();
            }
            let held = match &th.state {
                State::Awaiting { burst, .. } | State::Arrived { burst, .. } | State::Holding { burst, .. } => {
                    (burst.conn == conn).then_some(burst.packets.len())
                }
                State::Idle | State::Sending { .. } => None,
            };
            if let Some(n) = held {
                // Its GRT (if still coming) finds no message: the thread moves on.
                purged += n;
                th.state = State::Idle;
                self.kicked = true;
            }
        }
        // The stream's packets the threads no longer hold.
        if let Some(e) = self.owner.get_mut(&stream) {
            e.1 = e.1.saturating_sub(purged);
            if e.1 == 0 || matches!(stream, ByteStream::Message(_)) {
                self.owner.remove(&stream);
            }
        }
        self.ready.retain(|p| p.conn != conn || p.payload == 0 && Control::decode(&p.hdr).is_none());
        self.streams.remove(&conn);
    }

    fn needs_poll(&self) -> bool {
        self.kicked
    }

    fn poll_transmit(&mut self, now: Time, int: &mut crate::net::int::Pool) -> Option<Transmit> {
        self.now_hint = now;
        self.kicked = false;
        if self.ready.is_empty() {
            loop {
                while let Some(tx) = self.inner.poll_transmit(now, int) {
                    self.take(tx);
                }
                self.fresh.clear();
                if !self.dispatch(now) {
                    break;
                }
            }
            self.start_idle(now);
        }
        let tx = self.ready.pop_front()?;
        self.nic_free = self.nic_free.max(now + self.cfg.tx_delay) + self.cfg.rate.ser(tx.wire_bytes as u64);
        Some(tx)
    }

    fn poll_event(&mut self) -> Option<EndpointEvent> {
        if let Some((key, at)) = self.timers.pop_front() {
            return Some(EndpointEvent::Timer(key, at));
        }
        self.inner.poll_event()
    }

    fn counters(&self, out: &mut Counters) {
        self.inner.counters(out);
        let s = &self.stats;
        out.add("pl2_bursts", s.bursts);
        out.add("pl2_unsolicited_bursts", s.unsolicited);
        out.add("pl2_resent_bursts", s.resent);
        out.add("pl2_grts", s.grts);
        out.add("pl2_wait_ns", s.wait_ns);
        out.add("pl2_exchange_ns", s.exchange_ns);
        out.add("pl2_unscheduled_packets", s.passed);
        if !self.waiting.is_empty() {
            out.add("connection_waits", s.waited);
        }
    }
}
