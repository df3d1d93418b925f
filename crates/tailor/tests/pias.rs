//! PIAS end to end: a lone message meets its one-way ideal, a loaded run completes every
//! message with every packet accounted for, its thresholds come from the workload, its
//! messages are demoted through the levels, and short messages fare better than under
//! plain DCTCP on the same traffic; bad tables are refused with the key and the fix.

mod common;

use tailor::scenario::Scenario;

/// The Homa paper's fabric as scenarios/homa/pias-w3-80.toml has it.
const FABRIC: &str = common::homa_fabric!(
    9,
    16,
    4,
    "scheduler = \"priority\"\npriority_levels = 8\nbuffer = \"per_port\"\nbuffer_size = \"375000B\"\necn_threshold = \"22500B\"\n",
    "nic = \"priority\"\npriority_levels = 8\necn_threshold = \"22500B\"\n"
);

const PIAS: &str = r#"
kind = "pias"
mss = "1460B"
header = "40B"
init_cwnd = 7
max_cwnd = 249
min_rto = "200us"
dctcp_initial_alpha = 0.0
dupack_threshold = "off"
"#;

/// The ideal is the message's packets in order through its path (a window of 7 never
/// stalls a lone message: its first ACK is back before the window is out). Over one path
/// it is met exactly; sprayed, a short last packet may pass the full one before it on
/// another spine and arrive first, so the message can only be faster.
#[test]
fn a_lone_message_meets_its_one_way_ideal_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let sizes = [1, 1_460, 1_461, 10_000, 14_600, 100_000, 1_000_000];
    for (paths, packet_level) in [("ecmp", "first_byte"), ("ecmp", "last_byte"), ("spray", "last_byte")] {
        for (src, dst) in [(0, 1), (0, 17), (143, 5)] {
            let net = format!(
                "{FABRIC}\n[transport]\n{PIAS}\nthresholds = [\"1000B\", \"5000B\"]\npacket_level = \"{packet_level}\"\n"
            )
            .replace("paths = \"spray\"", &format!("paths = \"{paths}\""));
            let (_, recs) = common::run(&common::lone(dir.path(), &net, src, dst, &sizes), 1);
            assert_eq!(recs.len(), sizes.len());
            for r in &recs {
                let what = format!("{paths}, {packet_level}: {src}->{dst}, {} bytes", r.size);
                match paths {
                    "ecmp" => assert_eq!(r.finish - r.start, r.ideal, "{what}"),
                    _ => assert!(r.finish - r.start <= r.ideal, "{what}"),
                }
            }
        }
    }
}

/// 16 hosts under one 10 Gbps switch, W3 (Google's RPCs) at 70 % for a millisecond.
fn star(transport: &str) -> String {
    format!(
        r#"
[topology]
kind = "star"
hosts = 16
link = {{ rate = "10Gbps" }}
[switch]
delay = "250ns"
scheduler = "priority"
priority_levels = 8
buffer = "per_port"
buffer_size = "375000B"
ecn_threshold = "22500B"
[host]
nic = "priority"
priority_levels = 8
ecn_threshold = "22500B"
nic_delay = "1us"
rx_delay = "0.5us"
[transport]
{transport}
[[class]]
name = "w3"
sizes = "w3"
arrival = "poisson"
load = 0.7
load_basis = "payload"
pattern = "all_to_all"
until = "1ms"
"#
    )
}

fn small_p99(recs: &[tailor::measure::MessageRecord]) -> f64 {
    let mut s: Vec<f64> = recs
        .iter()
        .filter(|r| r.size <= 1_460)
        .map(|r| (r.finish - r.start).ps() as f64 / r.ideal.ps() as f64)
        .collect();
    s.sort_by(f64::total_cmp);
    s[(s.len() * 99 / 100).min(s.len() - 1)]
}

#[test]
fn a_loaded_run_completes_every_message_demotes_them_and_beats_dctcp_for_short_ones() {
    let dir = tempfile::tempdir().unwrap();
    let sc = common::scenario(&star(&format!("{PIAS}\npacket_level = \"last_byte\"")), dir.path());
    // Thresholds from the workload (§4.2) at the class's load: W3 at 70 %.
    let s = sc.transports[0].settings();
    assert_eq!(s["threshold_source"], "derived");
    assert_eq!(s["model_load"], 0.7);
    let t: Vec<u64> = s["thresholds"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    assert!(!t.is_empty() && t.len() <= 7 && t.windows(2).all(|p| p[0] < p[1]), "{t:?}");
    let (sim, recs) = common::run(&sc, 7);
    let r = sim.report();
    assert_eq!(r.messages.incomplete, 0, "every message completes");
    assert_eq!(recs.len() as u64, r.messages.generated);
    assert!(r.messages.generated > 1_500, "{}", r.messages.generated);
    assert!(sim.ledger().balances(), "every packet sent is delivered, dropped or in flight: {:?}", sim.ledger());
    assert_eq!(sim.ledger().in_flight, (0, 0), "the run drained");
    assert!(r.network.ecn_marks > 0, "DCTCP marks over the priority queues");
    // Demotion: every level the thresholds open carries data, the first the most.
    let c = |l: usize| r.transport_counters.get(&format!("data_packets_level_{l}")).unwrap_or(0);
    let per: Vec<u64> = (0..=t.len()).map(c).collect();
    assert!(per.iter().all(|&n| n > 0), "{per:?}");
    assert_eq!(per.iter().sum::<u64>(), r.transport_counters.get("data_packets").unwrap());
    // The same traffic under DCTCP with one level: short messages wait behind long ones.
    let dctcp = common::scenario(&star(PIAS).replace("kind = \"pias\"", "kind = \"dctcp\""), dir.path());
    let (dsim, drecs) = common::run(&dctcp, 7);
    assert_eq!(dsim.report().messages.incomplete, 0);
    let (p, d) = (small_p99(&recs), small_p99(&drecs));
    assert!(p * 1.5 < d, "p99 slowdown of one-packet messages: PIAS {p:.2} against DCTCP {d:.2}");
    // Deterministic: the same seed gives the same messages.
    let (_, again) = common::run(&sc, 7);
    assert_eq!(again, recs);
}

fn error(text: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    match Scenario::parse(text, "t.toml", dir.path()) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_tables_name_the_key_and_what_is_accepted() {
    let ok = star(PIAS);
    let with = |extra: &str| ok.replace("dupack_threshold = \"off\"", extra);
    let e = error(&with("thresholds = [\"2KB\", \"1KB\"]"));
    assert!(e.contains("transport.thresholds") && e.contains("increasing"), "{e}");
    let e = error(&with("priority_levels = 3\nthresholds = [\"1KB\", \"2KB\", \"3KB\"]"));
    assert!(e.contains("transport.thresholds") && e.contains("at most 2"), "{e}");
    let e = error(&with("thresholds = [1000]"));
    assert!(e.contains("transport.thresholds") && e.contains("units"), "{e}");
    let e = error(&with("packet_level = \"middle\""));
    assert!(e.contains("transport.packet_level") && e.contains("last_byte"), "{e}");
    let e = error(&with("priority_levels = 9"));
    assert!(e.contains("transport.priority_levels"), "{e}");
    let e = error(&ok.replace("scheduler = \"priority\"\npriority_levels = 8\nbuffer", "buffer"));
    assert!(e.contains("transport.priority_levels") && e.contains("scheduler = \"priority\""), "{e}");
    let e = error(&with("dupack_threshold = 0"));
    assert!(e.contains("transport.dupack_threshold") && e.contains("\"off\""), "{e}");
    // No load to derive thresholds at: say so, and how to give them.
    let e = error(&ok.replace("load = 0.7\nload_basis = \"payload\"", "rate = \"1Gbps\""));
    assert!(e.contains("transport") && e.contains("thresholds = [...]"), "{e}");
    let e = error(&ok.replace("load = 0.7", "load = 1.0"));
    assert!(e.contains("less than 1") && e.contains("thresholds = [...]"), "{e}");
    // One level is DCTCP: no thresholds, and any scheduler.
    let one = ok.replace("kind = \"pias\"", "kind = \"pias\"\npriority_levels = 1");
    let dir = tempfile::tempdir().unwrap();
    let sc =
        common::scenario(&one.replace("scheduler = \"priority\"\npriority_levels = 8\nbuffer", "buffer"), dir.path());
    assert_eq!(sc.transports[0].settings()["levels_used"], 1);
}

/// `[host] ecn_threshold` (ns-2's host links queue and mark like switch ports): one host
/// fanning DCTCP flows out to 15 others is its own bottleneck; its NIC marks, so its queue
/// stays near the threshold instead of holding every window.
#[test]
fn a_marking_nic_keeps_a_fanning_out_host_s_queue_short() {
    let dir = tempfile::tempdir().unwrap();
    let run = |nic_ecn: &str| {
        let text = star(PIAS)
            .replace("ecn_threshold = \"22500B\"\nnic_delay", &format!("{nic_ecn}nic_delay"))
            .replace("load = 0.7\nload_basis = \"payload\"", "load = 0.9")
            .replace("pattern = \"all_to_all\"", "pattern = \"all_to_all\"\nsenders = [0]")
            .replace("sizes = \"w3\"", "sizes_fixed = \"500KB\"")
            .replace("until = \"1ms\"", "until = \"5ms\"");
        let (sim, recs) = common::run(&common::scenario(&text, dir.path()), 3);
        assert_eq!(sim.report().messages.incomplete, 0);
        assert!(recs.len() > 8, "{}", recs.len());
        let nic = &sim.net.ports[sim.net.hosts[0].nic.index()].stats;
        // The time-weighted mean queue over the run.
        (nic.marks, nic.queue_area as f64 / sim.now().ps() as f64)
    };
    let (marks, mean) = run("ecn_threshold = \"22500B\"\n");
    let (no_marks, unmarked) = run("");
    assert_eq!(no_marks, 0);
    assert!(marks > 100, "{marks}");
    assert!(mean * 4.0 < unmarked, "mean NIC queue {mean:.0} B with marking, {unmarked:.0} B without");
}
