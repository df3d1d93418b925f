//! Setting a simulation up: progress while the topology is built, and topologies that
//! cannot fit refused when the scenario is read, before anything is built.

mod common;

use tailor::engine::{Phase, Progress, RunError, Simulation};
use tailor::measure::record::NullSink;

fn star(hosts: usize) -> String {
    format!(
        r#"
[topology]
kind = "star"
hosts = {hosts}
link = {{ rate = "100Gbps", delay = "1us" }}
[transport]
kind = "raw"
[[class]]
name = "one"
sizes_fixed = "1KB"
arrival = "poisson"
load = 0.1
pattern = "n_to_1"
receiver = 0
messages = 20
"#
    )
}

#[test]
fn building_the_topology_reports_progress_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let sc = common::scenario(&star(40_000), dir.path());
    let mut seen: Vec<Progress> = Vec::new();
    let mut progress = |p: &Progress| {
        seen.push(*p);
        true
    };
    let mut sim = Simulation::new_reporting(sc.build(1).unwrap(), Box::new(NullSink), &mut progress).unwrap();
    sim.run(&mut progress).unwrap();
    let building: Vec<&Progress> = seen.iter().filter(|p| p.phase == Phase::Building).collect();
    assert!(building.len() >= 2, "{seen:?}");
    assert!(building.iter().all(|p| p.ports == 80_000 && p.events == 0));
    assert!(building.windows(2).all(|w| w[0].built < w[1].built), "{building:?}");
    assert_eq!(building.last().unwrap().built, 80_000, "the last report is the finished network");
    let first_running = seen.iter().position(|p| p.phase == Phase::Running).unwrap();
    assert_eq!(first_running, building.len(), "building comes first");
}

#[test]
fn stopping_while_the_topology_is_built_cancels() {
    let dir = tempfile::tempdir().unwrap();
    let sc = common::scenario(&star(40_000), dir.path());
    let mut calls = 0;
    let result = Simulation::new_reporting(sc.build(1).unwrap(), Box::new(NullSink), &mut |_| {
        calls += 1;
        false
    });
    assert!(matches!(result, Err(RunError::Cancelled)));
    assert_eq!(calls, 1);
}

fn leaf_spine(racks: u64, hosts_per_rack: u64) -> String {
    star(2).replace(
        "kind = \"star\"\nhosts = 2\nlink = { rate = \"100Gbps\", delay = \"1us\" }",
        &format!(
            "kind = \"leaf_spine\"\nracks = {racks}\nhosts_per_rack = {hosts_per_rack}\nspines = 4\n\
             host_link = {{ rate = \"100Gbps\" }}\nfabric_link = {{ rate = \"100Gbps\" }}"
        ),
    )
}

#[test]
fn a_topology_larger_than_memory_is_refused_when_read() {
    // 2^30 hosts: about 1.5 TB of ports, links and routes.
    let err = tailor::scenario::Scenario::parse(&leaf_spine(65_536, 16_384), "big.toml", std::path::Path::new("."))
        .expect_err("cannot fit");
    assert_eq!((err.file.as_str(), err.path.as_str()), ("big.toml", "topology"));
    let m = &err.message;
    assert!(m.starts_with("1073741824 hosts (2148007936 ports) need about 1"), "{m}");
    assert!(m.contains(" GB; this machine has ") && m.contains("; accepted: about "), "{m}");
}

#[test]
fn more_ports_than_ids_can_name_are_refused_when_read() {
    let err = tailor::scenario::Scenario::parse(&leaf_spine(65_536, 65_536), "big.toml", std::path::Path::new("."))
        .expect_err("cannot be named");
    assert_eq!(err.path, "topology");
    assert!(err.message.contains("accepted: at most 4294967295 ports (ids are 32-bit)"), "{}", err.message);
}

/// The gate compares the estimate with the memory *available* (given here, so nothing is
/// allocated), keeping a fifth of it free: a network that the machine's total would
/// hold is refused when other processes have taken the memory it needs.
#[test]
fn the_gate_compares_the_estimate_with_the_available_memory_and_keeps_a_margin() {
    use tailor::scenario::memory::{Memory, USABLE};
    let sc = tailor::scenario::Scenario::parse(&leaf_spine(32, 64), "s.toml", std::path::Path::new(".")).unwrap();
    let need = sc.net.memory_bytes(1);
    let fits = |available: u64| tailor::scenario::check_fits_in(&sc.net, 1, "s.toml", Some(Memory { available }));
    fits((need as f64 / USABLE).ceil() as u64 + 1).expect("fits with the margin");
    let err = fits(need).expect_err("no margin left");
    assert_eq!((err.file.as_str(), err.path.as_str()), ("s.toml", "topology"));
    let m = &err.message;
    assert!(
        m.starts_with("2048 hosts (") && m.contains(" GB available now, of which tailor takes at most 80 %"),
        "{m}"
    );
    assert!(m.contains("; accepted: about 1638 hosts or fewer"), "{m}");
    // Nothing known about memory: only the ids are checked.
    tailor::scenario::check_fits_in(&sc.net, 1, "s.toml", None).expect("no memory figure");
}
