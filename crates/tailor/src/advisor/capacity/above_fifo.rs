//! The check of a weighted answer above shared FIFO's least capacity (SWP §5.2;
//! docs/advisor.md, "Optimizer failures, measured"): weight vectors on a simplex grid at
//! FIFO's capacity, a compass search from the grid's best point, then Algorithm 1 from
//! there. A vector that meets proves the weighted search failed, and the search
//! (`capacity::min_weighted`) runs again below FIFO's capacity from it.

use super::{all_met, evaluate_weights, floor, SearchOptions};
use crate::advisor::problem::{ClassVerdict, Problem};
use crate::advisor::{advise_weights_from, Cancelled, Event, Observer, Strategy};
use serde::Serialize;

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
pub(super) fn check_at_fifo(
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

#[cfg(test)]
mod tests {
    use super::super::min_capacity;
    use super::super::tests::{problem, quiet};
    use super::*;
    use crate::model::Sharing;

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
