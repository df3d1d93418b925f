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

/// Writes `incast.csv`: `senders` hosts (0, 1, …) each send `size` bytes at time 0 to host
/// `senders` (the next one), the trace of the 4-to-1 incasts of pfc.rs and rdma.rs.
pub fn incast_trace(dir: &Path, senders: usize, size: u64) {
    let mut s = String::from("flow_id,sender,receiver,size_bytes,start_ns\n");
    for h in 0..senders {
        s += &format!("{h},{h},{senders},{size},0\n");
    }
    std::fs::write(dir.join("incast.csv"), s).unwrap();
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

/// The leaf-spine of the Homa paper's Figure 11 (Homa §5.2) as a scenario's first tables:
/// `racks` racks of `hosts_per_rack` hosts under `spines` spines, 10 Gbps host links and
/// 40 Gbps fabric links, the authors' 250 ns switches and host delays, packets sprayed.
/// `switch` and `host` are the lines (each ending in a newline) that each transport's
/// switches and NICs add to those tables, and `after` any tables that follow. A macro so
/// that the text stays a `&'static str` that tests format and edit with `replace`.
#[allow(unused_macros)] // not every test file uses it (the file's dead_code allowance)
macro_rules! homa_fabric {
    ($racks:literal, $hosts_per_rack:literal, $spines:literal, $switch:literal, $host:literal $(, $after:literal)?) => {
        concat!(
            "\n[topology]\nkind = \"leaf_spine\"\nracks = ",
            $racks,
            "\nhosts_per_rack = ",
            $hosts_per_rack,
            "\nspines = ",
            $spines,
            "\nhost_link = { rate = \"10Gbps\" }\nfabric_link = { rate = \"40Gbps\" }\n",
            "[switch]\ndelay = \"250ns\"\n",
            $switch,
            "[host]\n",
            $host,
            "nic_delay = \"1us\"\nrx_delay = \"0.5us\"\n[routing]\npaths = \"spray\"\n",
            $($after)?
        )
    };
}
#[allow(unused_imports)]
pub(crate) use homa_fabric;

/// A scenario of `net` (its tables up to the classes) and one class `m` of lone messages of
/// `sizes` from `src` to `dst`, 3 ms apart (`lone_trace`).
pub fn lone(dir: &Path, net: &str, src: usize, dst: usize, sizes: &[u64]) -> Scenario {
    let trace = lone_trace(dir, sizes, src, dst, 3_000_000);
    scenario(&format!("{net}\n[[class]]\nname = \"m\"\ntrace = \"{trace}\"\n"), dir)
}
