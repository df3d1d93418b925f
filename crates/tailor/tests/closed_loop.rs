//! Closed-loop request/response classes (`outstanding`): each client keeps N requests
//! outstanding, so Little's law holds with the population fixed: throughput × mean
//! response time = N per client, whatever the network does.

mod common;

use tailor::measure::MessageRecord;
use tailor::sim::Time;

fn closed(outstanding: u32, clients: usize, think: &str, stop_ms: u64) -> (Vec<MessageRecord>, u64) {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        r#"
[run]
stop = "{stop_ms}ms"
[topology]
kind = "star"
hosts = {hosts}
link = {{ rate = "10Gbps", delay = "1us" }}
[transport]
kind = "raw"
[[class]]
name = "get"
sizes_fixed = "64B"
response_sizes_fixed = "4KiB"
outstanding = {outstanding}
think = "{think}"
pattern = "n_to_1"
senders = "0..{clients}"
receiver = {clients}
"#,
        hosts = clients + 1
    );
    let sc = common::scenario(&text, dir.path());
    let (sim, recs) = common::run(&sc, 1);
    (recs, sim.generated())
}

/// Little's law for a closed system without think time: the RPCs in the system are
/// always N per client, so (completed / time) × mean latency = clients × N.
#[test]
fn a_closed_loop_keeps_its_population_littles_law() {
    for (n, clients) in [(1, 1), (4, 1), (8, 3)] {
        let (recs, _) = closed(n, clients, "0ns", 20);
        let span = Time::from_ms(20).as_secs_f64();
        let mean = recs.iter().map(|r| (r.finish - r.start).as_secs_f64()).sum::<f64>() / recs.len() as f64;
        let population = recs.len() as f64 / span * mean;
        eprintln!("N = {n}, {clients} clients: {} RPCs, mean {:.2} us, X·R = {population:.3}", recs.len(), mean * 1e6);
        let want = (n as usize * clients) as f64;
        assert!((population - want).abs() < 0.01 * want + 0.01, "X·R = {population}, N = {want}");
        // Each RPC is a 64 B request and a 4 KiB response, recorded as one.
        assert!(recs.iter().all(|r| r.size == 4096 && r.dst.index() == clients));
    }
}

/// More outstanding requests raise the throughput until the server's link is full; one
/// request at a time is one round trip per RPC.
#[test]
fn outstanding_requests_fill_the_link_and_think_time_slows_the_loop() {
    let (one, _) = closed(1, 1, "0ns", 10);
    let (many, _) = closed(32, 1, "0ns", 10);
    let (thinking, _) = closed(1, 1, "10us", 10);
    let gbps = |recs: &[MessageRecord]| recs.len() as f64 * 4096.0 * 8.0 / 10e-3 / 1e9;
    eprintln!(
        "1: {:.2} Gbps, 32: {:.2} Gbps, 1 with 10 us think: {:.2} Gbps",
        gbps(&one),
        gbps(&many),
        gbps(&thinking)
    );
    assert!(gbps(&many) > 9.0, "32 outstanding fill the 10 Gbps response link");
    assert!(gbps(&one) < gbps(&many) / 2.0);
    assert!(gbps(&thinking) < gbps(&one));
    // One request at a time: every RPC starts when the previous one ends.
    let mut starts: Vec<_> = one.iter().map(|r| (r.start, r.finish)).collect();
    starts.sort();
    assert!(starts.windows(2).all(|w| w[1].0 == w[0].1), "back to back");
}
