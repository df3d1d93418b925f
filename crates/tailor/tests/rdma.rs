//! The RDMA NIC and its controllers in the packet engine (`kind = "rdma"`, docs/rdma.md):
//! a lossless incast under each controller with PFC and the programs' dequeue marking,
//! bytes conserved, a lone message at its ideal, and what it cannot run with refused.

mod common;

/// Four senders of 4 MB each into host 4 of a star of five, 100 Gbps, 1 us, a 4 MB shared
/// buffer with PFC on priority 3, the programs' 100 Gb/s ramp at dequeue.
fn incast(dir: &std::path::Path, cc: &str, extra: &str) -> tailor::scenario::Scenario {
    common::incast_trace(dir, 4, 4_000_000);
    common::scenario(
        &format!(
            r#"[topology]
kind = "star"
hosts = 5
link = {{ rate = "100Gbps", delay = "1us" }}
[switch]
buffer = "shared"
buffer_size = "4MB"
scheduler = "priority"
pfc = {{ priorities = [3] }}
dequeue_red = {{ kmin = "400KB", kmax = "1600KB", pmax = 0.2 }}
[host]
nic_depth = 0
[transport]
kind = "rdma"
congestion_control = "{cc}"
{extra}
[[class]]
name = "incast"
trace = "incast.csv"
"#
        ),
        dir,
    )
}

fn counter(sim: &tailor::engine::Simulation, name: &str) -> u64 {
    sim.report().transport_counters.get(name).unwrap_or_else(|| panic!("no {name}"))
}

/// Every controller finishes the incast without a drop or a resend, after the 16.77 MB
/// of data the bottleneck must carry (1,341.4 us at 100 Gbps) and within 2.5 times it;
/// every data packet is ACKed once; the NIC's counters add up to the data on the wire.
#[test]
fn every_controller_runs_a_lossless_incast_and_conserves_bytes() {
    let dir = tempfile::tempdir().unwrap();
    for (cc, header) in [("none", 48u64), ("dcqcn", 48), ("timely", 56), ("dctcp", 48), ("hpcc", 90)] {
        let (sim, recs) = common::run(&incast(dir.path(), cc, ""), 1);
        assert_eq!(recs.len(), 4, "{cc}");
        assert_eq!(sim.ledger().dropped, (0, 0), "{cc}: lossless");
        let packets = 4 * 4_000;
        assert_eq!(counter(&sim, "data_packets"), packets, "{cc}");
        assert_eq!(counter(&sim, "data_bytes"), 16_000_000 + packets * header, "{cc}");
        assert_eq!(
            (counter(&sim, "acks"), counter(&sim, "nacks"), counter(&sim, "retransmitted_bytes")),
            (packets, 0, 0),
            "{cc}"
        );
        let end = recs.iter().map(|r| r.finish).max().unwrap().ps() as f64 / 1e6;
        let floor = (16_000_000 + packets * header) as f64 * 8.0 / 100e3;
        assert!(end > floor && end < 2.5 * floor, "{cc}: the last message ends at {end:.1} us against {floor:.1} us");
    }
}

/// With DCQCN's CNPs (`cnp_interval`, the paper's NP) instead of ECN echoes, the incast
/// still ends lossless, and no queue pair gets more than one CNP per 50 us: at most 4 ×
/// the run's length / 50 us of them.
#[test]
fn dcqcn_with_cnps_runs_the_incast() {
    let dir = tempfile::tempdir().unwrap();
    let sc = incast(dir.path(), "dcqcn", "cnp_interval = \"50us\"");
    let (sim, recs) = common::run(&sc, 1);
    assert_eq!((recs.len(), sim.ledger().dropped), (4, (0, 0)));
    let end_us = recs.iter().map(|r| r.finish).max().unwrap().ps() / 1_000_000;
    let cnps = counter(&sim, "cnps");
    assert!(cnps > 0 && cnps <= 4 * (end_us / 50 + 1), "{cnps} CNPs in {end_us} us");
    assert_eq!(counter(&sim, "ecn_echoes"), 0, "the ACKs echo nothing");
}

/// Without congestion control the senders keep line rate and PFC alone holds them: the
/// switch pauses them, and the incast ends at the bottleneck's bound.
#[test]
fn without_congestion_control_pfc_holds_the_senders() {
    let dir = tempfile::tempdir().unwrap();
    let (sim, recs) = common::run(&incast(dir.path(), "none", ""), 1);
    let pfc = sim.report().network.mechanisms.get("pfc").expect("pfc reports").clone();
    let pauses = pfc.iter().find(|(k, _)| *k == "pause_frames").unwrap().1.as_u64().unwrap();
    assert!(pauses > 10, "{pauses} pauses");
    let end = recs.iter().map(|r| r.finish).max().unwrap().ps() as f64 / 1e6;
    assert!((1_341.0..1_350.0).contains(&end), "{end}");
}

/// A lone message meets its ideal, the sender's last ACK after the pipeline of its
/// packets (the engine and the ideal agree on every hop), except under HPCC, which holds
/// even a lone flow to η = 95 % of the line once its INT says the link is full: at most
/// 1/η of it.
#[test]
fn a_lone_message_meets_its_ideal() {
    let dir = tempfile::tempdir().unwrap();
    for cc in ["dcqcn", "hpcc", "timely", "dctcp"] {
        let trace = common::lone_trace(dir.path(), &[100_000, 1_000, 2_500_000], 0, 1, 1_000_000);
        let sc = common::scenario(
            &format!(
                "[topology]\nkind = \"star\"\nhosts = 2\nlink = {{ rate = \"100Gbps\", delay = \"1us\" }}\n[host]\n\
                 nic_depth = 0\n[transport]\nkind = \"rdma\"\ncongestion_control = \"{cc}\"\n[[class]]\nname = \"c\"\n\
                 trace = \"{trace}\"\n"
            ),
            dir.path(),
        );
        let (_, recs) = common::run(&sc, 1);
        assert_eq!(recs.len(), 3);
        for r in &recs {
            let s = r.slowdown();
            let most = if cc == "hpcc" { 1.0 / 0.95 } else { 1.0001 };
            assert!((1.0..most).contains(&s), "{cc}: size {}: slowdown {s}", r.size);
        }
    }
}

#[test]
fn settings_the_rdma_nic_cannot_work_with_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let base = |host: &str, transport: &str, switch: &str| {
        format!(
            "[topology]\nkind = \"star\"\nhosts = 3\nlink = {{ rate = \"100Gbps\", delay = \"1us\" }}\n{host}\
             [transport]\nkind = \"rdma\"\n{transport}\n[[class]]\nname = \"c\"\nsizes_fixed = \"10KB\"\n\
             arrival = \"poisson\"\nload = 0.1\npattern = \"all_to_all\"\nmessages = 10\n{switch}"
        )
    };
    let depth = "[host]\nnic_depth = 0\n";
    let cases = [
        (base("", "congestion_control = \"dcqcn\"", ""), "transport.kind", "nic_depth = 0"),
        (base(depth, "congestion_control = \"swift\"", ""), "transport.congestion_control", "\"dcqcn\", \"timely\""),
        (
            base(depth, "congestion_control = \"dcqcn\"\ntimely = { beta = 0.5 }", ""),
            "transport.timely",
            "congestion_control is \"dcqcn\"",
        ),
        (base(depth, "congestion_control = \"hpcc\"\nwindow = \"none\"", ""), "transport.window", "accepted"),
        (
            base(depth, "congestion_control = \"timely\"\ncnp_interval = \"50us\"", ""),
            "transport.cnp_interval",
            "dcqcn",
        ),
        (
            base(depth, "congestion_control = \"dcqcn\"\ndcqcn = { rp_timer = \"0us\" }", ""),
            "transport.dcqcn.rp_timer",
            "positive",
        ),
        (
            base(depth, "congestion_control = \"dcqcn\"\ndcqcn = { rate_ai = \"200Gbps\" }", ""),
            "transport.dcqcn.rate_ai",
            "line rate",
        ),
        (base(depth, "congestion_control = \"dcqcn\"\ndcqcn = { gain = 0.1 }", ""), "transport.dcqcn.gain", "accepted"),
        (
            base(
                depth,
                "congestion_control = \"dcqcn\"",
                "[switch]\ndequeue_red = [{ rate = \"25Gbps\", kmin = \"1KB\", kmax = \"2KB\", pmax = 0.1 }]\n",
            ),
            "switch.dequeue_red",
            "no ramp for \"100Gbps\"",
        ),
        (
            base(
                depth,
                "congestion_control = \"dcqcn\"",
                "[switch]\ndequeue_red = { kmin = \"2KB\", kmax = \"1KB\", pmax = 0.1 }\n",
            ),
            "switch.dequeue_red.kmax",
            "at or above kmin",
        ),
    ];
    for (text, path, said) in cases {
        let e = tailor::scenario::Scenario::parse(&text, "t.toml", dir.path()).unwrap_err();
        assert!(e.path == path && e.message.contains(said), "{path}: {e}");
    }
}
