//! Where a run runs out of memory (`scenario::capacity`, `engine::memory`;
//! docs/performance.md, "Where tailor runs out"): the estimate a run is refused by against
//! what the engine's own counters show at the run's peak, the refusal, and the guard that
//! stops a run holding more than its limit.

mod common;

use tailor::engine::memory::{self, Guard, Limit};
use tailor::engine::{RunError, Simulation};
use tailor::measure::record::NullSink;
use tailor::scenario::capacity;
use tailor::sim::Time;

fn fat_tree(k: u32, transport: &str, load: f64, until: &str) -> String {
    let switch = if transport == "homa" { "scheduler = \"priority\"\npriority_levels = 8\n" } else { "" };
    format!(
        "[topology]\nkind = \"fat_tree\"\nk = {k}\nhost_link = {{ rate = \"100Gbps\", delay = \"1us\" }}\n\
         fabric_link = {{ rate = \"100Gbps\", delay = \"1us\" }}\n[switch]\necn_threshold = \"100KB\"\n{switch}\
         [transport]\nkind = \"{transport}\"\n[[class]]\nname = \"ws\"\nsizes = \"websearch\"\n\
         arrival = \"poisson\"\nload = {load}\npattern = \"all_to_all\"\nuntil = \"{until}\"\n"
    )
}

/// The peak, over samples every 20 us of a whole run, of the messages active and the
/// packets the network holds.
fn peaks(text: &str) -> (usize, u64) {
    let dir = tempfile::tempdir().unwrap();
    let sc = common::scenario(text, dir.path());
    let mut sim = Simulation::new(sc.build(1).expect("builds"), Box::new(NullSink)).expect("starts");
    let (mut active, mut queued) = (0, 0);
    let mut at = Time::ZERO;
    loop {
        at += Time::from_us(20);
        sim.set_stop(Some(at));
        sim.run(&mut |_| true).expect("runs");
        active = active.max(sim.active_messages());
        queued = queued.max(memory::queued(&sim.net));
        if sim.active_messages() == 0 && sim.now() < at {
            return (active, queued);
        }
    }
}

/// The estimate's messages active and packets queued lie within a factor of what the
/// engine's counters show at the peak of the run, for the three families of transports:
/// a window (DCTCP), every packet at once (raw) and receiver grants (Homa, whose window
/// of a round trip's bytes the estimate takes as the TCP family's, so it over-counts).
#[test]
fn the_estimate_is_within_a_factor_of_the_measured_peak() {
    let cases = [(8, "dctcp", "1ms", 2.0, 2.0), (8, "raw", "0.25ms", 2.0, 2.0), (8, "homa", "0.25ms", 2.0, 4.0)];
    for (k, t, until, messages_within, packets_within) in cases {
        let text = fat_tree(k, t, 0.5, until);
        let dir = tempfile::tempdir().unwrap();
        let e = capacity::estimate(&common::scenario(&text, dir.path()));
        let (active, queued) = peaks(&text);
        let what = format!("k = {k} {t} until {until}: measured {active} active, {queued} queued; estimated {e:?}");
        let ratio = |est: f64, measured: f64| est / measured.max(1.0);
        let m = ratio(e.messages, active as f64);
        assert!(m >= 1.0 / messages_within && m <= messages_within, "{what}");
        let p = ratio(e.packets, queued as f64);
        assert!(p >= 1.0 / packets_within && p <= packets_within, "{what}");
    }
}

/// A run whose estimate exceeds `[run] memory_limit` is refused before anything is
/// built, with exit status 2's error (a scenario error at the key), naming the estimate,
/// the limit and what to change; nothing is written.
#[test]
fn a_run_over_its_limit_is_refused_with_the_estimate() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("[run]\nmemory_limit = \"2MB\"\n{}", fat_tree(8, "raw", 0.5, "1ms"));
    let sc = common::scenario(&text, dir.path());
    assert_eq!(sc.memory_limit, Some(2_000_000));
    let out = dir.path().join("out");
    let Err(err) = tailor::output::run_to_dir(&sc, 1, &out, &mut |_| true) else { panic!("not refused") };
    let RunError::Scenario(e) = &err else { panic!("not a refusal: {err}") };
    assert_eq!(e.path, "run.memory_limit", "{e}");
    for says in ["the packet engine would need about", "over the limit of 2.0 MB ([run] memory_limit)", "in flight"] {
        assert!(e.message.contains(says), "{says:?} in {e}");
    }
    assert!(e.message.contains("accepted: "), "{e}");
    assert!(!out.exists(), "nothing written");
    // The limit does not change what a run computes: it is not part of the document.
    assert!(!sc.document.contains("memory_limit"), "{}", sc.document);
}

#[test]
fn a_limit_below_a_megabyte_is_refused_when_read() {
    let text = format!("[run]\nmemory_limit = \"1KB\"\n{}", fat_tree(4, "raw", 0.5, "1ms"));
    let Err(err) = tailor::scenario::Scenario::parse(&text, "t.toml", std::path::Path::new(".")) else {
        panic!("not refused")
    };
    assert_eq!(err.path, "run.memory_limit", "{err}");
    assert!(err.message.contains("accepted: a size of at least \"1MB\""), "{err}");
}

/// Raw senders hand the NIC every packet of their messages at once: 4 MB messages to
/// all of 8 hosts at 95 % load hold tens of MB of packets. Under a limit of what the
/// process holds plus 8 MB the guard stops the run, saying what it held; without it the
/// same run completes (so it is the guard that stopped it).
#[test]
fn the_guard_stops_a_run_that_outgrows_its_limit() {
    let text = "[topology]\nkind = \"star\"\nhosts = 8\nlink = { rate = \"100Gbps\", delay = \"1us\" }\n\
                [transport]\nkind = \"raw\"\n[[class]]\nname = \"big\"\nsizes_fixed = \"4MB\"\n\
                arrival = \"poisson\"\nload = 0.95\npattern = \"all_to_all\"\nmessages = 300\n";
    let dir = tempfile::tempdir().unwrap();
    let sc = common::scenario(text, dir.path());
    let sim = || Simulation::new(sc.build(1).expect("builds"), Box::new(NullSink)).expect("starts");
    let mut held = sim();
    let bytes = memory::resident().expect("Linux says") + 8_000_000;
    held.set_memory_guard(Guard::new(Some(Limit { bytes, source: "a test's".into() })));
    let Err(err) = held.run(&mut |_| true) else { panic!("not stopped") };
    let RunError::Memory(x) = &err else { panic!("not the guard: {err}") };
    assert!(x.used > bytes && x.active > 0 && x.queued > 10_000, "{x:?}");
    let m = err.to_string();
    assert!(
        m.starts_with("the run was stopped at ") && m.contains("over its limit of") && m.contains("(a test's)"),
        "{m}"
    );
    assert!(m.contains(&format!("with {} messages active and {} packets queued", x.active, x.queued)), "{m}");
    drop(held);
    sim().run(&mut |_| true).expect("completes without a limit");
}

/// The estimate against the measured peak on more runs, printed (`scripts/bench_capacity.py`
/// runs it; seconds each).
#[test]
#[ignore]
fn peaks_at_scale() {
    let runs =
        [(4, "dctcp", "1ms"), (8, "dctcp", "1ms"), (16, "dctcp", "0.1ms"), (8, "raw", "1ms"), (8, "homa", "1ms")];
    for (k, t, until) in runs {
        let text = fat_tree(k, t, 0.5, until);
        let dir = tempfile::tempdir().unwrap();
        let e = capacity::estimate(&common::scenario(&text, dir.path()));
        let (a, q) = peaks(&text);
        println!(
            "peak k={k} {t} 50% until {until}: measured {a} active, {q} queued; estimated {:.0}, {:.0}",
            e.messages, e.packets
        );
    }
}

/// Several runs at once (a sweep's points, another user) can take the machine's memory
/// together while each stays under its own limit: the guard also stops a run when the
/// machine's available memory falls under its floor, saying so.
#[test]
fn the_guard_stops_a_run_when_the_machine_runs_short() {
    let text = "[topology]\nkind = \"star\"\nhosts = 4\nlink = { rate = \"100Gbps\", delay = \"1us\" }\n\
                [transport]\nkind = \"dctcp\"\n[[class]]\nname = \"a\"\nsizes_fixed = \"1MB\"\n\
                arrival = \"poisson\"\nload = 0.5\npattern = \"all_to_all\"\nmessages = 200\n";
    let dir = tempfile::tempdir().unwrap();
    let sc = common::scenario(text, dir.path());
    let mut sim = Simulation::new(sc.build(1).expect("builds"), Box::new(NullSink)).expect("starts");
    let roomy = Limit { bytes: u64::MAX / 2, source: "a test's".into() };
    let floor = memory::Floor { bytes: 2_000_000, available: || Some(1_000_000) };
    sim.set_memory_guard(Guard::new(Some(roomy)).with_floor(floor));
    let Err(err) = sim.run(&mut |_| true) else { panic!("not stopped") };
    let RunError::Memory(x) = &err else { panic!("not the guard: {err}") };
    assert_eq!(x.machine, Some((1_000_000, 2_000_000)), "{x:?}");
    let m = err.to_string();
    assert!(m.contains("the machine had 1.0 MB available, under the 2.0 MB a run keeps free"), "{m}");
}
