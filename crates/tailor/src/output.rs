//! Running a scenario into a result directory (DESIGN.md, "Result format").
//!
//! `messages.csv` is written as messages complete, `queues.csv` (when `[record] queues`
//! asks for it) as the run advances; `summary.json`, `ports.csv` and `scenario.toml` (the
//! scenario as run, whose SHA-256 `summary.json` holds) at the end.
//! Everything goes to a temporary sibling directory that is renamed into place only
//! when the run succeeded, so a failed or cancelled run leaves nothing half-written.

use crate::engine::report::{PortRow, RunReport};
use crate::engine::{Progress, RunError, Simulation};
use crate::measure::parquet::{ParquetSink, Tee};
use crate::measure::progress::ProgressLog;
use crate::measure::queues::QueueLog;
use crate::measure::record::CsvSink;
use crate::scenario::Scenario;
use serde::Serialize;
use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

mod decomposed;
pub mod fct;
pub use decomposed::{
    decomposed_again, decomposed_links, decomposed_plan, decomposed_simulate, decomposed_simulate_again,
    simulate_decomposed, write_decomposed_into,
};

pub use crate::version::{SIGNATURE, VERSION};

/// Which files hold the per-message records.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Records {
    /// `messages.csv`.
    Csv,
    /// `messages.parquet`, written as the run goes (bounded memory, `measure::parquet`).
    Parquet,
    /// Both.
    Both,
}

#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub tailor_version: &'static str,
    pub engine: &'static str,
    pub scenario: String,
    pub scenario_file: String,
    /// The SHA-256 (hex) of `scenario.toml`, the scenario as run (`run_document`): a
    /// report tells by it whether a scenario file is the one that ran.
    pub scenario_sha256: String,
    pub seed: u64,
    pub transport: String,
    pub wall_seconds: f64,
    pub events_per_second: f64,
    /// The fast model's parameters (model runs only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<ModelInfo>,
    /// What the SRPT oracle did (oracle runs only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oracle: Option<OracleInfo>,
    /// That the latencies are estimates, and how they were made (decomposed runs only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decomposed: Option<DecomposedInfo>,
    /// What `queues.csv` holds (runs with `[record] queues` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queues: Option<QueueInfo>,
    #[serde(flatten)]
    pub report: RunReport,
}

/// What the fast model ran with (docs/model.md): the bottleneck, its bandwidth-delay
/// product (the short / long flow boundary of SWP §5.1) and the congestion control.
#[derive(Clone, Debug, Serialize)]
pub struct ModelInfo {
    /// The link the model stood for ("the link into host 64"; docs/model.md, "Scope").
    pub bottleneck: String,
    pub capacity_bps: f64,
    pub rtt_ns: f64,
    pub bdp_bytes: f64,
    pub eta: f64,
    pub q0_bytes: f64,
    pub beta: f64,
    pub kappa: f64,
    /// "calibrated" or "paper" (docs/model.md, "The paper-literal form").
    pub form: crate::model::Form,
}

/// What the SRPT oracle did (docs/oracle.md): packets sent, and how often a message
/// lost its links to one with fewer bytes left.
#[derive(Clone, Debug, Serialize)]
pub struct OracleInfo {
    pub packets: u64,
    pub preemptions: u64,
}

/// A decomposed run's method and work (docs/decomposed.md): its latencies are estimates.
#[derive(Clone, Debug, Serialize)]
pub struct DecomposedInfo {
    /// Always true: every latency of the run is an estimate, not a simulated delivery.
    pub estimate: bool,
    /// The method: "parsimon" (per-link simulations by the packet engine, combined along
    /// each path; Zhao et al., NSDI'23).
    pub method: &'static str,
    /// Links simulated, links clustered (not simulated: given their representative's
    /// delays), messages summed over the simulated links, size buckets summed over them.
    pub links: u64,
    pub clustered: u64,
    pub link_messages: u64,
    pub buckets: u64,
}

/// The queue samples of a run: the interval, the sampled ports (ids of `ports.csv`;
/// empty for the model, whose one bottleneck has no port id) and the rows written.
#[derive(Clone, Debug, Serialize)]
pub struct QueueInfo {
    pub interval_ns: f64,
    pub ports: Vec<usize>,
    pub rows: u64,
}

impl ModelInfo {
    fn of(cfg: &crate::model::ModelConfig, bottleneck: &crate::scenario::scope::Bottleneck) -> ModelInfo {
        let c = &cfg.cc;
        ModelInfo {
            bottleneck: bottleneck.describe(),
            capacity_bps: cfg.capacity_bps,
            rtt_ns: cfg.rtt.as_ns_f64(),
            bdp_bytes: cfg.capacity_bps / 8.0 * cfg.rtt.as_secs_f64(),
            eta: c.eta,
            q0_bytes: c.q0,
            beta: c.beta,
            kappa: c.kappa,
            form: cfg.form,
        }
    }
}

fn io_err(path: &Path, e: std::io::Error) -> RunError {
    RunError::Io(std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}

/// Where the run is written before it is complete.
fn staging(out: &Path) -> PathBuf {
    let name = out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "run".into());
    out.with_file_name(format!(".{name}.partial-{}", std::process::id()))
}

/// Which engine runs a scenario.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The packet-level simulator.
    Packet,
    /// The SWP fast model (docs/model.md).
    Model,
    /// The SRPT oracle, the lower bound of the Homa paper's Fig. 12 (docs/oracle.md).
    Oracle,
    /// Estimates by per-link decomposition (docs/decomposed.md).
    Decomposed,
}

impl Engine {
    /// Its name, as `--engine` and `summary.json` spell it.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Packet => "packet",
            Engine::Model => "model",
            Engine::Oracle => "oracle",
            Engine::Decomposed => "decomposed",
        }
    }
}

/// Runs `sc` with `seed` on the packet engine into `out` (see `run_engine_to_dir`).
pub fn run_to_dir(
    sc: &Scenario,
    seed: u64,
    out: &Path,
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<Summary, RunError> {
    run_engine_to_dir(sc, seed, out, Engine::Packet, progress)
}

/// Runs `sc` with `seed` on `engine` and writes the result directory `out`, which must
/// not exist or be empty: this layer never replaces or deletes a directory. Replacing an
/// earlier result, and only tailor's own files in it, is the Python front's
/// (`tailor.outdir`, docs/results.md), which stages a directory and calls [`write_into`].
pub fn run_engine_to_dir(
    sc: &Scenario,
    seed: u64,
    out: &Path,
    engine: Engine,
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<Summary, RunError> {
    if out.exists() && fs::read_dir(out).map(|mut d| d.next().is_some()).unwrap_or(true) {
        return Err(RunError::Io(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            format!(
                "{}: exists and is not an empty directory; refusing to write into it (name a new or empty directory)",
                out.display()
            ),
        )));
    }
    let tmp = staging(out);
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent).map_err(|e| io_err(parent, e))?;
    }
    fs::create_dir(&tmp).map_err(|e| io_err(&tmp, e))?;
    match write_into(sc, seed, &tmp, engine, Records::Csv, progress) {
        Ok(summary) => {
            fs::rename(&tmp, out).map_err(|e| io_err(out, e))?;
            Ok(summary)
        }
        Err(e) => {
            let _ = fs::remove_dir_all(&tmp);
            Err(e)
        }
    }
}

/// Runs `sc` with `seed` on `engine`, writing the result's files, the messages as
/// `records` says, into the existing directory `dir` (a caller's staging directory: on
/// an error what was written stays for the caller to remove).
pub fn write_into(
    sc: &Scenario,
    seed: u64,
    dir: &Path,
    engine: Engine,
    records: Records,
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<Summary, RunError> {
    let summary = match engine {
        Engine::Packet => write_run(sc, seed, dir, records, progress),
        Engine::Model => write_model_run(sc, seed, dir, records),
        Engine::Oracle => {
            write_result(dir, records, |sink| simulate_oracle(sc, seed, sink, progress).map(|s| (s, Vec::new())))
        }
        Engine::Decomposed => write_result(dir, records, |sink| {
            simulate_decomposed(sc, seed, sink, progress, None).map(|s| (s, Vec::new()))
        }),
    }?;
    let path = dir.join("scenario.toml");
    fs::write(&path, run_document(sc, seed)).map_err(|e| io_err(&path, e))?;
    Ok(summary)
}

/// The scenario as run with `seed`: its document after overrides with `seed` set to the
/// seed the run used (a `--seed` given apart from the file included), keys sorted. Run
/// again, it gives the same result (a sweep point keeps the same text).
pub fn run_document(sc: &Scenario, seed: u64) -> String {
    let mut doc: toml::Table = toml::from_str(&sc.document).expect("a scenario's document is TOML");
    // A seed is at most 2^63 - 1 (`check_seed`): it is a TOML integer.
    doc.insert("seed".into(), toml::Value::Integer(seed as i64));
    toml::to_string(&doc).expect("a parsed TOML document serializes")
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

fn write_run(
    sc: &Scenario,
    seed: u64,
    dir: &Path,
    records: Records,
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<Summary, RunError> {
    let queues = queue_log(sc, dir)?;
    let waits = waits_log(sc, dir)?;
    let progress_log = progress_log(sc, dir)?;
    write_result(dir, records, |sink| {
        let kept = Arc::new(Mutex::new(Vec::new()));
        let sink: Box<dyn crate::measure::RecordSink> =
            if sc.record.fct { Box::new(fct::Keeping { inner: sink, rows: Arc::clone(&kept) }) } else { sink };
        let (sim, s) = simulate_with(sc, seed, sink, Recording { queues, waits, progress: progress_log }, progress)?;
        if let Some(m) = sim.net.memory.as_ref() {
            write_memory_table(&sim.net, &m.table(), dir)?;
        }
        if sc.record.fct {
            let path = dir.join("fct.txt");
            let file = fs::File::create(&path).map_err(|e| io_err(&path, e))?;
            let mut w = BufWriter::new(file);
            fct::write(&sim.net, sc, &kept.lock().expect("not poisoned"), &mut w)?;
            w.flush()?;
        }
        Ok((s, sim.ports()))
    })
}

/// A switch memory's counters by port and priority (`pfc.csv`, docs/results.md): the
/// port, node and role columns as ports.csv has them, then the memory's own.
fn write_memory_table(net: &crate::net::Network, t: &crate::net::memory::Table, dir: &Path) -> Result<(), RunError> {
    let path = dir.join(t.file);
    let file = fs::File::create(&path).map_err(|e| io_err(&path, e))?;
    let mut w = BufWriter::new(file);
    writeln!(w, "port,node,role,{}", t.header)?;
    for (i, rows) in t.rows.iter().enumerate() {
        let port = &net.ports[i];
        let node = crate::engine::report::node_name(port.owner);
        for row in rows {
            writeln!(w, "{i},{node},{},{row}", port.role.name())?;
        }
    }
    w.flush()?;
    Ok(())
}

/// `waits.csv` in `dir`, when the scenario records waits.
fn waits_log(sc: &Scenario, dir: &Path) -> Result<Option<Box<dyn std::io::Write + Send>>, RunError> {
    if !sc.record.waits {
        return Ok(None);
    }
    let path = dir.join("waits.csv");
    let file = fs::File::create(&path).map_err(|e| io_err(&path, e))?;
    Ok(Some(Box::new(BufWriter::with_capacity(1 << 20, file))))
}

/// `progress.csv` in `dir`, when the scenario records progress.
fn progress_log(sc: &Scenario, dir: &Path) -> Result<Option<ProgressLog>, RunError> {
    let Some(every) = sc.record.progress else { return Ok(None) };
    let path = dir.join("progress.csv");
    let file = fs::File::create(&path).map_err(|e| io_err(&path, e))?;
    Ok(Some(ProgressLog::new(every, Box::new(BufWriter::with_capacity(1 << 16, file)))?))
}

/// What a run records beside its messages.
#[derive(Default)]
pub struct Recording {
    pub queues: Option<QueueLog>,
    pub waits: Option<Box<dyn std::io::Write + Send>>,
    pub progress: Option<ProgressLog>,
}

/// `queues.csv` in `dir`, when the scenario records queues.
fn queue_log(sc: &Scenario, dir: &Path) -> Result<Option<QueueLog>, RunError> {
    let Some(spec) = &sc.record.queues else { return Ok(None) };
    let path = dir.join("queues.csv");
    let file = fs::File::create(&path).map_err(|e| io_err(&path, e))?;
    let names: Vec<String> = sc.classes.iter().map(|c| c.name.clone()).collect();
    Ok(Some(QueueLog::new(spec.every, &names, Box::new(BufWriter::with_capacity(1 << 20, file)))?))
}

/// Streams the messages while `run` runs, then writes summary.json and ports.csv.
fn write_result(
    dir: &Path,
    records: Records,
    run: impl FnOnce(Box<dyn crate::measure::RecordSink>) -> Result<(Summary, Vec<PortRow>), RunError>,
) -> Result<Summary, RunError> {
    let sink: Box<dyn crate::measure::RecordSink> = match records {
        Records::Csv => Box::new(csv_sink(dir)?),
        Records::Parquet => Box::new(parquet_sink(dir)?),
        Records::Both => Box::new(Tee(parquet_sink(dir)?, csv_sink(dir)?)),
    };
    let (summary, ports) = run(sink)?;
    let json = serde_json::to_string_pretty(&summary).expect("summary serializes");
    fs::write(dir.join("summary.json"), json + "\n").map_err(|e| io_err(dir, e))?;
    write_port_rows(&ports, &dir.join("ports.csv"))?;
    Ok(summary)
}

fn csv_sink(dir: &Path) -> Result<CsvSink<BufWriter<fs::File>>, RunError> {
    let path = dir.join("messages.csv");
    let file = fs::File::create(&path).map_err(|e| io_err(&path, e))?;
    Ok(CsvSink::new(BufWriter::with_capacity(1 << 20, file))?)
}

fn parquet_sink(dir: &Path) -> Result<ParquetSink<BufWriter<fs::File>>, RunError> {
    let path = dir.join("messages.parquet");
    let file = fs::File::create(&path).map_err(|e| io_err(&path, e))?;
    Ok(ParquetSink::new(BufWriter::with_capacity(1 << 20, file))?)
}

/// Builds and runs a simulation, returning it (for ports and ledgers) and its summary.
/// Queues are not recorded (see `simulate_recording`).
pub fn simulate(
    sc: &Scenario,
    seed: u64,
    sink: Box<dyn crate::measure::RecordSink>,
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<(Simulation, Summary), RunError> {
    simulate_recording(sc, seed, sink, None, progress)
}

/// `simulate`, sampling the queues `[record]` selects into `queues` when given.
pub fn simulate_recording(
    sc: &Scenario,
    seed: u64,
    sink: Box<dyn crate::measure::RecordSink>,
    queues: Option<QueueLog>,
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<(Simulation, Summary), RunError> {
    simulate_with(sc, seed, sink, Recording { queues, ..Recording::default() }, progress)
}

/// `simulate`, recording what `rec` holds (queues, waits).
pub fn simulate_with(
    sc: &Scenario,
    seed: u64,
    sink: Box<dyn crate::measure::RecordSink>,
    rec: Recording,
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<(Simulation, Summary), RunError> {
    let started = Instant::now();
    // Refused before anything is built when the estimate does not fit, then held to the
    // same limit while it runs (`scenario::capacity`, `engine::memory`).
    let used = crate::engine::memory::resident().unwrap_or(0);
    let limit = crate::scenario::capacity::limit(sc, used);
    if let Some(l) = &limit {
        crate::scenario::capacity::check(sc, used, l).map_err(RunError::Scenario)?;
    }
    let mut sim = Simulation::new_reporting(sc.build(seed)?, sink, progress)?;
    sim.set_memory_guard(memory_guard(limit));
    if let (Some(spec), Some(log)) = (&sc.record.queues, rec.queues) {
        sim.record_queues(spec, log);
    }
    if let Some(out) = rec.waits {
        sim.record_waits(sc.classes.iter().map(|c| c.name.clone()).collect(), out)?;
    }
    if let Some(log) = rec.progress {
        sim.record_progress(log);
    }
    sim.run(progress)?;
    let report = sim.report();
    crate::scenario::check_result(sc, &report).map_err(RunError::Scenario)?;
    let mut summary = Summary::new(sc, seed, "packet", started, report);
    summary.queues = sim.queue_log().map(|log| QueueInfo {
        interval_ns: log.every().as_ns_f64(),
        ports: sim.sampled_ports().iter().map(|p| p.index()).collect(),
        rows: log.rows(),
    });
    Ok((sim, summary))
}

/// The run's guard: `limit` on its process, and a floor of `FLOOR` of the memory the
/// machine had available when the run started (`engine::memory::Floor`).
fn memory_guard(limit: Option<crate::engine::memory::Limit>) -> crate::engine::memory::Guard {
    use crate::engine::memory::{Floor, Guard};
    const FLOOR: f64 = 0.05;
    let guard = Guard::new(limit);
    match crate::scenario::memory::here() {
        Some(m) => guard.with_floor(Floor {
            bytes: (m.available as f64 * FLOOR) as u64,
            available: || crate::scenario::memory::here().map(|m| m.available),
        }),
        None => guard,
    }
}

impl Summary {
    fn new(sc: &Scenario, seed: u64, engine: &'static str, started: Instant, report: RunReport) -> Summary {
        let wall = started.elapsed().as_secs_f64();
        Summary {
            tailor_version: VERSION,
            engine,
            scenario: sc.name.clone(),
            scenario_file: sc.file.clone(),
            scenario_sha256: sha256_hex(run_document(sc, seed).as_bytes()),
            seed,
            transport: sc.transport_names(),
            wall_seconds: wall,
            events_per_second: report.events as f64 / wall.max(1e-9),
            model: None,
            oracle: None,
            decomposed: None,
            queues: None,
            report,
        }
    }
}

/// The fast model's run: the same files; `ports.csv` has its header only (the model has
/// no ports) and `events` counts model steps.
fn write_model_run(sc: &Scenario, seed: u64, dir: &Path, records: Records) -> Result<Summary, RunError> {
    let queues = queue_log(sc, dir)?;
    write_result(dir, records, |sink| simulate_model(sc, seed, sink, queues).map(|s| (s, Vec::new())))
}

/// Runs the fast model and summarises it in the packet engine's format; samples the
/// bottleneck's queue into `queues` when given.
pub fn simulate_model(
    sc: &Scenario,
    seed: u64,
    sink: Box<dyn crate::measure::RecordSink>,
    mut queues: Option<QueueLog>,
) -> Result<Summary, RunError> {
    use crate::engine::report::{Messages, NetworkReport};
    use crate::measure::{ClassSummary, Recorder};
    let started = Instant::now();
    let (cfg, bottleneck) = crate::scenario::model::configure(sc).map_err(RunError::Scenario)?;
    let built = sc.build(seed)?;
    let summaries =
        built.classes.iter().map(|c| ClassSummary::new(&c.name, c.bins.clone()).with_slos(&c.slos)).collect();
    let mut rec = Recorder::new(summaries, ClassSummary::new("all", built.overall_bins), built.warmup, sink);
    let sources = built.classes.into_iter().map(|c| c.source).collect();
    let info = ModelInfo::of(&cfg, &bottleneck);
    let stats = crate::model::FluidModel::new(cfg).run_sampled(sources, &mut rec, queues.as_mut())?;
    rec.flush()?;
    let queues =
        queues.map(|log| QueueInfo { interval_ns: log.every().as_ns_f64(), ports: Vec::new(), rows: log.rows() });
    let report = RunReport {
        events: stats.steps,
        sim_ns: stats.sim_end.as_ns_f64(),
        messages: Messages {
            generated: stats.generated,
            completed: rec.completed,
            incomplete: stats.generated - rec.completed,
            incomplete_bytes: None,
            warmup_excluded: rec.in_warmup,
        },
        overall: rec.overall().report(),
        classes: rec.classes.iter().map(|c| (c.name.clone(), c.report())).collect(),
        network: NetworkReport {
            drops: 0,
            ecn_marks: 0,
            max_queue_bytes: stats.max_queue_bytes.round() as u64,
            mean_queue_bytes: stats.mean_queue_bytes,
            utilization: stats.utilization,
            max_host_nic_queue_bytes: 0,
            mechanisms: Default::default(),
        },
        transport_counters: crate::transport::Counters::default(),
        transport_settings: Default::default(),
        probes: Vec::new(),
    };
    crate::scenario::check_result(sc, &report).map_err(RunError::Scenario)?;
    Ok(Summary { model: Some(info), queues, ..Summary::new(sc, seed, "model", started, report) })
}

/// What an engine that estimates (the oracle, the decomposition) ran, for the packet
/// engine's report: it has no switch queues, marks or drops, the whole fabric never ran.
struct Estimated {
    events: u64,
    sim_end: crate::sim::Time,
    generated: u64,
    incomplete_bytes: u64,
    utilization: f64,
}

impl Estimated {
    fn report(self, rec: &crate::measure::Recorder, unfinished: &[crate::measure::MessageRecord]) -> RunReport {
        use crate::engine::report::{Messages, NetworkReport};
        let (overall, classes) = rec.reports(unfinished);
        RunReport {
            events: self.events,
            sim_ns: self.sim_end.as_ns_f64(),
            messages: Messages {
                generated: self.generated,
                completed: rec.completed,
                incomplete: self.generated - rec.completed,
                incomplete_bytes: Some(self.incomplete_bytes),
                warmup_excluded: rec.in_warmup,
            },
            overall,
            classes,
            network: NetworkReport {
                drops: 0,
                ecn_marks: 0,
                max_queue_bytes: 0,
                mean_queue_bytes: 0.0,
                utilization: self.utilization,
                max_host_nic_queue_bytes: 0,
                mechanisms: Default::default(),
            },
            transport_counters: crate::transport::Counters::default(),
            transport_settings: Default::default(),
            probes: Vec::new(),
        }
    }
}

/// Runs the SRPT oracle and summarises it in the packet engine's format (`ports.csv`
/// has its header only: the oracle has no ports; `events` counts arrivals and ends).
pub fn simulate_oracle(
    sc: &Scenario,
    seed: u64,
    sink: Box<dyn crate::measure::RecordSink>,
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<Summary, RunError> {
    let started = Instant::now();
    crate::scenario::oracle::check(sc).map_err(RunError::Scenario)?;
    let built = sc.build(seed)?;
    let (out, rec) = crate::oracle::run(built, sink, progress)?;
    // The busiest link is the busiest host link.
    let run = Estimated {
        events: out.events,
        sim_end: out.sim_end,
        generated: out.generated,
        incomplete_bytes: out.incomplete_bytes,
        utilization: out.utilization,
    };
    let report = run.report(&rec, &out.unfinished);
    crate::scenario::check_result(sc, &report).map_err(RunError::Scenario)?;
    let info = OracleInfo { packets: out.packets, preemptions: out.preemptions };
    Ok(Summary { oracle: Some(info), ..Summary::new(sc, seed, "oracle", started, report) })
}

fn write_port_rows(rows: &[PortRow], path: &Path) -> Result<(), RunError> {
    let file = fs::File::create(path).map_err(|e| io_err(path, e))?;
    let mut w = BufWriter::new(file);
    writeln!(
        w,
        "port,node,role,rate_bps,sent_packets,sent_bytes,drops,drop_bytes,ecn_marks,max_queue_bytes,mean_queue_bytes,utilization,\
         arrival_mean_queue_bytes,arrival_max_queue_bytes,sojourn_packets,sojourn_mean_us,sojourn_p50_us,sojourn_p90_us,\
         sojourn_p99_us,sojourn_p999_us,sojourn_max_us,arrival_mean_queue_wire_bytes,arrival_max_queue_wire_bytes"
    )?;
    for r in rows {
        write!(
            w,
            "{},{},{},{},{},{},{},{},{},{},{:.1},{:.6},{:.1},{}",
            r.port,
            r.node,
            r.role,
            r.rate_bps,
            r.sent_packets,
            r.sent_bytes,
            r.drops,
            r.drop_bytes,
            r.ecn_marks,
            r.max_queue_bytes,
            r.mean_queue_bytes,
            r.utilization,
            r.arrival_mean_queue_bytes,
            r.arrival_max_queue_bytes
        )?;
        // Empty unless the port's waits were recorded (`[record] sojourn`).
        match &r.sojourn {
            Some(s) => write!(
                w,
                ",{},{:.3},{:.3},{:.3},{:.3},{:.3},{:.3}",
                s.count, s.mean_us, s.p50_us, s.p90_us, s.p99_us, s.p999_us, s.max_us
            )?,
            None => write!(w, ",,,,,,,")?,
        }
        writeln!(w, ",{:.1},{}", r.arrival_mean_queue_wire_bytes, r.arrival_max_queue_wire_bytes)?;
    }
    w.flush()?;
    Ok(())
}
