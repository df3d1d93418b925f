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
//!   capacity from that vector; the report's `above_fifo` says what was found.

use super::optimizer::Options;
use super::problem::{ClassVerdict, Problem};
use super::{advise_weights_from, Cancelled, Event, Observer, Strategy};
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

/// The check of a weighted answer above shared FIFO's least capacity.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AboveFifo {
    /// Shared FIFO's least capacity (the same search, the same tolerance).
    pub fifo_bps: f64,
    /// The weighted search's first answer (None: none up to the limit).
    pub search_bps: Option<f64>,
    /// Weight vectors tried at `fifo_bps`, and how many met every SLO.
    pub grid_points: usize,
    pub grid_met: usize,
    /// The smallest worst loss on the grid (≤ 0 when a vector met).
    pub best_worst_loss: f64,
    /// Where no grid vector met: vectors tried by the compass search from the grid's best
    /// point, and the smallest worst loss it reached (≤ 0 when one met). Zero and the
    /// grid's figure when the grid met.
    pub refine_points: usize,
    pub refined_worst_loss: f64,
    /// Weights meeting every SLO at `fifo_bps` were found (on the grid, or by Algorithm 1
    /// from its best point): an optimizer failure, searched again below `fifo_bps`. False:
    /// no vector tried meets there, the answer stays above FIFO's.
    pub fixed: bool,
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

/// Weight vectors tried at FIFO's capacity: at most [`GRID_POINTS`] on a simplex grid
/// (every component a positive multiple of 1/parts), and from four classes on as many
/// more drawn uniformly on the simplex (a fixed seed: the search stays deterministic).
const GRID_POINTS: usize = 200;

fn grid(classes: usize) -> Vec<Vec<f64>> {
    use rand::{Rng, SeedableRng};
    if classes <= 1 {
        return vec![vec![1.0; classes]];
    }
    let count = |parts: usize| (1..classes).fold(1.0, |acc, i| acc * (parts - i) as f64 / i as f64);
    let parts = (classes..=1000).take_while(|&p| count(p) <= GRID_POINTS as f64).last().unwrap_or(classes);
    let mut out = Vec::new();
    let mut w = vec![1usize; classes];
    compositions(parts, 0, &mut w, &mut |w| out.push(w.iter().map(|&x| x as f64 / parts as f64).collect()));
    if classes >= 4 {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(25);
        for _ in 0..GRID_POINTS {
            let mut v: Vec<f64> = (0..classes).map(|_| rng.sample::<f64, _>(rand_distr::Exp1).max(1e-3)).collect();
            let s: f64 = v.iter().sum();
            v.iter_mut().for_each(|x| *x /= s);
            out.push(v);
        }
    }
    out
}

/// Every way of writing `left` as positive parts in `w[k..]`, each passed to `emit`.
fn compositions(left: usize, k: usize, w: &mut [usize], emit: &mut dyn FnMut(&[usize])) {
    if k + 1 == w.len() {
        w[k] = left;
        emit(w);
        return;
    }
    for x in 1..=left.saturating_sub(w.len() - k - 1) {
        w[k] = x;
        compositions(left - x, k + 1, w, emit);
    }
}

/// At FIFO's least capacity `f`: the grid's vectors, then Algorithm 1 from the best of
/// them. The check's report, and weights meeting every SLO at `f` if any were found.
fn check_at_fifo(
    problem: &Problem,
    strategy: Strategy,
    f: f64,
    search_bps: Option<f64>,
    opts: &SearchOptions,
    observe: &mut Observer<'_>,
) -> Result<(AboveFifo, Option<Vec<f64>>), Cancelled> {
    let fair = strategy == Strategy::WeightsFq;
    if !observe(&Event::Probe { strategy, capacity_bps: f, lo_bps: floor(problem.offered_bps()), hi_bps: search_bps }) {
        return Err(Cancelled);
    }
    let vectors = grid(problem.classes.len());
    let worst: Vec<f64> = evaluate_weights(problem, fair, f, &vectors)
        .iter()
        .map(|v| v.iter().map(|c| c.loss).fold(f64::NEG_INFINITY, f64::max))
        .collect();
    let best =
        (0..vectors.len()).min_by(|&a, &b| worst[a].total_cmp(&worst[b]).then(a.cmp(&b))).expect("a grid has points");
    let mut check = AboveFifo {
        fifo_bps: f,
        search_bps,
        grid_points: vectors.len(),
        grid_met: worst.iter().filter(|&&l| l <= 0.0).count(),
        best_worst_loss: worst[best],
        refine_points: 0,
        refined_worst_loss: worst[best],
        fixed: false,
    };
    let start = if check.grid_met > 0 {
        Some(vectors[best].clone())
    } else {
        let r = refine(problem, fair, f, &vectors[best], worst[best]);
        (check.refine_points, check.refined_worst_loss) = (r.points, r.worst_loss);
        if r.worst_loss <= 0.0 {
            Some(r.weights)
        } else {
            let a = advise_weights_from(problem, fair, f, &opts.optimizer, Some(&r.weights), observe)?;
            all_met(&a.verdicts).then_some(a.weights)
        }
    };
    check.fixed = start.is_some();
    Ok((check, start))
}

/// The compass search's result: the best vector, its worst loss, vectors evaluated.
struct Refined {
    weights: Vec<f64>,
    worst_loss: f64,
    points: usize,
}

/// Rounds of the compass search, and its first, largest and last step (weight moved
/// between two classes).
const REFINE_ROUNDS: usize = 16;
const REFINE_FIRST_STEP: f64 = 0.04;
const REFINE_MAX_STEP: f64 = 0.16;
const REFINE_LAST_STEP: f64 = 0.0025;

/// A compass (pattern) search on the simplex for a vector whose worst loss at `capacity_bps`
/// is ≤ 0, from `start`: each round moves `step` of weight from one class to another, for
/// every ordered pair (the k(k − 1) moves evaluated together), takes the best move if it
/// lowers the worst loss (and doubles the step, to cross a wide slope in few rounds), and
/// halves the step if none does. Feasible regions at FIFO's
/// capacity can be a few hundredths wide (docs/advisor.md, "Optimizer failures,
/// measured"): random draws around the grid's best missed one that this walk reaches,
/// because every move is directed by the worst class's loss.
fn refine(problem: &Problem, fair: bool, capacity_bps: f64, start: &[f64], start_loss: f64) -> Refined {
    let worst = |v: &Vec<ClassVerdict>| v.iter().map(|c| c.loss).fold(f64::NEG_INFINITY, f64::max);
    let (mut w, mut loss, mut points) = (start.to_vec(), start_loss, 0);
    let mut step = REFINE_FIRST_STEP;
    for _ in 0..REFINE_ROUNDS {
        if loss <= 0.0 || step < REFINE_LAST_STEP {
            break;
        }
        let moves = compass_moves(&w, step);
        points += moves.len();
        let best = evaluate_weights(problem, fair, capacity_bps, &moves)
            .iter()
            .map(worst)
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        match best {
            Some((i, l)) if l < loss => {
                (w, loss) = (moves[i].clone(), l);
                step = (step * 2.0).min(REFINE_MAX_STEP);
            }
            _ => step /= 2.0,
        }
    }
    Refined { weights: w, worst_loss: loss, points }
}

/// `w` with `step` of weight moved from class j to class i, for every ordered pair where j
/// keeps a positive weight (at least 0.001: a class with no weight would starve).
fn compass_moves(w: &[f64], step: f64) -> Vec<Vec<f64>> {
    let mut out = Vec::new();
    for i in 0..w.len() {
        for j in 0..w.len() {
            if i != j && w[j] - step >= 1e-3 {
                let mut v = w.to_vec();
                v[i] += step;
                v[j] -= step;
                out.push(v);
            }
        }
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;

    const SCENARIO: &str = r#"
name = "capacity-test"
[topology]
kind = "star"
hosts = 9
link = { rate = "100Gbps", delay = "2.5us" }
[switch]
scheduler = "drr"
ecn_threshold = "100KB"
[transport]
kind = "dctcp"
init_cwnd = "bdp"
max_cwnd = "bdp"

[[class]]
name = "rpc"
sizes = "google"
arrival = "lognormal"
sigma = 2.0
load = 0.1
pattern = "n_to_1"
senders = "0..4"
receiver = 8
until = "6ms"
start = "1ms"
slo = [{ sli = "p99", max_size = "125KB", threshold = 3.0 }]

[[class]]
name = "bulk"
sizes = "hadoop"
arrival = "lognormal"
sigma = 1.5
load = 0.6
pattern = "n_to_1"
senders = "4..8"
receiver = 8
until = "6ms"
start = "1ms"
slo = [
  { sli = "p99", max_size = "125KB", threshold = 8.0 },
  { sli = "p99", min_size = "125KB", threshold = 16.0 },
]
"#;

    fn problem() -> Problem {
        let dir = std::env::temp_dir();
        let sc = crate::scenario::Scenario::parse(SCENARIO, "test.toml", &dir).unwrap_or_else(|e| panic!("{e}"));
        Problem::from_scenario(&sc, 1).unwrap()
    }

    fn quiet() -> impl FnMut(&Event) -> bool {
        |_| true
    }

    #[test]
    fn a_weighted_answer_above_fifo_is_reported_grid_checked_and_fixed() {
        let p = problem();
        let fifo = min_capacity(&p, Strategy::SharedFifo, &SearchOptions::default(), &mut quiet())
            .unwrap()
            .capacity_bps
            .unwrap();
        // A crippled optimizer (no baseline search: equal weights, one evaluation, no
        // restarts) needs more than FIFO here; unchecked, that answer stands silently.
        let weak = Options { baseline_steps: 0, max_iterations: 1, restarts: false, ..Options::default() };
        let unchecked = SearchOptions { optimizer: weak, fifo_check: false, ..SearchOptions::default() };
        let a = min_capacity(&p, Strategy::Weights, &unchecked, &mut quiet()).unwrap();
        let first = a.capacity_bps.unwrap();
        assert!(first > fifo, "weights {first} vs FIFO {fifo}: the case this test needs");
        assert_eq!(a.above_fifo, None);
        // Checked: the grid at FIFO's capacity finds weights, and the search below it.
        let b = min_capacity(&p, Strategy::Weights, &SearchOptions { fifo_check: true, ..unchecked }, &mut quiet())
            .unwrap();
        let check = b.above_fifo.as_ref().expect("reported");
        assert_eq!((check.fifo_bps, check.search_bps), (fifo, Some(first)));
        assert!(check.grid_points >= 100 && check.grid_met > 0 && check.best_worst_loss <= 0.0, "{check:?}");
        assert!(check.fixed);
        let c = b.capacity_bps.unwrap();
        assert!(c <= fifo, "{c} after the check vs FIFO {fifo}");
        assert!(b.verdicts.iter().all(|v| v.met));
        let w = b.weights.unwrap();
        assert!(p.evaluate_all(Sharing::Weighted { weights: w, per_flow_fair: false }, c).iter().all(|v| v.met));
        // The default search needs no check here.
        let d = min_capacity(&p, Strategy::Weights, &SearchOptions::default(), &mut quiet()).unwrap();
        assert!(d.capacity_bps.unwrap() < fifo && d.above_fifo.is_none());
    }

    #[test]
    fn feasibility_does_not_fall_as_the_capacity_rises() {
        let p = problem();
        let opts = SearchOptions::default();
        for s in [Strategy::Weights, Strategy::WeightsFq] {
            let a = min_capacity(&p, s, &opts, &mut quiet()).unwrap();
            let c = a.capacity_bps.unwrap();
            // Every capacity the search tried above its answer met.
            assert!(a.probes.iter().filter(|x| x.capacity_bps >= c).all(|x| x.feasible), "{s:?}: {:?}", a.probes);
            // Up a ladder above the answer, each rung starts from the weights that met below it.
            let mut met = vec![(c, a.weights.clone().unwrap())];
            for f in [1.02, 1.05, 1.1, 1.25, 1.5, 2.0] {
                let t = probe_weights(&p, s, c * f, &met, &opts, &mut quiet()).unwrap();
                assert!(t.feasible, "{s:?} at {f} x {c}: {:?}", t.verdicts);
                met.push((c * f, t.weights.unwrap()));
            }
        }
    }

    #[test]
    fn the_compass_search_walks_from_a_failing_vector_to_one_that_meets() {
        let p = problem();
        let fifo = min_capacity(&p, Strategy::SharedFifo, &SearchOptions::default(), &mut quiet())
            .unwrap()
            .capacity_bps
            .unwrap();
        let worst = |w: &[f64]| {
            p.evaluate_all(Sharing::Weighted { weights: w.to_vec(), per_flow_fair: false }, fifo)
                .iter()
                .map(|c| c.loss)
                .fold(f64::NEG_INFINITY, f64::max)
        };
        // Nearly all the weight on the bulk class queues the small messages behind it: they miss.
        let start = [0.03, 0.97];
        let start_loss = worst(&start);
        assert!(start_loss > 0.0, "the case this test needs: {start_loss}");
        let r = refine(&p, false, fifo, &start, start_loss);
        assert!(r.worst_loss <= 0.0 && r.worst_loss == worst(&r.weights), "{} from {start_loss}", r.worst_loss);
        assert!((r.weights.iter().sum::<f64>() - 1.0).abs() < 1e-9, "moves keep the weights on the simplex");
        assert!(r.points > 0 && r.points <= REFINE_ROUNDS * 2, "{} vectors", r.points);
        // Every move keeps the sum and a positive weight for each class.
        for v in compass_moves(&[0.5, 0.3, 0.2], 0.04) {
            assert!((v.iter().sum::<f64>() - 1.0).abs() < 1e-12 && v.iter().all(|&x| x >= 1e-3));
        }
        assert_eq!(compass_moves(&[0.5, 0.3, 0.2], 0.04).len(), 6);
        assert_eq!(compass_moves(&[0.999, 0.001], 0.04).len(), 1, "a class at the floor gives nothing");
    }

    #[test]
    fn the_grid_covers_the_simplex() {
        for n in 2..=6 {
            let g = grid(n);
            assert!(g.len() >= 30 && g.len() <= 2 * GRID_POINTS, "{n}: {}", g.len());
            assert!(g
                .iter()
                .all(|w| w.len() == n && w.iter().all(|&x| x > 0.0) && (w.iter().sum::<f64>() - 1.0).abs() < 1e-9));
        }
        // Three classes: every vector of positive multiples of 1/21, C(20, 2) of them (1/22
        // would give 210).
        let g = grid(3);
        assert_eq!(g.len(), 190);
        assert!(g.iter().all(|w| w.iter().all(|x| (x * 21.0 - (x * 21.0).round()).abs() < 1e-9)));
        assert!(g.contains(&vec![1.0 / 21.0, 1.0 / 21.0, 19.0 / 21.0]));
        assert_eq!(grid(5), grid(5), "deterministic");
    }
}
