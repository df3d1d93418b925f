//! The decomposed estimator's pieces for the Python front's Ray path (docs/decomposed.md,
//! "Running it on Ray"): the link simulations of a scenario, a slice of them run in a
//! Ray task, and the result written from all of them. Each piece resolves the scenario
//! and plans the decomposition itself, so a task carries only the scenario's path,
//! overrides, seed and link numbers; a worker keeps its last plan for its next tasks
//! of the same scenario and seed (planning the 6,144-host fabric took 0.8 s a task).

use crate::errors::Error;
use crate::{interruptible, to_overrides};
use pyo3::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tailor::decomposed::{Again, Delay, Given, LinkResult, Plan, Template, Told};
use tailor::scenario::{Override, Scenario};
use tailor::sim::Time;

type Overrides<'py> = Option<Vec<(String, Bound<'py, PyAny>)>>;

fn resolved(path: &Path, overrides: &[Override], seed: Option<u64>) -> Result<(Scenario, u64), Error> {
    let sc = interruptible(|| Ok(Scenario::resolve(path, overrides)?))?.scenario;
    let seed = tailor::scenario::check_seed(&sc.file, seed.unwrap_or(sc.seed))?;
    Ok((sc, seed))
}

/// The scenario's messages, the links to simulate (every loaded link, or the clusters'
/// representatives), the messages of each, and those of the second pass's links (its
/// scope checked: a ScenarioError names the key the decomposition refuses).
#[pyfunction]
#[pyo3(signature = (path, seed=None, overrides=None))]
pub fn decomposed_links<'py>(
    py: Python<'py>,
    path: PathBuf,
    seed: Option<u64>,
    overrides: Overrides<'py>,
) -> PyResult<(u64, Vec<usize>, Vec<u64>, u64)> {
    let overrides = to_overrides(&path, overrides).map_err(|e| e.into_py_err(py))?;
    py.detach(|| -> Result<(u64, Vec<usize>, Vec<u64>, u64), Error> {
        let (sc, seed) = resolved(&path, &overrides, seed)?;
        Ok(tailor::output::decomposed_links(&sc, seed)?)
    })
    .map_err(|e| e.into_py_err(py))
}

/// The last decomposition this process planned: (its scenario's identity, seed) and plan.
type Planned = (String, u64, Arc<(Plan, Template)>);
static PLANNED: Mutex<Option<Planned>> = Mutex::new(None);

/// The plan of the scenario at `path` with `overrides` and `seed`: the last one if it was
/// of the same resolved scenario (its identity: document and size tables) and seed.
fn planned(path: &Path, overrides: &[Override], seed: Option<u64>) -> Result<Arc<(Plan, Template)>, Error> {
    let r = interruptible(|| Ok(Scenario::resolve(path, overrides)?))?;
    let seed = tailor::scenario::check_seed(&r.scenario.file, seed.unwrap_or(r.scenario.seed))?;
    let mut last = PLANNED.lock().expect("no planning panicked");
    if let Some((id, s, p)) = last.as_ref() {
        if *id == r.identity && *s == seed && r.inputs.is_empty() {
            return Ok(p.clone());
        }
    }
    let p = Arc::new(tailor::output::decomposed_plan(&r.scenario, seed)?);
    *last = Some((r.identity, seed, p.clone()));
    Ok(p)
}

/// Runs the link simulations `which` and returns their results as JSON text.
#[pyfunction]
#[pyo3(signature = (path, which, seed=None, overrides=None))]
pub fn decomposed_simulate<'py>(
    py: Python<'py>,
    path: PathBuf,
    which: Vec<usize>,
    seed: Option<u64>,
    overrides: Overrides<'py>,
) -> PyResult<String> {
    on_plan(py, path, seed, overrides, |plan, tpl| {
        let results = tailor::output::decomposed_simulate(plan, tpl, &which)?;
        Ok(rows(&results, &which, &tpl.solo.untold()))
    })
}

/// `f` on the plan of the scenario at `path` (kept for the worker's next task).
fn on_plan<'py>(
    py: Python<'py>,
    path: PathBuf,
    seed: Option<u64>,
    overrides: Overrides<'py>,
    f: impl FnOnce(&Plan, &Template) -> Result<String, Error> + Send,
) -> PyResult<String> {
    let overrides = to_overrides(&path, overrides).map_err(|e| e.into_py_err(py))?;
    py.detach(|| -> Result<String, Error> {
        let p = planned(&path, &overrides, seed)?;
        f(&p.0, &p.1)
    })
    .map_err(|e| e.into_py_err(py))
}

/// Link results as the JSON text `decomposed_write` reads (`which`: their link numbers),
/// with the simulations of messages alone the task ran first (`solo`).
fn rows(results: &[LinkResult], which: &[usize], solo: &[Told]) -> String {
    let rows: Vec<serde_json::Value> = results
        .iter()
        .zip(which)
        .map(|(r, k)| {
            let delays: Vec<u64> = r.delays.iter().map(|d| d.total.ps()).collect();
            let latencies: Vec<u64> = r.delays.iter().map(|d| d.latency.ps()).collect();
            serde_json::json!({"link": k, "port": r.port.index(), "events": r.events, "delays_ps": delays,
                "latencies_ps": latencies})
        })
        .collect();
    let solo: Vec<[u64; 2]> = solo.iter().map(|t| [t.part, t.events]).collect();
    serde_json::to_string(&serde_json::json!({"links": rows, "solo": solo})).expect("link results serialize")
}

/// The second pass's inputs from the first pass's results (the JSON texts of
/// `decomposed_simulate` covering every link `decomposed_links` names): one JSON text per
/// host uplink to simulate again, and its messages; none without the second pass.
#[pyfunction]
#[pyo3(signature = (path, results, seed=None, overrides=None))]
pub fn decomposed_again<'py>(
    py: Python<'py>,
    path: PathBuf,
    results: Vec<String>,
    seed: Option<u64>,
    overrides: Overrides<'py>,
) -> PyResult<(Vec<String>, Vec<u64>)> {
    let overrides = to_overrides(&path, overrides).map_err(|e| e.into_py_err(py))?;
    py.detach(|| -> Result<(Vec<String>, Vec<u64>), Error> {
        let (sc, seed) = resolved(&path, &overrides, seed)?;
        let (first, _) = parsed(&results)?;
        let inputs = tailor::output::decomposed_again(&sc, seed, &first)?;
        let work = inputs.iter().map(|a| a.rates.len() as u64).collect();
        let texts = inputs
            .iter()
            .map(|a| {
                let worst: Vec<u64> = a.worst.iter().map(|t| t.ps()).collect();
                let v = serde_json::json!({"link": a.link, "rates": a.rates, "worst_ps": worst});
                serde_json::to_string(&v).expect("second-pass inputs serialize")
            })
            .collect();
        Ok((texts, work))
    })
    .map_err(|e| e.into_py_err(py))
}

/// Runs the second pass's simulations of `inputs` (texts of `decomposed_again`) and
/// returns their results as JSON text.
#[pyfunction]
#[pyo3(signature = (path, inputs, seed=None, overrides=None))]
pub fn decomposed_simulate_again<'py>(
    py: Python<'py>,
    path: PathBuf,
    inputs: Vec<String>,
    seed: Option<u64>,
    overrides: Overrides<'py>,
) -> PyResult<String> {
    on_plan(py, path, seed, overrides, |plan, tpl| {
        let again = inputs.iter().map(|t| parse_again(t)).collect::<Result<Vec<_>, _>>()?;
        let results = tailor::output::decomposed_simulate_again(plan, tpl, &again)?;
        let which: Vec<usize> = again.iter().map(|a| a.link).collect();
        Ok(rows(&results, &which, &tpl.solo.untold()))
    })
}

fn parse_again(text: &str) -> Result<Again, Error> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(bad)?;
    let link = v.get("link").and_then(|k| k.as_u64());
    let rates: Option<Vec<f64>> =
        v.get("rates").and_then(|r| r.as_array()).and_then(|r| r.iter().map(|x| x.as_f64()).collect());
    let worst: Option<Vec<Time>> = v
        .get("worst_ps")
        .and_then(|r| r.as_array())
        .and_then(|r| r.iter().map(|x| x.as_u64().map(Time::from_ps)).collect());
    match (link, rates, worst) {
        (Some(link), Some(rates), Some(worst)) => Ok(Again { link: link as usize, rates, worst }),
        _ => Err(bad("second-pass inputs without link, rates or worst_ps")),
    }
}

/// Link results from the JSON texts of `decomposed_simulate` (or `_again`), in link order,
/// and the simulations alone their tasks ran.
fn parsed(results: &[String]) -> Result<(Vec<LinkResult>, Vec<Told>), Error> {
    let mut by_link: Vec<(usize, LinkResult)> = Vec::new();
    let mut solo = Vec::new();
    for text in results {
        let v: serde_json::Value = serde_json::from_str(text).map_err(bad)?;
        let (Some(rows), Some(told)) = (v.get("links").and_then(|r| r.as_array()), told(&v)) else {
            return Err(bad("a task's results without links, or solo as [part, events] pairs"));
        };
        solo.extend(told);
        for row in rows {
            by_link.push(parse(row).ok_or_else(|| {
                bad("a link result without link, port, events, delays_ps or latencies_ps of equal length")
            })?);
        }
    }
    by_link.sort_by_key(|(k, _)| *k);
    Ok((by_link.into_iter().map(|(_, r)| r).collect(), solo))
}

/// The `solo` pairs of a task's results.
fn told(v: &serde_json::Value) -> Option<Vec<Told>> {
    let pair = |p: &serde_json::Value| -> Option<Told> {
        match p.as_array()?.as_slice() {
            [part, events] => Some(Told { part: part.as_u64()?, events: events.as_u64()? }),
            _ => None,
        }
    };
    v.get("solo")?.as_array()?.iter().map(pair).collect()
}

/// Writes the decomposed result into the existing directory `out` from the JSON texts of
/// `decomposed_simulate` covering every link `decomposed_links` names, and those of
/// `decomposed_simulate_again` covering every input of `decomposed_again` when the second
/// pass ran on Ray too (`again`; None runs it here); returns the summary as JSON text.
#[pyfunction]
#[pyo3(signature = (path, out, results, seed=None, overrides=None, csv=false, again=None))]
#[allow(clippy::too_many_arguments)]
pub fn decomposed_write<'py>(
    py: Python<'py>,
    path: PathBuf,
    out: PathBuf,
    results: Vec<String>,
    seed: Option<u64>,
    overrides: Overrides<'py>,
    csv: bool,
    again: Option<Vec<String>>,
) -> PyResult<String> {
    let overrides = to_overrides(&path, overrides).map_err(|e| e.into_py_err(py))?;
    py.detach(|| -> Result<String, Error> {
        let (sc, seed) = resolved(&path, &overrides, seed)?;
        let (first, mut solo) = parsed(&results)?;
        let again = match again.as_deref().map(parsed).transpose()? {
            Some((again, told)) => {
                solo.extend(told);
                Some(again)
            }
            None => None,
        };
        let given = Given { first, again, solo };
        let records = if csv { tailor::output::Records::Both } else { tailor::output::Records::Parquet };
        let summary = tailor::output::write_decomposed_into(&sc, seed, &out, records, given)?;
        Ok(serde_json::to_string(&summary).expect("a summary serializes"))
    })
    .map_err(|e| e.into_py_err(py))
}

fn parse(row: &serde_json::Value) -> Option<(usize, LinkResult)> {
    let k = row.get("link")?.as_u64()? as usize;
    let port = tailor::net::ids::PortId::new(row.get("port")?.as_u64()? as usize);
    let events = row.get("events")?.as_u64()?;
    let ps = |key: &str| -> Option<Vec<Time>> {
        row.get(key)?.as_array()?.iter().map(|d| d.as_u64().map(Time::from_ps)).collect()
    };
    let (totals, latencies) = (ps("delays_ps")?, ps("latencies_ps")?);
    if totals.len() != latencies.len() {
        return None;
    }
    let delays = totals.into_iter().zip(latencies).map(|(total, latency)| Delay { total, latency }).collect();
    Some((k, LinkResult { port, delays, events, seen: Default::default() }))
}

fn bad(e: impl std::fmt::Display) -> Error {
    Error::from(tailor::engine::RunError::Io(std::io::Error::other(format!("decomposed link results: {e}"))))
}
