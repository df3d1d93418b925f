//! The decomposed estimator's result (docs/decomposed.md): a run written as a packet
//! run's, and the pieces of it Ray's path runs apart (`tailor-py`'s `decomposed`).

use super::{io_err, run_document, write_result, DecomposedInfo, Estimated, Records, Summary};
use crate::engine::{Progress, RunError};
use crate::scenario::Scenario;
use std::fs;
use std::path::Path;
use std::time::Instant;

/// Runs `sc` with `seed` decomposed (docs/decomposed.md): the same files as a packet run,
/// every latency an estimate; `events` counts the link simulations' events, `ports.csv`
/// has its header only and `network` has no queues (the whole fabric never ran).
/// `given`: the link simulations' results if they ran elsewhere (`decomposed::run`).
pub fn simulate_decomposed(
    sc: &Scenario,
    seed: u64,
    sink: Box<dyn crate::measure::RecordSink>,
    progress: &mut dyn FnMut(&Progress) -> bool,
    given: Option<crate::decomposed::Given>,
) -> Result<Summary, RunError> {
    let started = Instant::now();
    crate::scenario::decomposed::check(sc).map_err(RunError::Scenario)?;
    let (out, rec) = crate::decomposed::run(sc.build(seed)?, sink, progress, given, sc.cluster, sc.feedback)?;
    let run = Estimated {
        events: out.events,
        sim_end: out.sim_end,
        generated: out.generated,
        incomplete_bytes: 0,
        utilization: 0.0,
    };
    let report = run.report(&rec, &[]);
    crate::scenario::check_result(sc, &report).map_err(RunError::Scenario)?;
    let info = DecomposedInfo {
        estimate: true,
        method: "parsimon",
        links: out.links,
        clustered: out.clustered,
        link_messages: out.link_messages,
        buckets: out.buckets,
    };
    Ok(Summary { decomposed: Some(info), ..Summary::new(sc, seed, "decomposed", started, report) })
}

/// The decomposition of `sc` with `seed` (its scope checked): its messages, the links
/// to simulate (numbers for `decomposed_simulate`: every loaded link, or the clusters'
/// representatives with `[decomposed] cluster`), each one's messages, and the messages of
/// the second pass's links (0 without it).
pub fn decomposed_links(sc: &Scenario, seed: u64) -> Result<(u64, Vec<usize>, Vec<u64>, u64), RunError> {
    crate::scenario::decomposed::check(sc).map_err(RunError::Scenario)?;
    let (plan, _, _) = crate::decomposed::plan(sc.build(seed)?)?;
    let which = crate::decomposed::to_simulate(&plan, sc.cluster);
    let work = which.iter().map(|&k| plan.links[k].msgs.len() as u64).collect();
    let again = match sc.feedback {
        true => crate::decomposed::host_uplinks(&plan, &which).iter().map(|&k| plan.links[k].msgs.len() as u64).sum(),
        false => 0,
    };
    Ok((plan.msgs.len() as u64, which, work, again))
}

/// The second pass's inputs of `sc` with `seed` from the first pass's results `first`
/// (every link `decomposed_links` names, in its order): one per host uplink it simulates
/// again, for `decomposed_simulate_again`; none when `[decomposed] feedback = false`.
pub fn decomposed_again(
    sc: &Scenario,
    seed: u64,
    first: &[crate::decomposed::LinkResult],
) -> Result<Vec<crate::decomposed::Again>, RunError> {
    crate::scenario::decomposed::check(sc).map_err(RunError::Scenario)?;
    if !sc.feedback {
        return Ok(Vec::new());
    }
    let (plan, _, _) = crate::decomposed::plan(sc.build(seed)?)?;
    let clusters = crate::decomposed::clusters(&plan, sc.cluster);
    let reps = clusters.representatives();
    if !crate::decomposed::fits(&plan, &reps, first) {
        return Err(RunError::Io(std::io::Error::other(
            "the link results given are not those of this scenario and seed (another build or scenario)",
        )));
    }
    Ok(crate::decomposed::again_inputs(&plan, &clusters, first, seed))
}

/// The second pass's simulations of `inputs` (from `decomposed_again`) on a planned
/// decomposition, in their order.
pub fn decomposed_simulate_again(
    plan: &crate::decomposed::Plan,
    tpl: &crate::decomposed::Template,
    inputs: &[crate::decomposed::Again],
) -> Result<Vec<crate::decomposed::LinkResult>, RunError> {
    inputs.iter().map(|a| crate::decomposed::simulate_again(plan, tpl, a, &|| true)).collect()
}

/// The decomposition of `sc` with `seed` (its scope checked), planned: what
/// `decomposed_simulate` runs links of (a Ray worker keeps it for its next tasks).
pub fn decomposed_plan(
    sc: &Scenario,
    seed: u64,
) -> Result<(crate::decomposed::Plan, crate::decomposed::Template), RunError> {
    crate::scenario::decomposed::check(sc).map_err(RunError::Scenario)?;
    let (plan, tpl, _) = crate::decomposed::plan(sc.build(seed)?)?;
    Ok((plan, tpl))
}

/// The link simulations `which` (numbers from `decomposed_links`) of a planned decomposition.
pub fn decomposed_simulate(
    plan: &crate::decomposed::Plan,
    tpl: &crate::decomposed::Template,
    which: &[usize],
) -> Result<Vec<crate::decomposed::LinkResult>, RunError> {
    if let Some(&k) = which.iter().find(|&&k| k >= plan.links.len()) {
        return Err(RunError::Io(std::io::Error::other(format!(
            "link {k}: the decomposition has {} links",
            plan.links.len()
        ))));
    }
    crate::decomposed::simulate_links(plan, tpl, which)
}

/// Writes the decomposed result of `sc` with `seed` into `dir` from the link results
/// `given` (the first pass's of every link `decomposed_links` names, in its order, and the
/// second pass's of `decomposed_again`'s inputs if it ran elsewhere too), as `write_into`
/// does for a run.
pub fn write_decomposed_into(
    sc: &Scenario,
    seed: u64,
    dir: &Path,
    records: Records,
    given: crate::decomposed::Given,
) -> Result<Summary, RunError> {
    let summary = write_result(dir, records, |sink| {
        simulate_decomposed(sc, seed, sink, &mut |_| true, Some(given)).map(|s| (s, Vec::new()))
    })?;
    let path = dir.join("scenario.toml");
    fs::write(&path, run_document(sc, seed)).map_err(|e| io_err(&path, e))?;
    Ok(summary)
}
