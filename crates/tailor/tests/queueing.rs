//! Queueing theory: the raw transport through one port with Poisson arrivals and
//! exponential sizes is an M/M/1 queue; its mean sojourn time is 1 / (mu - lambda).
//!
//! Set-up: a dumbbell whose 10 Gbps trunk is the only bottleneck; 64 senders on 1 Tbps
//! links, one receiver. Each message is one packet with no header (so its service time
//! at the trunk is exactly exponential), arrives at the trunk 100 times faster than it
//! leaves, and is measured from its arrival at the sender to its last bit at the
//! receiver. The latency is then the M/M/1 sojourn at the trunk plus two 1 Tbps
//! serializations; their means add.

mod common;

use tailor::net::topology::Shape;

fn mm1(rho: f64, messages: u64) -> (f64, f64) {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        r#"
[topology]
kind = "dumbbell"
left = 64
right = 1
host_link = {{ rate = "1Tbps", delay = "0ns" }}
trunk = {{ rate = "10Gbps", delay = "0ns" }}

[transport]
kind = "raw"
mss = "1GB"
header = "0B"

[[class]]
name = "mm1"
sizes_exponential_mean = "100KB"
arrival = "poisson"
rate = "{}Mbps"
pattern = "n_to_1"
senders = "0..64"
receiver = 64
messages = {messages}
"#,
        (rho * 10_000.0).round()
    );
    let sc = common::scenario(&text, dir.path());
    assert!(matches!(sc.net.shape, Shape::Dumbbell { .. }));
    let (_, recs) = common::run(&sc, 11);
    assert_eq!(recs.len() as u64, messages);
    let mean_latency_s = recs.iter().map(|r| r.latency().as_secs_f64()).sum::<f64>() / recs.len() as f64;
    let service_s = 100_000.0 * 8.0 / 10e9;
    let host_ser_s = 2.0 * 100_000.0 * 8.0 / 1e12;
    let theory = service_s / (1.0 - rho) + host_ser_s;
    (mean_latency_s, theory)
}

#[test]
fn mm1_mean_sojourn_at_half_load() {
    let (measured, theory) = mm1(0.5, 150_000);
    let err = (measured - theory).abs() / theory;
    eprintln!("M/M/1 measured {measured:e} theory {theory:e} err {err}");
    assert!(err < 0.03, "rho 0.5: measured {measured:e} s, M/M/1 {theory:e} s, error {:.2} %", err * 100.0);
}

#[test]
fn mm1_mean_sojourn_at_0_8_load() {
    let (measured, theory) = mm1(0.8, 600_000);
    let err = (measured - theory).abs() / theory;
    eprintln!("M/M/1 measured {measured:e} theory {theory:e} err {err}");
    assert!(err < 0.03, "rho 0.8: measured {measured:e} s, M/M/1 {theory:e} s, error {:.2} %", err * 100.0);
}
