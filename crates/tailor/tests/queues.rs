//! `[record] queues`: queue occupancy over time in `queues.csv` (docs/results.md).
//!
//! The samples are checked against what the engine measures independently: the
//! time-weighted mean and the maximum of each port in `ports.csv` (kept exactly, event by
//! event), the run's end, a lone flow's analytic queue, and the per-class split.

use std::path::Path;
use tailor::output::{run_engine_to_dir, Engine};
use tailor::scenario::Scenario;

/// Eight senders into one receiver on a 100 Gbps star: the receiver's switch port (id 17)
/// is the bottleneck.
const INCAST: &str = r#"
seed = 3
[topology]
kind = "star"
hosts = 9
link = { rate = "100Gbps", delay = "1us" }
[switch]
ecn_threshold = "60KB"
[transport]
kind = "dctcp"
init_cwnd = 10
[[class]]
name = "bulk"
sizes_exponential_mean = "100KB"
arrival = "poisson"
load = 0.8
pattern = "n_to_1"
senders = "0..8"
receiver = 8
messages = 300
"#;

const BOTTLENECK: usize = 17;

struct Row {
    ps: u64,
    port: Option<usize>,
    bytes: u64,
    classes: Vec<Option<u64>>,
}

struct Queues {
    header: String,
    rows: Vec<Row>,
}

fn ps_of(ns: &str) -> u64 {
    let (whole, frac) = ns.split_once('.').expect("ns with 3 decimals");
    assert_eq!(frac.len(), 3, "{ns}");
    whole.parse::<u64>().unwrap() * 1000 + frac.parse::<u64>().unwrap()
}

fn cell(s: &str) -> Option<u64> {
    (!s.is_empty()).then(|| s.parse().unwrap())
}

fn read_queues(dir: &Path) -> Queues {
    let text = std::fs::read_to_string(dir.join("queues.csv")).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().to_string();
    let rows = lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            Row {
                ps: ps_of(f[0]),
                port: cell(f[1]).map(|p| p as usize),
                bytes: f[2].parse().unwrap(),
                classes: f[3..].iter().map(|c| cell(c)).collect(),
            }
        })
        .collect();
    Queues { header, rows }
}

/// (port, role, max_queue_bytes, mean_queue_bytes) per row of ports.csv.
fn read_ports(dir: &Path) -> Vec<(usize, String, u64, f64)> {
    let text = std::fs::read_to_string(dir.join("ports.csv")).unwrap();
    text.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].parse().unwrap(), f[2].to_string(), f[9].parse().unwrap(), f[10].parse().unwrap())
        })
        .collect()
}

fn summary(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

fn run(text: &str, seed: u64, out: &Path, engine: Engine) {
    let sc = Scenario::parse(text, "test.toml", Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
    run_engine_to_dir(&sc, seed, out, engine, &mut |_| true).unwrap();
}

fn with_record(record: &str) -> String {
    format!("{INCAST}\n[record]\n{record}\n")
}

#[test]
fn ticks_are_the_multiples_of_the_interval_up_to_the_end_for_every_switch_port() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("r");
    run(&with_record("queues = \"2.5us\""), 1, &out, Engine::Packet);
    let q = read_queues(&out);
    assert_eq!(q.header, "time_ns,port,queue_bytes");
    let switch_ports: Vec<usize> = read_ports(&out).into_iter().filter(|p| p.1 != "host_nic").map(|p| p.0).collect();
    assert_eq!(switch_ports.len(), 9);
    let end_ps = (summary(&out)["sim_ns"].as_f64().unwrap() * 1000.0).round() as u64;
    let every = 2_500_000;
    let ticks = end_ps / every + 1;
    assert!(ticks > 100, "the run spans {ticks} ticks");
    assert_eq!(q.rows.len() as u64, ticks * switch_ports.len() as u64);
    for (i, chunk) in q.rows.chunks(switch_ports.len()).enumerate() {
        assert!(chunk.iter().all(|r| r.ps == i as u64 * every), "tick {i}");
        let ports: Vec<usize> = chunk.iter().map(|r| r.port.unwrap()).collect();
        assert_eq!(ports, switch_ports);
    }
    let s = summary(&out);
    assert_eq!(s["queues"]["interval_ns"], 2500.0);
    assert_eq!(s["queues"]["rows"], q.rows.len() as u64);
    assert_eq!(s["queues"]["ports"].as_array().unwrap().len(), 9);
}

#[test]
fn fine_samples_average_to_the_ports_mean_and_never_exceed_its_maximum() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("r");
    run(&with_record(&format!("queues = \"50ns\"\nqueue_ports = [{BOTTLENECK}]")), 1, &out, Engine::Packet);
    let q = read_queues(&out);
    let (_, role, max, mean) = read_ports(&out).into_iter().find(|p| p.0 == BOTTLENECK).unwrap();
    assert_eq!(role, "to_host");
    assert!(mean > 10_000.0, "the bottleneck holds a queue: mean {mean}");
    assert!(q.rows.iter().all(|r| r.port == Some(BOTTLENECK)));
    let sampled_max = q.rows.iter().map(|r| r.bytes).max().unwrap();
    assert!(sampled_max <= max && sampled_max as f64 > 0.9 * max as f64, "sampled max {sampled_max}, port max {max}");
    // Left Riemann sum of the samples over [0, end] against the exact integral.
    let end_ps = summary(&out)["sim_ns"].as_f64().unwrap() * 1000.0;
    let area: f64 = q.rows.iter().filter(|r| (r.ps as f64) < end_ps).map(|r| r.bytes as f64 * 50_000.0).sum();
    let sampled_mean = area / end_ps;
    assert!((sampled_mean / mean - 1.0).abs() < 0.02, "sampled mean {sampled_mean}, ports.csv {mean}");
}

#[test]
fn same_seed_same_bytes_other_seed_other_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let text = with_record("queues = \"1us\"\nqueue_ports = \"to_host\"");
    let dirs: Vec<_> = ["a", "b", "c"].iter().map(|n| tmp.path().join(n)).collect();
    std::thread::scope(|s| {
        s.spawn(|| run(&text, 5, &dirs[0], Engine::Packet));
        s.spawn(|| run(&text, 5, &dirs[1], Engine::Packet));
    });
    run(&text, 6, &dirs[2], Engine::Packet);
    let bytes = |d: &Path| std::fs::read(d.join("queues.csv")).unwrap();
    assert_eq!(bytes(&dirs[0]), bytes(&dirs[1]));
    assert_ne!(bytes(&dirs[0]), bytes(&dirs[2]));
}

#[test]
fn recording_queues_changes_nothing_else() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    run(INCAST, 2, &a, Engine::Packet);
    run(&with_record("queues = \"100ns\"\nqueue_ports = \"all\""), 2, &b, Engine::Packet);
    let read = |d: &Path, f: &str| std::fs::read(d.join(f)).unwrap();
    assert_eq!(read(&a, "messages.csv"), read(&b, "messages.csv"));
    assert_eq!(read(&a, "ports.csv"), read(&b, "ports.csv"));
    assert_eq!(summary(&a)["events"], summary(&b)["events"]);
    assert!(!a.join("queues.csv").exists() && summary(&a).get("queues").is_none());
}

#[test]
fn a_lone_flow_through_idle_ports_queues_only_at_its_nic() {
    let text = r#"
[topology]
kind = "star"
hosts = 3
link = { rate = "100Gbps", delay = "1us" }
[transport]
kind = "dctcp"
init_cwnd = 10
[[class]]
name = "one"
sizes_fixed = "1MB"
arrival = "poisson"
load = 0.1
pattern = "n_to_1"
senders = [0]
receiver = 1
messages = 1
[record]
queues = "20ns"
queue_ports = "all"
"#;
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("r");
    run(text, 1, &out, Engine::Packet);
    let q = read_queues(&out);
    let ports = read_ports(&out);
    let max_at = |p: usize| q.rows.iter().filter(|r| r.port == Some(p)).map(|r| r.bytes).max().unwrap();
    for (p, role, _, _) in &ports {
        if role == "host_nic" && *p == 0 {
            // The initial window leaves the transport at once and waits at the NIC.
            assert!(max_at(*p) >= 8 * 1502, "sender NIC: {}", max_at(*p));
        } else {
            // Equal rates: a packet is forwarded as fast as it arrives; at most one waits.
            assert!(max_at(*p) <= 1502, "port {p} ({role}): {}", max_at(*p));
        }
    }
}

#[test]
fn class_columns_split_the_queue_exactly() {
    let two = INCAST.replace("messages = 300", "messages = 150").replace("load = 0.8", "load = 0.4")
        + r#"
[[class]]
name = "rpc"
sizes_fixed = "3KB"
arrival = "poisson"
load = 0.3
pattern = "n_to_1"
senders = "0..8"
receiver = 8
messages = 3000
[record]
queues = "200ns"
queue_ports = [17]
"#;
    let tmp = tempfile::tempdir().unwrap();
    for scheduler in ["fifo", "drr"] {
        let out = tmp.path().join(scheduler);
        let text = two.replace("[switch]", &format!("[switch]\nscheduler = \"{scheduler}\""));
        run(&text, 1, &out, Engine::Packet);
        let q = read_queues(&out);
        assert_eq!(q.header, "time_ns,port,queue_bytes,queue_bytes.bulk,queue_bytes.rpc");
        for r in &q.rows {
            let split: Vec<u64> = r.classes.iter().map(|c| c.expect("the packet engine fills every cell")).collect();
            assert_eq!(split.iter().sum::<u64>(), r.bytes, "{scheduler} at {} ps", r.ps);
        }
        assert!(
            q.rows.iter().any(|r| r.classes[0] > Some(0) && r.classes[1] > Some(0)),
            "{scheduler}: both classes queue"
        );
    }
}

#[test]
fn a_stopped_run_is_sampled_up_to_its_stop() {
    let text =
        with_record("queues = \"3us\"\nqueue_ports = [17]").replace("seed = 3", "seed = 3\n[run]\nstop = \"100us\"");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("r");
    run(&text, 1, &out, Engine::Packet);
    let q = read_queues(&out);
    assert_eq!(summary(&out)["sim_ns"], 100_000.0);
    assert_eq!(q.rows.len(), 34, "ticks 0, 3, ..., 99 us");
    assert_eq!(q.rows.last().unwrap().ps, 99_000_000);
}

#[test]
fn the_model_writes_its_bottleneck_in_the_same_format() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("m");
    run(&with_record("queues = \"100ns\""), 1, &out, Engine::Model);
    let q = read_queues(&out);
    assert_eq!(q.header, "time_ns,port,queue_bytes");
    let s = summary(&out);
    let end_ps = (s["sim_ns"].as_f64().unwrap() * 1000.0).round() as u64;
    assert_eq!(q.rows.len() as u64, end_ps / 100_000 + 1);
    for (i, r) in q.rows.iter().enumerate() {
        assert_eq!((r.ps, r.port), (i as u64 * 100_000, None));
    }
    let mean = s["network"]["mean_queue_bytes"].as_f64().unwrap();
    let max = s["network"]["max_queue_bytes"].as_u64().unwrap();
    assert!(mean > 1_000.0, "the model's bottleneck holds a queue: {mean}");
    let sampled_mean = q.rows.iter().map(|r| r.bytes as f64).sum::<f64>() / q.rows.len() as f64;
    assert!((sampled_mean / mean - 1.0).abs() < 0.03, "sampled {sampled_mean}, summary {mean}");
    assert!(q.rows.iter().map(|r| r.bytes).max().unwrap() <= max);
    assert_eq!(s["queues"]["ports"].as_array().unwrap().len(), 0);
}

#[test]
fn the_model_fills_a_class_cell_only_for_a_queue_of_its_own() {
    let two = INCAST.replace("[switch]", "[switch]\nscheduler = \"drr\"")
        + r#"
[[class]]
name = "rpc"
sizes_fixed = "3KB"
arrival = "poisson"
load = 0.1
pattern = "n_to_1"
senders = "0..8"
receiver = 8
messages = 1000
[record]
queues = "1us"
"#;
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("drr");
    run(&two, 1, &out, Engine::Model);
    let q = read_queues(&out);
    assert_eq!(q.header, "time_ns,port,queue_bytes,queue_bytes.bulk,queue_bytes.rpc");
    for r in &q.rows {
        let sum: u64 = r.classes.iter().map(|c| c.expect("class queues under drr")).sum();
        assert!(sum.abs_diff(r.bytes) <= 1, "rounded parts {sum} of {}", r.bytes);
    }
    let out = tmp.path().join("fifo");
    run(&two.replace("scheduler = \"drr\"", "scheduler = \"fifo\""), 1, &out, Engine::Model);
    assert!(read_queues(&out).rows.iter().all(|r| r.classes == [None, None]));
}
