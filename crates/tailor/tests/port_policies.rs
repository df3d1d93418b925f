//! Buffer policies, the host NIC's queue discipline and the warm-up cut, end to end.

mod common;

fn overload(buffer: &str) -> (tailor::engine::Simulation, Vec<tailor::measure::MessageRecord>) {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        r#"
[topology]
kind = "star"
hosts = 4
link = {{ rate = "100Gbps", delay = "1us" }}

[switch]
{buffer}

[transport]
kind = "raw"

[[class]]
name = "blast"
sizes_fixed = "1MB"
arrival = "poisson"
rate = "250Gbps"
pattern = "n_to_1"
receiver = 3
messages = 100
"#
    );
    let sc = common::scenario(&text, dir.path());
    common::run(&sc, 2)
}

fn bottleneck(sim: &tailor::engine::Simulation) -> tailor::engine::report::PortRow {
    sim.ports().into_iter().filter(|p| p.role == "to_host").max_by_key(|p| p.sent_bytes + p.drop_bytes).unwrap()
}

#[test]
fn per_port_limit_is_never_exceeded_and_drops_the_excess() {
    let (sim, _) = overload("buffer = \"per_port\"\nbuffer_size = \"200KB\"");
    let p = bottleneck(&sim);
    assert!(p.drops > 0);
    assert!(p.max_queue_bytes <= 200_000, "{}", p.max_queue_bytes);
    assert!(p.max_queue_bytes > 200_000 - 1554, "the queue fills up to the limit: {}", p.max_queue_bytes);
}

#[test]
fn shared_buffer_dynamic_threshold_caps_one_port_at_alpha_over_one_plus_alpha() {
    // One congested port admits a packet of s bytes while q + s <= alpha (B - q), so its
    // queue stays below alpha (B + s) / (1 + alpha): B/2 for alpha = 1, 3B/4 for alpha = 3.
    let s = 1554.0;
    for alpha in [1.0f64, 3.0] {
        let cap = (alpha * (1e6 + s) / (1.0 + alpha)) as u64;
        let (sim, _) = overload(&format!("buffer = \"shared\"\nbuffer_size = \"1MB\"\nalpha = {alpha}"));
        let p = bottleneck(&sim);
        assert!(p.drops > 0);
        assert!(p.max_queue_bytes <= cap, "alpha {alpha}: {} > {cap}", p.max_queue_bytes);
        assert!(p.max_queue_bytes + 3 * 1554 > cap, "alpha {alpha}: the threshold is reached: {}", p.max_queue_bytes);
    }
}

fn nic_case(nic: &str) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("t.csv"),
        "flow_id,sender,receiver,size_bytes,start_ns\n0,0,1,10000000,0\n1,0,1,1000,1000\n",
    )
    .unwrap();
    let text = format!(
        "[topology]\nkind = \"star\"\nhosts = 2\nlink = {{ rate = \"100Gbps\", delay = \"1us\" }}\n[host]\nnic = \"{nic}\"\n[transport]\nkind = \"raw\"\n[[class]]\nname = \"t\"\ntrace = \"t.csv\"\n"
    );
    let sc = common::scenario(&text, dir.path());
    let (_, recs) = common::run(&sc, 1);
    recs.iter().find(|r| r.size == 1000).unwrap().slowdown()
}

#[test]
fn round_robin_nic_lets_a_small_message_pass_a_large_one() {
    let fifo = nic_case("fifo");
    let rr = nic_case("round_robin");
    // FIFO: the 1 KB message waits for 10 MB (800 us) at the NIC; round robin: for the
    // packet on the wire and at most one more of the large message (2 x 120 ns).
    assert!(fifo > 100.0, "fifo slowdown {fifo}");
    assert!(rr < 1.12, "round-robin slowdown {rr}");
}

#[test]
fn warmup_messages_are_recorded_but_not_summarised() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/quickstart.toml"))
        .unwrap()
        .replacen("seed = 1", "seed = 1\n[run]\nwarmup = \"20ms\"", 1);
    let sc = common::scenario(&text, dir.path());
    let (sim, recs) = common::run(&sc, 1);
    let r = sim.report();
    let early = recs.iter().filter(|m| m.start < tailor::sim::Time::from_ms(20)).count() as u64;
    assert!(early > 0 && early < recs.len() as u64);
    assert_eq!(r.messages.warmup_excluded, early);
    assert_eq!(r.overall.slowdown.count, recs.len() as u64 - early);
}
