//! SWP's weight optimizer (§3.3, Algorithm 1; restated in docs/papers.md).
//!
//! 1. **Baselines.** For each class, the smallest weight that meets its SLO when every
//!    other class is always backlogged — a bisection on the weight; the classes are
//!    independent, so their searches run in parallel (rayon).
//! 2. Normalize the baselines to sum 1.
//! 3. **Loop.** Evaluate all classes together; sort the losses; pair the smallest with
//!    the largest, the second smallest with the second largest, and so on; in a pair
//!    where the first meets its SLO (loss < 0) and the second misses it (loss > 0), move
//!    weight from the first to the second in proportion to the second's loss. Stop with
//!    success when every loss is ≤ 0, with failure when no loss is negative (nothing to
//!    give) or after `max_iterations`.
//!
//! The transfer, which the paper leaves unspecified, is
//! Δ = γ · min(w_j (loss_j + m) / (1 − m), −loss_i · w_i): for a loss of the form
//! d / w − 1 the receiver j reaches loss −m (a margin m inside its SLO) with
//! w_j (loss_j + m) / (1 − m) more, and the donor i can spare −loss_i · w_i without
//! missing its own; γ = 1 lands there in one step, γ < 1 damps oscillation when losses
//! are not of that form, and the margin makes damped steps cross the boundary instead of
//! creeping up to it.
//!
//! **Restarts** (not in the paper; docs/advisor.md, "Optimizer failures, measured"). The
//! loop is a local search and can stop short (no slack, or an oscillation) where another
//! start succeeds. When a run fails, the loop runs again from equal weights and from
//! load-proportional weights (each class's share of the offered load), skipping a start
//! equal to one already run. A capacity search may instead give a warm start (weights
//! that met at a nearby capacity), run before the baselines. The answer is the first point meeting
//! every SLO, else the point of any run whose worst loss was smallest. Restarts run only
//! after a failure, so a search that succeeds costs what it did.

use rayon::prelude::*;

/// Gives the losses of weight vectors.
pub trait Evaluator: Sync {
    /// Loss of each class when all classes run together with these (normalized) weights.
    fn losses(&self, weights: &[f64]) -> Vec<f64>;
    /// Loss of class `k` with weight `w` against every other class always backlogged.
    fn baseline_loss(&self, k: usize, w: f64) -> f64;
    /// A weight below which class k certainly misses (its baseline is searched above it).
    fn least_weight(&self, _k: usize) -> f64 {
        0.0
    }
    /// Class k's offered load, in any unit common to the classes (the load-proportional
    /// restart weighs by it); the same for every class unless the evaluator knows better.
    fn load(&self, _k: usize) -> f64 {
        1.0
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    pub max_iterations: usize,
    /// Damping γ of each transfer, in (0, 1].
    pub gamma: f64,
    /// Bisection steps of each baseline search.
    pub baseline_steps: usize,
    /// Loss a receiving class is steered to (−margin), in [0, 1).
    pub margin: f64,
    /// The least baseline weight searched. It bounds the search's cost (a model run at
    /// weight w serves a class at w·C, and takes about 1/w as long).
    pub min_weight: f64,
    /// Run the loop again from equal and from load-proportional weights when a run fails
    /// (false: Algorithm 1 as the paper states it, one run).
    pub restarts: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { max_iterations: 50, gamma: 1.0, baseline_steps: 30, margin: 0.02, min_weight: 1e-3, restarts: true }
    }
}

/// Where a run of the loop started.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Start {
    /// Weights given by the caller (a capacity search's weights from a nearby capacity).
    Warm,
    /// The normalized baselines: Algorithm 1's own start.
    Baselines,
    /// Every class the same weight.
    Equal,
    /// Each class's share of the offered load ([`Evaluator::load`]).
    Load,
}

/// One run of the loop: where it started, the index of its first point in the
/// trajectory, and how it ended.
#[derive(Copy, Clone, Debug, PartialEq, serde::Serialize)]
pub struct Run {
    pub start: Start,
    pub first: usize,
    pub outcome: Outcome,
}

/// What the optimizer shows its observer.
#[derive(Copy, Clone, Debug)]
pub enum Progress<'a> {
    /// A round of the baseline bisections (every class one step) is about to run.
    Baseline { round: usize, rounds: usize },
    /// A point of the loop was evaluated.
    Step { index: usize, step: &'a Step },
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Step {
    pub weights: Vec<f64>,
    pub losses: Vec<f64>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Every class meets its SLO with the last weights.
    Met,
    /// No class had slack to give.
    NoSlack,
    /// The iteration limit was reached.
    TimedOut,
    /// The observer asked to stop.
    Stopped,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Optimized {
    /// How the run holding the answer ended (`Met` when any run met every SLO).
    pub outcome: Outcome,
    /// Empty when the baselines were not needed (a warm start met).
    pub baselines: Vec<f64>,
    /// Every evaluated point of every run, in order.
    pub trajectory: Vec<Step>,
    pub runs: Vec<Run>,
}

impl Optimized {
    /// The index of the answer in the trajectory: the last point when every class is
    /// met (runs stop at the first such point); otherwise the point of any run whose
    /// worst loss was smallest (the closest the search came), the earliest of equals.
    /// None when the search stopped before evaluating a point.
    pub fn chosen(&self) -> Option<usize> {
        if self.outcome == Outcome::Met {
            return self.trajectory.len().checked_sub(1);
        }
        let worst = |s: &Step| s.losses.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (0..self.trajectory.len())
            .min_by(|&a, &b| worst(&self.trajectory[a]).total_cmp(&worst(&self.trajectory[b])).then(a.cmp(&b)))
    }

    /// The answer's weights (see [`Optimized::chosen`]).
    pub fn weights(&self) -> Option<&[f64]> {
        self.chosen().map(|i| self.trajectory[i].weights.as_slice())
    }
}

/// A bisection for one class's baseline: the answer lies in (lo, hi].
#[derive(Copy, Clone, Debug)]
struct Bisection {
    lo: f64,
    hi: f64,
    done: bool,
}

impl Bisection {
    /// A class that misses with the whole link gets 1. Otherwise the answer lies in
    /// (lo, 1] with lo the larger of `min_weight` and the evaluator's `least_weight` (below
    /// which the class cannot meet its SLOs); the floor itself is never run, as a model
    /// run at weight w costs about 1/w.
    fn start(eval: &dyn Evaluator, k: usize, min_weight: f64) -> Bisection {
        if eval.baseline_loss(k, 1.0) > 0.0 {
            return Bisection { lo: 1.0, hi: 1.0, done: true };
        }
        Bisection { lo: min_weight.max(eval.least_weight(k)).min(1.0), hi: 1.0, done: false }
    }

    fn step(mut self, eval: &dyn Evaluator, k: usize) -> Bisection {
        if !self.done {
            let mid = 0.5 * (self.lo + self.hi);
            if eval.baseline_loss(k, mid) <= 0.0 {
                self.hi = mid;
            } else {
                self.lo = mid;
            }
        }
        self
    }
}

/// The smallest weight in [`min_weight`, 1] meeting class k's SLO against
/// always-backlogged others (1 if even the whole link does not).
pub fn baseline(eval: &dyn Evaluator, k: usize, steps: usize, min_weight: f64) -> f64 {
    (0..steps).fold(Bisection::start(eval, k, min_weight), |b, _| b.step(eval, k)).hi
}

/// Every class's baseline, the classes in parallel and in lockstep so that `observe`
/// (on the calling thread) sees each round and may stop the search (None).
fn baselines(
    eval: &dyn Evaluator,
    classes: usize,
    opts: &Options,
    observe: &mut dyn FnMut(Progress) -> bool,
) -> Option<Vec<f64>> {
    let rounds = opts.baseline_steps + 1;
    if !observe(Progress::Baseline { round: 0, rounds }) {
        return None;
    }
    let mut b: Vec<Bisection> =
        (0..classes).into_par_iter().map(|k| Bisection::start(eval, k, opts.min_weight)).collect();
    for round in 1..rounds {
        if b.iter().all(|x| x.done) {
            break;
        }
        if !observe(Progress::Baseline { round, rounds }) {
            return None;
        }
        b = b.into_par_iter().enumerate().map(|(k, x)| x.step(eval, k)).collect();
    }
    Some(b.iter().map(|x| x.hi).collect())
}

/// Scales the weights to sum 1.
pub fn normalize(w: &mut [f64]) {
    let s: f64 = w.iter().sum();
    w.iter_mut().for_each(|x| *x /= s);
}

/// One round of pairwise transfers (Algorithm 1's inner loop), the weights left
/// unnormalized. Public so that a search on another engine (the packet engine's losses,
/// python/tailor/swp_packet) continues Algorithm 1 with the same step.
pub fn transfer(weights: &mut [f64], losses: &[f64], gamma: f64, margin: f64) {
    let mut order: Vec<usize> = (0..losses.len()).collect();
    order.sort_by(|&a, &b| losses[a].total_cmp(&losses[b]).then(a.cmp(&b)));
    let (mut i, mut j) = (0, order.len().saturating_sub(1));
    while i < j {
        let (give, take) = (order[i], order[j]);
        if losses[give] < 0.0 && losses[take] > 0.0 {
            let need = weights[take] * (losses[take] + margin) / (1.0 - margin);
            let spare = -losses[give] * weights[give];
            let delta = gamma * need.min(spare);
            weights[give] -= delta;
            weights[take] += delta;
        }
        i += 1;
        j -= 1;
    }
}

pub fn optimize(eval: &dyn Evaluator, classes: usize, opts: &Options) -> Optimized {
    optimize_observed(eval, classes, opts, &mut |_| true)
}

/// [`optimize`], showing each baseline round and each evaluated point to `observe`,
/// which stops the search by returning false (outcome `Stopped`; when it stops during
/// the baselines the trajectory is empty).
pub fn optimize_observed(
    eval: &dyn Evaluator,
    classes: usize,
    opts: &Options,
    observe: &mut dyn FnMut(Progress) -> bool,
) -> Optimized {
    optimize_from(eval, classes, opts, None, observe)
}

/// [`optimize_observed`] that runs the loop from `warm` first, when given (positive
/// weights; the baselines are then searched only if that run fails, and the equal and
/// load-proportional restarts are not run), else restarts as [`Options::restarts`] says.
pub fn optimize_from(
    eval: &dyn Evaluator,
    classes: usize,
    opts: &Options,
    warm: Option<&[f64]>,
    observe: &mut dyn FnMut(Progress) -> bool,
) -> Optimized {
    let mut r =
        Optimized { outcome: Outcome::NoSlack, baselines: Vec::new(), trajectory: Vec::new(), runs: Vec::new() };
    let mut order = Vec::new();
    if warm.is_some() {
        order.push(Start::Warm);
    }
    order.push(Start::Baselines);
    // A warm start is itself the restart: with one, a capacity search's probes below its
    // answer (most of them fail, and would run every start) cost what they did.
    if opts.restarts && warm.is_none() {
        order.extend([Start::Equal, Start::Load]);
    }
    for start in order {
        let mut w = match start {
            Start::Warm => warm.expect("listed only when given").to_vec(),
            Start::Baselines => match baselines(eval, classes, opts, observe) {
                Some(b) => {
                    r.baselines = b;
                    r.baselines.clone()
                }
                None => {
                    r.outcome = Outcome::Stopped;
                    return r;
                }
            },
            Start::Equal => vec![1.0; classes],
            Start::Load => (0..classes).map(|k| eval.load(k)).collect(),
        };
        if w.len() != classes || !w.iter().all(|x| x.is_finite() && *x > 0.0) {
            continue;
        }
        normalize(&mut w);
        // A start already run would repeat its run exactly.
        if r.runs.iter().any(|run| r.trajectory[run.first].weights.iter().zip(&w).all(|(a, b)| (a - b).abs() < 1e-12)) {
            continue;
        }
        let first = r.trajectory.len();
        let outcome = run_loop(eval, w, opts, &mut r.trajectory, observe);
        r.runs.push(Run { start, first, outcome });
        if matches!(outcome, Outcome::Met | Outcome::Stopped) {
            r.outcome = outcome;
            return r;
        }
    }
    if let Some(c) = r.chosen() {
        r.outcome = r.runs.iter().rev().find(|run| run.first <= c).expect("a run holds every point").outcome;
    }
    r
}

/// Algorithm 1's loop from `weights` (normalized), its points appended to `trajectory`.
fn run_loop(
    eval: &dyn Evaluator,
    mut weights: Vec<f64>,
    opts: &Options,
    trajectory: &mut Vec<Step>,
    observe: &mut dyn FnMut(Progress) -> bool,
) -> Outcome {
    for _ in 0..opts.max_iterations.max(1) {
        let losses = eval.losses(&weights);
        trajectory.push(Step { weights: weights.clone(), losses: losses.clone() });
        if !observe(Progress::Step { index: trajectory.len() - 1, step: trajectory.last().expect("just pushed") }) {
            return Outcome::Stopped;
        }
        if losses.iter().all(|&l| l <= 0.0) {
            return Outcome::Met;
        }
        if !losses.iter().any(|&l| l < 0.0) {
            return Outcome::NoSlack;
        }
        transfer(&mut weights, &losses, opts.gamma, opts.margin);
        normalize(&mut weights);
    }
    Outcome::TimedOut
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Class k meets its SLO iff its weight is at least `need[k]` together, and at least
    /// `alone[k]` against always-backlogged others (the worst case, so alone >= need).
    struct Synthetic {
        need: Vec<f64>,
        alone: Vec<f64>,
    }

    impl Evaluator for Synthetic {
        fn losses(&self, w: &[f64]) -> Vec<f64> {
            self.need.iter().zip(w).map(|(d, w)| d / w - 1.0).collect()
        }
        fn baseline_loss(&self, k: usize, w: f64) -> f64 {
            self.alone[k] / w - 1.0
        }
    }

    #[test]
    fn baselines_are_the_smallest_sufficient_weights() {
        let e = Synthetic { need: vec![0.1, 0.2], alone: vec![0.25, 0.6] };
        assert!((baseline(&e, 0, 40, 1e-3) - 0.25).abs() < 1e-9);
        assert!((baseline(&e, 1, 40, 1e-3) - 0.6).abs() < 1e-9);
        // A class that needs almost nothing ends just above the floor.
        let tiny = Synthetic { need: vec![1e-6], alone: vec![1e-6] };
        let b = baseline(&tiny, 0, 40, 1e-3);
        assert!(b > 1e-3 && b < 1e-3 + 1e-9, "{b}");
    }

    #[test]
    fn finds_weights_meeting_every_slo_when_the_baselines_do_not() {
        // Baselines say equal weights; together class 0 needs half the link.
        let e = Synthetic { need: vec![0.5, 0.3, 0.1], alone: vec![0.3, 0.3, 0.3] };
        let r = optimize(&e, 3, &Options::default());
        assert_eq!(r.outcome, Outcome::Met);
        assert!(r.trajectory.len() > 1, "the first point misses class 0");
        assert!(r.trajectory[0].losses[0] > 0.0);
        let w = r.weights().unwrap();
        for (k, need) in e.need.iter().enumerate() {
            assert!(w[k] >= need - 1e-12, "class {k}: {} < {need}", w[k]);
        }
        assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn damped_transfers_also_converge() {
        let e = Synthetic { need: vec![0.45, 0.35, 0.05, 0.05], alone: vec![0.2, 0.2, 0.2, 0.2] };
        let r = optimize(&e, 4, &Options { gamma: 0.5, ..Options::default() });
        assert_eq!(r.outcome, Outcome::Met);
        assert!(r.weights().unwrap().iter().zip(&e.need).all(|(w, d)| w >= d));
    }

    #[test]
    fn infeasible_demands_fail_without_slack() {
        let e = Synthetic { need: vec![0.6, 0.6], alone: vec![0.6, 0.6] };
        let r = optimize(&e, 2, &Options::default());
        assert_eq!(r.outcome, Outcome::NoSlack);
        assert_eq!(r.trajectory.len(), 1);
    }

    #[test]
    fn oscillating_losses_time_out() {
        /// A class that never settles: whichever weight it has, the other needs more.
        struct Greedy;
        impl Evaluator for Greedy {
            fn losses(&self, w: &[f64]) -> Vec<f64> {
                if w[0] >= w[1] {
                    vec![-0.1, 0.5]
                } else {
                    vec![0.5, -0.1]
                }
            }
            fn baseline_loss(&self, _: usize, w: f64) -> f64 {
                0.5 / w - 1.0
            }
        }
        let r = optimize(&Greedy, 2, &Options { max_iterations: 7, ..Options::default() });
        assert_eq!(r.outcome, Outcome::TimedOut);
        assert_eq!(r.trajectory.len(), 7);
    }

    /// A link given mostly to one class starves every class (all miss); otherwise class k
    /// meets iff its weight is at least `need[k]`. Alone, class 0 looks like it needs
    /// most of the link, so Algorithm 1's baseline start lands in the trap.
    struct Trap {
        need: Vec<f64>,
        alone: Vec<f64>,
    }

    impl Evaluator for Trap {
        fn losses(&self, w: &[f64]) -> Vec<f64> {
            if w.iter().any(|&x| x > 0.5) {
                return vec![0.1; w.len()];
            }
            self.need.iter().zip(w).map(|(d, w)| d / w - 1.0).collect()
        }
        fn baseline_loss(&self, k: usize, w: f64) -> f64 {
            self.alone[k] / w - 1.0
        }
    }

    #[test]
    fn a_failed_baseline_start_restarts_from_equal_weights() {
        let e = Trap { need: vec![0.3, 0.3, 0.3], alone: vec![0.9, 0.05, 0.05] };
        // Algorithm 1 as the paper states it: one run, stuck at its start.
        let paper = optimize(&e, 3, &Options { restarts: false, ..Options::default() });
        assert_eq!(paper.outcome, Outcome::NoSlack);
        assert_eq!(paper.trajectory.len(), 1);
        let r = optimize(&e, 3, &Options::default());
        assert_eq!(r.outcome, Outcome::Met, "{:?}", r.runs);
        assert_eq!(
            r.runs.iter().map(|x| (x.start, x.outcome)).collect::<Vec<_>>(),
            [(Start::Baselines, Outcome::NoSlack), (Start::Equal, Outcome::Met)]
        );
        let w = r.weights().unwrap();
        assert!(w.iter().zip(&e.need).all(|(w, d)| w >= d), "{w:?}");
        assert_eq!(r.chosen(), Some(r.trajectory.len() - 1));
    }

    #[test]
    fn the_load_proportional_start_is_each_class_share_of_the_load() {
        /// Meets only within 0.01 of the load shares (a class needs its share, and a
        /// class above its share starves the others); the baselines and equal weights miss.
        struct Shares;
        impl Evaluator for Shares {
            fn losses(&self, w: &[f64]) -> Vec<f64> {
                let share = [0.6, 0.3, 0.1];
                w.iter().zip(share).map(|(w, s)| if (w - s).abs() < 0.01 { -0.1 } else { 0.2 }).collect()
            }
            fn baseline_loss(&self, _: usize, w: f64) -> f64 {
                0.2 / w - 1.0
            }
            fn load(&self, k: usize) -> f64 {
                [6e9, 3e9, 1e9][k]
            }
        }
        let r = optimize(&Shares, 3, &Options::default());
        assert_eq!(r.outcome, Outcome::Met);
        // The baselines are equal (0.2 each), so the equal start is the same and not run again.
        assert_eq!(r.runs.iter().map(|x| x.start).collect::<Vec<_>>(), [Start::Baselines, Start::Load]);
        assert!(r.weights().unwrap().iter().zip([0.6, 0.3, 0.1]).all(|(w, s)| (w - s).abs() < 1e-12));
    }

    #[test]
    fn a_warm_start_that_meets_needs_no_baselines() {
        struct Counted(Trap, std::sync::atomic::AtomicUsize);
        impl Evaluator for Counted {
            fn losses(&self, w: &[f64]) -> Vec<f64> {
                self.0.losses(w)
            }
            fn baseline_loss(&self, k: usize, w: f64) -> f64 {
                self.1.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                self.0.baseline_loss(k, w)
            }
        }
        let e = Counted(Trap { need: vec![0.3, 0.3, 0.3], alone: vec![0.3, 0.3, 0.3] }, Default::default());
        let r = optimize_from(&e, 3, &Options::default(), Some(&[0.4, 0.3, 0.3]), &mut |_| true);
        assert_eq!(r.outcome, Outcome::Met);
        assert_eq!(r.trajectory.len(), 1);
        assert_eq!(r.runs[0].start, Start::Warm);
        assert!(r.baselines.is_empty());
        assert_eq!(e.1.load(std::sync::atomic::Ordering::Relaxed), 0);
        // A warm start that fails falls back to Algorithm 1's own start, which meets here.
        let r = optimize_from(&e, 3, &Options::default(), Some(&[0.8, 0.1, 0.1]), &mut |_| true);
        assert_eq!(r.outcome, Outcome::Met);
        assert_eq!(
            r.runs.iter().map(|x| (x.start, x.outcome)).collect::<Vec<_>>(),
            [(Start::Warm, Outcome::NoSlack), (Start::Baselines, Outcome::Met)]
        );
        assert!(e.1.load(std::sync::atomic::Ordering::Relaxed) > 0);
    }

    #[test]
    fn when_every_start_fails_the_answer_is_the_best_point_of_any_run() {
        // Infeasible: the demands add up to more than the link.
        let e = Synthetic { need: vec![0.7, 0.5], alone: vec![0.9, 0.1] };
        let r = optimize(&e, 2, &Options::default());
        assert_ne!(r.outcome, Outcome::Met);
        assert!(r.runs.len() >= 2, "{:?}", r.runs);
        let worst = |s: &Step| s.losses.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let best = r.trajectory.iter().map(worst).fold(f64::INFINITY, f64::min);
        assert_eq!(worst(&r.trajectory[r.chosen().unwrap()]), best);
    }
}
