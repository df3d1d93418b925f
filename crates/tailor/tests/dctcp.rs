//! DCTCP steady state (Alizadeh et al., SIGCOMM 2010, §3.3): N long-lived flows through
//! one port keep the queue oscillating between Q_max − A and Q_max, with
//! Q_max = K + N packets and amplitude A = ½·sqrt(2N(C·RTT + K)) packets, and keep the
//! link fully utilized (K > C·RTT / 7).

mod common;

#[test]
fn long_flows_hold_the_queue_near_k_at_full_utilization() {
    const N: u64 = 10;
    const PKT: f64 = 1502.0;
    let k_pkts = 65.0;
    let dir = tempfile::tempdir().unwrap();
    let mut trace = String::from("flow_id,sender,receiver,size_bytes,start_ns\n");
    for i in 0..N {
        trace += &format!("{i},{i},{N},1000000000,{}\n", i * 1000);
    }
    std::fs::write(dir.path().join("long.csv"), trace).unwrap();
    let text = format!(
        r#"
[run]
stop = "150ms"

[topology]
kind = "star"
hosts = {}
link = {{ rate = "10Gbps", delay = "25us" }}

[switch]
ecn_threshold = "{}B"

[transport]
kind = "dctcp"
init_cwnd = 10

[[class]]
name = "long"
trace = "long.csv"
"#,
        N + 1,
        (k_pkts * PKT) as u64
    );
    let sc = common::scenario(&text, dir.path());
    let (sim, recs) = common::run(&sc, 1);
    assert!(recs.is_empty(), "the flows are still running at the stop time");
    let port =
        sim.ports().into_iter().filter(|p| p.role == "to_host").max_by_key(|p| p.sent_bytes).expect("bottleneck");
    let c_rtt = 10e9 / 8.0 * 100e-6 / PKT;
    let q_max = k_pkts + N as f64;
    let amplitude = 0.5 * (2.0 * N as f64 * (c_rtt + k_pkts)).sqrt();
    let mean_q = port.mean_queue_bytes / PKT;
    eprintln!(
        "utilization {:.4}, mean queue {mean_q:.1} pkts, analysis [{:.1}, {q_max:.1}]",
        port.utilization,
        q_max - amplitude
    );
    assert!(port.utilization > 0.99, "utilization {}", port.utilization);
    assert!(
        mean_q > q_max - amplitude && mean_q < q_max,
        "mean queue {mean_q:.1} packets outside [{:.1}, {q_max}]",
        q_max - amplitude
    );
    assert!(port.ecn_marks > 0);
}
