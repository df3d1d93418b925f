//! PFC in the packet engine (`[switch] pfc`, docs/pfc.md): an incast is lossless and each
//! sender is paused for the share of time the bottleneck cannot give it; routes whose
//! buffers depend on each other in a cycle deadlock, and the run stops there saying
//! where; settings PFC cannot work with are refused.

mod common;

use std::fmt::Write;
use tailor::engine::RunError;

/// Four senders of `size` bytes each into host 4 of a star of five, all at once, on
/// 100 Gbps links of 1 us, the raw transport sending at line rate (no congestion control:
/// PFC alone holds the senders back).
fn incast(dir: &std::path::Path, size: u64, buffer: &str) -> tailor::scenario::Scenario {
    common::incast_trace(dir, 4, size);
    common::scenario(
        &format!(
            r#"[topology]
kind = "star"
hosts = 5
link = {{ rate = "100Gbps", delay = "1us" }}
[switch]
buffer = "shared"
buffer_size = "{buffer}"
pfc = {{ priorities = [0] }}
[transport]
kind = "raw"
[[class]]
name = "incast"
trace = "incast.csv"
"#
        ),
        dir,
    )
}

fn pfc_field(sim: &tailor::engine::Simulation, key: &str) -> serde_json::Value {
    let report = sim.report();
    let pfc = report.network.mechanisms.get("pfc").expect("pfc reports").clone();
    pfc.into_iter().find(|(k, _)| *k == key).map(|(_, v)| v).unwrap_or_else(|| panic!("no {key}"))
}

/// The bottleneck serves the four in turn: each may send a quarter of the time, so each
/// is paused the other three quarters (the 4-to-1 case of docs/pfc.md, worked by hand).
#[test]
fn an_incast_is_lossless_and_each_sender_is_paused_three_quarters_of_the_time() {
    let dir = tempfile::tempdir().unwrap();
    let sc = incast(dir.path(), 4_000_000, "1MB");
    let (sim, recs) = common::run(&sc, 1);
    assert_eq!(recs.len(), 4);
    assert_eq!(sim.ledger().dropped, (0, 0), "lossless");
    // All four end together: 4 x 2,763 packets of 1,448 B and 54 B of headers (16.6 MB)
    // through one 100 Gbps link take 1,327.8 us, then the last one's 2 us of links.
    let end = recs.iter().map(|r| r.finish).max().unwrap();
    assert!((1_329..1_331).contains(&(end.ps() / 1_000_000)), "{end:?}");
    let mmu = sim.net.memory.as_ref().unwrap().as_any().downcast_ref::<tailor::net::pfc::Mmu>().unwrap();
    for h in 0..4 {
        let nic = sim.net.hosts[h].nic.index();
        let paused = mmu.counts[nic].paused_ps[0] as f64 / end.ps() as f64;
        assert!((0.73..0.77).contains(&paused), "host {h} paused {paused:.4} of the run");
    }
    assert_eq!(pfc_field(&sim, "pause_frames"), pfc_field(&sim, "resume_frames"));
    assert_eq!(pfc_field(&sim, "paused_ports"), 4, "the senders' NICs, not the receiver's");
    // pfc.csv says the same per port: the senders' NICs paused, their switch ports pausing.
    let out = dir.path().join("r");
    tailor::output::run_to_dir(&sc, 1, &out, &mut |_| true).unwrap();
    let table = std::fs::read_to_string(out.join("pfc.csv")).unwrap();
    let rows: Vec<Vec<&str>> = table.lines().skip(1).map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 10, "ten ports, one lossless priority");
    for r in &rows {
        let paused: f64 = r[8].parse().unwrap();
        match (r[2], r[1]) {
            ("host_nic", "host4") | ("to_host", _) => assert_eq!(paused, 0.0, "{r:?}"),
            ("host_nic", _) => assert!((0.73..0.77).contains(&(paused / 1_329.9)), "{r:?}"),
            _ => panic!("{r:?}"),
        }
        let pausing = r[2] == "to_host" && r[1] == "switch0" && r[0] != "9";
        assert_eq!(r[4] != "0", pausing, "{r:?}");
    }
}

/// Six switches in a ring, a host on each, each host sending to the one two switches on
/// clockwise: its only shortest path. Every clockwise link carries two messages into one
/// link's rate, its buffer fills, and each switch's ingress from its anticlockwise
/// neighbour waits for its clockwise port, which the next switch has paused: a cycle.
fn ring(dir: &std::path::Path, buffer: &str) -> tailor::scenario::Scenario {
    let mut graph = String::new();
    let mut trace = String::from("flow_id,sender,receiver,size_bytes,start_ns\n");
    for s in 0..6 {
        writeln!(graph, "h{s} s{s} 100Gbps 1us").unwrap();
        writeln!(trace, "{s},{s},{},10000000,0", (s + 2) % 6).unwrap();
    }
    for s in 0..6 {
        writeln!(graph, "s{s} s{} 100Gbps 1us", (s + 1) % 6).unwrap();
    }
    std::fs::write(dir.join("ring.graph"), graph).unwrap();
    std::fs::write(dir.join("ring.csv"), trace).unwrap();
    let text = format!(
        "[topology]\nkind = \"graph\"\nfile = \"ring.graph\"\n[switch]\nbuffer = \"shared\"\nbuffer_size = \"{buffer}\"\n\
         pfc = {{ priorities = [0] }}\n[transport]\nkind = \"raw\"\n[[class]]\nname = \"cw\"\ntrace = \"ring.csv\"\n"
    );
    common::scenario(&text, dir)
}

#[test]
fn a_cyclic_buffer_dependency_deadlocks_and_the_run_says_where() {
    let dir = tempfile::tempdir().unwrap();
    let sc = ring(dir.path(), "500KB");
    let sink = Box::new(tailor::measure::record::MemorySink::default());
    let mut sim = tailor::engine::Simulation::new(sc.build(1).unwrap(), sink).unwrap();
    let err = sim.run(&mut |_| true).unwrap_err();
    let RunError::Deadlock(d) = &err else { panic!("not a deadlock: {err}") };
    // The ring's clockwise ports: the host cables are ports 0-11, then s_i's port to
    // s_i+1 is 12 + 2 i.
    let mut ports: Vec<usize> = d.stuck.ports.iter().map(|p| p.index()).collect();
    ports.sort();
    assert_eq!(ports, [12, 14, 16, 18, 20, 22]);
    assert_eq!((d.stuck.priority, d.active), (0, 6));
    assert!(d.stuck.at.ps() < 100_000_000, "found within 100 us: {err}");
    let said = err.to_string();
    assert!(said.contains("port 12 (switch0 trunk)") && said.contains("docs/pfc.md"), "{said}");
    // With room for every message, nothing pauses and everything arrives.
    let (sim, recs) = common::run(&ring(dir.path(), "50MB"), 1);
    assert_eq!((recs.len(), pfc_field(&sim, "pause_frames")), (6, serde_json::json!(0)));
}

#[test]
fn settings_pfc_cannot_work_with_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let base = "[topology]\nkind = \"star\"\nhosts = 3\nlink = { rate = \"100Gbps\", delay = \"1us\" }\n\
                [transport]\nkind = \"dctcp\"\n[[class]]\nname = \"c\"\nsizes_fixed = \"10KB\"\narrival = \"poisson\"\n\
                load = 0.1\npattern = \"all_to_all\"\nmessages = 10\n[switch]\n";
    let cases = [
        ("buffer = \"per_port\"\nbuffer_size = \"1MB\"\npfc = {}", "switch.pfc", "buffer = \"shared\""),
        ("buffer = \"shared\"\nbuffer_size = \"1MB\"\nalpha = 0.5\npfc = {}", "switch.alpha", "no alpha with pfc"),
        (
            "buffer = \"shared\"\nbuffer_size = \"1MB\"\nscheduler = \"drr\"\npfc = {}",
            "switch.pfc",
            "\"fifo\" or \"priority\"",
        ),
        ("buffer = \"shared\"\nbuffer_size = \"1MB\"\npfc = { priorities = [8] }", "switch.pfc.priorities", "0 to 7"),
        ("buffer = \"shared\"\nbuffer_size = \"100KB\"\npfc = {}", "switch.buffer_size", "no shared pool"),
        (
            "buffer = \"shared\"\nbuffer_size = \"1MB\"\noverflow = \"trim\"\npfc = {}",
            "switch.overflow",
            "no overflow setting",
        ),
    ];
    for (switch, path, said) in cases {
        let e = tailor::scenario::Scenario::parse(&format!("{base}{switch}\n"), "t.toml", dir.path()).unwrap_err();
        assert!(e.path == path && e.message.contains(said) && e.message.contains("accepted"), "{switch}: {e}");
    }
    let sc = common::scenario(&format!("{base}buffer = \"shared\"\nbuffer_size = \"1MB\"\npfc = {{}}\n"), dir.path());
    for engine in [tailor::net::mechanism::Engine::Model, tailor::net::mechanism::Engine::Oracle] {
        let (key, why) = tailor::net::mechanism::refusal(&sc.net, engine).expect("refused");
        assert!(key == "switch.pfc" && why.contains("accepted"), "{engine:?}: {key}: {why}");
    }
}
