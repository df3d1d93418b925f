//! One simulation: the event loop that owns the network, the connections, the workload
//! sources and the recorder, and applies what each of them asks for.
//!
//! Events are small `Copy` values carrying ids (DESIGN.md). There is at most one pending
//! event per busy port (the end of its current transmission), per link with packets on
//! the wire (its head's arrival), per host with packets in its transmit delay, per class
//! (its next arrival) and per connection (its earliest timer, re-armed lazily: a later
//! deadline waits for the pending entry to fire, so an RTO restarted by every ACK costs
//! no heap operation). Queue sampling (`[record] queues`) rides on the loop without
//! events of its own (`queues`).

mod conn;
mod queues;
pub mod report;

pub use conn::TransportConfig;

use crate::measure::ideal::{last_ack, pipeline, Hop, Train};
use crate::measure::{ClassSummary, MessageRecord, Recorder, RecordSink};
use crate::net::ids::{ClassId, ConnId, HostId, LinkId, Node, PortId};
use crate::net::int;
use crate::net::packet::Packet;
use crate::net::topology::{self, NetSpec};
use crate::net::Network;
use crate::sim::rng::{self, Stream};
use crate::sim::{EventQueue, Time};
use crate::transport::{raw, tcp, Transmit};
use crate::workload::{MessageSpec, Source, WorkloadError};
use conn::{Conn, ConnTable, Ends};
use rand::Rng;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Event {
    /// A port finished serializing its current packet.
    PortIdle(PortId),
    /// The head packet of a link reaches the far end.
    LinkArrival(LinkId),
    /// The head packet of a host's transmit delay reaches its NIC.
    HostTx(HostId),
    /// A connection's timer entry (generation in the second field).
    Timer(ConnId, u32),
    /// The next message of a class arrives.
    Arrival(ClassId),
}

/// A traffic class as the engine runs it.
pub struct ClassSetup {
    pub name: String,
    pub source: Box<dyn Source + Send>,
    /// Upper edges of the size bins of its summary.
    pub bins: Vec<u64>,
    /// Its service-level objectives.
    pub slos: Vec<crate::measure::slo::Slo>,
}

pub struct Config {
    pub net: NetSpec,
    pub transport: TransportConfig,
    pub classes: Vec<ClassSetup>,
    pub overall_bins: Vec<u64>,
    pub seed: u64,
    /// Simulated time at which the run stops even if messages are still active.
    pub stop_at: Option<Time>,
    /// Messages that start before this are not summarised.
    pub warmup: Time,
}

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Workload(#[from] WorkloadError),
    #[error("writing message records: {0}")]
    Io(#[from] std::io::Error),
    #[error("stopped by the caller")]
    Cancelled,
    #[error(transparent)]
    Scenario(crate::scenario::ScenarioError),
}

/// What the engine is doing when it reports progress.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Building the network (routing included): `built` of `ports` egress ports so far.
    Building,
    /// Simulating.
    Running,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Building => "building",
            Phase::Running => "running",
        }
    }
}

/// What the progress callback sees.
#[derive(Copy, Clone, Debug)]
pub struct Progress {
    pub phase: Phase,
    /// Egress ports built so far and in all (equal once the network is built): a star of a
    /// million hosts takes seconds to build before the first event.
    pub built: u64,
    pub ports: u64,
    pub now: Time,
    pub events: u64,
    pub started: u64,
    pub completed: u64,
    pub active: usize,
}

impl Progress {
    fn building(built: u64, ports: u64) -> Progress {
        Progress { phase: Phase::Building, built, ports, now: Time::ZERO, events: 0, started: 0, completed: 0, active: 0 }
    }
}

struct ClassRun {
    source: Box<dyn Source + Send>,
    next: Option<MessageSpec>,
    generated: u64,
}

pub struct Simulation {
    now: Time,
    events: EventQueue<Event>,
    pub net: Network,
    conns: ConnTable,
    classes: Vec<ClassRun>,
    transport: TransportConfig,
    pub recorder: Recorder,
    spray: Stream,
    stop_at: Option<Time>,
    next_id: u64,
    scratch: Vec<(HostId, Transmit)>,
    pub(crate) totals: report::Totals,
    seed: u64,
    /// Queue sampling, if recorded, and its next tick (`Time::MAX` when not recorded, so
    /// the loop's check is one comparison).
    sampler: Option<queues::Sampler>,
    next_tick: Time,
}

impl Simulation {
    pub fn new(cfg: Config, sink: Box<dyn RecordSink>) -> Result<Simulation, RunError> {
        Simulation::new_reporting(cfg, sink, &mut |_| true)
    }

    /// `new`, telling `progress` how far the network is built (every 2^16 ports);
    /// returning false cancels.
    pub fn new_reporting(
        cfg: Config,
        sink: Box<dyn RecordSink>,
        progress: &mut dyn FnMut(&Progress) -> bool,
    ) -> Result<Simulation, RunError> {
        let mut building = |built, ports| progress(&Progress::building(built, ports));
        let net = topology::build_reporting(&cfg.net, &mut building).ok_or(RunError::Cancelled)?;
        let summaries = cfg.classes.iter().map(|c| ClassSummary::new(&c.name, c.bins.clone()).with_slos(&c.slos)).collect();
        let recorder = Recorder::new(summaries, ClassSummary::new("all", cfg.overall_bins), cfg.warmup, sink);
        let mut sim = Simulation {
            now: Time::ZERO,
            events: EventQueue::default(),
            net,
            conns: ConnTable::default(),
            classes: Vec::new(),
            transport: cfg.transport,
            recorder,
            spray: rng::stream(cfg.seed, "routing/spray"),
            stop_at: cfg.stop_at,
            next_id: 0,
            scratch: Vec::new(),
            totals: report::Totals::default(),
            seed: cfg.seed,
            sampler: None,
            next_tick: Time::MAX,
        };
        for (i, c) in cfg.classes.into_iter().enumerate() {
            let mut run = ClassRun { source: c.source, next: None, generated: 0 };
            run.next = run.source.next_message()?;
            if let Some(m) = run.next {
                sim.events.push(m.start, Event::Arrival(ClassId::new(i)));
            }
            sim.classes.push(run);
        }
        Ok(sim)
    }

    pub fn now(&self) -> Time {
        self.now
    }
    pub fn events(&self) -> u64 {
        self.events.popped()
    }
    pub fn seed(&self) -> u64 {
        self.seed
    }
    pub fn active_messages(&self) -> usize {
        self.conns.active()
    }
    pub fn generated(&self) -> u64 {
        self.classes.iter().map(|c| c.generated).sum()
    }
    /// Moves the stop time, so that a stopped run can be continued by another `run`
    /// (tests read counters at several instants of one run).
    pub fn set_stop(&mut self, at: Option<Time>) {
        self.stop_at = at;
    }

    /// Runs to the end (every message complete) or to the stop time. `progress` is
    /// called every 2^16 events; returning false cancels the run.
    pub fn run(&mut self, progress: &mut dyn FnMut(&Progress) -> bool) -> Result<(), RunError> {
        while let Some(t) = self.events.peek_time() {
            if self.stop_at.is_some_and(|s| t > s) {
                self.now = self.stop_at.expect("checked");
                break;
            }
            if self.next_tick < t {
                self.sample_before(t)?;
            }
            let (t, ev) = self.events.pop().expect("peeked");
            self.now = t;
            self.dispatch(ev)?;
            if self.events.popped() & 0xffff == 0 && !progress(&self.progress()) {
                return Err(RunError::Cancelled);
            }
        }
        for p in &mut self.net.ports {
            p.settle(self.now);
        }
        self.sample_through(self.now)?;
        self.recorder.flush()?;
        progress(&self.progress());
        Ok(())
    }

    pub fn progress(&self) -> Progress {
        let ports = self.net.ports.len() as u64;
        Progress {
            phase: Phase::Running,
            built: ports,
            ports,
            now: self.now,
            events: self.events.popped(),
            started: self.next_id,
            completed: self.recorder.completed,
            active: self.conns.active(),
        }
    }

    fn dispatch(&mut self, ev: Event) -> Result<(), RunError> {
        match ev {
            Event::PortIdle(p) => {
                self.net.ports[p.index()].busy = false;
                self.start_tx(p);
            }
            Event::LinkArrival(l) => self.link_arrival(l)?,
            Event::HostTx(h) => self.host_tx(h),
            Event::Timer(c, gen) => self.timer(c, gen)?,
            Event::Arrival(c) => self.arrival(c)?,
        }
        Ok(())
    }

    fn arrival(&mut self, class: ClassId) -> Result<(), RunError> {
        let run = &mut self.classes[class.index()];
        let spec = run.next.take().expect("an arrival event has its message");
        run.generated += 1;
        run.next = run.source.next_message()?;
        if let Some(m) = run.next {
            self.events.push(m.start.max(self.now), Event::Arrival(class));
        }
        self.start_message(spec)
    }

    fn start_message(&mut self, m: MessageSpec) -> Result<(), RunError> {
        // A trace's own id, else the message's number in the run's start order.
        let id = m.id.unwrap_or(self.next_id);
        self.next_id += 1;
        let (ends, ideal) = self.endpoints(&m);
        let msg = MessageRecord {
            id,
            class: m.class,
            src: m.src,
            dst: m.dst,
            size: m.size,
            start: m.start,
            finish: Time::ZERO,
            ideal,
        };
        let conn = Conn { msg, ends, timer_gen: 0, timer_at: None };
        let cid = self.conns.insert(conn);
        self.pump(cid)
    }

    /// The two endpoints of a new message and its ideal latency.
    fn endpoints(&self, m: &MessageSpec) -> (Ends, Time) {
        match self.transport {
            TransportConfig::Tcp(c) => {
                let tx = tcp::Sender::new(c, m.size);
                let rx = tcp::Receiver::new(c, m.size);
                (Ends::Tcp { tx, rx }, self.ideal_tcp(m, &c))
            }
            TransportConfig::Raw(c) => {
                let ideal = self.ideal_raw(m, &c);
                (Ends::Raw { tx: raw::Sender::new(c, m.size), rx: raw::Receiver::new(m.size) }, ideal)
            }
        }
    }

    fn hops(&self, from: HostId, to: HostId) -> Vec<Hop> {
        // The connection key is not known before insertion; ECMP paths of one flow have
        // equal rates and delays in every topology tailor builds, so any key will do.
        self.net
            .path(from, to, 0)
            .into_iter()
            .map(|p| {
                let port = self.net.port(p);
                Hop { rate: port.rate, delay: self.net.links[port.link.index()].delay }
            })
            .collect()
    }

    fn ideal_tcp(&self, m: &MessageSpec, c: &tcp::Config) -> Time {
        let fwd = self.hops(m.src, m.dst);
        let rev = self.hops(m.dst, m.src);
        let (src_tx, dst_tx) = (self.net.hosts[m.src.index()].tx_delay, self.net.hosts[m.dst.index()].tx_delay);
        let (mss, hdr) = (c.mss as u64, c.header as u64);
        let every = if c.delayed_ack { 2 } else { 1 };
        let mut t = src_tx + last_ack(&fwd, &rev, Train::of(m.size, mss, hdr), hdr, every, dst_tx);
        if c.handshake {
            t += src_tx + last_ack(&fwd, &rev, Train::of(0, mss, hdr), hdr, 1, dst_tx);
        }
        t
    }

    fn ideal_raw(&self, m: &MessageSpec, c: &raw::Config) -> Time {
        let fwd = self.hops(m.src, m.dst);
        self.net.hosts[m.src.index()].tx_delay
            + pipeline(&fwd, Train::of(m.size, c.mtu_payload as u64, c.header as u64))
    }

    /// Sends what a connection wants to send, records its completion, re-arms its timer.
    fn pump(&mut self, cid: ConnId) -> Result<(), RunError> {
        let mut out = std::mem::take(&mut self.scratch);
        let now = self.now;
        let Some(conn) = self.conns.get_mut(cid) else { return Ok(()) };
        conn.drain(now, &mut out);
        let (class, src, dst) = (conn.msg.class, conn.msg.src, conn.msg.dst);
        let complete = conn.is_complete();
        let deadline = conn.deadline();
        let mut arm = None;
        if !complete {
            if let Some(d) = deadline {
                if conn.timer_at.is_none_or(|t| d < t) {
                    conn.timer_gen = conn.timer_gen.wrapping_add(1);
                    conn.timer_at = Some(d);
                    arm = Some((d, conn.timer_gen));
                }
            }
        }
        for (host, t) in out.drain(..) {
            let (s, d) = if host == src { (src, dst) } else { (dst, src) };
            let int = t.int.map(|stack| self.net.int.insert(stack));
            let pkt = Packet { conn: cid, src: s, dst: d, class, wire_bytes: t.wire_bytes, ecn: t.ecn, hdr: t.hdr, int };
            self.emit(host, pkt);
        }
        self.scratch = out;
        if let Some((d, gen)) = arm {
            self.events.push(d.max(now), Event::Timer(cid, gen));
        }
        if complete {
            self.complete(cid)?;
        }
        Ok(())
    }

    fn complete(&mut self, cid: ConnId) -> Result<(), RunError> {
        let conn = self.conns.remove(cid).expect("completing an active connection");
        if let Some(s) = conn.sender_stats() {
            self.totals.add_sender(&s);
        }
        let rec = MessageRecord { finish: self.now, ..conn.msg };
        self.recorder.record(&rec)?;
        Ok(())
    }

    fn timer(&mut self, cid: ConnId, gen: u32) -> Result<(), RunError> {
        let now = self.now;
        let Some(conn) = self.conns.get_mut(cid) else { return Ok(()) };
        if conn.timer_gen != gen {
            return Ok(());
        }
        conn.timer_at = None;
        conn.on_timeout(now);
        self.pump(cid)
    }

    /// A packet leaves a host's transport.
    fn emit(&mut self, host: HostId, pkt: Packet) {
        let h = &mut self.net.hosts[host.index()];
        h.stats.sent_packets += 1;
        h.stats.sent_bytes += pkt.wire_bytes as u64;
        if h.tx_delay == Time::ZERO {
            let nic = h.nic;
            self.offer(nic, pkt);
            return;
        }
        let at = self.now + h.tx_delay;
        h.tx_pipe.push_back((at, pkt));
        if h.tx_pipe.len() == 1 {
            self.events.push(at, Event::HostTx(host));
        }
    }

    fn host_tx(&mut self, host: HostId) {
        let h = &mut self.net.hosts[host.index()];
        let (_, pkt) = h.tx_pipe.pop_front().expect("a host-tx event has a packet");
        if let Some(&(next, _)) = h.tx_pipe.front() {
            self.events.push(next, Event::HostTx(host));
        }
        let nic = h.nic;
        self.offer(nic, pkt);
    }

    /// Admission, marking and queueing at a port; starts transmission if it is idle.
    fn offer(&mut self, p: PortId, pkt: Packet) {
        let now = self.now;
        let port = &mut self.net.ports[p.index()];
        let shared = match port.owner {
            Node::Switch(s) => self.net.switches[s.index()].shared.as_mut(),
            Node::Host(_) => None,
        };
        if !port.offer(now, pkt, shared) {
            if let Some(slot) = pkt.int {
                self.net.int.take(slot);
            }
        } else if !port.busy {
            self.start_tx(p);
        }
    }

    fn start_tx(&mut self, p: PortId) {
        let now = self.now;
        let port = &mut self.net.ports[p.index()];
        let shared = match port.owner {
            Node::Switch(s) => self.net.switches[s.index()].shared.as_mut(),
            Node::Host(_) => None,
        };
        let Some((pkt, ser)) = port.start_next(now, shared) else { return };
        if let (Some(slot), true) = (pkt.int, pkt.hdr.is_forward()) {
            // HPCC's INT record, stamped as the packet starts on the link (net::int).
            let hop = int::Hop {
                port: p,
                qlen: port.queued_bytes(),
                tx_bytes: port.stats.sent_bytes - pkt.wire_bytes as u64,
                ts: now,
                rate: port.rate,
            };
            self.net.int.push(slot, hop);
        }
        let done = now + ser;
        let l = port.link;
        let link = &mut self.net.links[l.index()];
        link.pipe.push_back((done + link.delay, pkt));
        if link.pipe.len() == 1 {
            self.events.push(done + link.delay, Event::LinkArrival(l));
        }
        self.events.push(done, Event::PortIdle(p));
    }

    fn link_arrival(&mut self, l: LinkId) -> Result<(), RunError> {
        let link = &mut self.net.links[l.index()];
        let (_, pkt) = link.pipe.pop_front().expect("a link event has a packet");
        link.delivered.0 += 1;
        link.delivered.1 += pkt.wire_bytes as u64;
        if let Some(&(next, _)) = link.pipe.front() {
            self.events.push(next, Event::LinkArrival(l));
        }
        match link.to {
            Node::Switch(s) => {
                let sw = &mut self.net.switches[s.index()];
                sw.received.0 += 1;
                sw.received.1 += pkt.wire_bytes as u64;
                let spray = &mut self.spray;
                let out = self.net.next_port(s, &pkt, |n| spray.random_range(0..n));
                self.offer(out, pkt);
                Ok(())
            }
            Node::Host(h) => self.receive(h, pkt),
        }
    }

    fn receive(&mut self, host: HostId, pkt: Packet) -> Result<(), RunError> {
        let now = self.now;
        let stats = &mut self.net.hosts[host.index()].stats;
        stats.recv_packets += 1;
        stats.recv_bytes += pkt.wire_bytes as u64;
        let int = pkt.int.map(|slot| self.net.int.take(slot));
        match self.conns.get_mut(pkt.conn) {
            Some(conn) => {
                conn.on_packet(now, &pkt.hdr, pkt.ecn, int.as_ref());
                self.pump(pkt.conn)
            }
            None => {
                self.net.hosts[host.index()].stats.stale_packets += 1;
                Ok(())
            }
        }
    }
}
