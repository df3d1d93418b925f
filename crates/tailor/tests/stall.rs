//! The no-progress watchdog (`engine::stall`): a run that spins without completing a
//! message or delivering a byte stops with `RunError::Stalled`, naming the likely cause.
//!
//! The livelocks are built directly (a switch buffer of 1 B set on the parsed network,
//! which the scenario reader may refuse), and the watchdog's limits are lowered so that
//! the stall is reached in a fraction of a second instead of its default 50 million events.

mod common;

use tailor::engine::stall::Watch;
use tailor::engine::{RunError, Simulation};
use tailor::measure::record::NullSink;
use tailor::net::topology::BufferSpec;
use tailor::sim::Time;

fn scenario(switch: &str, host: &str, transport: &str) -> String {
    format!(
        r#"
[topology]
kind = "star"
hosts = 4
link = {{ rate = "100Gbps", delay = "1us" }}
[switch]
{switch}
[host]
{host}
[transport]
kind = "{transport}"
[[class]]
name = "a"
sizes_fixed = "10KB"
arrival = "poisson"
load = 0.5
pattern = "all_to_all"
messages = 20
"#
    )
}

/// Runs `text` with every switch port's buffer set to `buffer` bytes, under a watchdog
/// of 1 ms and 2^20 events.
fn run_with_buffer(text: &str, buffer: u64) -> Result<Simulation, RunError> {
    let dir = tempfile::tempdir().unwrap();
    let mut sc = common::scenario(text, dir.path());
    sc.net.buffer = BufferSpec::PerPort { bytes: buffer };
    let mut sim = Simulation::new(sc.build(1).expect("builds"), Box::new(NullSink)).expect("starts");
    sim.set_stall_watch(Watch::with_limits(Time::from_ms(1), 1 << 20));
    sim.run(&mut |_| true).map(|_| sim)
}

const PFABRIC: (&str, &str) = ("scheduler = \"rank\"\noverflow = \"evict\"", "nic_depth = 0");

#[test]
fn pfabric_under_a_buffer_below_one_packet_stops_naming_the_drops() {
    let err = run_with_buffer(&scenario(PFABRIC.0, PFABRIC.1, "pfabric"), 1).err().expect("a stall");
    let RunError::Stalled(s) = &err else { panic!("not a stall: {err}") };
    assert_eq!(s.active, 20, "{s}");
    assert!(s.dropped > 0 && s.events >= 1 << 20 && s.to.ps() - s.from.ps() >= Time::from_ms(1).ps(), "{s}");
    let m = err.to_string();
    assert!(m.starts_with("the run made no progress: no message completed and no payload byte arrived from "), "{m}");
    assert!(m.contains("with 20 messages active") && m.contains("likely cause: packets are dropped"), "{m}");
    assert!(!m.contains('\n'), "one line: {m}");
}

#[test]
fn ndp_trimming_every_packet_stops_naming_the_trim() {
    let sw = "scheduler = \"priority\"\npriority_levels = 2\noverflow = \"trim\"";
    let err = run_with_buffer(&scenario(sw, "", "ndp"), 1).err().expect("a stall");
    let RunError::Stalled(s) = &err else { panic!("not a stall: {err}") };
    assert!(s.trimmed > 0 && s.dropped == 0, "{s}");
    assert!(err.to_string().contains("likely cause: packets are trimmed to their headers"), "{err}");
}

/// The same runs with a buffer of a few packets progress and end under the same tight
/// watchdog: it counts only stretches without any delivered byte.
#[test]
fn the_same_runs_with_room_for_packets_finish() {
    let sim = run_with_buffer(&scenario(PFABRIC.0, PFABRIC.1, "pfabric"), 20_000).expect("progresses");
    assert_eq!((sim.generated(), sim.active_messages()), (20, 0));
    let sw = "scheduler = \"priority\"\npriority_levels = 2\noverflow = \"trim\"";
    let sim = run_with_buffer(&scenario(sw, "", "ndp"), 20_000).expect("progresses");
    assert_eq!((sim.generated(), sim.active_messages()), (20, 0));
}
