//! Service-level objectives per traffic class (SWP §2, §3.2–3.3).
//!
//! An SLO bounds an SLI — the mean or a percentile of the slowdown or the latency of a
//! class's messages, optionally of sizes in (min_size, max_size] — by a threshold. A
//! class's SLOs combine with "and". The loss of one SLO is SWP's eq. 1, the normalized
//! distance of the SLI from its threshold, (SLI − threshold) / threshold: negative when
//! met; a class's loss is the largest of its SLOs' losses, so it is negative exactly
//! when every SLO is met.

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

/// An SLO with the statistics of the messages it covers.
pub struct SloTracker {
    pub slo: Slo,
    stats: SlowdownStats,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SloReport {
    pub sli: String,
    pub threshold: f64,
    pub count: u64,
    /// None when no message fell in the SLO's range.
    pub value: Option<f64>,
    pub loss: Option<f64>,
    pub met: Option<bool>,
}

impl SloTracker {
    pub fn new(slo: Slo) -> Self {
        let stats = match slo.metric {
            Metric::Slowdown => SlowdownStats::default(),
            Metric::Latency => SlowdownStats::latency_ns(),
        };
        SloTracker { slo, stats }
    }

    pub fn record(&mut self, size: u64, slowdown: f64, latency_ns: f64) {
        if self.slo.covers(size) {
            self.stats.record(match self.slo.metric {
                Metric::Slowdown => slowdown,
                Metric::Latency => latency_ns,
            });
        }
    }

    pub fn report(&self) -> SloReport {
        let value = match self.slo.stat {
            Stat::Mean => self.stats.mean(),
            Stat::Percentile(p) => self.stats.quantile(p / 100.0),
        };
        let loss = value.map(|v| (v - self.slo.threshold) / self.slo.threshold);
        SloReport {
            sli: self.slo.describe(),
            threshold: self.slo.threshold,
            count: self.stats.count(),
            value,
            loss,
            met: loss.map(|l| l <= 0.0),
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
        Slo { stat: Stat::Percentile(99.0), metric: Metric::Slowdown, min_size: None, max_size: Some(125_000), threshold }
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
        assert_eq!(r.met, Some(true));
        let mut tight = SloTracker::new(p99_small(1.5));
        tight.record(10, 3.0, 0.0);
        assert_eq!(tight.report().loss, Some(1.0));
        assert_eq!(tight.report().met, Some(false));
        assert_eq!(class_loss(&[r, tight.report()]), Some(1.0), "and: the worst SLO decides");
    }

    #[test]
    fn latency_slos_use_nanoseconds_and_ranges_are_lower_exclusive() {
        let slo = Slo { stat: Stat::Mean, metric: Metric::Latency, min_size: Some(100), max_size: Some(200), threshold: 50_000.0 };
        assert!(!slo.covers(100) && slo.covers(101) && slo.covers(200) && !slo.covers(201));
        let mut t = SloTracker::new(slo);
        t.record(150, 9.0, 40_000.0);
        t.record(150, 9.0, 80_000.0);
        assert_eq!(t.report().value, Some(60_000.0));
        assert_eq!(t.report().met, Some(false));
        assert_eq!(SloTracker::new(slo).report().met, None, "no data, no verdict");
    }
}
