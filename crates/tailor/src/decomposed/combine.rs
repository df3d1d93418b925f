//! The decomposition's last step (Parsimon §3.3, with §3.4's "multiple bottlenecks"
//! error corrected where it comes from shared traffic): each message's delays on the
//! links of its path combined into an estimate of its latency.
//!
//! - `Combine::Once` (what `--engine decomposed` uses): a message's delay on a link split
//!   over the messages it overlapped there, each competitor counted once over the path
//!   ([`once`]).
//! - `Combine::Sum`: its delays summed (the first version; counts a competitor once per
//!   link the two share).
//! - `Combine::Draw`, Parsimon's aggregation, which its clustering of links needs: each
//!   link's delays normalized by the message's size in started kilobytes (`units`) and
//!   bucketed by size (runs of at least [`MIN_SAMPLES`] messages whose largest size is
//!   at least twice the smallest; equal sizes never split; a short last run joins the
//!   one before), and for each link of a message's path a delay drawn uniformly from
//!   the bucket of its size (times its units), independently across links.
//!
//! Measurements of each: docs/decomposed.md, "Method" and "Accuracy".

use super::linksim::{Delay, LinkResult};
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
    Sum,
    /// Its own delays, each split over the messages it overlapped on that link, and each
    /// of those messages counted once, at the link where its share is largest
    /// ([`once`]).
    Once,
    /// A delay drawn from the bucket of its size on each link (Parsimon's aggregation,
    /// which clustering needs: a link then has a representative's delays, not its own).
    Draw,
}

/// Every message's estimated record, in the order of `plan.msgs`, from the links'
/// results (`results[k]` is `plan.links[k]`'s) and what each message takes alone on its
/// path beyond its ideal (`alone`, `solo`), counted once.
pub fn estimate(
    plan: &Plan,
    results: &[LinkResult],
    alone: &[Time],
    seed: u64,
    how: Combine,
) -> (Vec<MessageRecord>, usize) {
    match how {
        Combine::Sum | Combine::Once => {
            let extra = if how == Combine::Sum { summed(plan, results) } else { once(plan, results) };
            let records = plan.msgs.iter().zip(extra).zip(alone).map(|((m, extra), &a)| record(m, a + extra)).collect();
            return (records, 0);
        }
        Combine::Draw => {}
    }
    let mut by_port: Vec<Option<Buckets>> = vec![None; plan.ports];
    let mut buckets = 0;
    for (link, r) in plan.links.iter().zip(results) {
        let samples = link.msgs.iter().zip(&r.delays).map(|(&i, d)| (plan.msgs[i as usize].size, d.total)).collect();
        let b = Buckets::new(samples);
        buckets += b.len();
        by_port[link.port.index()] = Some(b);
    }
    let mut rng = crate::sim::rng::stream(seed, "decomposed/combine");
    let records = plan
        .msgs
        .iter()
        .zip(alone)
        .map(|(m, &a)| {
            let per_unit: f64 = m
                .hops
                .iter()
                .map(|p| {
                    by_port[p.index()].as_ref().expect("every hop of a message is a loaded link").draw(m.size, &mut rng)
                })
                .sum();
            record(m, a + Time::from_ps((per_unit * units(m.size)).round() as u64))
        })
        .collect();
    (records, buckets)
}

/// Each message's delays on its links, summed.
fn summed(plan: &Plan, results: &[LinkResult]) -> Vec<Time> {
    let mut extra = vec![Time::ZERO; plan.msgs.len()];
    for (link, r) in plan.links.iter().zip(results) {
        for (&i, d) in link.msgs.iter().zip(&r.delays) {
            extra[i as usize] += d.total;
        }
    }
    extra
}

/// Each message's delay, each other message that delayed it counted once (Parsimon
/// §3.4's "multiple bottlenecks" error, corrected where it comes from shared traffic).
///
/// Summing a message's link delays counts a competitor once per link they share: a
/// host's other messages slow it in the NIC's simulation and again in its ToR uplink's,
/// where in the fabric the competitor's packets, once ahead of it, stay ahead without
/// delaying it again, and a rate shared at one link is not shared again at the next. So
/// its delay on a link is split over the messages it overlapped there in the link's
/// simulation, in proportion to the time they overlapped, and each competitor
/// contributes its largest share over the links, not their sum. A delay with no
/// overlapping message (none: a message alone still waits for nothing) counts as is.
/// Measured (docs/decomposed.md, "Accuracy"): the large messages' p99 errors fall from
/// +16..+86 % to +0..+46 %.
fn once(plan: &Plan, results: &[LinkResult]) -> Vec<Time> {
    let mut shares: Vec<Vec<(u32, f64)>> = vec![Vec::new(); plan.msgs.len()];
    let mut alone = vec![0f64; plan.msgs.len()];
    for (link, r) in plan.links.iter().zip(results) {
        attribute(plan, &link.msgs, &r.delays, &mut shares, &mut alone);
    }
    shares
        .into_iter()
        .zip(alone)
        .map(|(mut s, alone)| {
            // Each competitor's largest share: sorted by competitor, largest first, dedup.
            s.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)));
            s.dedup_by_key(|x| x.0);
            Time::from_ps((s.iter().map(|x| x.1).sum::<f64>() + alone).round() as u64)
        })
        .collect()
}

/// One link's delays split over the overlapping messages (`once`). `msgs` are in start
/// order; a message's interval is its start to its delivery in the link's simulation.
fn attribute(plan: &Plan, msgs: &[u32], delays: &[Delay], shares: &mut [Vec<(u32, f64)>], alone: &mut [f64]) {
    let span: Vec<(u64, u64)> = msgs
        .iter()
        .zip(delays)
        .map(|(&i, d)| {
            let s = plan.msgs[i as usize].start.ps();
            (s, s + d.latency.ps())
        })
        .collect();
    // Messages that started before the current one and may still run (pruned as we go).
    let mut active: Vec<usize> = Vec::new();
    let mut weights: Vec<(u32, f64)> = Vec::new();
    for (k, &(s, e)) in span.iter().enumerate() {
        active.retain(|&j| span[j].1 > s);
        let total = delays[k].total.ps() as f64;
        if total > 0.0 {
            weights.clear();
            let later = span[k + 1..].iter().enumerate().take_while(|(_, &(s2, _))| s2 < e).map(|(d, _)| k + 1 + d);
            for j in active.iter().copied().chain(later) {
                let overlap = e.min(span[j].1).saturating_sub(s.max(span[j].0));
                if overlap > 0 {
                    weights.push((msgs[j], overlap as f64));
                }
            }
            let sum: f64 = weights.iter().map(|w| w.1).sum();
            let own = &mut shares[msgs[k] as usize];
            if sum > 0.0 {
                own.extend(weights.iter().map(|&(j, w)| (j, total * w / sum)));
            } else {
                alone[msgs[k] as usize] += total;
            }
        }
        active.push(k);
    }
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

    /// A plan of messages (start ns, hops by port) and one link result per port used, from
    /// each message's (delay, latency) ns on each of its links.
    fn plan_of(msgs: &[(u64, &[usize])], on: &[&[(u64, u64)]]) -> (Plan, Vec<LinkResult>) {
        use crate::ids::ClassId;
        use crate::net::ids::{HostId, PortId};
        let ports = 1 + msgs.iter().flat_map(|m| m.1.iter()).max().copied().unwrap_or(0);
        let mut links: Vec<super::super::plan::LinkLoad> = (0..ports)
            .map(|p| super::super::plan::LinkLoad {
                port: PortId::new(p),
                role: crate::net::port::PortRole::Up,
                rate: crate::sim::Rate::from_gbps(100),
                propagation: Time::ZERO,
                msgs: Vec::new(),
            })
            .collect();
        let mut results: Vec<LinkResult> = (0..ports)
            .map(|p| LinkResult { port: PortId::new(p), delays: Vec::new(), events: 0, seen: Default::default() })
            .collect();
        let mut plan_msgs = Vec::new();
        for (i, (&(start, hops), delays)) in msgs.iter().zip(on).enumerate() {
            for (&p, &(d, l)) in hops.iter().zip(delays.iter()) {
                links[p].msgs.push(i as u32);
                results[p].delays.push(Delay { total: ns(d), latency: ns(l) });
            }
            plan_msgs.push(super::super::plan::Msg {
                id: i as u64,
                class: ClassId::new(0),
                src: HostId::new(0),
                dst: HostId::new(1),
                size: 1000,
                start: ns(start),
                ideal: ns(10),
                hops: hops.iter().map(|&p| PortId::new(p)).collect(),
                delay: Time::ZERO,
            });
        }
        (Plan { msgs: plan_msgs, links, ports, transports: Vec::new() }, results)
    }

    #[test]
    fn a_competitor_met_on_two_links_counts_once() {
        // Messages 0 and 1 cross links 0 and 1 together; each delays the other by 30 ns
        // on link 0 and 50 ns on link 1. Summed: 80 ns; counted once: the larger, 50.
        let (plan, res) = plan_of(&[(0, &[0, 1]), (0, &[0, 1])], &[&[(30, 100), (50, 100)], &[(30, 100), (50, 100)]]);
        assert_eq!(summed(&plan, &res), vec![ns(80), ns(80)]);
        assert_eq!(once(&plan, &res), vec![ns(50), ns(50)]);
    }

    #[test]
    fn distinct_competitors_on_two_links_add() {
        // Message 0 meets message 1 on link 0 and message 2 on link 1: both delays count.
        // Message 3 starts after 0 has finished everywhere: it overlaps nothing of link 0
        // and its delay there (alone) counts as is.
        let (plan, res) = plan_of(
            &[(0, &[0, 1]), (0, &[0]), (0, &[1]), (500, &[0])],
            &[&[(30, 100), (50, 100)], &[(20, 100)], &[(10, 100)], &[(7, 100)]],
        );
        let got = once(&plan, &res);
        assert_eq!(got[0], ns(80));
        assert_eq!(got[3], ns(7));
        // Message 1 overlapped message 0 only: its 20 ns are all its share.
        assert_eq!(got[1], ns(20));
    }

    #[test]
    fn few_samples_make_one_bucket() {
        let b = Buckets::new((1..=30).map(|k| (k * 1000, ns(k))).collect());
        assert_eq!(b.len(), 1);
        assert_eq!(b.of(1).len(), 30);
    }
}
