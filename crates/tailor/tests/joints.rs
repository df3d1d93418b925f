//! The engine's joints (docs/architecture.md): packet priorities served at every hop,
//! port verdicts (trim, evict), a scheduler's wake-up, a switch agent, per-host endpoints
//! of two transports, per-class transports, the NIC's bounded pull, the transport
//! registry. The layering rules are tests/layering.rs.

mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use tailor::engine::Simulation;
use tailor::measure::record::MemorySink;
use tailor::net::agent::{Ingress, SwitchAgent};
use tailor::net::ids::{ClassId, ConnId, HostId, LinkId, Node, SwitchId};
use tailor::net::marker::{Backlog, Departure, Marker};
use tailor::net::packet::{Flags, Header, Packet};
use tailor::net::port::{Admission, Overflow, Port, PortRole};
use tailor::net::sched::priority::PriorityQueues;
use tailor::net::sched::{Fifo, Scheduler};
use tailor::sim::{Rate, Time, TimerKey};

fn sim_of(sc: &tailor::scenario::Scenario) -> Simulation {
    Simulation::new(sc.build(sc.seed).expect("builds"), Box::new(MemorySink::default())).expect("starts")
}

/// Per (port role, level): packets served, and packets served while a less important
/// level had bytes waiting (so strict priority was actually exercised).
type Served = Arc<Mutex<BTreeMap<(&'static str, u8), (u64, u64)>>>;

/// Checks at every departure that the packet leaves the queue of its own level, that no
/// more important level had anything waiting, and that its level is its class's.
struct PriorityCheck {
    role: &'static str,
    class_level: Vec<u8>,
    served: Served,
}

impl Marker for PriorityCheck {
    fn on_enqueue(&mut self, _now: Time, _b: Backlog, _pkt: &mut Packet) -> bool {
        false
    }
    fn on_dequeue(&mut self, _now: Time, dep: &mut Departure, pkt: &mut Packet) -> bool {
        let q = dep.queues;
        assert_eq!(q.queue_of(pkt), pkt.prio as usize, "served from the queue of its level");
        assert_eq!(pkt.prio, self.class_level[pkt.class.index()], "the level its class set, at every hop");
        for more in 0..pkt.prio as usize {
            assert_eq!(q.bytes_in(more), 0, "level {more} waited while level {} was served", pkt.prio);
        }
        let behind = (pkt.prio as usize + 1..q.queues()).any(|l| q.bytes_in(l) > 0);
        let mut s = self.served.lock().unwrap();
        let e = s.entry((self.role, pkt.prio)).or_default();
        e.0 += 1;
        e.1 += behind as u64;
        false
    }
    fn sees_departures(&self) -> bool {
        true
    }
}

#[test]
fn the_priority_a_packet_carries_is_the_queue_it_is_served_from_at_every_hop() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"
[topology]
kind = "leaf_spine"
racks = 2
hosts_per_rack = 4
spines = 2
host_link = { rate = "10Gbps", delay = "1us" }
fabric_link = { rate = "10Gbps", delay = "1us" }

[switch]
scheduler = "priority"
priority_levels = 8

[host]
nic = "priority"

[transport]
kind = "raw"

[[class]]
name = "urgent"
priority = 0
sizes_fixed = "3KB"
load = 0.25
arrival = "poisson"
pattern = "all_to_all"
messages = 1500

[[class]]
name = "normal"
priority = 3
sizes_fixed = "20KB"
load = 0.25
arrival = "poisson"
pattern = "all_to_all"
messages = 600

[[class]]
name = "bulk"
priority = 6
sizes_fixed = "200KB"
load = 0.3
arrival = "poisson"
pattern = "all_to_all"
messages = 60
"#;
    let sc = common::scenario(text, dir.path());
    let mut sim = sim_of(&sc);
    let served: Served = Arc::default();
    for p in &mut sim.net.ports {
        let role = p.role.name();
        p.push_marker(Box::new(PriorityCheck { role, class_level: vec![0, 3, 6], served: served.clone() }));
    }
    sim.run(&mut |_| true).unwrap();
    assert_eq!(sim.recorder.completed, 2160, "every message completes");
    let s = served.lock().unwrap();
    for role in ["host_nic", "up", "down", "to_host"] {
        for level in [0u8, 3, 6] {
            assert!(s.get(&(role, level)).is_some_and(|e| e.0 > 0), "level {level} served at {role} ports: {s:?}");
        }
        let jumped: u64 = [0u8, 3].iter().map(|l| s.get(&(role, *l)).map_or(0, |e| e.1)).sum();
        assert!(jumped > 0, "at {role} ports an important packet went ahead of a waiting one: {s:?}");
    }
}

fn scripted(conn: u32, prio: u8, wire: u32, payload: u32) -> Packet {
    let header_bytes = (wire - payload) as u16;
    Packet {
        prio,
        header_bytes,
        ..Packet::scripted(ConnId { slot: conn, gen: 0 }, ClassId::new(0), wire, Header([conn as u64, 0, 0]))
    }
}

fn port(limit: u64, overflow: Overflow) -> Port {
    let sched: Box<dyn Scheduler> = Box::new(PriorityQueues::new(8));
    Port::new(
        Node::Switch(SwitchId::new(0)),
        LinkId::new(0),
        Rate::from_gbps(10),
        PortRole::ToHost,
        Admission::PortLimit(limit),
        Vec::new(),
        sched,
    )
    .with_overflow(overflow)
}

#[test]
fn trim_cuts_the_payload_and_forwards_the_flagged_header_first() {
    let mut p = port(3_000, Overflow::Trim);
    let mut dropped = Vec::new();
    let pkts = [
        scripted(1, 4, 1_500, 1_446),
        scripted(2, 4, 1_500, 1_446),
        scripted(3, 4, 1_500, 1_446),
        scripted(4, 4, 54, 0),
    ];
    let queued: Vec<bool> = pkts.iter().map(|&k| p.offer(Time::ZERO, k, None, &mut dropped)).collect();
    // The third does not fit and is trimmed; the fourth has no payload: it queues beside
    // the full data buffer, at its own level (NDP's header queue, §3.1).
    assert_eq!(queued, vec![true, true, true, true]);
    assert_eq!((p.stats.trim_packets, p.stats.trim_bytes), (1, 1_446));
    assert_eq!((p.stats.drop_packets, p.stats.drop_bytes, dropped.len()), (0, 0, 0));
    let offered: u64 = pkts.iter().map(|k| k.wire_bytes as u64).sum();
    assert_eq!(
        offered,
        p.queued_bytes() + p.stats.drop_bytes + p.stats.trim_bytes,
        "bytes: queued + dropped + trimmed"
    );
    let mut int = tailor::net::int::Pool::default();
    let id = tailor::net::ids::PortId::new(0);
    let mut out = Vec::new();
    while let Some((k, _)) = p.start_next(Time::ZERO, id, None, &mut int) {
        out.push((k.conn.slot, k.prio, k.wire_bytes, k.is_trimmed()));
        p.busy = false;
    }
    assert_eq!(
        out,
        vec![(3, 0, 54, true), (1, 4, 1_500, false), (2, 4, 1_500, false), (4, 4, 54, false)],
        "the header jumps to level 0"
    );
}

/// NDP's switch (§3.1): with its data queue full, a trimming port cuts payloads and never
/// drops a header — neither the one it cut nor one trimmed upstream, nor a control packet
/// — while the data it holds stays within its limit. Random arrivals (data, control,
/// headers from an earlier hop) through two trimming ports in series, each draining fewer
/// bytes per step than it is offered.
#[test]
fn a_trimming_port_never_drops_a_header_and_holds_data_within_its_limit() {
    for overflow in [Overflow::Trim, Overflow::TrimRandom] {
        a_trimming_port_keeps_its_headers(overflow);
    }
}

fn trimming_port(limit: u64, overflow: Overflow, link: usize) -> Port {
    let sched: Box<dyn Scheduler> = Box::new(PriorityQueues::new(2));
    Port::new(
        Node::Switch(SwitchId::new(0)),
        LinkId::new(link),
        Rate::from_gbps(10),
        PortRole::ToHost,
        Admission::PortLimit(limit),
        Vec::new(),
        sched,
    )
    .with_overflow(overflow)
    .with_trim_stream(11)
}

fn a_trimming_port_keeps_its_headers(overflow: Overflow) {
    const LIMIT: u64 = 8 * 1_538;
    let mut link = 0;
    let mut mk = || {
        link += 1;
        trimming_port(LIMIT, overflow, link)
    };
    let (mut a, mut b) = (mk(), mk());
    let mut int = tailor::net::int::Pool::default();
    let mut dropped = Vec::new();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    // Bytes each port may send per step; about 1,060 bytes arrive per step.
    let (mut credit_a, mut credit_b) = (0i64, 0i64);
    let (mut offered_a, mut offered_b, mut sent_b) = (0u64, 0u64, 0u64);
    for step in 0..20_000u32 {
        let r = next();
        if r % 10 < 9 {
            let k = match (r >> 8) % 10 {
                0 => scripted(step, 0, 84, 0),
                1 => Packet { flags: Flags::TRIMMED, ..scripted(step, 0, 96, 0) },
                2 => scripted(step, 1, 96 + 1 + (r >> 16) as u32 % 1_441, 1 + (r >> 16) as u32 % 1_441),
                _ => scripted(step, 1, 1_538, 1_442),
            };
            offered_a += k.wire_bytes as u64;
            assert!(a.offer(Time::ZERO, k, None, &mut dropped), "{overflow:?}, step {step}: {k:?} was dropped");
        }
        credit_a += 900;
        while credit_a > 0 {
            // Port a's packets (headers and all) move on to port b.
            let Some((k, _)) = a.start_next(Time::ZERO, tailor::net::ids::PortId::new(0), None, &mut int) else {
                credit_a = 0;
                break;
            };
            a.busy = false;
            credit_a -= k.wire_bytes as i64;
            offered_b += k.wire_bytes as u64;
            assert!(b.offer(Time::ZERO, k, None, &mut dropped), "step {step}: {k:?} was dropped at the second port");
        }
        credit_b += 700;
        while credit_b > 0 {
            let Some((k, _)) = b.start_next(Time::ZERO, tailor::net::ids::PortId::new(1), None, &mut int) else {
                credit_b = 0;
                break;
            };
            b.busy = false;
            credit_b -= k.wire_bytes as i64;
            sent_b += k.wire_bytes as u64;
        }
        for p in [&a, &b] {
            assert!(p.scheduler().bytes_in(1) <= LIMIT, "{overflow:?}, step {step}: data beyond the limit");
        }
    }
    assert!(dropped.is_empty());
    for p in [&a, &b] {
        assert_eq!(p.stats.drop_packets, 0);
        assert!(p.stats.trim_packets > 1_000, "the port overflowed often: {}", p.stats.trim_packets);
        assert!(p.stats.sent_bytes > p.stats.trim_bytes, "data still flows: {:?}", p.stats);
    }
    // Bytes: what each port was offered = what it holds + sent + trimmed payload.
    assert_eq!(offered_a, a.queued_bytes() + offered_b + a.stats.trim_bytes);
    assert_eq!(offered_b, b.queued_bytes() + sent_b + b.stats.trim_bytes);
}

/// `trim_random` (NDP §3.1, against phase effects): with the data queue full, about half
/// the overflows cut the newest packet queued instead of the arriving one, which then
/// queues whole; the choice is the run's (same seed, same cuts).
#[test]
fn trim_random_cuts_the_newest_queued_packet_half_the_time() {
    let run = |overflow: Overflow| {
        let mut p = trimming_port(8 * 1_538, overflow, 3);
        let mut int = tailor::net::int::Pool::default();
        let mut dropped = Vec::new();
        // Queued whole on arrival, then cut later: the tail was trimmed instead.
        let mut whole = std::collections::HashSet::new();
        let (mut tail_cuts, mut cuts) = (0u32, 0u32);
        for c in 0..2_000u32 {
            let trims = p.stats.trim_packets;
            assert!(p.offer(Time::ZERO, scripted(c, 1, 1_538, 1_442), None, &mut dropped));
            if p.stats.trim_packets == trims {
                whole.insert(c);
            }
            // One departure per two arrivals keeps the queue full.
            if c % 2 == 0 {
                while let Some((k, _)) = p.start_next(Time::ZERO, tailor::net::ids::PortId::new(0), None, &mut int) {
                    p.busy = false;
                    if k.is_trimmed() {
                        cuts += 1;
                        tail_cuts += whole.contains(&k.conn.slot) as u32;
                        continue;
                    }
                    break;
                }
            }
            assert!(p.scheduler().bytes_in(1) <= 8 * 1_538);
        }
        (tail_cuts, cuts, p.stats.trim_packets)
    };
    let (tail, cuts, trims) = run(Overflow::Trim);
    assert_eq!(tail, 0, "trim always cuts the arriving packet ({cuts} cuts)");
    assert!(trims > 900);
    let (tail, cuts, trims) = run(Overflow::TrimRandom);
    assert!(trims > 900 && cuts > 900, "{trims} trims, {cuts} headers sent");
    let share = tail as f64 / cuts as f64;
    assert!((0.4..0.6).contains(&share), "the tail was cut {tail} times of {cuts}");
    assert_eq!(run(Overflow::TrimRandom), (tail, cuts, trims), "the same stream, the same cuts");
}

#[test]
fn evict_drops_a_queued_packet_of_a_less_important_level_to_admit_one() {
    let mut p = port(3_000, Overflow::Evict);
    let mut dropped = Vec::new();
    assert!(p.offer(Time::ZERO, scripted(1, 5, 1_500, 1_446), None, &mut dropped));
    assert!(p.offer(Time::ZERO, scripted(2, 5, 1_500, 1_446), None, &mut dropped));
    assert!(p.offer(Time::ZERO, scripted(3, 1, 1_500, 1_446), None, &mut dropped), "level 1 evicts a level-5 packet");
    assert_eq!(
        dropped.iter().map(|k| k.conn.slot).collect::<Vec<_>>(),
        vec![2],
        "the newest of the least important level"
    );
    assert!(
        !p.offer(Time::ZERO, scripted(4, 7, 1_500, 1_446), None, &mut dropped),
        "nothing matters less than level 7"
    );
    assert_eq!(dropped.iter().map(|k| k.conn.slot).collect::<Vec<_>>(), vec![2, 4]);
    let s = &p.stats;
    assert_eq!((s.evict_packets, s.drop_packets, s.enq_packets), (1, 2, 3));
    assert_eq!(s.enq_bytes, p.queued_bytes() + s.evict_bytes, "queued = admitted - evicted");
    assert_eq!(p.queued_class_bytes(0), 3_000);
}

#[test]
fn a_trimming_fabric_still_delivers_every_tcp_message_and_conserves_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"
[topology]
kind = "star"
hosts = 9
link = { rate = "10Gbps", delay = "1us" }

[switch]
buffer = "per_port"
buffer_size = "30KB"
overflow = "trim"

[transport]
kind = "tcp"
init_cwnd = 16
min_rto = "200us"

[[class]]
name = "incast"
sizes_fixed = "60KB"
arrival = "poisson"
load = 0.9
pattern = "n_to_1"
receiver = 8
messages = 300
"#;
    let sc = common::scenario(text, dir.path());
    let (sim, recs) = common::run(&sc, 3);
    assert_eq!(recs.len(), 300);
    let l = sim.ledger();
    assert!(l.trimmed.0 > 0 && l.trimmed.1 > 0, "the incast overflows the 30 KB buffer: {l:?}");
    assert!(l.balances(), "sent = delivered + dropped + in flight (+ trimmed bytes): {l:?}");
    assert_eq!(l.in_flight, (0, 0));
}

/// Holds every packet until `until`, then serves FIFO.
struct Gate {
    until: Time,
    q: Fifo,
}

impl Scheduler for Gate {
    fn enqueue(&mut self, now: Time, pkt: Packet) {
        self.q.enqueue(now, pkt)
    }
    fn dequeue(&mut self, now: Time) -> Option<Packet> {
        if now < self.until {
            return None;
        }
        self.q.dequeue(now)
    }
    fn bytes(&self) -> u64 {
        self.q.bytes()
    }
    fn len(&self) -> usize {
        self.q.len()
    }
    fn wake_at(&self, now: Time) -> Option<Time> {
        (now < self.until).then_some(self.until)
    }
}

const PAIR: &str = r#"
[topology]
kind = "star"
hosts = 3
link = { rate = "10Gbps", delay = "1us" }

[transport]
kind = "raw"
mss = "1000B"
header = "50B"
"#;

fn one_message(dir: &std::path::Path, size: u64) -> tailor::scenario::Scenario {
    let trace = common::lone_trace(dir, &[size], 0, 1, 1);
    common::scenario(&format!("{PAIR}\n[[class]]\nname = \"m\"\ntrace = \"{trace}\"\n"), dir)
}

#[test]
fn a_scheduler_that_says_idle_until_t_wakes_its_port_exactly_at_t() {
    let dir = tempfile::tempdir().unwrap();
    let sc = one_message(dir.path(), 1_000);
    let sink = Arc::new(Mutex::new(MemorySink::default()));
    let mut sim = Simulation::new(sc.build(1).unwrap(), Box::new(Shared(sink.clone()))).unwrap();
    let to_host1 = sim
        .net
        .ports
        .iter()
        .position(|p| p.role == PortRole::ToHost && sim.net.links[p.link.index()].to == Node::Host(HostId::new(1)))
        .unwrap();
    let until = Time::from_us(1_050);
    sim.net.ports[to_host1].set_scheduler(Box::new(Gate { until, q: Fifo::default() }));
    sim.run(&mut |_| true).unwrap();
    let recs = &sink.lock().unwrap().0;
    assert_eq!(recs.len(), 1);
    // The trace starts the message at 1 ms; the packet waits at the switch until 1.05 ms.
    let ser = Rate::from_gbps(10).ser(1_050);
    assert_eq!(recs[0].finish, until + ser + Time::from_us(1), "woken at t, serialized, one link delay");
    assert!(recs[0].start + ser + Time::from_us(1) < until, "it did wait");
}

struct Shared(Arc<Mutex<MemorySink>>);

impl tailor::measure::RecordSink for Shared {
    fn record(&mut self, rec: &tailor::measure::MessageRecord, name: &str) -> std::io::Result<()> {
        self.0.lock().unwrap().record(rec, name)
    }
}

/// Consumes the first packet it sees, and 10 µs later answers its sender with a 64-byte
/// packet of its own.
struct Answering {
    request: Option<Packet>,
    emit: Option<Packet>,
    timer: Option<(TimerKey, Time)>,
    seen: u32,
}

impl SwitchAgent for Answering {
    fn on_arrival(&mut self, now: Time, _s: SwitchId, pkt: &mut Packet) -> Ingress {
        self.seen += 1;
        if self.request.is_some() || self.seen > 1 {
            return Ingress::Forward;
        }
        self.request = Some(*pkt);
        self.timer = Some((TimerKey::new(7), now + Time::from_us(10)));
        Ingress::Consume
    }
    fn on_timer(&mut self, _now: Time, key: TimerKey) {
        assert_eq!(key, TimerKey::new(7));
        let r = self.request.expect("a request was consumed");
        self.emit = Some(Packet {
            src: r.dst,
            dst: r.src,
            wire_bytes: 64,
            header_bytes: 64,
            flags: Flags::empty(),
            hdr: Header([0xa6, 0, 0]),
            ..r
        });
    }
    fn poll_emit(&mut self) -> Option<Packet> {
        self.emit.take()
    }
    fn poll_timer(&mut self) -> Option<(TimerKey, Time)> {
        self.timer.take()
    }
}

#[test]
fn a_switch_agent_consumes_a_request_and_answers_it() {
    let dir = tempfile::tempdir().unwrap();
    let sc = one_message(dir.path(), 500);
    let mut sim = sim_of(&sc);
    sim.set_agent(SwitchId::new(0), Box::new(Answering { request: None, emit: None, timer: None, seen: 0 }));
    sim.run(&mut |_| true).unwrap();
    let hosts = &sim.net.hosts;
    assert_eq!(hosts[1].stats.recv_packets, 0, "the request never reached host 1");
    assert_eq!((hosts[0].stats.recv_packets, hosts[0].stats.recv_bytes), (1, 64), "host 0 got the answer");
    assert_eq!(sim.recorder.completed, 0, "the raw message lost its one packet to the agent");
    let sw = &sim.net.switches[0];
    assert_eq!((sw.consumed, sw.emitted), ((1, 550), (1, 64)));
    let l = sim.ledger();
    assert!(l.balances() && l.in_flight == (0, 0), "{l:?}");
    // Request leaves host 0 at 1 ms: serialized, one link; answer 10 µs later, back.
    let ser = |b| Rate::from_gbps(10).ser(b);
    let answered = Time::from_ms(1) + ser(550) + Time::from_us(1) + Time::from_us(10) + ser(64) + Time::from_us(1);
    assert_eq!(sim.now(), answered, "the answer arrived exactly when the timer says");
}

const TWO_TRANSPORTS: &str = r#"
[topology]
kind = "star"
hosts = 8
link = { rate = "10Gbps", delay = "1us" }

[switch]
ecn_threshold = "60KB"

[transport]
kind = "dctcp"

[[class]]
name = "bulk"
sizes_fixed = "1MB"
load = 0.4
arrival = "poisson"
pattern = "all_to_all"
messages = 60

[[class]]
name = "rpc"
sizes_fixed = "1000B"
load = 0.1
arrival = "poisson"
pattern = "all_to_all"
messages = 2000
transport = { kind = "raw", mss = "1448B", header = "54B" }
"#;

#[test]
fn per_class_transports_put_dctcp_bulk_beside_raw_rpcs_on_one_star() {
    let dir = tempfile::tempdir().unwrap();
    let sc = common::scenario(TWO_TRANSPORTS, dir.path());
    assert_eq!(sc.transport_names(), "dctcp+raw");
    let (sim, recs) = common::run(&sc, 1);
    let count = |c: usize| recs.iter().filter(|r| r.class.index() == c).count();
    assert_eq!((count(0), count(1)), (60, 2000), "every message of both classes completes");
    // An RPC's ideal is raw's (the last bit in), not TCP's (the last ACK back).
    let ser = |b| Rate::from_gbps(10).ser(b);
    let raw_ideal = ser(1_054) + Time::from_us(1) + ser(1_054) + Time::from_us(1);
    assert!(recs.iter().filter(|r| r.class.index() == 1).all(|r| r.ideal == raw_ideal));
    // TCP's counters count the bulk class's packets only: at least its payload in MSS.
    let data = sim.report().transport_counters.get("data_packets").unwrap();
    assert!(data >= 60 * 1_000_000u64.div_ceil(1448) && data < 60 * 1_000_000 / 1448 * 2, "{data}");
    assert!(sim.ledger().balances());
}

#[test]
fn one_host_runs_an_endpoint_of_each_transport_in_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let sc = common::scenario(TWO_TRANSPORTS, dir.path());
    let (sim, _) = common::run(&sc, 2);
    let built = sim.endpoints_built();
    for h in 0..8 {
        let mine: Vec<&str> = built.iter().filter(|(host, _)| host.index() == h).map(|e| e.1).collect();
        assert_eq!(mine, vec!["dctcp", "raw"], "host {h} sends and receives both");
    }
}

#[test]
fn a_nic_that_pulls_one_packet_at_a_time_sends_the_same_bytes_as_one_that_takes_all() {
    let dir = tempfile::tempdir().unwrap();
    let text = |depth: &str| {
        format!(
            "[topology]\nkind = \"star\"\nhosts = 5\nlink = {{ rate = \"10Gbps\", delay = \"1us\" }}\n[host]\n{depth}\n[transport]\nkind = \"raw\"\n[[class]]\nname = \"m\"\nsizes = \"hadoop\"\narrival = \"poisson\"\nload = 0.7\npattern = \"all_to_all\"\nmessages = 3000\n"
        )
    };
    let (free, a) = common::run(&common::scenario(&text(""), dir.path()), 4);
    let (bounded, b) = common::run(&common::scenario(&text("nic_depth = 1"), dir.path()), 4);
    assert_eq!(a.len(), 3000);
    // Without transmit stages, a packet pulled when its predecessor starts is queued
    // before that one ends: the NIC never idles for the bound.
    assert!(a == b, "FIFO NIC, FIFO messages: pulling at the last moment changes no timing");
    let nic_max = |s: &Simulation| {
        s.net.ports.iter().filter(|p| p.role == PortRole::HostNic).map(|p| p.stats.max_queue_bytes).max().unwrap()
    };
    assert!(nic_max(&free) > 100_000, "without a bound the NIC queue holds whole messages");
    assert!(nic_max(&bounded) <= 1_502, "with nic_depth = 1 it never holds more than one packet");
}

#[test]
fn every_registered_transport_reads_exactly_the_keys_it_declares() {
    use tailor::transport::registry::TRANSPORTS;
    let dir = tempfile::tempdir().unwrap();
    let sc = one_message(dir.path(), 1_000);
    let mut names: Vec<&str> = TRANSPORTS.iter().map(|e| e.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), TRANSPORTS.len(), "names are unique");
    for e in TRANSPORTS {
        // Homa, PIAS and pHost refuse priority levels a FIFO switch would ignore: one level here.
        let extra = match e.name {
            "homa" | "pias" | "phost" => "\npriority_levels = 1",
            // PL2 wraps another transport's table.
            "pl2" => "\nover = { kind = \"raw\" }",
            _ => "",
        };
        let doc: toml::Table = toml::from_str(&format!("kind = \"{}\"{extra}", e.name)).unwrap();
        let mut t = tailor::input::Table::root("t.toml", &doc);
        // pFabric refuses ports that would ignore its ranks: here they serve by rank.
        let mut net = sc.net.clone();
        if e.name == "pfabric" {
            net.classes.discipline = tailor::net::topology::Discipline::Rank;
            net.nic_depth = Some(0);
        }
        // The RDMA NIC decides each packet when its link is idle.
        if e.name == "rdma" {
            net.nic_depth = Some(0);
        }
        // NDP sends its headers ahead of data (§3.1): its switches queue by priority.
        if e.name == "ndp" {
            net.classes.discipline = tailor::net::topology::Discipline::Priority;
        }
        // PL2 needs its ToR agent and priority queues for its RSVs and GRTs.
        if e.name == "pl2" {
            let spec = std::sync::Arc::new(tailor::net::pl2::Pl2Switch::default());
            net.mechanisms.push(tailor::net::mechanism::Setting { name: "pl2", key: "switch.pl2".into(), spec });
            net.classes.discipline = tailor::net::topology::Discipline::Priority;
            net.nic = tailor::net::topology::NicQueue::Priority(8);
        }
        let cfg = tailor::scenario::transport::parse(&mut t, &net).unwrap_or_else(|err| panic!("{}: {err}", e.name));
        assert_eq!(cfg.name(), e.name);
        let mut asked = t.asked().to_vec();
        asked.sort_unstable();
        let mut keys = e.keys.to_vec();
        keys.sort_unstable();
        assert_eq!(asked, keys, "{}: the keys its table reads are the keys it declares", e.name);
    }
    let doc: toml::Table = toml::from_str("kind = \"nope\"").unwrap();
    let err = tailor::scenario::transport::parse(&mut tailor::input::Table::root("t.toml", &doc), &sc.net).unwrap_err();
    assert_eq!(err.path, "kind");
    for e in TRANSPORTS {
        assert!(err.message.contains(&format!("\"{}\"", e.name)), "{err}");
    }
}
