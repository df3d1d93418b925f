//! Conservation of packets and bytes: everything hosts sent was delivered, dropped, or
//! is still queued or on a wire — overall, per port, per switch and per link — in a run
//! with drops, stopped while messages are in flight, and in one that runs to the end.

mod common;

const SCENARIO: &str = r#"
[topology]
kind = "star"
hosts = 17
link = { rate = "10Gbps", delay = "1us" }

[switch]
buffer = "per_port"
buffer_size = "40KB"

[transport]
kind = "tcp"
init_cwnd = 20
min_rto = "200us"

[[class]]
name = "incast"
sizes = "hadoop"
arrival = "poisson"
load = 0.9
pattern = "n_to_1"
receiver = 16
messages = 800
"#;

fn check_ledgers(sim: &tailor::engine::Simulation) {
    let l = sim.ledger();
    for (what, i) in [("packets", 0), ("bytes", 1)] {
        let pick = |t: (u64, u64)| if i == 0 { t.0 } else { t.1 };
        assert_eq!(
            pick(l.sent),
            pick(l.delivered) + pick(l.dropped) + pick(l.in_flight),
            "{what}: sent = delivered + dropped + in flight ({l:?})"
        );
    }
    let net = &sim.net;
    for (i, p) in net.ports.iter().enumerate() {
        assert_eq!(p.stats.enq_packets, p.stats.sent_packets + p.queued_packets() as u64, "port {i} packets");
        assert_eq!(p.stats.enq_bytes, p.stats.sent_bytes + p.queued_bytes(), "port {i} bytes");
        let link = &net.links[p.link.index()];
        let on_wire: u64 = net.wire_of(p.link).map(|q| q.wire_bytes as u64).sum();
        assert_eq!(p.stats.sent_packets, link.delivered.0 + link.on_wire() as u64, "link of port {i}");
        assert_eq!(p.stats.sent_bytes, link.delivered.1 + on_wire, "link of port {i} bytes");
    }
    for (s, sw) in net.switches.iter().enumerate() {
        let offered: u64 = sw
            .ports
            .iter()
            .map(|p| net.ports[p.index()].stats.enq_packets + net.ports[p.index()].stats.drop_packets)
            .sum();
        // What the switch sends itself (an agent's packets, PFC frames) is queued too.
        assert_eq!(sw.received.0 + sw.emitted.0, offered, "switch {s}: every arriving packet is queued or dropped");
    }
}

#[test]
fn conservation_with_drops_stopped_mid_run() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("[run]\nstop = \"20ms\"\n{SCENARIO}");
    let sc = common::scenario(&text, dir.path());
    let (sim, _) = common::run(&sc, 3);
    let l = sim.ledger();
    assert!(l.dropped.0 > 0, "the scenario must drop packets to test anything: {l:?}");
    assert!(l.in_flight.0 > 0, "stopped with packets in flight: {l:?}");
    check_ledgers(&sim);
}

#[test]
fn conservation_and_loss_recovery_to_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let sc = common::scenario(SCENARIO, dir.path());
    let (sim, recs) = common::run(&sc, 3);
    assert_eq!(recs.len(), 800, "every message completes despite drops");
    let r = sim.report();
    assert!(r.network.drops > 0);
    let c = |name: &str| r.transport_counters.get(name).expect("TCP's counters are in the summary");
    assert!(c("retransmits") > 0 && c("fast_recoveries") + c("timeouts") > 0);
    check_ledgers(&sim);
    assert_eq!(sim.ledger().in_flight, (0, 0));
}

/// HULL's stages on (a phantom queue at every switch port, a pacer and interrupt
/// coalescing at every host, DCTCP): the ledgers still balance, stopped mid-run with
/// packets held in pacers' buckets and coalescing batches, and at the end.
#[test]
fn conservation_with_phantom_queues_pacers_and_coalescing() {
    let hull = SCENARIO
        .replace("[switch]\n", "[switch]\nphantom = { drain = 0.9, threshold = \"3KB\" }\n")
        .replace("kind = \"tcp\"", "kind = \"dctcp\"")
        .replace("[transport]", "[host]\npacer = \"ns2\"\nrx_frames = 8\nrx_usecs = \"20us\"\n[transport]");
    let dir = tempfile::tempdir().unwrap();
    let stopped = common::scenario(&format!("[run]\nstop = \"20ms\"\n{hull}"), dir.path());
    let (sim, _) = common::run(&stopped, 3);
    let report = sim.report();
    let pacer = report.network.mechanisms.get("pacer").expect("pacers");
    let paced = pacer.iter().find(|(k, _)| *k == "paced_packets").and_then(|(_, v)| v.as_u64());
    assert!(paced > Some(0), "the pacers paced: {pacer:?}");
    check_ledgers(&sim);
    let sc = common::scenario(&hull, dir.path());
    let (sim, recs) = common::run(&sc, 3);
    assert_eq!(recs.len(), 800, "every message completes");
    check_ledgers(&sim);
    assert_eq!(sim.ledger().in_flight, (0, 0));
}

/// PFC (`[switch] pfc`): the switch sends PAUSE and RESUME frames of its own, ahead of
/// its queues, which the hosts' NICs take in; nothing is dropped, and the ledgers balance
/// with the frames counted as the switch's sent and the hosts' delivered packets,
/// stopped mid-run with ports paused and at the end.
#[test]
fn conservation_with_pfc_frames() {
    // At 100 Gbps the fork's headroom (three times a link's 12.5 KB bandwidth-delay
    // product) covers what is on the way while a PAUSE travels (docs/pfc.md, "Headroom").
    let pfc = SCENARIO.replace("10Gbps", "100Gbps").replace(
        "buffer = \"per_port\"\nbuffer_size = \"40KB\"",
        "buffer = \"shared\"\nbuffer_size = \"1MB\"\npfc = { priorities = [0] }",
    );
    let dir = tempfile::tempdir().unwrap();
    let stopped = common::scenario(&format!("[run]\nstop = \"1ms\"\n{pfc}"), dir.path());
    let (sim, _) = common::run(&stopped, 3);
    let pauses = |sim: &tailor::engine::Simulation| {
        let mmu = sim.net.memory.as_ref()?.as_any().downcast_ref::<tailor::net::pfc::Mmu>()?;
        Some(mmu.counts.iter().map(|c| c.pauses.iter().sum::<u64>()).sum::<u64>())
    };
    assert!(pauses(&sim) > Some(0), "stopped after pauses");
    check_ledgers(&sim);
    let sc = common::scenario(&pfc, dir.path());
    let (sim, recs) = common::run(&sc, 3);
    assert_eq!(recs.len(), 800, "every message completes");
    let pfc = sim.report().network.mechanisms.get("pfc").cloned().expect("pfc reports");
    let count = |k: &str| pfc.iter().find(|(n, _)| *n == k).and_then(|(_, v)| v.as_u64()).unwrap();
    assert!(count("pause_frames") > 10 && count("pause_frames") == count("resume_frames"), "{pfc:?}");
    assert_eq!((sim.ledger().dropped, count("headroom_drops")), ((0, 0), 0), "lossless");
    check_ledgers(&sim);
    assert_eq!(sim.ledger().in_flight, (0, 0));
}

/// Persistent connections whose messages share segments (`coalesce = "nagle"`, the
/// default): a segment carrying the tail of one message and the head of the next is
/// counted once, dropped or delivered; the ledgers balance stopped mid-run and at the
/// end, every message completes, and each payload byte is acknowledged exactly once.
#[test]
fn conservation_with_coalescing_persistent_connections() {
    let persistent = SCENARIO.replace("messages = 800", "messages = 800\nconnections = 4");
    let dir = tempfile::tempdir().unwrap();
    let stopped = common::scenario(&format!("[run]\nstop = \"20ms\"\n{persistent}"), dir.path());
    let (sim, _) = common::run(&stopped, 3);
    assert!(sim.ledger().dropped.0 > 0 && sim.ledger().in_flight.0 > 0, "{:?}", sim.ledger());
    check_ledgers(&sim);
    let sc = common::scenario(&persistent, dir.path());
    let (sim, recs) = common::run(&sc, 3);
    assert_eq!(recs.len(), 800, "every message completes");
    check_ledgers(&sim);
    assert_eq!(sim.ledger().in_flight, (0, 0));
    let bytes: u64 = recs.iter().map(|r| r.size).sum();
    assert_eq!(sim.report().transport_counters.get("acked_bytes"), Some(bytes));
}

/// A bounded NIC (`[host] buffer`, ns-2's host link queue): a window larger than the NIC's
/// buffer overflows it, the NIC drops drop-tail as a switch port does, its queue never
/// exceeds the buffer, TCP recovers every message, and the ledgers balance.
#[test]
fn conservation_with_drops_at_bounded_nics() {
    let nic = SCENARIO
        .replace("buffer_size = \"40KB\"", "buffer_size = \"4MB\"")
        .replace("init_cwnd = 20", "init_cwnd = 40")
        .replace("[transport]", "[host]\nbuffer = \"20KB\"\n[transport]");
    let dir = tempfile::tempdir().unwrap();
    let sc = common::scenario(&nic, dir.path());
    let (sim, recs) = common::run(&sc, 3);
    assert_eq!(recs.len(), 800, "every message completes");
    let nics: Vec<_> = sim.net.ports.iter().filter(|p| p.role == tailor::net::port::PortRole::HostNic).collect();
    assert!(nics.iter().map(|p| p.stats.drop_packets).sum::<u64>() > 0, "a 40-packet window overflows 20 KB");
    assert!(nics.iter().all(|p| p.stats.max_queue_bytes <= 20_000), "no NIC holds more than its buffer");
    check_ledgers(&sim);
    assert_eq!(sim.ledger().in_flight, (0, 0));
    // Without the key the same run drops nothing at a NIC: the key is what bounds it.
    let sc = common::scenario(&nic.replace("buffer = \"20KB\"\n", ""), dir.path());
    let (sim, _) = common::run(&sc, 3);
    assert!(sim
        .net
        .ports
        .iter()
        .filter(|p| p.role == tailor::net::port::PortRole::HostNic)
        .all(|p| p.stats.drop_packets == 0));
}
