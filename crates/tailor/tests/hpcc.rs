//! HPCC steady state (Li et al., SIGCOMM 2019, §3.3 and §5): long flows through one
//! bottleneck converge to equal shares of η × the link with a near-empty queue, because
//! the window law aims at utilization η < 1 instead of filling a buffer to a threshold.
//!
//! N flows start 0.5 ms apart at line rate through one 100 Gbps port; after the last has
//! had 5 ms to converge, the test reads the counters, runs 5 ms more and measures that
//! interval: each sender's bytes (Jain's fairness index), the bottleneck's wire bytes
//! against η × capacity, and its time-averaged queue.
//!
//! W_AI follows the paper's rule W_init (1 − η) / N_exp for N_exp = 32 expected flows.
//! N_exp sets where utilization settles: per round trip the N flows add N·W_AI and the
//! cut W_c·η/U takes it back, so U ≈ η (1 + (1 − η) N / (η N_exp)) — 0.956 for N = 4,
//! 0.963 for N = 8 — and unfairness decays by about N·W_AI / W per round trip. With
//! N_exp = N the additions would fill the whole headroom (U → 1); with the default W_AI
//! (N_exp = 125) convergence would take thousands of round trips.

mod common;

use tailor::sim::Time;
use tailor::transport::tcp::Flavor;

const GBPS: f64 = 100.0;
const ETA: f64 = 0.95;
const N_EXPECTED: f64 = 32.0;

struct Interval {
    jain: f64,
    utilization: f64,
    mean_queue: f64,
    max_queue: u64,
    marks: u64,
}

fn scenario_text(n: usize, dir: &std::path::Path, w_ai: Option<u64>) -> String {
    let mut trace = String::from("flow_id,sender,receiver,size_bytes,start_ns\n");
    for i in 0..n {
        trace += &format!("{i},{i},{n},1000000000,{}\n", i * 500_000);
    }
    std::fs::write(dir.join("long.csv"), trace).unwrap();
    let w_ai = w_ai.map(|b| format!("w_ai = \"{b}B\"")).unwrap_or_default();
    format!(
        r#"
[topology]
kind = "star"
hosts = {}
link = {{ rate = "{GBPS}Gbps", delay = "2.5us" }}

[switch]
ecn_threshold = "65KB"

[transport]
kind = "hpcc"
eta = {ETA}
{w_ai}

[[class]]
name = "long"
trace = "long.csv"
"#,
        n + 1
    )
}

fn run(n: usize) -> Interval {
    let dir = tempfile::tempdir().unwrap();
    let probe = common::scenario(&scenario_text(n, dir.path(), None), dir.path());
    let c =
        probe.transport_of(0).as_any().downcast_ref::<tailor::transport::tcp::Config>().expect("hpcc runs over tcp");
    let Flavor::Hpcc(p) = c.flavor else { panic!("{:?}", c.flavor) };
    let w_ai = (p.w_init as f64 * (1.0 - ETA) / N_EXPECTED) as u64;
    let sc = common::scenario(&scenario_text(n, dir.path(), Some(w_ai)), dir.path());

    let t1 = Time::from_us(500 * (n as u64 - 1) + 5_000);
    let t2 = t1 + Time::from_ms(5);
    let sink = Box::new(tailor::measure::record::MemorySink::default());
    let mut sim = tailor::engine::Simulation::new(sc.build(1).unwrap(), sink).unwrap();
    let snapshot = |sim: &tailor::engine::Simulation| {
        let sent: Vec<u64> = (0..n).map(|h| sim.net.hosts[h].stats.sent_bytes).collect();
        let port =
            sim.net.ports.iter().filter(|p| p.role.name() == "to_host").max_by_key(|p| p.stats.sent_bytes).unwrap();
        (sent, port.stats.sent_bytes, port.stats.queue_area, port.stats.marks, port.stats.max_queue_bytes)
    };
    sim.set_stop(Some(t1));
    sim.run(&mut |_| true).unwrap();
    let a = snapshot(&sim);
    sim.set_stop(Some(t2));
    sim.run(&mut |_| true).unwrap();
    let b = snapshot(&sim);
    assert_eq!(sim.now(), t2);

    let shares: Vec<f64> = a.0.iter().zip(&b.0).map(|(x, y)| (y - x) as f64).collect();
    let sum: f64 = shares.iter().sum();
    let jain = sum * sum / (n as f64 * shares.iter().map(|x| x * x).sum::<f64>());
    let span = (t2 - t1).ps() as f64;
    let capacity = GBPS * 1e9 / 8.0 * span / 1e12;
    let iv = Interval {
        jain,
        utilization: (b.1 - a.1) as f64 / capacity,
        mean_queue: (b.2 - a.2) as f64 / span,
        max_queue: b.4,
        marks: b.3,
    };
    eprintln!(
        "N = {n}: W_AI {w_ai} B, Jain {:.5}, utilization {:.4}, mean queue {:.0} B, max queue (whole run) {} B, shares {:?}",
        iv.jain, iv.utilization, iv.mean_queue, iv.max_queue, shares
    );
    iv
}

fn check(n: usize) {
    let iv = run(n);
    assert!(iv.jain >= 0.99, "N = {n}: Jain's index {}", iv.jain);
    assert!((iv.utilization - ETA).abs() < 0.03, "N = {n}: utilization {} vs eta {ETA}", iv.utilization);
    // Far below DCTCP's K (65 KB here, the DCTCP test's): a couple of packets at most.
    assert!(iv.mean_queue < 3_000.0, "N = {n}: mean queue {} B", iv.mean_queue);
    assert_eq!(iv.marks, 0, "HPCC packets are not ECN-capable");
}

#[test]
fn four_long_flows_share_one_port_equally_at_eta_with_an_empty_queue() {
    check(4);
}

#[test]
fn eight_long_flows_share_one_port_equally_at_eta_with_an_empty_queue() {
    check(8);
}
