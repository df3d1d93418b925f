//! `tailor._core`: the thin Python binding of the engine.
//!
//! Two coarse calls, as STYLE.md asks: `check` parses a scenario and describes it;
//! `run` converts its inputs, releases the GIL for the whole simulation and takes it
//! back only to report progress (at most every [`PROGRESS_EVERY`] of wall time) and to
//! let Python signal handlers run, so Ctrl-C cancels a run cleanly. Reading a scenario
//! and the files it names (a trace can take minutes) lets them run too ([`interruptible`]).
//! Errors go through the one mapping in [`errors`].

mod decomposed;
mod errors;

use errors::Error;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tailor::engine::Progress;
use tailor::scenario::Scenario;

/// How often, in wall time, Python is given the GIL back during a run.
const PROGRESS_EVERY: Duration = Duration::from_millis(200);

/// Parses the scenario at `path`, with `overrides` applied, and returns a description of it.
/// The transports a scenario may name (`transport::registry`): name, one line, the keys
/// its table accepts and what it needs of the network (`needs`, TOML). The Python front
/// keeps no list of its own.
#[pyfunction]
fn transports<'py>(py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
    tailor::transport::registry::TRANSPORTS
        .iter()
        .map(|e| {
            let d = PyDict::new(py);
            d.set_item("name", e.name)?;
            d.set_item("about", e.about)?;
            d.set_item("keys", e.keys.to_vec())?;
            d.set_item("needs", e.needs)?;
            Ok(d)
        })
        .collect()
}

/// The messages the `p`-th percentile needs to be a result (`measure::slo::samples_needed`):
/// the engine's SLO verdicts and the Python tables, reports and plots share this one rule.
#[pyfunction]
fn samples_needed(p: f64) -> u64 {
    tailor::measure::slo::samples_needed(p)
}

#[pyfunction]
#[pyo3(signature = (path, overrides=None))]
fn check<'py>(
    py: Python<'py>,
    path: PathBuf,
    overrides: Option<Vec<(String, Bound<'py, PyAny>)>>,
) -> PyResult<Bound<'py, PyDict>> {
    let overrides = to_overrides(&path, overrides).map_err(|e| e.into_py_err(py))?;
    let sc =
        py.detach(|| interruptible(|| Ok(Scenario::resolve(&path, &overrides)?))).map_err(|e| e.into_py_err(py))?;
    describe(py, &sc.scenario)
}

/// Parses the scenario at `path` with `overrides` and returns what identifies it:
/// {info (as `check`), document (the TOML after overrides, keys sorted), identity (the
/// text a result store hashes), inputs (trace files whose bytes belong to the identity)}.
#[pyfunction]
#[pyo3(signature = (path, overrides=None))]
fn resolve<'py>(
    py: Python<'py>,
    path: PathBuf,
    overrides: Option<Vec<(String, Bound<'py, PyAny>)>>,
) -> PyResult<Bound<'py, PyDict>> {
    let overrides = to_overrides(&path, overrides).map_err(|e| e.into_py_err(py))?;
    let r = py.detach(|| interruptible(|| Ok(Scenario::resolve(&path, &overrides)?))).map_err(|e| e.into_py_err(py))?;
    let d = PyDict::new(py);
    d.set_item("info", describe(py, &r.scenario)?)?;
    d.set_item("document", &r.document)?;
    d.set_item("identity", &r.identity)?;
    d.set_item("config", &r.config)?;
    d.set_item("inputs", r.inputs.iter().map(|p| p.display().to_string()).collect::<Vec<_>>())?;
    Ok(d)
}

/// Whether the fast model applies to the scenario at `path` with `overrides`: {bottleneck
/// (a description of its one link), capacity_bps}; a ScenarioError saying why not
/// (docs/model.md, "Scope").
#[pyfunction]
#[pyo3(signature = (path, overrides=None))]
fn model_scope<'py>(
    py: Python<'py>,
    path: PathBuf,
    overrides: Option<Vec<(String, Bound<'py, PyAny>)>>,
) -> PyResult<Bound<'py, PyDict>> {
    let overrides = to_overrides(&path, overrides).map_err(|e| e.into_py_err(py))?;
    let b = py
        .detach(|| {
            interruptible(|| {
                Ok(Scenario::resolve(&path, &overrides)
                    .and_then(|r| tailor::scenario::scope::bottleneck(&r.scenario))?)
            })
        })
        .map_err(|e| e.into_py_err(py))?;
    let d = PyDict::new(py);
    d.set_item("bottleneck", b.describe())?;
    d.set_item("capacity_bps", b.rate.bps())?;
    Ok(d)
}

/// Per SLO of the scenario at `path` with `overrides`, the messages its range is expected
/// to get over the horizon and how many its statistic needs, as JSON (a list; docs/advisor.md,
/// "Too few messages to judge"; `tailor::advisor::samples`).
#[pyfunction]
#[pyo3(signature = (path, overrides=None))]
fn slo_counts<'py>(
    py: Python<'py>,
    path: PathBuf,
    overrides: Option<Vec<(String, Bound<'py, PyAny>)>>,
) -> PyResult<String> {
    let overrides = to_overrides(&path, overrides).map_err(|e| e.into_py_err(py))?;
    let r = py.detach(|| interruptible(|| Ok(Scenario::resolve(&path, &overrides)?))).map_err(|e| e.into_py_err(py))?;
    let counts = tailor::advisor::samples::expected_counts(&r.scenario);
    serde_json::to_string(&counts).map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
}

/// Raises ScenarioError, naming the key, when the SRPT oracle cannot run the scenario
/// (docs/oracle.md, "Scope").
#[pyfunction]
#[pyo3(signature = (path, overrides=None))]
fn oracle_scope<'py>(
    py: Python<'py>,
    path: PathBuf,
    overrides: Option<Vec<(String, Bound<'py, PyAny>)>>,
) -> PyResult<()> {
    let overrides = to_overrides(&path, overrides).map_err(|e| e.into_py_err(py))?;
    py.detach(|| {
        interruptible(|| {
            Ok(Scenario::resolve(&path, &overrides).and_then(|r| tailor::scenario::oracle::check(&r.scenario))?)
        })
    })
    .map_err(|e| e.into_py_err(py))
}

/// Python (key, value) pairs as overrides; values are bool, int, float, str, lists and
/// dicts of them (otherwise a ScenarioError at the key, as a bad value in the file is).
fn to_overrides(
    path: &Path,
    pairs: Option<Vec<(String, Bound<'_, PyAny>)>>,
) -> Result<Vec<tailor::scenario::Override>, Error> {
    pairs
        .unwrap_or_default()
        .into_iter()
        .map(|(key, v)| {
            let value = to_toml(&v).map_err(|what| {
                Error::Scenario(tailor::scenario::ScenarioError {
                    file: path.display().to_string(),
                    path: key.clone(),
                    message: format!(
                        "{what} cannot be a scenario value; accepted: true/false, integers from -2^63 to 2^63 - 1 (TOML's), numbers, strings, and lists or tables of them"
                    ),
                })
            })?;
            Ok(tailor::scenario::Override { key, value })
        })
        .collect()
}

fn to_toml(v: &Bound<'_, PyAny>) -> Result<toml::Value, String> {
    use pyo3::types::{PyBool, PyFloat, PyInt, PyList, PyString, PyTuple};
    let what = || {
        let kind = v.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "value".into());
        let text = v.repr().map(|r| r.to_string()).unwrap_or_default();
        format!("{text} (a Python {kind})")
    };
    if v.is_instance_of::<PyBool>() {
        return Ok(toml::Value::Boolean(v.extract::<bool>().map_err(|_| what())?));
    }
    if v.is_instance_of::<PyInt>() {
        return v.extract::<i64>().map(toml::Value::Integer).map_err(|_| format!("{}, beyond a TOML integer,", what()));
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(toml::Value::Float(v.extract::<f64>().map_err(|_| what())?));
    }
    if v.is_instance_of::<PyString>() {
        return Ok(toml::Value::String(v.extract::<String>().map_err(|_| what())?));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let items: Vec<Bound<'_, PyAny>> = v.extract().map_err(|_| what())?;
        return items.iter().map(to_toml).collect::<Result<Vec<_>, _>>().map(toml::Value::Array);
    }
    if let Ok(d) = v.cast::<PyDict>() {
        let mut t = toml::Table::new();
        for (k, item) in d.iter() {
            let k: String = k.extract().map_err(|_| "a dict with a key that is not a str".to_string())?;
            t.insert(k, to_toml(&item)?);
        }
        return Ok(toml::Value::Table(t));
    }
    Err(what())
}

fn describe<'py>(py: Python<'py>, sc: &Scenario) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("file", &sc.file)?;
    d.set_item("name", &sc.name)?;
    d.set_item("seed", sc.seed)?;
    d.set_item("topology", sc.net.shape.kind())?;
    d.set_item("hosts", sc.net.shape.host_count())?;
    d.set_item("host_rate_bps", sc.host_rate.bps())?;
    d.set_item("transport", sc.transport_names())?;
    d.set_item("classes", sc.classes.iter().map(|c| c.name.as_str()).collect::<Vec<_>>())?;
    d.set_item("stop_ns", sc.stop.map(|t| t.as_ns_f64()))?;
    d.set_item("warmup_ns", sc.warmup.as_ns_f64())?;
    // What the packet engine would need (`scenario::capacity`), for `tailor check`.
    let e = tailor::scenario::capacity::estimate(sc);
    let m = PyDict::new(py);
    m.set_item("total_bytes", e.total())?;
    m.set_item("fabric_bytes", e.fabric)?;
    m.set_item("in_flight_bytes", e.in_flight)?;
    m.set_item("active_messages", e.messages)?;
    m.set_item("queued_packets", e.packets)?;
    m.set_item("limit_bytes", sc.memory_limit)?;
    m.set_item("text", e.describe())?;
    d.set_item("memory", m)?;
    Ok(d)
}

/// Runs the scenario at `path`, writing the result's files into the existing directory
/// `out` (the caller's staging directory, `tailor.outdir.staged`), and returns the
/// summary as JSON text. `progress(dict) -> bool` is called with the GIL held; returning
/// a false value cancels the run, and an exception it raises (or a signal handler raises,
/// as Ctrl-C and, in the CLI, SIGTERM do) cancels the run and is re-raised. After a
/// cancelled or failed run, `out` holds a partial result for the caller to remove.
#[pyfunction]
#[pyo3(signature = (path, out, seed=None, progress=None, engine="packet", overrides=None, csv=false))]
#[allow(clippy::too_many_arguments, reason = "Python's keyword arguments, one parameter each")]
fn run<'py>(
    py: Python<'py>,
    path: PathBuf,
    out: PathBuf,
    seed: Option<u64>,
    progress: Option<Py<PyAny>>,
    engine: &str,
    overrides: Option<Vec<(String, Bound<'py, PyAny>)>>,
    csv: bool,
) -> PyResult<String> {
    let overrides = to_overrides(&path, overrides).map_err(|e| e.into_py_err(py))?;
    let engine = match engine {
        "packet" => tailor::output::Engine::Packet,
        "model" => tailor::output::Engine::Model,
        "oracle" => tailor::output::Engine::Oracle,
        "decomposed" => tailor::output::Engine::Decomposed,
        other => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "engine must be 'packet', 'model', 'oracle' or 'decomposed', got '{other}'"
            )))
        }
    };
    let mut reporter = Reporter { callback: progress, last_call: Instant::now(), last_seen: None, raised: None };
    let records = if csv { tailor::output::Records::Both } else { tailor::output::Records::Parquet };
    let result =
        py.detach(|| interruptible(|| run_detached(&path, &overrides, &out, seed, (engine, records), &mut reporter)));
    let result = match (result, reporter.raised.take()) {
        (Err(Error::Cancelled), Some(raised)) => Err(Error::Python(raised)),
        (result, _) => result,
    };
    let summary = result.map_err(|e| e.into_py_err(py))?;
    reporter.finish(py);
    Ok(summary)
}

fn run_detached(
    path: &Path,
    overrides: &[tailor::scenario::Override],
    out: &Path,
    seed: Option<u64>,
    (engine, records): (tailor::output::Engine, tailor::output::Records),
    reporter: &mut Reporter,
) -> Result<String, Error> {
    let sc = Scenario::resolve(path, overrides)?.scenario;
    let seed = tailor::scenario::check_seed(&sc.file, seed.unwrap_or(sc.seed))?;
    let summary = tailor::output::write_into(&sc, seed, out, engine, records, &mut |p| reporter.tick(p))?;
    Ok(serde_json::to_string(&summary).expect("a summary serializes"))
}

/// Runs `f`, which reads a scenario and the files it names, letting Python's signal
/// handlers run every few MiB read (`tailor::input::files`): an exception one raises
/// (KeyboardInterrupt, the CLI's SIGTERM) stops the reading and is returned in place of
/// its error. Called without the GIL; it takes it only for the check.
fn interruptible<T>(f: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    use std::{cell::RefCell, rc::Rc};
    let raised: Rc<RefCell<Option<PyErr>>> = Rc::default();
    let slot = Rc::clone(&raised);
    let check = move || match Python::attach(|py| py.check_signals()) {
        Ok(()) => true,
        Err(e) => {
            *slot.borrow_mut() = Some(e);
            false
        }
    };
    let result = tailor::input::files::with_interrupt_check(check, f);
    match raised.take() {
        Some(e) => Err(Error::Python(e)),
        None => result,
    }
}

/// Throttles the engine's progress calls to Python and remembers why a run stopped.
struct Reporter {
    callback: Option<Py<PyAny>>,
    last_call: Instant,
    last_seen: Option<Progress>,
    /// The exception that cancelled the run, if Python raised one.
    raised: Option<PyErr>,
}

impl Reporter {
    /// Called by the engine every 2^16 events without the GIL; false cancels the run.
    fn tick(&mut self, p: &Progress) -> bool {
        self.last_seen = Some(*p);
        if self.last_call.elapsed() < PROGRESS_EVERY {
            return true;
        }
        self.last_call = Instant::now();
        Python::attach(|py| match self.call(py, p) {
            Ok(go_on) => go_on,
            Err(e) => {
                self.raised = Some(e);
                false
            }
        })
    }

    fn call(&self, py: Python<'_>, p: &Progress) -> PyResult<bool> {
        py.check_signals()?;
        match &self.callback {
            None => Ok(true),
            Some(cb) => cb.bind(py).call1((progress_dict(py, p)?,))?.is_truthy(),
        }
    }

    /// Reports the final state once more (the throttle may have skipped it); the run
    /// is complete, so the answer is ignored, and so is an exception.
    fn finish(&self, py: Python<'_>) {
        if let (Some(cb), Some(p)) = (&self.callback, &self.last_seen) {
            if let Err(e) = progress_dict(py, p).and_then(|d| cb.bind(py).call1((d,))) {
                e.write_unraisable(py, None);
            }
        }
    }
}

fn progress_dict<'py>(py: Python<'py>, p: &Progress) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("phase", p.phase.name())?;
    d.set_item("built", p.built)?;
    d.set_item("ports", p.ports)?;
    d.set_item("sim_ns", p.now.as_ns_f64())?;
    d.set_item("events", p.events)?;
    d.set_item("started", p.started)?;
    d.set_item("completed", p.completed)?;
    d.set_item("active", p.active)?;
    Ok(d)
}

/// Runs the advisor (`tailor advise`) on the scenario at `path` and returns its report as
/// JSON text. `strategies` names the disciplines ("fifo", "drr", "hierarchical",
/// "priority", "static"); without `min_capacity` it may name one weighted discipline
/// (default: the scenario's). `progress(dict) -> bool` sees each step of the search with
/// the GIL held; a false answer or an exception stops it.
#[pyfunction]
#[pyo3(signature = (path, seed=None, min_capacity=false, strategies=None, recheck=true, progress=None, tolerance=0.01, overrides=None, model_form=None, host_scaling=None))]
#[allow(clippy::too_many_arguments)]
fn advise<'py>(
    py: Python<'py>,
    path: PathBuf,
    seed: Option<u64>,
    min_capacity: bool,
    strategies: Option<Vec<String>>,
    recheck: bool,
    progress: Option<Py<PyAny>>,
    tolerance: f64,
    overrides: Option<Vec<(String, Bound<'py, PyAny>)>>,
    model_form: Option<String>,
    host_scaling: Option<String>,
) -> PyResult<String> {
    use tailor::advisor::{Mode, Request, Strategy};
    use tailor::model::Form;
    let overrides = to_overrides(&path, overrides).map_err(|e| e.into_py_err(py))?;
    let bad = |m: String| pyo3::exceptions::PyValueError::new_err(m);
    let mut chosen = Vec::new();
    for name in strategies.unwrap_or_default() {
        let s = Strategy::parse(&name)
            .ok_or_else(|| bad(format!("unknown discipline '{name}'; accepted: {}", Strategy::NAMES.join(", "))))?;
        if !chosen.contains(&s) {
            chosen.push(s);
        }
    }
    let mode = if min_capacity {
        Mode::MinCapacity(if chosen.is_empty() { Strategy::ALL.to_vec() } else { chosen })
    } else {
        match chosen.as_slice() {
            [] => Mode::Weights { fair: None },
            [Strategy::Weights] => Mode::Weights { fair: Some(false) },
            [Strategy::WeightsFq] => Mode::Weights { fair: Some(true) },
            _ => {
                return Err(bad(
                    "without min_capacity the advisor finds weights: name one of 'drr', 'hierarchical'".into()
                ))
            }
        }
    };
    if !(tolerance > 0.0 && tolerance < 0.5) {
        return Err(bad(format!("tolerance must be in (0, 0.5), got {tolerance}")));
    }
    let search = tailor::advisor::capacity::SearchOptions { tolerance, ..Default::default() };
    let (form, host_scaling) = reading(model_form.as_deref(), host_scaling.as_deref())?;
    let mut req = Request { mode, recheck, search, form: Form::Calibrated, host_scaling };
    observed(py, progress, |observe| {
        let sc = interruptible(|| Ok(Scenario::resolve(&path, &overrides)?))?.scenario;
        let seed = tailor::scenario::check_seed(&sc.file, seed.unwrap_or(sc.seed))?;
        // Not given: the scenario's own `[model] form`.
        req.form = form.unwrap_or(sc.model.form);
        let report = tailor::advisor::advise(&sc, seed, &req, observe)?;
        Ok(serde_json::to_string(&report).expect("a report serializes"))
    })
}

/// The model form (None: the scenario's) and capacity reading named, or a ValueError.
fn reading(
    model_form: Option<&str>,
    host_scaling: Option<&str>,
) -> PyResult<(Option<tailor::model::Form>, tailor::advisor::HostScaling)> {
    use tailor::advisor::HostScaling;
    use tailor::model::Form;
    let bad = |m: String| pyo3::exceptions::PyValueError::new_err(m);
    let form = match model_form {
        None => None,
        Some(name) => Some(
            Form::parse(name)
                .ok_or_else(|| bad(format!("unknown model form '{name}'; accepted: {}", Form::NAMES.join(", "))))?,
        ),
    };
    let host_scaling = match host_scaling {
        None => HostScaling::Scaled,
        Some(name) => HostScaling::parse(name).ok_or_else(|| {
            bad(format!("unknown host scaling '{name}'; accepted: {}", HostScaling::NAMES.join(", ")))
        })?,
    };
    Ok((form, host_scaling))
}

/// Runs `work` without the GIL, with an observer that takes it back for each advisor
/// event to call `progress(dict) -> bool` and let signal handlers run; a false answer or
/// an exception (raised again here) stops the search.
fn observed<T: Send>(
    py: Python<'_>,
    progress: Option<Py<PyAny>>,
    work: impl FnOnce(&mut tailor::advisor::Observer<'_>) -> Result<T, Error> + Send,
) -> PyResult<T> {
    let mut raised: Option<PyErr> = None;
    let result = py.detach(|| {
        let mut observe = |e: &tailor::advisor::Event| -> bool {
            Python::attach(|py| {
                let go = py.check_signals().and_then(|()| match &progress {
                    None => Ok(true),
                    Some(cb) => cb.bind(py).call1((advise_event(py, e)?,))?.is_truthy(),
                });
                match go {
                    Ok(g) => g,
                    Err(err) => {
                        raised = Some(err);
                        false
                    }
                }
            })
        };
        work(&mut observe)
    });
    let result = match (result, raised.take()) {
        (Err(Error::Cancelled), Some(r)) => Err(Error::Python(r)),
        (r, _) => r,
    };
    result.map_err(|e| e.into_py_err(py))
}

/// Algorithm 1 on the fast model at `capacity_bps` (SWP §3.3), as the least-capacity
/// search runs it at each capacity it tries (its options): the weight advice as JSON
/// (`advisor::WeightAdvice`). The packet-engine searches (python/tailor/swp_packet) start
/// from it at every capacity they try.
#[pyfunction]
#[pyo3(signature = (path, capacity_bps, fair, seed=None, overrides=None, progress=None, model_form=None, host_scaling=None))]
#[allow(clippy::too_many_arguments)]
fn advise_weights<'py>(
    py: Python<'py>,
    path: PathBuf,
    capacity_bps: f64,
    fair: bool,
    seed: Option<u64>,
    overrides: Option<Vec<(String, Bound<'py, PyAny>)>>,
    progress: Option<Py<PyAny>>,
    model_form: Option<String>,
    host_scaling: Option<String>,
) -> PyResult<String> {
    let (form, host_scaling) = reading(model_form.as_deref(), host_scaling.as_deref())?;
    let overrides = to_overrides(&path, overrides).map_err(|e| e.into_py_err(py))?;
    if !(capacity_bps.is_finite() && capacity_bps > 0.0) {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "capacity_bps must be positive, got {capacity_bps}"
        )));
    }
    let opts = tailor::advisor::capacity::SearchOptions::default().optimizer;
    observed(py, progress, |observe| {
        let sc = interruptible(|| Ok(Scenario::resolve(&path, &overrides)?))?.scenario;
        let seed = tailor::scenario::check_seed(&sc.file, seed.unwrap_or(sc.seed))?;
        let mut problem = tailor::advisor::problem::Problem::from_scenario(&sc, seed)?;
        problem.set_reading(&sc, form.unwrap_or(sc.model.form), host_scaling)?;
        let a = tailor::advisor::advise_weights(&problem, fair, capacity_bps, &opts, observe)
            .map_err(|_| Error::Cancelled)?;
        Ok(serde_json::to_string(&a).expect("an advice serializes"))
    })
}

/// One round of Algorithm 1's transfers (`optimizer::transfer`, the model search's step,
/// damping and margin) from `weights` given each class's `losses`; the new weights, summing 1.
#[pyfunction]
fn transfer(weights: Vec<f64>, losses: Vec<f64>) -> PyResult<Vec<f64>> {
    let ok = weights.len() == losses.len()
        && !weights.is_empty()
        && weights.iter().all(|w| w.is_finite() && *w > 0.0)
        && losses.iter().all(|l| l.is_finite());
    if !ok {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "transfer: weights (positive) and losses (finite) must be non-empty and as many",
        ));
    }
    let o = tailor::advisor::capacity::SearchOptions::default().optimizer;
    let mut w = weights;
    tailor::advisor::optimizer::transfer(&mut w, &losses, o.gamma, o.margin);
    tailor::advisor::optimizer::normalize(&mut w);
    Ok(w)
}

fn advise_event<'py>(py: Python<'py>, e: &tailor::advisor::Event) -> PyResult<Bound<'py, PyDict>> {
    use tailor::advisor::Event;
    let d = PyDict::new(py);
    match e {
        Event::Baselines { strategy, capacity_bps, round, rounds } => {
            d.set_item("kind", "baselines")?;
            d.set_item("strategy", strategy.name())?;
            d.set_item("capacity_bps", capacity_bps)?;
            d.set_item("round", round)?;
            d.set_item("rounds", rounds)?;
        }
        Event::Iteration { strategy, capacity_bps, iteration, losses } => {
            d.set_item("kind", "iteration")?;
            d.set_item("strategy", strategy.name())?;
            d.set_item("capacity_bps", capacity_bps)?;
            d.set_item("iteration", iteration)?;
            d.set_item("losses", losses.clone())?;
        }
        Event::Probe { strategy, capacity_bps, lo_bps, hi_bps } => {
            d.set_item("kind", "probe")?;
            d.set_item("strategy", strategy.name())?;
            d.set_item("capacity_bps", capacity_bps)?;
            d.set_item("lo_bps", lo_bps)?;
            d.set_item("hi_bps", hi_bps)?;
        }
        Event::Recheck { strategy, capacity_bps } => {
            d.set_item("kind", "recheck")?;
            d.set_item("strategy", strategy.name())?;
            d.set_item("capacity_bps", capacity_bps)?;
        }
        Event::FifoCheck { of, event } => {
            // The event as it is, marked as part of `of`'s check against shared FIFO.
            let inner = advise_event(py, event)?;
            inner.set_item("check", "fifo")?;
            inner.set_item("of", of.name())?;
            return Ok(inner);
        }
    }
    Ok(d)
}

// ---- The optimizer check (issue 25 item 6; scripts/optimizer_check.py) ----

/// Each class's verdict on the fast model at `capacity_bps`, for each weight vector in
/// `weights` (per-class queues served by weight, per-flow fair queueing inside each class
/// with `fair`), or for shared FIFO when `weights` is None: a JSON list, one list of
/// class verdicts per vector. The scenario's messages are drawn once with `seed` (default
/// the scenario's) and replayed for every vector, as the advisor does; the vectors run in
/// parallel.
#[pyfunction]
#[pyo3(signature = (path, capacity_bps, weights=None, fair=false, seed=None))]
fn swp_evaluate(
    py: Python<'_>,
    path: PathBuf,
    capacity_bps: f64,
    weights: Option<Vec<Vec<f64>>>,
    fair: bool,
    seed: Option<u64>,
) -> PyResult<String> {
    use tailor::model::Sharing;
    let result = py.detach(|| -> Result<String, Error> {
        let problem = swp_problem(&path, seed)?;
        let verdicts: Vec<_> = match weights {
            None => vec![problem.evaluate_all(Sharing::Fifo, capacity_bps)],
            Some(ws) => tailor::advisor::capacity::evaluate_weights(&problem, fair, capacity_bps, &ws),
        };
        Ok(serde_json::to_string(&verdicts).expect("verdicts serialize"))
    });
    result.map_err(|e| e.into_py_err(py))
}

fn swp_problem(path: &Path, seed: Option<u64>) -> Result<tailor::advisor::problem::Problem, Error> {
    let sc = interruptible(|| Ok(Scenario::resolve(path, &[])?))?.scenario;
    let seed = tailor::scenario::check_seed(&sc.file, seed.unwrap_or(sc.seed))?;
    Ok(tailor::advisor::problem::Problem::from_scenario(&sc, seed)?)
}

// ---- end of the optimizer check ----

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", tailor::output::VERSION)?;
    m.add_function(wrap_pyfunction!(transports, m)?)?;
    m.add_function(wrap_pyfunction!(samples_needed, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(slo_counts, m)?)?;
    m.add_function(wrap_pyfunction!(model_scope, m)?)?;
    m.add_function(wrap_pyfunction!(oracle_scope, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(advise, m)?)?;
    m.add_function(wrap_pyfunction!(advise_weights, m)?)?;
    m.add_function(wrap_pyfunction!(transfer, m)?)?;
    m.add_function(wrap_pyfunction!(swp_evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(decomposed::decomposed_links, m)?)?;
    m.add_function(wrap_pyfunction!(decomposed::decomposed_simulate, m)?)?;
    m.add_function(wrap_pyfunction!(decomposed::decomposed_again, m)?)?;
    m.add_function(wrap_pyfunction!(decomposed::decomposed_simulate_again, m)?)?;
    m.add_function(wrap_pyfunction!(decomposed::decomposed_write, m)?)?;
    Ok(())
}
