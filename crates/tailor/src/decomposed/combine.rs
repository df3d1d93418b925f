//! The decomposition's last step (Parsimon §3.3): each link's delays, normalized by the
//! message's size in kilobytes and bucketed by size, combined along every message's path
//! into an estimate of its latency.
//!
//! - Normalization: a message's delay on a link grows with the packets it sends, so each
//!   delay is divided by the message's size in started kilobytes (`units`) and the
//!   estimate multiplies the sum back by its own.
//! - Buckets: a link's messages in order of size, cut into runs of at least
//!   [`MIN_SAMPLES`] messages whose largest size is at least twice the smallest (equal
//!   sizes are never split; a short last run joins the one before), so that a message is
//!   compared with messages of similar size and a percentile of a bucket has samples
//!   enough. A link with fewer messages is one bucket.
//! - Combining: a message's estimate is its ideal in the whole fabric plus, for each link
//!   of its path, a delay drawn uniformly from the bucket of its size on that link
//!   (times its units). The draws are independent across links: the estimate assumes
//!   a message's delays on its links are independent, which is the method's main
//!   approximation (docs/decomposed.md, "What it approximates").

use super::linksim::LinkResult;
use super::plan::Plan;
use crate::measure::MessageRecord;
use crate::sim::Time;
use rand::Rng;

/// The fewest messages of a bucket, where the link has that many.
pub const MIN_SAMPLES: usize = 100;

/// A message's size in the units its delays are normalized by (started kilobytes).
pub fn units(size: u64) -> f64 {
    size.div_ceil(1000).max(1) as f64
}

/// One link's normalized delays, bucketed by message size.
#[derive(Clone, Debug, Default)]
pub struct Buckets {
    /// The largest size of each bucket, increasing.
    upper: Vec<u64>,
    /// Each bucket's normalized delays (ps per unit).
    delays: Vec<Vec<f64>>,
}

impl Buckets {
    /// The buckets of (size, delay) pairs.
    pub fn new(mut samples: Vec<(u64, Time)>) -> Buckets {
        samples.sort_by_key(|&(s, _)| s);
        let mut b = Buckets::default();
        let mut run: Vec<f64> = Vec::new();
        let mut first = 0u64;
        for (k, &(size, d)) in samples.iter().enumerate() {
            if run.is_empty() {
                first = size;
            }
            run.push(d.ps() as f64 / units(size));
            let next = samples.get(k + 1).map(|&(s, _)| s);
            let closes = run.len() >= MIN_SAMPLES && size >= 2 * first && next != Some(size);
            if closes || next.is_none() {
                b.upper.push(size);
                b.delays.push(std::mem::take(&mut run));
            }
        }
        if b.delays.len() > 1 && b.delays.last().is_some_and(|l| l.len() < MIN_SAMPLES) {
            let last = b.delays.pop().expect("two buckets");
            let up = b.upper.pop().expect("two buckets");
            b.delays.last_mut().expect("one left").extend(last);
            *b.upper.last_mut().expect("one left") = up;
        }
        b
    }

    /// The bucket a message of `size` draws from: the first whose largest size is at
    /// least `size`, else the last.
    fn of(&self, size: u64) -> &[f64] {
        let i = self.upper.partition_point(|&u| u < size).min(self.upper.len() - 1);
        &self.delays[i]
    }

    /// A normalized delay drawn from the bucket of `size`.
    pub fn draw(&self, size: u64, rng: &mut impl Rng) -> f64 {
        let b = self.of(size);
        b[rng.random_range(0..b.len())]
    }

    /// How many buckets.
    pub fn len(&self) -> usize {
        self.upper.len()
    }

    pub fn is_empty(&self) -> bool {
        self.upper.is_empty()
    }
}

/// How a message's delays on its links are combined.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Combine {
    /// Its own delay on each link of its path, summed: every loaded link is simulated
    /// (no clustering), so each link's simulation has the message itself.
    Own,
    /// A delay drawn from the bucket of its size on each link (Parsimon's aggregation,
    /// which clustering needs: a link then has a representative's delays, not its own).
    Draw,
}

/// Every message's estimated record, in the order of `plan.msgs`, from the links'
/// results (`results[k]` is `plan.links[k]`'s).
pub fn estimate(plan: &Plan, results: &[LinkResult], seed: u64, how: Combine) -> (Vec<MessageRecord>, usize) {
    if how == Combine::Own {
        let mut extra = vec![Time::ZERO; plan.msgs.len()];
        for (link, r) in plan.links.iter().zip(results) {
            for (&i, &d) in link.msgs.iter().zip(&r.delays) {
                extra[i as usize] += d;
            }
        }
        let records = plan.msgs.iter().zip(extra).map(|(m, extra)| record(m, extra)).collect();
        return (records, 0);
    }
    let mut by_port: Vec<Option<Buckets>> = vec![None; plan.ports];
    let mut buckets = 0;
    for (link, r) in plan.links.iter().zip(results) {
        let samples = link.msgs.iter().zip(&r.delays).map(|(&i, &d)| (plan.msgs[i as usize].size, d)).collect();
        let b = Buckets::new(samples);
        buckets += b.len();
        by_port[link.port.index()] = Some(b);
    }
    let mut rng = crate::sim::rng::stream(seed, "decomposed/combine");
    let records = plan
        .msgs
        .iter()
        .map(|m| {
            let per_unit: f64 = m
                .hops
                .iter()
                .map(|p| {
                    by_port[p.index()].as_ref().expect("every hop of a message is a loaded link").draw(m.size, &mut rng)
                })
                .sum();
            record(m, Time::from_ps((per_unit * units(m.size)).round() as u64))
        })
        .collect();
    (records, buckets)
}

fn record(m: &super::plan::Msg, extra: Time) -> MessageRecord {
    MessageRecord {
        id: m.id,
        class: m.class,
        src: m.src,
        dst: m.dst,
        size: m.size,
        start: m.start,
        finish: m.start + m.ideal + extra,
        ideal: m.ideal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns(n: u64) -> Time {
        Time::from_ns(n)
    }

    #[test]
    fn buckets_hold_enough_samples_and_span_a_factor_of_two() {
        // 150 sizes from 1,000 to 2,490 B, then 60 of 100 KB: the first bucket closes at
        // 2,000 B (101 samples, twice its smallest), the rest with the 100 KB ones.
        let mut s: Vec<(u64, Time)> = (0..150).map(|k| (1000 + 10 * k, ns(1))).collect();
        s.extend((0..60).map(|_| (100_000, ns(3))));
        let b = Buckets::new(s);
        assert_eq!(b.upper, vec![2000, 100_000]);
        assert_eq!((b.delays[0].len(), b.delays[1].len()), (101, 109));
        // A size draws from the first bucket whose largest size is at least its own.
        assert_eq!(b.of(1500).len(), 101);
        assert_eq!(b.of(50_000).len(), 109);
        assert_eq!(b.of(10_000_000).len(), 109);
        // Equal sizes are never split, however many.
        assert_eq!(Buckets::new((0..500).map(|_| (1000, ns(1))).collect()).len(), 1);
    }

    #[test]
    fn few_samples_make_one_bucket() {
        let b = Buckets::new((1..=30).map(|k| (k * 1000, ns(k))).collect());
        assert_eq!(b.len(), 1);
        assert_eq!(b.of(1).len(), 30);
    }
}
