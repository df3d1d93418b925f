//! Per-flow ECMP keeps a flow on one path; per-packet spraying spreads it over all.

mod common;

fn up_port_packets(paths: &str) -> Vec<u64> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.csv"), "flow_id,sender,receiver,size_bytes,start_ns\n0,0,1,3000000,0\n").unwrap();
    let text = format!(
        r#"
[topology]
kind = "leaf_spine"
racks = 2
hosts_per_rack = 1
spines = 4
host_link = {{ rate = "10Gbps", delay = "1us" }}
fabric_link = {{ rate = "10Gbps", delay = "1us" }}
[routing]
paths = "{paths}"
[transport]
kind = "dctcp"
init_cwnd = "bdp"
[[class]]
name = "one"
trace = "t.csv"
"#
    );
    let sc = common::scenario(&text, dir.path());
    let (sim, recs) = common::run(&sc, 4);
    assert_eq!(recs.len(), 1);
    // ToR 0 is switch 0; its up-links carry the data of the one flow.
    sim.ports().iter().filter(|p| p.role == "up" && p.node == "switch0").map(|p| p.sent_packets).collect()
}

#[test]
fn ecmp_keeps_one_flow_on_one_spine() {
    let up = up_port_packets("ecmp");
    assert_eq!(up.len(), 4);
    assert_eq!(up.iter().filter(|&&n| n > 0).count(), 1, "{up:?}");
}

#[test]
fn spraying_spreads_one_flow_over_every_spine() {
    let up = up_port_packets("spray");
    let total: u64 = up.iter().sum();
    assert!(total > 2000);
    for n in &up {
        assert!(*n as f64 > 0.2 * total as f64, "uneven spraying: {up:?}");
    }
}
