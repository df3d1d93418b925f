//! Same scenario + seed -> byte-identical outputs; another seed -> different outputs.

use std::path::Path;
use tailor::scenario::Scenario;

fn run(seed: u64, out: &Path) {
    let sc = Scenario::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/quickstart.toml")).unwrap();
    tailor::output::run_to_dir(&sc, seed, out, &mut |_| true).unwrap();
}

/// summary.json without the two wall-clock fields.
fn summary(dir: &Path) -> serde_json::Value {
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    let o = v.as_object_mut().unwrap();
    o.remove("wall_seconds");
    o.remove("events_per_second");
    v
}

fn read(dir: &Path, f: &str) -> Vec<u8> {
    std::fs::read(dir.join(f)).unwrap()
}

#[test]
fn same_seed_same_bytes_other_seed_other_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b, c) = (tmp.path().join("a"), tmp.path().join("b"), tmp.path().join("c"));
    // Two simulations in parallel threads of one process (no global state).
    std::thread::scope(|s| {
        s.spawn(|| run(7, &a));
        s.spawn(|| run(7, &b));
    });
    run(8, &c);
    assert_eq!(read(&a, "messages.csv"), read(&b, "messages.csv"));
    assert_eq!(read(&a, "ports.csv"), read(&b, "ports.csv"));
    assert_eq!(summary(&a), summary(&b));
    assert!(read(&a, "messages.csv").len() > 1000);
    assert_ne!(read(&a, "messages.csv"), read(&c, "messages.csv"));
    assert_ne!(summary(&a), summary(&c));
}

#[test]
fn a_failed_run_leaves_nothing_behind() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("r");
    let sc = Scenario::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/quickstart.toml")).unwrap();
    let mut calls = 0;
    let err = tailor::output::run_to_dir(&sc, 1, &out, &mut |_| {
        calls += 1;
        calls < 3
    });
    assert!(matches!(err, Err(tailor::engine::RunError::Cancelled)));
    assert!(!out.exists());
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0, "no partial directory left");
}

#[test]
fn the_engine_never_writes_into_a_directory_that_is_not_empty() {
    // Replacing an earlier result (tailor's own files only) is the Python front's job
    // (tailor.outdir); the engine refuses any non-empty directory, a summary.json in it
    // or not (an ns-3 run directory has one).
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("ns3-run");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("summary.json"), "{}").unwrap();
    std::fs::write(out.join("flows.csv.gz"), "ns-3's").unwrap();
    let sc = Scenario::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/quickstart.toml")).unwrap();
    let err = tailor::output::run_to_dir(&sc, 1, &out, &mut |_| true).unwrap_err();
    assert!(err.to_string().contains("not an empty directory"), "{err}");
    assert_eq!(std::fs::read_to_string(out.join("flows.csv.gz")).unwrap(), "ns-3's");
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 1, "no partial directory left");
}

/// `tailor-sim --out` at a directory holding files is a user error: exit status 2, the
/// path named, the files untouched.
#[test]
fn tailor_sim_refuses_an_occupied_out_directory_with_status_2() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("theirs");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/quickstart.toml");
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_tailor-sim"))
        .arg(&scenario)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(err.contains("theirs") && err.contains("not an empty directory"), "{err}");
    assert_eq!(std::fs::read_to_string(out.join("notes.txt")).unwrap(), "mine");
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 1);
}

/// A run keeps the scenario it ran beside its results — the document after overrides with
/// the seed it used written in — and `summary.json` holds that file's SHA-256; the kept
/// file alone runs again to the same bytes.
#[test]
fn the_scenario_kept_with_a_run_runs_again_to_the_same_bytes() {
    use sha2::{Digest, Sha256};
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    run(7, &a); // the file says seed = 1
    let kept = a.join("scenario.toml");
    let text = std::fs::read_to_string(&kept).unwrap();
    let sha: String = Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(summary(&a)["scenario_sha256"], sha.as_str());
    let sc = Scenario::load(&kept).unwrap();
    assert_eq!(sc.seed, 7);
    tailor::output::run_to_dir(&sc, sc.seed, &b, &mut |_| true).unwrap();
    assert_eq!(read(&a, "messages.csv"), read(&b, "messages.csv"));
    assert_eq!(read(&a, "scenario.toml"), read(&b, "scenario.toml"));
    let (mut sa, mut sb) = (summary(&a), summary(&b));
    for s in [&mut sa, &mut sb] {
        s.as_object_mut().unwrap().remove("scenario_file");
    }
    assert_eq!(sa, sb);
}
