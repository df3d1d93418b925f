//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::Path;
use tailor::engine::{Progress, Simulation};
use tailor::measure::record::MemorySink;
use tailor::measure::MessageRecord;
use tailor::scenario::Scenario;

pub fn scenario(text: &str, dir: &Path) -> Scenario {
    Scenario::parse(text, "test.toml", dir).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs a scenario and returns the simulation and every completed message.
pub fn run(sc: &Scenario, seed: u64) -> (Simulation, Vec<MessageRecord>) {
    let sink = std::sync::Arc::new(std::sync::Mutex::new(MemorySink::default()));
    let shared = SharedSink(sink.clone());
    let mut sim = Simulation::new(sc.build(seed).expect("builds"), Box::new(shared)).expect("starts");
    sim.run(&mut |_: &Progress| true).expect("runs");
    let recs = std::mem::take(&mut sink.lock().unwrap().0);
    (sim, recs)
}

/// A sink whose records the test keeps a handle on.
pub struct SharedSink(pub std::sync::Arc<std::sync::Mutex<MemorySink>>);

impl tailor::measure::RecordSink for SharedSink {
    fn record(&mut self, rec: &MessageRecord, name: &str) -> std::io::Result<()> {
        self.0.lock().unwrap().record(rec, name)
    }
}

/// Writes a trace of lone messages (one at a time, `gap_ns` apart) from `src` to `dst`.
pub fn lone_trace(dir: &Path, sizes: &[u64], src: usize, dst: usize, gap_ns: u64) -> String {
    let mut s = String::from("flow_id,sender,receiver,size_bytes,start_ns\n");
    for (i, size) in sizes.iter().enumerate() {
        s += &format!("{i},{src},{dst},{size},{}\n", 1_000_000 + i as u64 * gap_ns);
    }
    let path = dir.join(format!("lone-{src}-{dst}.csv"));
    std::fs::write(&path, s).unwrap();
    path.display().to_string()
}

/// The small DCTCP star that the bad-input tests (scenario_errors.rs, input_bounds.rs) edit
/// one key of at a time.
pub const BAD_INPUT_BASE: &str = r#"
seed = 1
[topology]
kind = "star"
hosts = 4
link = { rate = "100Gbps", delay = "1us" }
[switch]
ecn_threshold = "100KB"
[transport]
kind = "dctcp"
init_cwnd = 10
[[class]]
name = "a"
sizes = "websearch"
arrival = "poisson"
load = 0.5
pattern = "n_to_1"
receiver = 3
messages = 10
"#;
