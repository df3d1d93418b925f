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
}

impl Default for Options {
    fn default() -> Self {
        Options { max_iterations: 50, gamma: 1.0, baseline_steps: 30, margin: 0.02, min_weight: 1e-3 }
    }
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
    pub outcome: Outcome,
    pub baselines: Vec<f64>,
    /// Every evaluated point, in order.
    pub trajectory: Vec<Step>,
}

impl Optimized {
    /// The index of the answer in the trajectory: the last point when every class is
    /// met; otherwise the point whose worst loss was smallest (the closest the search
    /// came). None when the search stopped before evaluating a point.
    pub fn chosen(&self) -> Option<usize> {
        if self.outcome == Outcome::Met {
            return self.trajectory.len().checked_sub(1);
        }
        let worst = |s: &Step| s.losses.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (0..self.trajectory.len()).min_by(|&a, &b| worst(&self.trajectory[a]).total_cmp(&worst(&self.trajectory[b])).then(a.cmp(&b)))
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
fn baselines(eval: &dyn Evaluator, classes: usize, opts: &Options, observe: &mut dyn FnMut(Progress) -> bool) -> Option<Vec<f64>> {
    let rounds = opts.baseline_steps + 1;
    if !observe(Progress::Baseline { round: 0, rounds }) {
        return None;
    }
    let mut b: Vec<Bisection> = (0..classes).into_par_iter().map(|k| Bisection::start(eval, k, opts.min_weight)).collect();
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
pub fn optimize_observed(eval: &dyn Evaluator, classes: usize, opts: &Options, observe: &mut dyn FnMut(Progress) -> bool) -> Optimized {
    let Some(baselines) = baselines(eval, classes, opts, observe) else {
        return Optimized { outcome: Outcome::Stopped, baselines: Vec::new(), trajectory: Vec::new() };
    };
    let mut weights = baselines.clone();
    normalize(&mut weights);
    let mut trajectory = Vec::new();
    for index in 0..opts.max_iterations.max(1) {
        let losses = eval.losses(&weights);
        trajectory.push(Step { weights: weights.clone(), losses: losses.clone() });
        if !observe(Progress::Step { index, step: trajectory.last().expect("just pushed") }) {
            return Optimized { outcome: Outcome::Stopped, baselines, trajectory };
        }
        if losses.iter().all(|&l| l <= 0.0) {
            return Optimized { outcome: Outcome::Met, baselines, trajectory };
        }
        if !losses.iter().any(|&l| l < 0.0) {
            return Optimized { outcome: Outcome::NoSlack, baselines, trajectory };
        }
        transfer(&mut weights, &losses, opts.gamma, opts.margin);
        normalize(&mut weights);
    }
    Optimized { outcome: Outcome::TimedOut, baselines, trajectory }
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
                if w[0] >= w[1] { vec![-0.1, 0.5] } else { vec![0.5, -0.1] }
            }
            fn baseline_loss(&self, _: usize, w: f64) -> f64 {
                0.5 / w - 1.0
            }
        }
        let r = optimize(&Greedy, 2, &Options { max_iterations: 7, ..Options::default() });
        assert_eq!(r.outcome, Outcome::TimedOut);
        assert_eq!(r.trajectory.len(), 7);
    }
}
