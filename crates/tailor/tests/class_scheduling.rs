//! Class scheduling at switch ports, end to end: two overloaded classes share a 10 Gbps
//! port as their weights say (DRR, WFQ, hierarchical); strict priority protects the high
//! class; a class's own ECN threshold and queue limit act on its own queue.

mod common;

use tailor::engine::report::PortRow;

fn two_classes(
    switch: &str,
    a: &str,
    b: &str,
    transport: &str,
    stop: &str,
) -> (tailor::engine::Simulation, Vec<tailor::measure::MessageRecord>) {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        r#"
[run]
stop = "{stop}"
[topology]
kind = "star"
hosts = 3
link = {{ rate = "10Gbps", delay = "1us" }}
[switch]
{switch}
[transport]
{transport}
[[class]]
name = "a"
sizes_fixed = "64KB"
arrival = "poisson"
rate = "8Gbps"
pattern = "n_to_1"
senders = [0]
receiver = 2
{a}
[[class]]
name = "b"
sizes_fixed = "64KB"
arrival = "poisson"
rate = "8Gbps"
pattern = "n_to_1"
senders = [1]
receiver = 2
{b}
"#
    );
    let sc = common::scenario(&text, dir.path());
    common::run(&sc, 9)
}

fn bottleneck(sim: &tailor::engine::Simulation) -> PortRow {
    sim.ports().into_iter().filter(|p| p.role == "to_host").max_by_key(|p| p.sent_bytes).unwrap()
}

#[test]
fn weighted_schedulers_split_an_overloaded_port_by_weight() {
    for sched in ["drr", "wfq", "hierarchical"] {
        let (sim, _) =
            two_classes(&format!("scheduler = \"{sched}\""), "weight = 1.0", "weight = 3.0", "kind = \"raw\"", "20ms");
        let p = bottleneck(&sim);
        let (a, b) = (p.class_sent_bytes[0] as f64, p.class_sent_bytes[1] as f64);
        let share = a / (a + b);
        assert!((share - 0.25).abs() < 0.01, "{sched}: class a got {share:.4} of the port, weights say 0.25");
        assert!(p.utilization > 0.99);
    }
    // FIFO: the split follows the offered load (equal), not weights.
    let (sim, _) = two_classes("scheduler = \"fifo\"", "", "", "kind = \"raw\"", "20ms");
    let p = bottleneck(&sim);
    let share = p.class_sent_bytes[0] as f64 / (p.class_sent_bytes[0] + p.class_sent_bytes[1]) as f64;
    assert!((share - 0.5).abs() < 0.03, "fifo: {share}");
}

#[test]
fn strict_priority_protects_the_high_class() {
    let (_, recs) =
        two_classes("scheduler = \"strict_priority\"", "priority = 0", "priority = 1", "kind = \"raw\"", "10ms");
    // Class a offers 8 of 10 Gbps (0.83 with headers) and always goes first: it queues
    // only as an M/D/1 queue would at its own load (mean slowdown about 1 + rho/(2(1-rho))
    // = 3.4, here over some 150 messages), while class b's queue grows without bound.
    let mean = |c: usize| {
        let v: Vec<f64> = recs.iter().filter(|r| r.class.index() == c).map(|r| r.slowdown()).collect();
        v.iter().sum::<f64>() / v.len().max(1) as f64
    };
    assert!(mean(0) < 6.0, "high class mean slowdown {}", mean(0));
    assert!(mean(1) > 10.0 * mean(0), "low class {} vs high {}", mean(1), mean(0));
}

#[test]
fn per_class_queue_limit_and_ecn_threshold_act_on_the_class_queue() {
    // DCTCP classes under DRR; class b's own queue is capped at 30 KB and marks at 10 KB.
    let (sim, _) = two_classes(
        "scheduler = \"drr\"",
        "weight = 1.0",
        "weight = 1.0\necn_threshold = \"10KB\"\nqueue_limit = \"30KB\"",
        "kind = \"dctcp\"\ninit_cwnd = 10",
        "20ms",
    );
    let p = bottleneck(&sim);
    assert!(p.ecn_marks > 0, "class b is marked on its own queue");
    // Class a has no threshold of its own and the port none: only b's packets are marked,
    // and only b's queue is limited, so the port's queue can exceed b's 30 KB.
    let r = sim.report();
    assert!(r.network.ecn_marks == p.ecn_marks);
    assert!(p.max_queue_bytes > 30_000);
}
