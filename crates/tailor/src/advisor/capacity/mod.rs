//! The least link capacity at which every class meets its SLOs, per sharing strategy
//! (SWP §5.2, Fig. 8–9).
//!
//! The traffic stays fixed (the scenario's messages, drawn once) while the bottleneck's
//! capacity C changes; slowdowns are against the ideal at C, as in the model. For each
//! strategy the feasibility test at C is:
//! - shared FIFO, strict priority: one model run, every class met;
//! - weights, weights + fair queueing: Algorithm 1 at C ends with every class met;
//! - static: each class alone on a FIFO link of its own, each sized by its own search;
//!   the answer is the sum (SWP: "the bandwidth needed for each traffic class to meet
//!   its SLOs independently").
//!
//! The search brackets the answer between the offered load (below which no queue is
//! stable) and a growing upper bound, then bisects to a relative tolerance. It assumes
//! feasibility is monotone in C, which SWP's search also assumes; for the weighted
//! strategies it helps that hold where Algorithm 1 alone does not (docs/advisor.md,
//! "Optimizer failures, measured"):
//! - each probe starts from the weights that met at the nearest feasible capacity: below
//!   the probe they are checked there first (one run; on the model they nearly always
//!   still meet), above it they are Algorithm 1's warm start, before its own restarts;
//! - an answer above shared FIFO's least capacity is checked on a simplex grid of weight
//!   vectors at FIFO's capacity: a vector that meets there (or Algorithm 1 from the
//!   grid's best point) proves the search failed, and it is searched again below FIFO's
//!   capacity from that vector; the report's `above_fifo` says what was found. The
//!   check is the module `above_fifo`; this one holds the searches.

mod above_fifo;
#[cfg(test)]
mod tests;

use super::optimizer::Options;
use super::problem::{ClassVerdict, Problem};
use super::{advise_weights_from, Cancelled, Event, Observer, Strategy};
use crate::measure::slo::Metric;
use crate::model::Sharing;
use serde::Serialize;

use above_fifo::check_at_fifo;
pub use above_fifo::AboveFifo;

#[derive(Clone, Debug, PartialEq)]
pub struct SearchOptions {
    /// Stop when (hi − lo) / hi is below this.
    pub tolerance: f64,
    /// Give up above this multiple of the offered load.
    pub max_factor: f64,
    /// Algorithm 1's options for the weighted strategies.
    pub optimizer: Options,
    /// Check a weighted answer against shared FIFO's least capacity (above).
    pub fifo_check: bool,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            tolerance: 0.01,
            max_factor: 64.0,
            optimizer: Options { baseline_steps: 14, max_iterations: 30, ..Options::default() },
            fifo_check: true,
        }
    }
}

/// One capacity tried.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Probe {
    pub capacity_bps: f64,
    pub feasible: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct CapacityAdvice {
    pub strategy: Strategy,
    /// The least feasible capacity found (None: none up to `limit_bps`).
    pub capacity_bps: Option<f64>,
    pub offered_bps: f64,
    pub limit_bps: f64,
    /// Weights at that capacity (weighted strategies), or the per-class capacities
    /// (static), or the priority levels (strict priority, 0 first).
    pub weights: Option<Vec<f64>>,
    pub levels: Option<Vec<usize>>,
    pub class_capacity_bps: Option<Vec<f64>>,
    /// Each class's SLOs at that capacity.
    pub verdicts: Vec<ClassVerdict>,
    pub probes: Vec<Probe>,
    /// The weighted search's first answer was above shared FIFO's least capacity (or
    /// none): what the check at FIFO's capacity found. None otherwise.
    pub above_fifo: Option<AboveFifo>,
}

/// The level of each class under strict priority: the tightest slowdown SLO first
/// (classes with only latency SLOs after, by their tightest latency), ties by position.
pub fn priority_levels(problem: &Problem) -> Vec<usize> {
    let key = |k: usize| {
        let slos = &problem.classes[k].slos;
        let tightest =
            |m: Metric| slos.iter().filter(|s| s.metric == m).map(|s| s.threshold).fold(f64::INFINITY, f64::min);
        (tightest(Metric::Slowdown), tightest(Metric::Latency), k)
    };
    let mut order: Vec<usize> = (0..problem.classes.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (key(a), key(b));
        x.0.total_cmp(&y.0).then(x.1.total_cmp(&y.1)).then(x.2.cmp(&y.2))
    });
    let mut levels = vec![0; order.len()];
    for (rank, &k) in order.iter().enumerate() {
        levels[k] = rank;
    }
    levels
}

/// What a feasibility test found at one capacity.
#[derive(Clone, Debug)]
pub struct Trial {
    pub feasible: bool,
    pub weights: Option<Vec<f64>>,
    pub verdicts: Vec<ClassVerdict>,
}

fn all_met(v: &[ClassVerdict]) -> bool {
    v.iter().all(|c| c.met)
}

fn trial(problem: &Problem, strategy: Strategy, c: f64) -> Trial {
    match strategy {
        Strategy::SharedFifo => {
            let verdicts = problem.evaluate_all(Sharing::Fifo, c);
            Trial { feasible: all_met(&verdicts), weights: None, verdicts }
        }
        Strategy::Priority => {
            let verdicts = problem.evaluate_all(Sharing::Priority(priority_levels(problem)), c);
            Trial { feasible: all_met(&verdicts), weights: None, verdicts }
        }
        Strategy::Weights | Strategy::WeightsFq => unreachable!("the weighted strategies carry weights between probes"),
        Strategy::Static => unreachable!("static sizes each class on its own"),
    }
}

/// A search's answer (the least capacity that held, with what held there), and its probes.
type Found<T> = (Option<(f64, T)>, Vec<Probe>);

/// Brackets and bisects the least `c` at which `test(c)` holds, between `lo` (assumed
/// infeasible, positive) and `limit`; from `known`, a capacity known to hold, when given
/// (no bracketing).
fn bisect<T>(
    lo: f64,
    limit: f64,
    tolerance: f64,
    known: Option<(f64, T)>,
    mut test: impl FnMut(f64, f64, Option<f64>) -> Result<(bool, T), Cancelled>,
) -> Result<Found<T>, Cancelled> {
    let mut probes = Vec::new();
    let (mut lo, mut hi): (f64, Option<(f64, T)>) = (lo, known);
    let mut c = lo * 1.25;
    // Bracket: grow until feasible.
    while hi.is_none() {
        let (ok, t) = test(c, lo, None)?;
        probes.push(Probe { capacity_bps: c, feasible: ok });
        if ok {
            hi = Some((c, t));
        } else if c >= limit {
            return Ok((None, probes));
        } else {
            lo = c;
            c = (c * 2.0).min(limit);
        }
    }
    let mut best = hi.expect("bracketed");
    while (best.0 - lo) / best.0 > tolerance {
        let mid = 0.5 * (lo + best.0);
        let (ok, t) = test(mid, lo, Some(best.0))?;
        probes.push(Probe { capacity_bps: mid, feasible: ok });
        if ok {
            best = (mid, t);
        } else {
            lo = mid;
        }
    }
    Ok((Some(best), probes))
}

/// The least capacity at which `strategy` meets every class's SLOs.
pub fn min_capacity(
    problem: &Problem,
    strategy: Strategy,
    opts: &SearchOptions,
    observe: &mut Observer<'_>,
) -> Result<CapacityAdvice, Cancelled> {
    if strategy == Strategy::Static {
        return min_static(problem, opts, observe);
    }
    if matches!(strategy, Strategy::Weights | Strategy::WeightsFq) {
        return min_weighted(problem, strategy, opts, observe);
    }
    let offered = problem.offered_bps();
    let limit = floor(offered) * opts.max_factor;
    let levels = (strategy == Strategy::Priority).then(|| priority_levels(problem));
    let (found, probes) = bisect(floor(offered), limit, opts.tolerance, None, |c, lo, hi| {
        if !observe(&Event::Probe { strategy, capacity_bps: c, lo_bps: lo, hi_bps: hi }) {
            return Err(Cancelled);
        }
        let t = trial(problem, strategy, c);
        Ok((t.feasible, t))
    })?;
    Ok(answer(strategy, offered, limit, found, levels, probes, None))
}

/// The weighted strategies' search, checked against shared FIFO's least capacity.
fn min_weighted(
    problem: &Problem,
    strategy: Strategy,
    opts: &SearchOptions,
    observe: &mut Observer<'_>,
) -> Result<CapacityAdvice, Cancelled> {
    let offered = problem.offered_bps();
    let limit = floor(offered) * opts.max_factor;
    let (mut found, mut probes) = search_weights(problem, strategy, opts, None, observe)?;
    let mut above_fifo = None;
    if opts.fifo_check {
        let (check, start) = {
            // The check's events come wrapped, so that progress tells them from the searches'.
            let mut checking = |e: &Event| observe(&Event::FifoCheck { of: strategy, event: Box::new(e.clone()) });
            let fifo = min_capacity(problem, Strategy::SharedFifo, opts, &mut checking)?.capacity_bps;
            match fifo.filter(|&f| found.as_ref().is_none_or(|(c, _)| *c > f)) {
                Some(f) => {
                    let (check, start) =
                        check_at_fifo(problem, strategy, f, found.as_ref().map(|x| x.0), opts, &mut checking)?;
                    (Some(check), start.map(|w| (f, w)))
                }
                None => (None, None),
            }
        };
        if let Some(check) = check {
            if let Some((f, w)) = start {
                let (again, more) = search_weights(problem, strategy, opts, Some((f, w)), observe)?;
                found = again;
                probes.extend(more);
            }
            above_fifo = Some(check);
        }
    }
    Ok(answer(strategy, offered, limit, found, None, probes, above_fifo))
}

/// The advice of a bisected search: its answer's capacity, weights and verdicts, if any.
fn answer(
    strategy: Strategy,
    offered_bps: f64,
    limit_bps: f64,
    found: Option<(f64, Trial)>,
    levels: Option<Vec<usize>>,
    probes: Vec<Probe>,
    above_fifo: Option<AboveFifo>,
) -> CapacityAdvice {
    let (capacity_bps, weights, verdicts) = match found {
        Some((c, t)) => (Some(c), t.weights, t.verdicts),
        None => (None, None, Vec::new()),
    };
    CapacityAdvice {
        strategy,
        capacity_bps,
        offered_bps,
        limit_bps,
        weights,
        levels,
        class_capacity_bps: None,
        verdicts,
        probes,
        above_fifo,
    }
}

/// Bisection for a weighted strategy, each probe starting from the weights that met at
/// the nearest feasible capacity (`known`: one, which then brackets the search).
fn search_weights(
    problem: &Problem,
    strategy: Strategy,
    opts: &SearchOptions,
    known: Option<(f64, Vec<f64>)>,
    observe: &mut Observer<'_>,
) -> Result<Found<Trial>, Cancelled> {
    let fair = strategy == Strategy::WeightsFq;
    let mut met: Vec<(f64, Vec<f64>)> = known.iter().cloned().collect();
    let known = known.map(|(c, w)| {
        let verdicts = problem.evaluate_all(Sharing::Weighted { weights: w.clone(), per_flow_fair: fair }, c);
        (c, Trial { feasible: all_met(&verdicts), weights: Some(w), verdicts })
    });
    let floor = floor(problem.offered_bps());
    bisect(floor, floor * opts.max_factor, opts.tolerance, known, |c, lo, hi| {
        if !observe(&Event::Probe { strategy, capacity_bps: c, lo_bps: lo, hi_bps: hi }) {
            return Err(Cancelled);
        }
        let t = probe_weights(problem, strategy, c, &met, opts, observe)?;
        if t.feasible {
            met.push((c, t.weights.clone().expect("weighted")));
        }
        Ok((t.feasible, t))
    })
}

/// Whether weights meet every SLO at `c`, given the weights that met at other capacities
/// (`met`): those of the nearest one, if it is below `c`, are checked at `c` first (more
/// capacity, the same weights); otherwise, or if they miss, Algorithm 1 runs with them as
/// its warm start.
pub fn probe_weights(
    problem: &Problem,
    strategy: Strategy,
    c: f64,
    met: &[(f64, Vec<f64>)],
    opts: &SearchOptions,
    observe: &mut Observer<'_>,
) -> Result<Trial, Cancelled> {
    let fair = strategy == Strategy::WeightsFq;
    let near = met.iter().min_by(|a, b| (a.0 - c).abs().total_cmp(&(b.0 - c).abs()).then(b.0.total_cmp(&a.0)));
    if let Some((_, w)) = near.filter(|(c0, _)| *c0 <= c) {
        let verdicts = problem.evaluate_all(Sharing::Weighted { weights: w.clone(), per_flow_fair: fair }, c);
        if all_met(&verdicts) {
            return Ok(Trial { feasible: true, weights: Some(w.clone()), verdicts });
        }
    }
    let a = advise_weights_from(problem, fair, c, &opts.optimizer, near.map(|n| n.1.as_slice()), observe)?;
    Ok(Trial { feasible: all_met(&a.verdicts), weights: Some(a.weights), verdicts: a.verdicts })
}

/// The search's lower end: the offered load, and at least 1 Mbps (a class of one
/// message offers no rate).
fn floor(offered_bps: f64) -> f64 {
    offered_bps.max(1e6)
}

/// Static provisioning: each class's own least capacity, alone on a FIFO link of its
/// own; the answer is the sum.
fn min_static(
    problem: &Problem,
    opts: &SearchOptions,
    observe: &mut Observer<'_>,
) -> Result<CapacityAdvice, Cancelled> {
    let offered = problem.offered_bps();
    let mut probes = Vec::new();
    let mut caps = Vec::new();
    let mut verdicts = Vec::new();
    let mut advice = CapacityAdvice {
        strategy: Strategy::Static,
        capacity_bps: None,
        offered_bps: offered,
        limit_bps: floor(offered) * opts.max_factor,
        weights: None,
        levels: None,
        class_capacity_bps: None,
        verdicts: Vec::new(),
        probes: Vec::new(),
        above_fifo: None,
    };
    for k in 0..problem.classes.len() {
        let own = floor(problem.classes[k].offered_bps());
        let (found, p) = bisect(own, own * opts.max_factor, opts.tolerance, None, |c, lo, hi| {
            if !observe(&Event::Probe { strategy: Strategy::Static, capacity_bps: c, lo_bps: lo, hi_bps: hi }) {
                return Err(Cancelled);
            }
            let v = problem.evaluate(&[k], Sharing::Fifo, c).remove(0);
            Ok((v.met, v))
        })?;
        probes.extend(p);
        let Some((c, v)) = found else {
            advice.probes = probes;
            return Ok(advice);
        };
        caps.push(c);
        verdicts.push(v);
    }
    advice.capacity_bps = Some(caps.iter().sum());
    advice.class_capacity_bps = Some(caps);
    advice.verdicts = verdicts;
    advice.probes = probes;
    Ok(advice)
}

/// Each class's verdicts on the model at `capacity_bps` for each weight vector (per-class
/// queues served by weight; per-flow fair queueing inside each class with `fair`), the
/// vectors in parallel.
pub fn evaluate_weights(
    problem: &Problem,
    fair: bool,
    capacity_bps: f64,
    vectors: &[Vec<f64>],
) -> Vec<Vec<ClassVerdict>> {
    use rayon::prelude::*;
    vectors
        .par_iter()
        .map(|w| problem.evaluate_all(Sharing::Weighted { weights: w.clone(), per_flow_fair: fair }, capacity_bps))
        .collect()
}
