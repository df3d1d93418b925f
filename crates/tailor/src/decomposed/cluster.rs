//! Clustering of links with alike workloads (Parsimon §3.5, "clustering"): one link of each
//! cluster, its representative, is simulated; every other member gets, for each of its own
//! messages, the delay of a message of similar size drawn from the representative's
//! simulation (scaled by size, as §3.3 normalizes delays per unit of size).
//!
//! - Features (§3.5): a link's message sizes and gaps between arrivals, each as
//!   [`QUANTILES`] quantiles, and its load (bytes offered over the arrivals' span, over its
//!   rate). Links with fewer than two messages have no gaps and are never clustered.
//! - Alike: the same trunk (rate, propagation, port role: the dumbbell of `linksim` is
//!   built from them), loads within a fraction `eps` of the representative's, and each
//!   distribution within `eps` by the weighted mean absolute percentage error of its
//!   quantiles (sum of absolute differences over the sum of the representative's). And,
//!   beyond Parsimon, covered: every message of the member has one on the representative
//!   within a factor of 2 of its size, so that a draw is never of another size class.
//!   Links of a few messages pass the quantile tests by chance (measured on the 1,024-host
//!   fat-tree, 4–12 messages per link: without this test, messages under 10 KB drew the
//!   delays of the nearest, larger, messages and their p99 was 49 % above the unclustered
//!   one).
//! - Greedy (§3.5): the first unclustered link in port order becomes a representative and
//!   takes every later unclustered link alike to it; then the next. Port order, not a hash
//!   set's, so the clusters, and so the estimates, are the same for a seed on every run,
//!   on rayon or Ray.
//! - Drawing (§3.3's buckets, narrowed): a member's message of size s draws uniformly from
//!   the representative's messages of size within a factor of 2 of s (there is one: the
//!   link is covered). Parsimon's buckets of at least 100 messages are a whole
//!   link when a link carries a few dozen messages (docs/decomposed.md, "Method", point
//!   4: a small message's delay drawn for a megabyte one, multiplied by a thousand); the
//!   factor-of-2 window bounds the scaling below to 2x whatever the link's message count.
//! - Scaling: the drawn delay times max(s, B) / max(drawn size, B), B the link's
//!   bandwidth-delay product (its rate times the mean round trip of its messages' paths).
//!   Parsimon scales per packet; scaling by started kilobytes put the clustered p99 of
//!   1–2 KB messages 59 % above the unclustered one on the 6,144-host fabric (every
//!   message under 1 KB there is one unit), with B −0.3 % (docs/decomposed.md,
//!   "Clustering"): below about a BDP a message is sent in about a round trip, and its
//!   delay is taken to be the queue it meets rather than its size.
//! - Streams: a member's draws come from a stream named by its port, so they do not depend
//!   on which other links were clustered or in what order they are synthesized.

use super::linksim::{Delay, LinkResult};
use super::plan::{LinkLoad, Plan};
use crate::sim::Time;
use rand::Rng;

/// Quantiles per feature distribution (Parsimon takes 1,000; with links of tens to
/// thousands of messages 100 keeps the same information at a tenth of the comparisons).
pub const QUANTILES: usize = 100;

/// Each link's representative (`rep[k]` indexes `plan.links`; a representative is its own).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clusters {
    pub rep: Vec<usize>,
}

impl Clusters {
    /// Every link its own representative (no clustering).
    pub fn none(links: usize) -> Clusters {
        Clusters { rep: (0..links).collect() }
    }

    /// The links of `plan` clustered with tolerance `eps` (the module doc).
    pub fn of(plan: &Plan, eps: f64) -> Clusters {
        let feats: Vec<Option<Feature>> = plan.links.iter().map(|l| Feature::of(plan, l)).collect();
        let mut rep: Vec<Option<usize>> = vec![None; plan.links.len()];
        // Candidates sorted by (trunk, load), so a representative looks only at the links
        // of its trunk whose load is within eps of its own.
        let mut order: Vec<usize> = (0..plan.links.len()).filter(|&k| feats[k].is_some()).collect();
        let key = |k: usize| trunk_key(&plan.links[k]);
        let load = |k: usize| feats[k].as_ref().map_or(0.0, |f| f.load);
        order.sort_by(|&a, &b| key(a).cmp(&key(b)).then(load(a).total_cmp(&load(b))).then(a.cmp(&b)));
        for k in 0..plan.links.len() {
            if rep[k].is_some() {
                continue;
            }
            rep[k] = Some(k);
            let Some(f) = &feats[k] else { continue };
            let lo = order.partition_point(|&j| (key(j), load(j)) < (key(k), f.load * (1.0 - eps)));
            let hi = order.partition_point(|&j| (key(j), load(j)) <= (key(k), f.load * (1.0 + eps)));
            for &j in &order[lo..hi] {
                let g = feats[j].as_ref().expect("ordered links have features");
                if j > k && rep[j].is_none() && f.alike(g, eps) && f.covers(g) {
                    rep[j] = Some(k);
                }
            }
        }
        Clusters { rep: rep.into_iter().map(|r| r.expect("every link was visited")).collect() }
    }

    /// The representatives, in link order: the link simulations to run.
    pub fn representatives(&self) -> Vec<usize> {
        self.rep.iter().enumerate().filter(|&(k, &r)| k == r).map(|(k, _)| k).collect()
    }
}

/// (rate, propagation, role): links whose dumbbells have the same trunk.
fn trunk_key(l: &LinkLoad) -> (u64, u64, &'static str) {
    (l.rate.bps(), l.propagation.ps(), l.role.name())
}

/// A link's workload as §3.5 compares it.
#[derive(Clone, Debug)]
struct Feature {
    /// Every message's size, in order.
    all: Vec<u64>,
    sizes: Vec<f64>,
    gaps: Vec<f64>,
    load: f64,
}

impl Feature {
    fn of(plan: &Plan, link: &LinkLoad) -> Option<Feature> {
        if link.msgs.len() < 2 {
            return None;
        }
        let msgs = || link.msgs.iter().map(|&i| &plan.msgs[i as usize]);
        let mut all: Vec<u64> = msgs().map(|m| m.size).collect();
        all.sort_unstable();
        let sizes: Vec<f64> = all.iter().map(|&s| s as f64).collect();
        let starts: Vec<f64> = msgs().map(|m| m.start.ps() as f64).collect();
        let gaps: Vec<f64> = starts.windows(2).map(|w| w[1] - w[0]).collect();
        let span = (starts[starts.len() - 1] - starts[0]).max(1.0) * 1e-12;
        let load = sizes.iter().sum::<f64>() * 8.0 / span / link.rate.bps() as f64;
        Some(Feature { all, sizes: quantiles(sizes), gaps: quantiles(gaps), load })
    }

    /// Whether every message of `other` has one here within a factor of 2 of its size.
    fn covers(&self, other: &Feature) -> bool {
        other.all.iter().all(|&s| {
            let lo = self.all.partition_point(|&x| x.saturating_mul(2) < s);
            self.all.get(lo).is_some_and(|&x| x <= s.saturating_mul(2))
        })
    }

    fn alike(&self, other: &Feature, eps: f64) -> bool {
        (other.load - self.load).abs() <= eps * self.load
            && wmape(&self.sizes, &other.sizes) <= eps
            && wmape(&self.gaps, &other.gaps) <= eps
    }
}

/// [`QUANTILES`] evenly spaced quantiles of `v` (the k-th is the value of rank
/// floor(k / QUANTILES x len)).
fn quantiles(mut v: Vec<f64>) -> Vec<f64> {
    v.sort_by(f64::total_cmp);
    (0..QUANTILES).map(|q| v[q * v.len() / QUANTILES]).collect()
}

/// Weighted mean absolute percentage error of `b` against `a`.
fn wmape(a: &[f64], b: &[f64]) -> f64 {
    let den: f64 = a.iter().sum();
    if den <= 0.0 {
        return if b.iter().all(|&x| x == 0.0) { 0.0 } else { f64::INFINITY };
    }
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum::<f64>() / den
}

/// Every link's result: a representative's own, a member's synthesized from its
/// representative's (`reps` holds the representatives' results in link order).
pub fn expand(plan: &Plan, clusters: &Clusters, reps: Vec<LinkResult>, seed: u64) -> Vec<LinkResult> {
    let order = clusters.representatives();
    let mut own: Vec<Option<LinkResult>> = vec![None; plan.links.len()];
    for (k, r) in order.iter().zip(reps) {
        own[*k] = Some(r);
    }
    let sorted: Vec<Option<BySize>> =
        (0..plan.links.len()).map(|k| own[k].as_ref().map(|_| BySize::of(plan, &plan.links[k]))).collect();
    (0..plan.links.len())
        .map(|k| match &own[k] {
            Some(r) => r.clone(),
            None => {
                let r = clusters.rep[k];
                let by = sorted[r].as_ref().expect("a representative was simulated");
                synthesize(plan, &plan.links[k], own[r].as_ref().expect("a representative was simulated"), by, seed)
            }
        })
        .collect()
}

/// A representative's messages (positions in its `LinkLoad::msgs`) in order of size, and
/// its bandwidth-delay product (bytes), below which delays are not scaled by size.
struct BySize {
    sizes: Vec<u64>,
    pos: Vec<usize>,
    bdp: f64,
}

impl BySize {
    fn of(plan: &Plan, link: &LinkLoad) -> BySize {
        let mut v: Vec<(u64, usize)> =
            link.msgs.iter().enumerate().map(|(p, &i)| (plan.msgs[i as usize].size, p)).collect();
        v.sort_unstable();
        let one_way =
            link.msgs.iter().map(|&i| plan.msgs[i as usize].delay.ps() as f64).sum::<f64>() / link.msgs.len() as f64;
        let bdp = link.rate.bps() as f64 / 8.0 * 2.0 * one_way * 1e-12;
        BySize { sizes: v.iter().map(|x| x.0).collect(), pos: v.iter().map(|x| x.1).collect(), bdp }
    }

    /// The factor a delay drawn from a message of `drawn` bytes is scaled by for one of `size`.
    fn scale(&self, size: u64, drawn: u64) -> f64 {
        (size as f64).max(self.bdp) / (drawn as f64).max(self.bdp)
    }

    /// The rank (in size order) of a message drawn for one of `size` (the module doc).
    fn draw(&self, size: u64, rng: &mut impl Rng) -> usize {
        let lo = self.sizes.partition_point(|&s| s.saturating_mul(2) < size);
        let hi = self.sizes.partition_point(|&s| s <= size.saturating_mul(2));
        if lo < hi {
            return rng.random_range(lo..hi);
        }
        // None within a factor of 2 (not for a covered link): the nearest in ratio of sizes.
        let ratio = |s: u64| (s as f64 / size.max(1) as f64).ln().abs();
        let below = lo.checked_sub(1);
        match (below, self.sizes.get(lo)) {
            (Some(b), Some(&a)) if ratio(a) < ratio(self.sizes[b]) => lo,
            (Some(b), _) => b,
            (None, _) => lo,
        }
    }
}

/// A member link's result: for each of its messages, a drawn representative message's
/// whole per-message entry, scaled (`BySize::scale`).
fn synthesize(plan: &Plan, link: &LinkLoad, rep: &LinkResult, by: &BySize, seed: u64) -> LinkResult {
    let mut rng = crate::sim::rng::stream(seed, &format!("decomposed/cluster/{}", link.port.index()));
    let delays = link
        .msgs
        .iter()
        .map(|&i| {
            let size = plan.msgs[i as usize].size;
            let j = by.draw(size, &mut rng);
            scaled(rep.delays[by.pos[j]], by.scale(size, by.sizes[j]))
        })
        .collect();
    LinkResult { port: link.port, delays, events: 0, seen: Default::default() }
}

/// A per-message entry of a link's result scaled by `f`: its delay and its latency there
/// alike (below the BDP `f` is 1 and the entry is copied; above it both grow with the size,
/// and the latency is the span over which `combine` splits the delay among the messages
/// it overlapped).
fn scaled(d: Delay, f: f64) -> Delay {
    let by = |t: Time| Time::from_ps((t.ps() as f64 * f).round() as u64);
    Delay { total: by(d.total), latency: by(d.latency) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn by(sizes: &[u64], bdp: f64) -> BySize {
        BySize { sizes: sizes.to_vec(), pos: (0..sizes.len()).collect(), bdp }
    }

    #[test]
    fn a_draw_is_within_a_factor_of_two_or_the_nearest() {
        let b = by(&[100, 900, 1_000, 1_900, 5_000, 100_000], 0.0);
        let mut rng = crate::sim::rng::Stream::seed_from_u64(1);
        for _ in 0..200 {
            let s = b.sizes[b.draw(1_000, &mut rng)];
            assert!((500..=2_000).contains(&s), "{s}");
        }
        // None within 2x of 20 KB: 5 KB is nearer in ratio (4x) than 100 KB (5x).
        assert_eq!(b.sizes[b.draw(20_000, &mut rng)], 5_000);
        assert_eq!(b.sizes[b.draw(10, &mut rng)], 100);
        assert_eq!(b.sizes[b.draw(10_000_000, &mut rng)], 100_000);
    }

    #[test]
    fn delays_scale_with_size_above_a_bdp_only() {
        let b = by(&[1], 15_000.0);
        assert_eq!(b.scale(1_000, 10_000), 1.0, "both below a BDP: the queue they meet");
        assert_eq!(b.scale(60_000, 30_000), 2.0);
        assert_eq!(b.scale(30_000, 1_000), 2.0, "the drawn one counted as a BDP");
    }

    #[test]
    fn a_link_is_covered_when_each_message_has_one_within_a_factor_of_two() {
        let f = |all: &[u64]| Feature { all: all.to_vec(), sizes: Vec::new(), gaps: Vec::new(), load: 0.0 };
        let rep = f(&[1_000, 10_000, 1_000_000]);
        assert!(rep.covers(&f(&[500, 2_000, 5_000, 20_000, 600_000])));
        assert!(!rep.covers(&f(&[1_000, 100_000])), "nothing between 50 and 200 KB");
        assert!(!rep.covers(&f(&[400])));
    }

    #[test]
    fn wmape_weighs_differences_by_the_representative() {
        assert_eq!(wmape(&[1.0, 3.0], &[1.0, 3.0]), 0.0);
        assert!((wmape(&[1.0, 3.0], &[2.0, 3.0]) - 0.25).abs() < 1e-12);
        assert_eq!(wmape(&[0.0], &[0.0]), 0.0);
        assert_eq!(wmape(&[0.0], &[1.0]), f64::INFINITY);
    }
}
