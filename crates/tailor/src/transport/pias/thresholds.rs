//! PIAS's demotion thresholds from the workload (PIAS §4.2): the thresholds that minimise
//! the mean time flows spend queued, in a model of one bottleneck port whose K strict
//! priority queues are each an M/M/1 queue.
//!
//! The model (§4.2's structure; each queue's load as the bytes flows send at its level):
//! - thresholds 0 = α_0 < α_1 < … < α_{K−1} < α_K = ∞; a flow sends its bytes
//!   [α_{l−1}, α_l) at level l, so a flow of size S sends min(S, α_l) − min(S, α_{l−1})
//!   bytes there, and passes through levels 1..l when α_{l−1} < S ≤ α_l (θ_l = F(α_l) −
//!   F(α_{l−1}) of the flows);
//! - queue l receives the load ρ_l = ρ · E[min(S, α_l) − min(S, α_{l−1})] / E[S] and is
//!   served with the capacity the queues above it leave, so a flow spends
//!   T_l = 1 / (1 − ρ_1 − … − ρ_l) there (in units of a mean service time);
//! - the objective is the mean over flows of the time spent in every queue passed:
//!   T = Σ_l θ_l Σ_{m≤l} T_m = Σ_m P(S > α_{m−1}) · T_m.
//!
//! Because ρ_1 + … + ρ_m = ρ · E[min(S, α_m)] / E[S], term m depends only on α_{m−1} and α_m:
//! T = Σ_m (1 − F(α_{m−1})) / (1 − ρ · G(α_m)) with G(α) = E[min(S, α)] / E[S]. Between two
//! sizes the distribution can take, moving a threshold up only adds load to its level, so
//! an optimal threshold sits on such a size; the optimum over those sizes is found exactly
//! by dynamic programming over the chain of thresholds (no starting point, no step size:
//! the same answer on every machine). The model charges each level a flow passes through
//! a full sojourn, so it may leave levels unused: the answer then has fewer than K − 1
//! thresholds (the flows never reach the last levels).

/// The model's answer: the thresholds in message bytes (increasing, each below the
/// largest size), and its mean queueing time T in units of a mean service time.
#[derive(Clone, Debug, PartialEq)]
pub struct Solution {
    pub thresholds: Vec<u64>,
    pub delay: f64,
}

/// A size distribution as the model reads it: distinct sizes with P(S ≤ size) and
/// E[min(S, size)] / E[S] at each.
struct Dist {
    sizes: Vec<u64>,
    /// F(sizes[i]).
    cdf: Vec<f64>,
    /// G(sizes[i]) = E[min(S, sizes[i])] / E[S].
    part: Vec<f64>,
    mean: f64,
}

impl Dist {
    fn new(atoms: &[(u64, f64)]) -> Result<Dist, String> {
        let mut merged: Vec<(u64, f64)> = Vec::new();
        for &(s, p) in atoms.iter().filter(|a| a.1 > 0.0) {
            match merged.last_mut() {
                Some(last) if last.0 == s => last.1 += p,
                Some(last) if last.0 > s => return Err("the sizes are not sorted".into()),
                _ => merged.push((s, p)),
            }
        }
        let total: f64 = merged.iter().map(|a| a.1).sum();
        let mean: f64 = merged.iter().map(|a| a.0 as f64 * a.1).sum::<f64>() / total;
        if merged.is_empty() || merged[0].0 == 0 || !mean.is_finite() {
            return Err("the size distribution is empty or holds zero-byte messages".into());
        }
        let (mut cdf, mut part) = (Vec::with_capacity(merged.len()), Vec::with_capacity(merged.len()));
        // E[min(S, s_i)] = Σ_{j<i} p_j s_j + s_i · P(S ≥ s_i).
        let (mut below, mut mass) = (0.0, 0.0);
        for &(s, p) in &merged {
            let p = p / total;
            part.push((below + s as f64 * (1.0 - mass)) / mean);
            below += p * s as f64;
            mass += p;
            cdf.push(mass);
        }
        Ok(Dist { sizes: merged.iter().map(|a| a.0).collect(), cdf, part, mean })
    }

    /// P(S > α) and G(α) for any α: between two sizes every flow still sending sends
    /// one byte more per byte α moves up, so G is exact there too.
    fn at(&self, alpha: u64) -> (f64, f64) {
        let i = self.sizes.partition_point(|&s| s <= alpha);
        let tail = if i == 0 { 1.0 } else { (1.0 - self.cdf[i - 1]).max(0.0) };
        if i == self.sizes.len() {
            return (tail, 1.0);
        }
        (tail, self.part[i] - (self.sizes[i] - alpha) as f64 * tail / self.mean)
    }
}

/// T for `thresholds` (increasing message-byte offsets) at load `load`.
pub fn delay(atoms: &[(u64, f64)], load: f64, thresholds: &[u64]) -> Result<f64, String> {
    let d = Dist::new(atoms)?;
    check_load(load)?;
    let mut t = 0.0;
    let mut reach = 1.0;
    for &a in thresholds {
        let (tail, part) = d.at(a);
        t += reach / (1.0 - load * part);
        reach = tail;
    }
    Ok(t + reach / (1.0 - load))
}

/// The thresholds (at most `levels − 1`) that minimise T for flows of the distribution
/// `atoms` (sizes ascending, probabilities) at load `load` (0 < load < 1).
pub fn optimal(atoms: &[(u64, f64)], load: f64, levels: usize) -> Result<Solution, String> {
    let d = Dist::new(atoms)?;
    check_load(load)?;
    let n = d.sizes.len();
    if levels < 2 || n < 2 {
        return Ok(Solution { thresholds: Vec::new(), delay: 1.0 / (1.0 - load) });
    }
    // cost[m][j]: the least T of levels 1..=m with α_m = sizes[j]; from[m][j] its α_{m−1}.
    let tail = |i: usize| 1.0 - d.cdf[i];
    let stay = |j: usize| 1.0 / (1.0 - load * d.part[j]);
    let mut cost: Vec<f64> = (0..n).map(stay).collect();
    let mut from: Vec<Vec<usize>> = Vec::with_capacity(levels - 1);
    for _ in 2..levels {
        let (mut next, mut back) = (vec![f64::INFINITY; n], vec![0; n]);
        for j in 0..n {
            for (i, before) in cost.iter().enumerate().take(j + 1) {
                let c = before + tail(i).max(0.0) * stay(j);
                if c < next[j] {
                    (next[j], back[j]) = (c, i);
                }
            }
        }
        from.push(back);
        cost = next;
    }
    // The last level takes every byte above α_{K−1}.
    let (mut best, mut j) = (f64::INFINITY, 0);
    for (i, c) in cost.iter().enumerate() {
        let total = c + tail(i).max(0.0) / (1.0 - load);
        if total < best {
            (best, j) = (total, i);
        }
    }
    let mut chain = vec![j];
    for back in from.iter().rev() {
        j = back[j];
        chain.push(j);
    }
    chain.reverse();
    // Thresholds at the largest size (or repeated) demote nothing: those levels stay empty.
    let mut thresholds: Vec<u64> = chain.into_iter().map(|i| d.sizes[i]).filter(|&s| s < d.sizes[n - 1]).collect();
    thresholds.dedup();
    Ok(Solution { thresholds, delay: best })
}

fn check_load(load: f64) -> Result<(), String> {
    if load > 0.0 && load < 1.0 {
        Ok(())
    } else {
        Err(format!("the model needs a load between 0 and 1 (exclusive), not {load}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::builtin::load_builtin;

    fn atoms(name: &str) -> Vec<(u64, f64)> {
        load_builtin(name, None).expect("shipped table").atoms()
    }

    /// Two sizes, two levels: by hand. A threshold between the sizes only adds load to
    /// level 1, so it sits at 1,000 B: T = 1 / (1 − 0.8 · 1000/1900) + 0.1 / (1 − 0.8),
    /// against 1 / (1 − 0.8) = 5 with no threshold at all.
    #[test]
    fn a_two_size_workload_by_hand() {
        let w = [(1_000, 0.9), (10_000, 0.1)];
        let by_hand = 1.0 / (1.0 - 0.8 * 1_000.0 / 1_900.0) + 0.1 / 0.2;
        for levels in [2, 3, 8] {
            let s = optimal(&w, 0.8, levels).unwrap();
            assert_eq!(s.thresholds, vec![1_000], "{levels} levels");
            assert!((s.delay - by_hand).abs() < 1e-12, "{} against {by_hand}", s.delay);
        }
        assert!((delay(&w, 0.8, &[1_000]).unwrap() - by_hand).abs() < 1e-12);
        assert!((delay(&w, 0.8, &[]).unwrap() - 5.0).abs() < 1e-12);
        // Half way between the sizes: level 1 also carries 4,500 B of each large flow.
        let mid = 1.0 / (1.0 - 0.8 * (900.0 + 550.0) / 1_900.0) + 0.1 / 0.2;
        assert!((delay(&w, 0.8, &[5_500]).unwrap() - mid).abs() < 1e-12);
        assert_eq!(optimal(&w, 0.8, 1).unwrap().thresholds, Vec::<u64>::new());
    }

    /// The dynamic programme against every threshold set of a small distribution.
    #[test]
    fn the_optimum_is_the_best_of_every_tuple() {
        let w = [(3, 0.2), (40, 0.3), (90, 0.1), (700, 0.2), (2_000, 0.15), (50_000, 0.05)];
        let sizes: Vec<u64> = w.iter().map(|a| a.0).collect();
        for load in [0.3, 0.5, 0.8, 0.95] {
            for levels in 2..=4 {
                // Every set of at most K − 1 sizes (a set is an increasing tuple).
                let best = (0u32..1 << sizes.len())
                    .filter(|m| (m.count_ones() as usize) < levels)
                    .map(|m| {
                        let t: Vec<u64> = (0..sizes.len()).filter(|i| m >> i & 1 == 1).map(|i| sizes[i]).collect();
                        delay(&w, load, &t).unwrap()
                    })
                    .fold(f64::INFINITY, f64::min);
                let s = optimal(&w, load, levels).unwrap();
                assert!((s.delay - best).abs() < 1e-9, "load {load}, {levels} levels: {} against {best}", s.delay);
                assert!((delay(&w, load, &s.thresholds).unwrap() - s.delay).abs() < 1e-9);
            }
        }
    }

    /// On every workload of the Homa paper at both loads: at most K − 1 thresholds,
    /// increasing, below the largest size, each on a size the workload has.
    #[test]
    fn thresholds_are_increasing_sizes_of_the_workload() {
        for w in ["w1", "w2", "w3", "w4", "w5"] {
            let a = atoms(w);
            for load in [0.5, 0.8] {
                let s = optimal(&a, load, 8).unwrap();
                assert!(!s.thresholds.is_empty() && s.thresholds.len() <= 7, "{w} {load}: {:?}", s.thresholds);
                assert!(s.thresholds.windows(2).all(|p| p[0] < p[1]), "{w} {load}: {:?}", s.thresholds);
                assert!(s.thresholds.iter().all(|t| a.iter().any(|x| x.0 == *t)), "{w} {load}");
                assert!(*s.thresholds.last().unwrap() < a.last().unwrap().0);
                // No level helps when nothing is queued: T = 1 / (1 − ρ) is the single queue's.
                assert!(s.delay < 1.0 / (1.0 - load), "{w} {load}: {}", s.delay);
            }
        }
    }

    /// PIAS's own web-search thresholds (HKUST-SING/PIAS-NS2 run_pias_dctcp.py, 1,460-byte
    /// packets, the thresholds for 50 % and 80 % load that the Homa authors also used for
    /// W5) are a point the model can evaluate: its optimum is at least as good there.
    #[test]
    fn at_least_as_good_as_the_pias_authors_websearch_thresholds() {
        let a = atoms("pfabric_websearch");
        let published: [(f64, [u64; 7]); 2] =
            [(0.5, [1059, 1412, 1643, 1869, 2008, 2115, 2184]), (0.8, [909, 1329, 1648, 1960, 2143, 2337, 2484])];
        for (load, pkts) in published {
            let theirs: Vec<u64> = pkts.iter().map(|p| p * 1460).collect();
            let t = delay(&a, load, &theirs).unwrap();
            let s = optimal(&a, load, 8).unwrap();
            assert!(s.delay <= t, "load {load}: {} against theirs {t}", s.delay);
        }
    }

    #[test]
    fn a_load_outside_the_model_is_refused() {
        let w = [(1_000, 1.0)];
        assert!(optimal(&w, 1.0, 8).unwrap_err().contains("between 0 and 1"));
        assert!(delay(&w, 0.0, &[]).is_err());
        assert!(optimal(&[], 0.5, 8).is_err());
    }
}
