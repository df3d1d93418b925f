//! Service-level objectives per traffic class (SWP §2, §3.2–3.3), and the one rule that
//! judges them.
//!
//! An SLO bounds an SLI — the mean or a percentile of the slowdown or the latency of a
//! class's messages, optionally of sizes in (min_size, max_size] — by a threshold. A
//! class's SLOs combine with "and". The loss of one SLO is SWP's eq. 1, the normalized
//! distance of the SLI from its threshold, (SLI − threshold) / threshold: negative when
//! met; a class's loss is the largest of its SLOs' losses.
//!
//! The verdict (`met`, [`SloTracker::report`]) is true, false or not judged (None, with
//! a `reason`). Not judged: no message in range; fewer messages in range than the
//! statistic needs ([`samples_needed`]: a p99 of 82 messages is only their maximum); or
//! messages in range still unfinished at the stop, unless the verdict is the same
//! whatever they finish at. An unfinished message's latency (slowdown) is at least what it
//! had accrued at the stop, so: a percentile is missed when, with the unfinished counted
//! at their accrued values, it already exceeds the threshold, and met when it holds even
//! with every unfinished message counted as never finishing; a mean is missed when its
//! lower bound (the unfinished at their accrued values) exceeds the threshold, and never
//! met while a message is unfinished (one could take forever).

use super::stats::SlowdownStats;
use serde::Serialize;

#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Stat {
    Mean,
    /// A percentile in (0, 100], nearest rank.
    Percentile(f64),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Metric {
    Slowdown,
    /// Latency in nanoseconds.
    Latency,
}

#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Slo {
    pub stat: Stat,
    pub metric: Metric,
    /// Sizes above this (exclusive lower edge).
    pub min_size: Option<u64>,
    /// Sizes up to this (inclusive upper edge).
    pub max_size: Option<u64>,
    /// Upper bound on the SLI: a slowdown, or nanoseconds.
    pub threshold: f64,
}

/// The messages the `p`-th percentile needs to be a result: enough that at least one
/// lies above it, 100 / (100 − p) (p50: 2, p99: 100, p99.9: 1,000); fewer, and the "p99.9"
/// is just the largest value seen. The maximum (p = 100) needs 1. tailor's one such rule:
/// the Python side (`tailor.stats.samples_needed`) calls this.
pub fn samples_needed(p: f64) -> u64 {
    if p >= 100.0 {
        return 1;
    }
    // Rounded first so that 100 / (100 − 99.9) = 1000.0000000000036 needs 1,000, not 1,001.
    ((100.0 / (100.0 - p) * 1e6).round() / 1e6).ceil() as u64
}

impl Stat {
    /// The messages in range this statistic needs to be judged (a mean: one).
    pub fn samples_needed(&self) -> u64 {
        match self {
            Stat::Mean => 1,
            Stat::Percentile(p) => samples_needed(*p),
        }
    }
}

impl Slo {
    pub fn covers(&self, size: u64) -> bool {
        self.min_size.is_none_or(|m| size > m) && self.max_size.is_none_or(|m| size <= m)
    }

    /// "p99 slowdown of messages in (0 B, 125000 B]".
    pub fn describe(&self) -> String {
        let stat = match self.stat {
            Stat::Mean => "mean".to_string(),
            Stat::Percentile(p) => format!("p{p}"),
        };
        let metric = match self.metric {
            Metric::Slowdown => "slowdown",
            Metric::Latency => "latency (ns)",
        };
        let range = match (self.min_size, self.max_size) {
            (None, None) => String::new(),
            (lo, hi) => format!(
                " of messages in ({} B, {}]",
                lo.unwrap_or(0),
                hi.map_or("inf".to_string(), |h| format!("{h} B"))
            ),
        };
        format!("{stat} {metric}{range}")
    }
}

/// An SLO with the statistics of the messages it covers: those completed, and those
/// unfinished at the stop at what they had accrued.
#[derive(Clone)]
pub struct SloTracker {
    pub slo: Slo,
    stats: SlowdownStats,
    unfinished: SlowdownStats,
    unfinished_bytes: u64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SloReport {
    pub sli: String,
    pub threshold: f64,
    /// Messages in range that completed.
    pub count: u64,
    /// Messages in range unfinished at the stop, and their bytes.
    pub incomplete: u64,
    pub incomplete_bytes: u64,
    /// The SLI over the completed messages and, when some are unfinished, those too at
    /// what they had accrued at the stop (a lower bound). None when no message is in range.
    pub value: Option<f64>,
    pub loss: Option<f64>,
    /// None: not judged (see `reason`).
    pub met: Option<bool>,
    /// Why the SLO is not judged, e.g. "82 messages, 100 needed"; absent when judged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The verdict with unfinished messages in range, or None when it depends on them.
fn bounded_verdict(slo: &Slo, done: &SlowdownStats, best: &SlowdownStats, unfinished: u64) -> Option<bool> {
    let t = slo.threshold;
    match slo.stat {
        Stat::Mean => best.mean().is_some_and(|m| m > t).then_some(false),
        Stat::Percentile(p) => {
            if best.quantile(p / 100.0).is_some_and(|v| v > t) {
                return Some(false);
            }
            // Every unfinished message never finishing: the nearest rank among all falls
            // on a completed message, or on an unbounded one.
            let n = done.count();
            let all = n + unfinished;
            let rank = ((p * all as f64 / 100.0 * 1e9).round() / 1e9).ceil().max(1.0) as u64;
            (rank <= n && done.quantile(rank as f64 / n as f64).is_some_and(|v| v <= t)).then_some(true)
        }
    }
}

/// "253 messages (177.2 MB) unfinished at stop".
pub fn unfinished_text(count: u64, bytes: u64) -> String {
    format!("{count} message{} ({:.1} MB) unfinished at stop", if count == 1 { "" } else { "s" }, bytes as f64 / 1e6)
}

impl SloTracker {
    pub fn new(slo: Slo) -> Self {
        let stats = || match slo.metric {
            Metric::Slowdown => SlowdownStats::default(),
            Metric::Latency => SlowdownStats::latency_ns(),
        };
        SloTracker { slo, stats: stats(), unfinished: stats(), unfinished_bytes: 0 }
    }

    fn value(&self, slowdown: f64, latency_ns: f64) -> f64 {
        match self.slo.metric {
            Metric::Slowdown => slowdown,
            Metric::Latency => latency_ns,
        }
    }

    pub fn record(&mut self, size: u64, slowdown: f64, latency_ns: f64) {
        if self.slo.covers(size) {
            let v = self.value(slowdown, latency_ns);
            self.stats.record(v);
        }
    }

    /// A message unfinished at the stop, with the slowdown and latency it had accrued.
    pub fn record_unfinished(&mut self, size: u64, slowdown: f64, latency_ns: f64) {
        if self.slo.covers(size) {
            let v = self.value(slowdown, latency_ns);
            self.unfinished.record(v);
            self.unfinished_bytes += size;
        }
    }

    pub fn report(&self) -> SloReport {
        let u = self.unfinished.count();
        let mut best = self.stats.clone();
        best.merge(&self.unfinished);
        let value = match self.slo.stat {
            Stat::Mean => best.mean(),
            Stat::Percentile(p) => best.quantile(p / 100.0),
        };
        let loss = value.map(|v| (v - self.slo.threshold) / self.slo.threshold);
        let (all, need) = (best.count(), self.slo.stat.samples_needed());
        let (met, reason) = if all == 0 {
            (None, Some("no message in range".to_string()))
        } else if all < need {
            // The count includes the unfinished, so say how many: "63 messages" beside a
            // count of 58 finished ones would read as a mistake.
            let unfinished = if u > 0 { format!(" ({u} unfinished at stop)") } else { String::new() };
            (None, Some(format!("{all} message{}{unfinished}, {need} needed", if all == 1 { "" } else { "s" })))
        } else if u > 0 {
            let met = bounded_verdict(&self.slo, &self.stats, &best, u);
            (met, met.is_none().then(|| unfinished_text(u, self.unfinished_bytes)))
        } else {
            (loss.map(|l| l <= 0.0), None)
        };
        SloReport {
            sli: self.slo.describe(),
            threshold: self.slo.threshold,
            count: self.stats.count(),
            incomplete: u,
            incomplete_bytes: self.unfinished_bytes,
            value,
            loss,
            met,
            reason,
        }
    }
}

/// A class's loss: the largest loss of its SLOs (None if it has none or none has data).
pub fn class_loss(reports: &[SloReport]) -> Option<f64> {
    reports.iter().filter_map(|r| r.loss).reduce(f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p99_small(threshold: f64) -> Slo {
        Slo {
            stat: Stat::Percentile(99.0),
            metric: Metric::Slowdown,
            min_size: None,
            max_size: Some(125_000),
            threshold,
        }
    }

    fn p90(threshold: f64) -> Slo {
        Slo { stat: Stat::Percentile(90.0), metric: Metric::Slowdown, min_size: None, max_size: None, threshold }
    }

    #[test]
    fn loss_is_the_normalized_distance_negative_when_met() {
        let mut t = SloTracker::new(p99_small(2.0));
        for i in 0..100 {
            t.record(1_000, 1.0 + i as f64 / 100.0, 0.0);
        }
        t.record(1_000_000, 50.0, 0.0); // outside the range: ignored
        let r = t.report();
        assert_eq!(r.count, 100);
        let v = r.value.unwrap();
        assert!((v - 1.98).abs() < 0.005, "nearest rank: the 99th of 100 samples, {v}");
        assert!((r.loss.unwrap() - (v - 2.0) / 2.0).abs() < 1e-12);
        assert_eq!((r.met, r.reason.as_deref()), (Some(true), None));
        let mut tight = SloTracker::new(p99_small(1.5));
        for _ in 0..100 {
            tight.record(10, 3.0, 0.0);
        }
        assert_eq!(tight.report().loss, Some(1.0));
        assert_eq!(tight.report().met, Some(false));
        assert_eq!(class_loss(&[r, tight.report()]), Some(1.0), "and: the worst SLO decides");
    }

    #[test]
    fn latency_slos_use_nanoseconds_and_ranges_are_lower_exclusive() {
        let slo = Slo {
            stat: Stat::Mean,
            metric: Metric::Latency,
            min_size: Some(100),
            max_size: Some(200),
            threshold: 50_000.0,
        };
        assert!(!slo.covers(100) && slo.covers(101) && slo.covers(200) && !slo.covers(201));
        let mut t = SloTracker::new(slo);
        t.record(150, 9.0, 40_000.0);
        t.record(150, 9.0, 80_000.0);
        assert_eq!(t.report().value, Some(60_000.0));
        assert_eq!(t.report().met, Some(false));
        let empty = SloTracker::new(slo).report();
        assert_eq!((empty.met, empty.reason.as_deref()), (None, Some("no message in range")), "no data, no verdict");
    }

    /// Issue 24 item 11: a p99 of 82 messages is their maximum, not a p99.
    #[test]
    fn a_percentile_of_fewer_messages_than_it_needs_is_not_judged() {
        assert_eq!(
            (
                samples_needed(50.0),
                samples_needed(90.0),
                samples_needed(99.0),
                samples_needed(99.9),
                samples_needed(100.0)
            ),
            (2, 10, 100, 1000, 1)
        );
        let mut t = SloTracker::new(p99_small(2.0));
        for _ in 0..82 {
            t.record(1_000, 1.5, 0.0);
        }
        let r = t.report();
        assert_eq!((r.met, r.reason.as_deref()), (None, Some("82 messages, 100 needed")));
        assert!(r.loss.unwrap() < 0.0, "the loss still steers the advisor");
        let mut stopped = SloTracker::new(p99_small(2.0));
        for _ in 0..58 {
            stopped.record(1_000, 1.5, 0.0);
        }
        for _ in 0..5 {
            stopped.record_unfinished(1_000, 1.5, 0.0);
        }
        let r = stopped.report();
        assert_eq!((r.count, r.reason.as_deref()), (58, Some("63 messages (5 unfinished at stop), 100 needed")));
        for _ in 82..100 {
            t.record(1_000, 1.5, 0.0);
        }
        assert_eq!(t.report().met, Some(true));
    }

    fn p90_with(unfinished: u64, accrued: f64) -> SloReport {
        let mut t = SloTracker::new(p90(2.0));
        for _ in 0..1000 {
            t.record(1_000, 1.0, 0.0);
        }
        for _ in 0..unfinished {
            t.record_unfinished(1_000_000, accrued, 0.0);
        }
        t.report()
    }

    /// Issue 24 item 2: unfinished messages count. A p90 of 1000 messages may have 100 above
    /// its bound (then 105 of 1050, 120 of 1200).
    #[test]
    fn unfinished_messages_decide_a_percentile_only_when_they_must() {
        let few = p90_with(50, 1.5);
        assert_eq!(
            (few.met, few.incomplete, few.incomplete_bytes),
            (Some(true), 50, 50_000_000),
            "met even if the 50 never finish"
        );
        let open = p90_with(200, 1.5);
        assert_eq!(open.met, None, "200 may or may not end under the bound");
        assert_eq!(open.reason.as_deref(), Some("200 messages (200.0 MB) unfinished at stop"));
        assert_eq!(open.count, 1000);
        let late = p90_with(200, 3.0);
        assert_eq!(
            (late.met, late.reason.as_deref()),
            (Some(false), None),
            "200 already past the bound: missed whatever they finish at"
        );
        assert!(late.loss.unwrap() > 0.0 && late.value == Some(3.0), "the value counts them at what they accrued");
    }

    #[test]
    fn an_unfinished_message_leaves_a_mean_unmet_and_misses_it_by_its_lower_bound() {
        let mean = Slo { stat: Stat::Mean, metric: Metric::Slowdown, min_size: None, max_size: None, threshold: 2.0 };
        let with = |accrued: f64| {
            let mut t = SloTracker::new(mean);
            for _ in 0..100 {
                t.record(10, 1.0, 0.0);
            }
            t.record_unfinished(10, accrued, 0.0);
            t.report()
        };
        assert_eq!(with(1.5).met, None);
        assert_eq!(with(1.5).reason.as_deref(), Some("1 message (0.0 MB) unfinished at stop"));
        assert_eq!(with(500.0).met, Some(false), "(100 + 500) / 101 > 2 whatever it finishes at");
    }
}
