//! One simulation: the event loop that owns the network, the flows, the transports'
//! per-host endpoints, the workload sources and the recorder, and applies what each of
//! them asks for.
//!
//! Events are small `Copy` values carrying ids (DESIGN.md). There is at most one pending
//! event per busy port (the end of its current transmission), per link with packets on
//! the wire (its head's arrival), per host with packets in its transmit delay and per
//! class (its next arrival); endpoints arm timers of their own (`transport::Endpoint`).
//! After every input to an endpoint the engine pulls its host's packets into the NIC
//! while the NIC has room, arms the timers the endpoint asks for and finishes the
//! messages it completed (`after_input`; the host's side is in `host`, switch agents in
//! `agent`). Queue sampling (`[record] queues`) rides on the loop without events of its
//! own (`queues`), as does the watchdog that stops a run making no progress (`stall`).

mod agent;
pub mod control;
mod flows;
mod host;
pub mod memory;
mod ports;
mod queues;
pub mod report;
pub mod sojourn;
pub mod stall;
mod waits;

pub use crate::transport::TransportConfig;

use crate::input::ScenarioError;
use crate::measure::{ClassSummary, MessageRecord, RecordSink, Recorder};
use crate::net::agent::SwitchAgent;
use crate::net::ids::{ClassId, ConnId, HostId, LinkId, PortId, SwitchId};
use crate::net::packet::{Packet, Priority};
use crate::net::topology::{self, NetSpec};
use crate::net::Network;
use crate::sim::rng::{self, Stream};
use crate::sim::{EventQueue, Slot, Time};
use crate::transport::path::Path;
use crate::transport::{Counters, Endpoint, TimerKey};
use crate::workload::{MessageSpec, Source, WorkloadError};
use flows::{Flow, FlowRpc, FlowTable};

/// One endpoint: a host and the index of a transport, in one u32 (host << 5 | transport)
/// so that a timer event stays 16 bytes and no division splits it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct EndpointId(u32);

/// The most transports one run uses, and the most hosts (what `EndpointId` can name).
pub const MAX_TRANSPORTS: usize = 1 << EndpointId::TRANSPORT_BITS;
pub const MAX_HOSTS: usize = 1 << (32 - EndpointId::TRANSPORT_BITS);

impl EndpointId {
    const TRANSPORT_BITS: u32 = 5;
    fn new(host: HostId, transport: usize) -> EndpointId {
        EndpointId((host.index() as u32) << Self::TRANSPORT_BITS | transport as u32)
    }
    fn host(self) -> usize {
        (self.0 >> Self::TRANSPORT_BITS) as usize
    }
    fn transport(self) -> usize {
        (self.0 & ((1 << Self::TRANSPORT_BITS) - 1)) as usize
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Event {
    /// A port finished serializing its current packet.
    PortIdle(PortId),
    /// A port whose scheduler said "nothing until now" (`Scheduler::wake_at`).
    PortWake(PortId),
    /// The head packet of a link reaches the far end.
    LinkArrival(LinkId),
    /// The head packet of a host's transmit stages reaches its NIC queue.
    HostTx(HostId),
    /// The head packet of a host's receive stages reaches its endpoint.
    HostRx(HostId),
    /// A timer a switch agent armed.
    AgentTimer(SwitchId, TimerKey),
    /// A timer an endpoint armed.
    Timer(EndpointId, TimerKey),
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
    /// Index of its transport in `Config::transports`.
    pub transport: usize,
    /// The priority level of its packets when its transport does not choose one.
    pub priority: Priority,
    /// A probe class: its packets' waits are recorded at every port they cross
    /// (`engine::sojourn`).
    pub probe: bool,
}

pub struct Config {
    pub net: NetSpec,
    /// The transports the classes use (each class names one by index).
    pub transports: Vec<TransportConfig>,
    pub classes: Vec<ClassSetup>,
    pub overall_bins: Vec<u64>,
    pub seed: u64,
    /// Simulated time at which the run stops even if messages are still active.
    pub stop_at: Option<Time>,
    /// Messages that start before this are not summarised.
    pub warmup: Time,
    /// The ports whose every packet's wait is recorded (`[record] sojourn`).
    pub sojourn: Option<crate::measure::queues::PortSelect>,
    /// Some class sends on persistent connections (`connections`).
    pub persistent: bool,
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
    Scenario(ScenarioError),
    #[error("{0}")]
    Stalled(stall::Stall),
    #[error("{0}")]
    Memory(memory::Exceeded),
    #[error("{0}")]
    Deadlock(control::Deadlocked),
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
        Progress {
            phase: Phase::Building,
            built,
            ports,
            now: Time::ZERO,
            events: 0,
            started: 0,
            completed: 0,
            active: 0,
        }
    }
}

struct ClassRun {
    source: Box<dyn Source + Send>,
    next: Option<MessageSpec>,
    generated: u64,
    transport: usize,
    priority: Priority,
}

pub struct Simulation {
    now: Time,
    events: EventQueue<Event>,
    pub net: Network,
    flows: FlowTable,
    classes: Vec<ClassRun>,
    transports: Vec<TransportConfig>,
    /// Per host and transport, built when first used.
    endpoints: Vec<Option<Box<dyn Endpoint>>>,
    pub recorder: Recorder,
    spray: Stream,
    stop_at: Option<Time>,
    next_id: u64,
    seed: u64,
    /// Scratch for the packets a port drops or evicts in one offer.
    dropped: Vec<Packet>,
    /// Inside `pull` (a NIC that starts a packet asks for the next one only outside).
    pulling: bool,
    /// Every transport obeys PFC's pauses itself (`Transport::obeys_pause`): a pause
    /// that reaches a host is told to its endpoints instead of holding its NIC queue.
    pause_in_transport: bool,
    /// An error met where it could not be returned (a pull started by a port), returned
    /// by the loop after the event.
    deferred: Option<RunError>,
    /// Per switch, its ingress agent if it has one (empty when no switch has one).
    agents: Vec<Option<Box<dyn SwitchAgent>>>,
    /// Queue sampling, if recorded, and its next tick (`Time::MAX` when not recorded, so
    /// the loop's check is one comparison).
    sampler: Option<queues::Sampler>,
    /// The run's progress over time, if recorded (`[record] progress`).
    progress_log: Option<crate::measure::progress::ProgressLog>,
    /// The earliest tick either log waits for.
    next_tick: Time,
    /// Messages started and finished, bytes delivered (`progress.csv`'s counts).
    tally: crate::measure::progress::Tally,
    /// Where packets waited, if recorded (`[record] waits`).
    waits: Option<waits::Tracker>,
    /// Waits at ports: probes and `[record] sojourn` (`engine::sojourn`).
    sojourn: Option<Box<sojourn::Recorder>>,
    /// Some class sends on persistent connections (ECMP then hashes connections).
    channels: bool,
    /// Stops a run that makes no progress (`stall`).
    stall: stall::Watch,
    /// Stops a run that takes more memory than it may (`memory`).
    memory: memory::Guard,
    /// Per port, the place in the event order of the end of its transmission when that
    /// event was not scheduled because nothing waited behind the packet (`ports`).
    idle_slots: Vec<Option<Slot>>,
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
        let summaries =
            cfg.classes.iter().map(|c| ClassSummary::new(&c.name, c.bins.clone()).with_slos(&c.slos)).collect();
        let probes: Vec<bool> = cfg.classes.iter().map(|c| c.probe).collect();
        let sojourn_ports = cfg.sojourn.as_ref().map(|s| s.resolve(&net)).unwrap_or_default();
        let recorder = Recorder::new(summaries, ClassSummary::new("all", cfg.overall_bins), cfg.warmup, sink);
        let mut sim = Simulation {
            now: Time::ZERO,
            events: EventQueue::default(),
            net,
            flows: FlowTable::default(),
            classes: Vec::new(),
            endpoints: Vec::new(),
            transports: cfg.transports,
            recorder,
            spray: rng::stream(cfg.seed, "routing/spray"),
            stop_at: cfg.stop_at,
            next_id: 0,
            seed: cfg.seed,
            dropped: Vec::new(),
            pulling: false,
            pause_in_transport: false,
            deferred: None,
            agents: Vec::new(),
            sampler: None,
            progress_log: None,
            next_tick: Time::MAX,
            tally: Default::default(),
            waits: None,
            sojourn: None,
            channels: cfg.persistent,
            stall: stall::Watch::default(),
            memory: memory::Guard::default(),
            idle_slots: Vec::new(),
        };
        sim.idle_slots = vec![None; sim.net.ports.len()];
        sim.pause_in_transport = !sim.transports.is_empty() && sim.transports.iter().all(|t| t.obeys_pause());
        assert!(
            sim.transports.len() <= MAX_TRANSPORTS && sim.net.hosts.len() <= MAX_HOSTS,
            "at most {MAX_TRANSPORTS} transports and {MAX_HOSTS} hosts (the scenario reader refuses more)"
        );
        sim.endpoints.resize_with(sim.net.hosts.len() * sim.transports.len(), || None);
        sim.record_sojourn(&sojourn_ports, probes);
        crate::net::mechanism::install(&cfg.net, &mut sim);
        for (i, c) in cfg.classes.into_iter().enumerate() {
            assert!(
                c.transport < sim.transports.len(),
                "class {} names transport {} of {}",
                c.name,
                c.transport,
                sim.transports.len()
            );
            let mut run =
                ClassRun { source: c.source, next: None, generated: 0, transport: c.transport, priority: c.priority };
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
        self.flows.active()
    }
    pub fn generated(&self) -> u64 {
        self.classes.iter().map(|c| c.generated).sum()
    }
    /// Moves the stop time, so that a stopped run can be continued by another `run`
    /// (tests read counters at several instants of one run).
    pub fn set_stop(&mut self, at: Option<Time>) {
        self.stop_at = at;
    }
    /// Replaces the no-progress watchdog (`stall`), as tests do to reach a stall quickly.
    pub fn set_stall_watch(&mut self, watch: stall::Watch) {
        self.stall = watch;
    }
    /// Holds the run to a memory limit (`memory`; none by default).
    pub fn set_memory_guard(&mut self, guard: memory::Guard) {
        self.memory = guard;
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
            self.prefetch_next();
            self.dispatch(ev)?;
            if let Some(err) = self.deferred.take() {
                return Err(err);
            }
            if self.events.popped() & 0xffff == 0 {
                self.stall.check(t, self.events.popped(), &self.tally, &self.net).map_err(RunError::Stalled)?;
                self.memory.check(t, self.events.popped(), self.flows.active(), &self.net).map_err(RunError::Memory)?;
                if !progress(&self.progress()) {
                    return Err(RunError::Cancelled);
                }
            }
        }
        for p in &mut self.net.ports {
            p.settle(self.now);
        }
        if let Some(m) = self.net.memory.as_mut() {
            m.settle(self.now);
        }
        self.sample_through(self.now)?;
        self.recorder.flush()?;
        if let Some(w) = self.waits.as_mut() {
            w.flush()?;
        }
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
            active: self.flows.active(),
        }
    }

    /// Asks for what the next event reads first (the packet a link delivers, the port
    /// that finished sending), so the memory is on its way while this event runs
    /// (`sim::prefetch`).
    fn prefetch_next(&self) {
        use crate::sim::prefetch::prefetch;
        match self.events.peek() {
            Some(Event::LinkArrival(l)) => {
                if let Some(head) = self.net.wire_head(*l) {
                    prefetch(head);
                }
            }
            Some(Event::PortIdle(p)) => prefetch(&self.net.ports[p.index()]),
            _ => {}
        }
    }

    fn dispatch(&mut self, ev: Event) -> Result<(), RunError> {
        match ev {
            Event::PortIdle(p) => {
                self.net.ports[p.index()].busy = false;
                self.start_tx(p);
            }
            Event::PortWake(p) => {
                let port = &mut self.net.ports[p.index()];
                if port.wake == Some(self.now) {
                    port.wake = None;
                    self.start_tx(p);
                }
            }
            Event::LinkArrival(l) => self.link_arrival(l)?,
            Event::HostTx(h) => self.host_tx(h),
            Event::HostRx(h) => self.host_rx(h)?,
            Event::AgentTimer(s, key) => {
                let now = self.now;
                if let Some(a) = self.agents[s.index()].as_mut() {
                    a.on_timer(now, key);
                }
                self.after_agent(s);
            }
            Event::Timer(e, key) => self.timer(e, key)?,
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
        let t = self.classes[m.class.index()].transport;
        let ideal = self.transports[t].ideal(&self.path(m.src, m.dst), m.size);
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
        let rpc = match m.response {
            Some(response) => FlowRpc::Request { response },
            None => FlowRpc::OneWay,
        };
        self.open(Flow { msg, transport: t, rpc, channel: m.channel, recorded: false })
    }

    /// A flow starts: its sender's endpoint gets the message.
    fn open(&mut self, flow: Flow) -> Result<(), RunError> {
        let (src, t) = (flow.msg.src, flow.transport);
        self.tally.generated_messages += 1;
        self.tally.generated_bytes += flow.msg.size;
        let cid = self.flows.insert(flow);
        if let Some(w) = self.waits.as_mut() {
            w.started_message(cid, self.net.hosts[src.index()].nic, self.now);
        }
        let message = self.flows.get(cid).expect("just inserted").message(cid);
        let e = self.endpoint_id(src, t);
        let now = self.now;
        self.endpoint(e).on_message(now, &message);
        self.after_input(e)
    }

    /// A request arrived whole: its receiver sends the response at once (the host's
    /// software delays are its NIC's and links'). The RPC is recorded when the response
    /// completes, with the request's id and start and both ideals.
    fn respond(
        &mut self,
        request: ConnId,
        req: MessageRecord,
        t: usize,
        size: u64,
        channel: Option<crate::transport::Channel>,
    ) -> Result<(), RunError> {
        let ideal = self.transports[t].ideal(&self.path(req.dst, req.src), size);
        let msg = MessageRecord { src: req.dst, dst: req.src, size, start: self.now, ideal, ..req };
        let rpc = FlowRpc::Response { request, id: req.id, start: req.start, ideal: req.ideal };
        // The response goes back on the request's connection.
        self.open(Flow { msg, transport: t, rpc, channel, recorded: false })
    }

    fn endpoint_id(&self, host: HostId, transport: usize) -> EndpointId {
        EndpointId::new(host, transport)
    }

    /// The endpoint, built on first use (a host that never uses a transport has none).
    fn endpoint(&mut self, e: EndpointId) -> &mut dyn Endpoint {
        let (host, t) = (e.host(), e.transport());
        let transports = &self.transports;
        self.endpoints[host * transports.len() + t]
            .get_or_insert_with(|| transports[t].endpoint(HostId::new(host)))
            .as_mut()
    }

    /// A message's path both ways in the empty network, for its ideal latency.
    fn path(&self, from: HostId, to: HostId) -> Path {
        Path::between(&self.net, from, to)
    }

    /// The message is complete: its flow leaves the table, its endpoints forget it, and it
    /// is recorded unless its receiver had it whole earlier (`deliver_whole`).
    fn finish(&mut self, cid: ConnId) -> Result<(), RunError> {
        let Some(flow) = self.flows.remove(cid) else { return Ok(()) };
        if !flow.recorded {
            self.tally.completed_messages += 1;
            self.tally.completed_bytes += flow.msg.size;
        }
        let (src, dst, t) = (flow.msg.src, flow.msg.dst, flow.transport);
        for h in [src, dst] {
            let i = h.index() * self.transports.len() + t;
            if let Some(ep) = self.endpoints[i].as_mut() {
                ep.on_finished(cid);
                if ep.needs_poll() {
                    self.pull(h)?;
                }
            }
        }
        if flow.recorded {
            // Packets of its connection still crossed the network: their waits go.
            if let Some(w) = self.waits.as_mut() {
                w.finished(cid, None)?;
            }
            return Ok(());
        }
        self.record(cid, flow)
    }

    /// An RPC of `class` from `client` is done: a closed-loop class issues its next
    /// request (`workload::closed`).
    fn rpc_done(&mut self, class: ClassId, client: HostId) -> Result<(), RunError> {
        let now = self.now;
        let run = &mut self.classes[class.index()];
        if !run.source.rpc_done(client, now) || run.next.is_some() {
            return Ok(());
        }
        run.next = run.source.next_message()?;
        if let Some(m) = run.next {
            self.events.push(m.start.max(now), Event::Arrival(class));
        }
        Ok(())
    }

    fn timer(&mut self, e: EndpointId, key: TimerKey) -> Result<(), RunError> {
        let now = self.now;
        self.endpoint(e).on_timer(now, key);
        self.after_input(e)
    }

    /// The endpoints built so far: (host, transport name).
    pub fn endpoints_built(&self) -> Vec<(HostId, &'static str)> {
        let n = self.transports.len();
        (0..self.endpoints.len())
            .filter(|&i| self.endpoints[i].is_some())
            .map(|i| (HostId::new(i / n), self.transports[i % n].name()))
            .collect()
    }

    /// Transport counters summed over every endpoint, for the summary.
    pub fn transport_counters(&self) -> Counters {
        let mut c = Counters::default();
        for ep in self.endpoints.iter().flatten() {
            ep.counters(&mut c);
        }
        c
    }
}

#[cfg(test)]
mod tests {
    /// The event queue's entries are (u128 key, event): 32 bytes while an event is at most
    /// 16 bytes with 4-byte alignment; more and every sift moves 50 % more memory.
    #[test]
    fn an_event_is_sixteen_bytes() {
        assert_eq!(std::mem::size_of::<super::Event>(), 16);
    }
}
