//! pFabric (Alizadeh et al., SIGCOMM 2013) end to end: a port never serves a message while
//! a more important one waits and evicts the least important packet (§4.2); lone
//! messages meet their ideal exactly; concurrent messages into one receiver finish
//! shortest first (SRPT, §4.1); a loaded fabric that drops delivers every message,
//! conserves packets and bytes and repeats itself exactly; scenarios that would ignore
//! pFabric's ranks are refused, and the shipped ones carry the Homa authors' settings.

mod common;

use rand::{Rng, SeedableRng};
use tailor::net::ids::{ClassId, ConnId, LinkId, Node, PortId, SwitchId};
use tailor::net::packet::{Header, Packet};
use tailor::net::port::{Admission, Overflow, Port, PortRole};
use tailor::net::sched::rank::RankQueue;
use tailor::sim::{Rate, Time};

/// The Homa paper's fabric with pFabric's switches (scenarios/homa/pfabric-w3-80.toml).
const FABRIC: &str = common::homa_fabric!(
    9,
    16,
    4,
    "scheduler = \"rank\"\noverflow = \"evict\"\nbuffer = \"per_port\"\nbuffer_size = \"19993B\"\n",
    "nic_depth = 0\n",
    "[transport]\nkind = \"pfabric\"\n"
);

fn traced(dir: &std::path::Path, rows: &[(usize, usize, u64, u64)]) -> tailor::scenario::Scenario {
    let mut s = String::from("flow_id,sender,receiver,size_bytes,start_ns\n");
    for (i, (src, dst, size, start_ns)) in rows.iter().enumerate() {
        s += &format!("{i},{src},{dst},{size},{start_ns}\n");
    }
    let path = dir.join("trace.csv");
    std::fs::write(&path, s).unwrap();
    common::scenario(&format!("{FABRIC}\n[[class]]\nname = \"m\"\ntrace = \"{}\"\n", path.display()), dir)
}

#[test]
fn a_lone_message_meets_its_ideal_exactly_on_every_path() {
    let dir = tempfile::tempdir().unwrap();
    // One packet, a packet and a byte, the first window (12 packets) and one more, 2.5 MB.
    let sizes = [1, 100, 1_460, 1_461, 10_000, 17_520, 17_521, 100_000, 1_000_000, 2_500_000];
    // One path per message (ECMP): the ideal is the tandem of one path, and with spraying a
    // short last packet can take another spine, overtake the full one before it and arrive
    // first (a lone 1,461-byte message then beats its one-path ideal by 67 ns).
    let fabric = FABRIC.replace("paths = \"spray\"", "paths = \"ecmp\"");
    for (src, dst) in [(0, 1), (0, 17), (143, 5)] {
        let sc = common::lone(dir.path(), &fabric, src, dst, &sizes);
        let (sim, recs) = common::run(&sc, 1);
        assert_eq!(recs.len(), sizes.len());
        for r in &recs {
            assert_eq!(r.finish - r.start, r.ideal, "{src}->{dst}, {} bytes", r.size);
        }
        assert_eq!(sim.report().network.drops, 0);
    }
    // 1 byte: one 84-byte packet (the minimum frame), 67.2 ns per 10 Gbps hop and 16.8 ns
    // per 40 Gbps hop, 1 us after the NIC, 250 ns per switch, 0.5 us at the receiver.
    let trace = common::lone_trace(dir.path(), &[1], 0, 17, 1_000);
    let (_, recs) = common::run(
        &common::scenario(&format!("{FABRIC}\n[[class]]\nname = \"m\"\ntrace = \"{trace}\"\n"), dir.path()),
        1,
    );
    assert_eq!(recs[0].ideal, Time::from_ps(2 * 67_200 + 2 * 16_800 + 1_000_000 + 3 * 250_000 + 500_000));
}

#[test]
fn a_short_message_overtakes_a_long_one_into_the_same_receiver() {
    let dir = tempfile::tempdir().unwrap();
    // A 2 MB message from host 0 to host 2 is under way when host 20 starts 30 KB to host 2.
    let sc = traced(dir.path(), &[(0, 2, 2_000_000, 1_000_000), (20, 2, 30_000, 1_100_000)]);
    let (_, recs) = common::run(&sc, 1);
    let (long, short) =
        (recs.iter().find(|r| r.size == 2_000_000).unwrap(), recs.iter().find(|r| r.size == 30_000).unwrap());
    assert!(short.finish < long.finish, "SRPT: the shorter finishes first");
    let slowdown = |r: &tailor::measure::MessageRecord| (r.finish - r.start).ps() as f64 / r.ideal.ps() as f64;
    // The short one waits at most for packets already on the wire; the long one yields
    // the receiver's link for the short one's bytes.
    assert!(slowdown(short) < 1.1, "the short message is barely delayed: {}", slowdown(short));
    assert!(slowdown(long) > 1.01, "the long message gave way: {}", slowdown(long));
}

#[test]
fn an_incast_finishes_in_order_of_size() {
    let dir = tempfile::tempdir().unwrap();
    // Eight senders in two racks start at once towards one receiver, 10 KB to 80 KB in a
    // shuffled order of senders: 8x its link, evictions at its ToR port, timeouts.
    let sizes = [50_000, 20_000, 80_000, 10_000, 70_000, 30_000, 60_000, 40_000];
    let rows: Vec<_> = sizes.iter().enumerate().map(|(i, &s)| (1 + i * 3, 0, s, 1_000_000)).collect();
    let (sim, recs) = common::run(&traced(dir.path(), &rows), 1);
    let mut by_finish: Vec<_> = recs.iter().map(|r| (r.finish, r.size)).collect();
    by_finish.sort();
    let order: Vec<u64> = by_finish.iter().map(|x| x.1).collect();
    assert_eq!(order, vec![10_000, 20_000, 30_000, 40_000, 50_000, 60_000, 70_000, 80_000]);
    let r = sim.report();
    assert!(r.network.drops > 0, "the incast overflows the receiver's port");
    let evicted: u64 = sim.net.ports.iter().map(|p| p.stats.evict_packets).sum();
    assert!(evicted > 0, "queued packets of longer messages were evicted for shorter ones");
}

#[test]
fn a_loaded_fabric_that_drops_delivers_every_message_and_conserves_packets_and_bytes() {
    let dir = tempfile::tempdir().unwrap();
    // W3 at 80 % on four racks for half a millisecond.
    let text = FABRIC.replace("racks = 9", "racks = 4").replace("spines = 4", "spines = 2")
        + "[[class]]\nname = \"w3\"\nsizes = \"w3\"\narrival = \"poisson\"\nload = 0.8\nload_basis = \"wire\"\npattern = \"all_to_all\"\nuntil = \"500us\"\n";
    let sc = common::scenario(&text, dir.path());
    let (sim, recs) = common::run(&sc, 7);
    assert!(common::run(&sc, 7).1 == recs, "the same seed gives the same messages");
    let r = sim.report();
    assert_eq!((r.messages.completed, r.messages.incomplete), (recs.len() as u64, 0));
    assert!(recs.len() > 3_000, "{}", recs.len());
    let c = |name: &str| r.transport_counters.get(name).unwrap_or_else(|| panic!("counter {name}"));
    assert!(
        r.network.drops > 0 && c("timeouts") > 0 && c("retransmitted_packets") > 0,
        "losses happened and were repaired"
    );
    let l = sim.ledger();
    assert!(l.balances(), "{l:?}");
    assert_eq!(l.in_flight, (0, 0));
    for (i, p) in sim.net.ports.iter().enumerate() {
        let s = &p.stats;
        assert_eq!(
            s.enq_bytes,
            s.sent_bytes + s.evict_bytes + p.queued_bytes(),
            "port {i}: admitted = sent + evicted + queued"
        );
        assert!(p.queued_bytes() <= 19_993 && s.max_queue_bytes <= 19_993, "port {i} stays within its buffer");
    }
    // SRPT shows: one-packet messages fare better than the largest ones.
    let p99 = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[(v.len() * 99).div_ceil(100) - 1]
    };
    let sd = |r: &&tailor::measure::MessageRecord| (r.finish - r.start).ps() as f64 / r.ideal.ps() as f64;
    let small = p99(recs.iter().filter(|r| r.size <= 1_460).map(|r| sd(&r)).collect());
    let large = p99(recs.iter().filter(|r| r.size > 100_000).map(|r| sd(&r)).collect());
    assert!(small < 3.0 && small < large, "p99 slowdown: one-packet messages {small}, > 100 KB {large}");
}

fn scripted(conn: u32, rank: u32, bytes: u32, n: u64) -> Packet {
    Packet { rank, ..Packet::scripted(ConnId { slot: conn, gen: 0 }, ClassId::new(0), bytes, Header([n, 0, 0])) }
}

/// The port as pFabric §4.2 describes it, naively: a full port evicts its least
/// important packet (the latest among equals) while that matters less than the arriving
/// one and the arriving one does not fit; it serves the earliest packet of the message
/// holding the most important one.
#[derive(Default)]
struct Model {
    q: Vec<(u32, u64, Packet)>,
    n: u64,
    evicted: Vec<Packet>,
}

impl Model {
    fn offer(&mut self, p: Packet, limit: u64) -> bool {
        let bytes = |q: &Vec<(u32, u64, Packet)>| q.iter().map(|e| e.2.wire_bytes as u64).sum::<u64>();
        while bytes(&self.q) + p.wire_bytes as u64 > limit {
            let i = (0..self.q.len()).max_by_key(|&i| (self.q[i].0, self.q[i].1));
            match i {
                Some(i) if self.q[i].0 > p.rank => self.evicted.push(self.q.remove(i).2),
                _ => return false,
            }
        }
        self.q.push((p.rank, self.n, p));
        self.n += 1;
        true
    }
    fn serve(&mut self) -> Option<Packet> {
        let best = self.q.iter().min_by_key(|e| (e.0, e.1))?.2.conn;
        let i = self.q.iter().position(|e| e.2.conn == best)?;
        Some(self.q.remove(i).2)
    }
}

#[test]
fn a_rank_port_never_serves_a_message_while_a_more_important_one_waits_and_evicts_the_least_important() {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(2013);
    let limit = 13 * 1_538 - 1;
    for round in 0..100 {
        let mut port = Port::new(
            Node::Switch(SwitchId::new(0)),
            LinkId::new(0),
            Rate::from_gbps(10),
            PortRole::ToHost,
            Admission::PortLimit(limit),
            Vec::new(),
            Box::new(RankQueue::default()),
        )
        .with_overflow(Overflow::Evict);
        let mut model = Model::default();
        let (mut pool, mut dropped) = (Default::default(), Vec::new());
        let (mut offered, mut sent) = ((0u64, 0u64), (0u64, 0u64));
        for step in 0..400 {
            if rng.random_range(0..3) > 0 {
                let bytes = if rng.random_bool(0.8) { 1_538 } else { rng.random_range(84..1_538) };
                let p = scripted(rng.random_range(0..6), rng.random_range(1..20) * 1_000, bytes, step);
                offered = (offered.0 + 1, offered.1 + bytes as u64);
                let before = dropped.len();
                assert_eq!(
                    port.offer(Time::ZERO, p, None, &mut dropped),
                    model.offer(p, limit),
                    "round {round} step {step}: admission"
                );
                let evicted_now: Vec<Packet> = dropped[before..].iter().filter(|d| **d != p).copied().collect();
                let n = model.evicted.len();
                assert_eq!(
                    evicted_now,
                    model.evicted[n - evicted_now.len()..],
                    "round {round} step {step}: the least important went"
                );
            } else {
                let got = port.start_next(Time::ZERO, PortId::new(0), None, &mut pool).map(|(p, _)| p);
                port.busy = false;
                assert_eq!(got, model.serve(), "round {round} step {step}: service");
                if let Some(p) = got {
                    sent = (sent.0 + 1, sent.1 + p.wire_bytes as u64);
                }
            }
            let s = &port.stats;
            assert_eq!(
                offered.0,
                sent.0 + s.drop_packets + port.queued_packets() as u64,
                "round {round} step {step}: packets"
            );
            assert_eq!(offered.1, sent.1 + s.drop_bytes + port.queued_bytes(), "round {round} step {step}: bytes");
            assert!(port.queued_bytes() <= limit);
        }
        assert_eq!(port.stats.evict_packets as usize, model.evicted.len());
        assert!(round > 0 || port.stats.evict_packets > 0, "the script must evict to test anything");
    }
}

#[test]
fn scenarios_that_would_ignore_pfabrics_ranks_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let class = "[[class]]\nname = \"m\"\nsizes = \"w3\"\narrival = \"poisson\"\nload = 0.5\npattern = \"all_to_all\"\nuntil = \"10us\"\n";
    let err = |text: String| tailor::scenario::Scenario::parse(&text, "t.toml", dir.path()).map(|_| ()).unwrap_err();
    let e = err(FABRIC.replace("scheduler = \"rank\"", "scheduler = \"priority\"") + class);
    assert_eq!(e.path, "transport.kind");
    assert!(e.message.contains("accepted: [switch] scheduler = \"rank\""), "{}", e.message);
    let e = err(FABRIC.replace("nic_depth = 0", "nic = \"fifo\"") + class);
    assert_eq!(e.path, "transport.kind");
    assert!(e.message.contains("nic_depth = 0") && e.message.contains("nic = \"rank\""), "{}", e.message);
    // A NIC serving by rank is pFabric's host queue too.
    tailor::scenario::Scenario::parse(
        &(FABRIC.replace("nic_depth = 0", "nic = \"rank\"") + class),
        "t.toml",
        dir.path(),
    )
    .unwrap();
    let e =
        err(FABRIC.replace("[transport]\nkind = \"pfabric\"", "[transport]\nkind = \"pfabric\"\nmax_cwnd = 4") + class);
    assert_eq!(
        (e.path.as_str(), e.message.contains("below init_cwnd (12)")),
        ("transport.max_cwnd", true),
        "{}",
        e.message
    );
    let e = err(FABRIC.replace("kind = \"pfabric\"", "kind = \"pfabric\"\nprobe_after = 0") + class);
    assert_eq!(e.path, "transport.probe_after");
    let e = err(FABRIC.replace("scheduler = \"rank\"", "scheduler = \"rank\"\npriority_levels = 4") + class);
    assert_eq!(e.path, "switch.priority_levels");
    // The fast model has no rank order.
    let star = "[topology]\nkind = \"star\"\nhosts = 4\nlink = { rate = \"10Gbps\", delay = \"1us\" }\n[switch]\nscheduler = \"rank\"\n\
                [transport]\nkind = \"dctcp\"\n[[class]]\nname = \"m\"\nsizes = \"w3\"\narrival = \"poisson\"\nload = 0.5\n\
                pattern = \"n_to_1\"\nreceiver = 3\nmessages = 10\n";
    let sc = tailor::scenario::Scenario::parse(star, "t.toml", dir.path()).unwrap();
    let e = tailor::scenario::model::config(&sc).map(|_| ()).unwrap_err();
    assert_eq!(e.path, "switch.scheduler", "{e:?}");
}

#[test]
fn the_shipped_scenarios_run_the_homa_authors_pfabric() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/homa");
    let mut names: Vec<String> = (1..=5).flat_map(|w| [50, 80].map(|l| format!("pfabric-w{w}-{l}.toml"))).collect();
    names.push("bench-w5-80-pfabric.toml".into());
    for name in names {
        let sc = tailor::scenario::Scenario::load(&root.join(&name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let cfg = sc.transport_of(0).as_any().downcast_ref::<tailor::transport::pfabric::Config>().expect("pFabric");
        let c = cfg.control;
        assert_eq!((cfg.wire.mss, cfg.wire.header, c.init_cwnd, c.max_cwnd), (1_460, 78, 12, 12), "{name}");
        assert_eq!((c.rto, c.probe_after), (Time::from_us(24), Some(5)), "{name}");
        assert_eq!(sc.net.buffer, tailor::net::topology::BufferSpec::PerPort { bytes: 13 * 1_538 - 1 }, "{name}");
        assert_eq!((sc.net.setting::<Overflow>(), sc.net.nic_depth), (Some(&Overflow::Evict), Some(0)), "{name}");
    }
}
