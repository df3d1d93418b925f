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
//! feasibility is monotone in C, which SWP's search also assumes.

use super::optimizer::Options;
use super::problem::{ClassVerdict, Problem};
use super::{advise_weights, Cancelled, Event, Observer, Strategy};
use crate::measure::slo::Metric;
use crate::model::Sharing;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq)]
pub struct SearchOptions {
    /// Stop when (hi − lo) / hi is below this.
    pub tolerance: f64,
    /// Give up above this multiple of the offered load.
    pub max_factor: f64,
    /// Algorithm 1's options for the weighted strategies.
    pub optimizer: Options,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            tolerance: 0.01,
            max_factor: 64.0,
            optimizer: Options { baseline_steps: 14, max_iterations: 30, ..Options::default() },
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
}

/// The level of each class under strict priority: the tightest slowdown SLO first
/// (classes with only latency SLOs after, by their tightest latency), ties by position.
pub fn priority_levels(problem: &Problem) -> Vec<usize> {
    let key = |k: usize| {
        let slos = &problem.classes[k].slos;
        let tightest = |m: Metric| slos.iter().filter(|s| s.metric == m).map(|s| s.threshold).fold(f64::INFINITY, f64::min);
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
struct Trial {
    feasible: bool,
    weights: Option<Vec<f64>>,
    verdicts: Vec<ClassVerdict>,
}

fn all_met(v: &[ClassVerdict]) -> bool {
    v.iter().all(|c| c.met)
}

fn trial(problem: &Problem, strategy: Strategy, c: f64, opts: &SearchOptions, observe: &mut Observer<'_>) -> Result<Trial, Cancelled> {
    Ok(match strategy {
        Strategy::SharedFifo => {
            let verdicts = problem.evaluate_all(Sharing::Fifo, c);
            Trial { feasible: all_met(&verdicts), weights: None, verdicts }
        }
        Strategy::Priority => {
            let verdicts = problem.evaluate_all(Sharing::Priority(priority_levels(problem)), c);
            Trial { feasible: all_met(&verdicts), weights: None, verdicts }
        }
        Strategy::Weights | Strategy::WeightsFq => {
            let a = advise_weights(problem, strategy == Strategy::WeightsFq, c, &opts.optimizer, observe)?;
            Trial { feasible: all_met(&a.verdicts), weights: Some(a.weights), verdicts: a.verdicts }
        }
        Strategy::Static => unreachable!("static sizes each class on its own"),
    })
}

/// Brackets and bisects the least `c` at which `test(c)` holds, between `lo` (assumed
/// infeasible, positive) and `limit`.
fn bisect<T>(
    lo: f64,
    limit: f64,
    tolerance: f64,
    mut test: impl FnMut(f64, f64, Option<f64>) -> Result<(bool, T), Cancelled>,
) -> Result<(Option<(f64, T)>, Vec<Probe>), Cancelled> {
    let mut probes = Vec::new();
    let (mut lo, mut hi): (f64, Option<(f64, T)>) = (lo, None);
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
pub fn min_capacity(problem: &Problem, strategy: Strategy, opts: &SearchOptions, observe: &mut Observer<'_>) -> Result<CapacityAdvice, Cancelled> {
    if strategy == Strategy::Static {
        return min_static(problem, opts, observe);
    }
    let offered = problem.offered_bps();
    let limit = floor(offered) * opts.max_factor;
    let levels = (strategy == Strategy::Priority).then(|| priority_levels(problem));
    let (found, probes) = bisect(floor(offered), limit, opts.tolerance, |c, lo, hi| {
        if !observe(&Event::Probe { strategy, capacity_bps: c, lo_bps: lo, hi_bps: hi }) {
            return Err(Cancelled);
        }
        let t = trial(problem, strategy, c, opts, observe)?;
        Ok((t.feasible, t))
    })?;
    let (capacity_bps, weights, verdicts) = match found {
        Some((c, t)) => (Some(c), t.weights, t.verdicts),
        None => (None, None, Vec::new()),
    };
    Ok(CapacityAdvice {
        strategy,
        capacity_bps,
        offered_bps: offered,
        limit_bps: limit,
        weights,
        levels,
        class_capacity_bps: None,
        verdicts,
        probes,
    })
}

/// The search's lower end: the offered load, and at least 1 Mbps (a class of one
/// message offers no rate).
fn floor(offered_bps: f64) -> f64 {
    offered_bps.max(1e6)
}

/// Static provisioning: each class's own least capacity, alone on a FIFO link of its
/// own; the answer is the sum.
fn min_static(problem: &Problem, opts: &SearchOptions, observe: &mut Observer<'_>) -> Result<CapacityAdvice, Cancelled> {
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
    };
    for k in 0..problem.classes.len() {
        let own = floor(problem.classes[k].offered_bps());
        let (found, p) = bisect(own, own * opts.max_factor, opts.tolerance, |c, lo, hi| {
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
