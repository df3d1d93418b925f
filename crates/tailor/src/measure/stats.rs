//! Online slowdown statistics: exact count, mean and max; percentiles from an HDR
//! histogram.
//!
//! Percentiles are nearest-rank — the smallest recorded value with at least a fraction
//! q of the samples at or below it — read from an HDR histogram with 3 significant
//! digits: the value reported is the upper edge of the histogram bucket that holds the
//! nearest-rank sample, at most 0.1 % above it. Slowdowns are recorded in thousandths.
//!
//! A statistic of no samples does not exist: it is `None` (JSON `null` in summaries),
//! never 0, which would read as a perfect slowdown.

use crate::sim::time::round_to_u64;
use hdrhistogram::Histogram;
use serde::Serialize;

const SCALE: f64 = 1000.0;

#[derive(Clone)]
pub struct SlowdownStats {
    /// Recorded value = round(value x scale): 1000 for slowdowns, 1 for nanoseconds.
    scale: f64,
    hist: Histogram<u64>,
    count: u64,
    sum: f64,
    max: f64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Percentiles {
    pub count: u64,
    /// The statistics below are None when `count` is 0.
    pub mean: Option<f64>,
    pub p50: Option<f64>,
    pub p90: Option<f64>,
    pub p99: Option<f64>,
    pub p999: Option<f64>,
    pub max: Option<f64>,
}

/// The largest value recorded: 10^7 slowdown in thousandths, 10 s in nanoseconds; values
/// above are clamped.
const HIGHEST: u64 = 10_000_000_000;

impl Default for SlowdownStats {
    fn default() -> Self {
        // 1.0 .. 10^7 slowdown at 3 significant digits. The histogram starts small and
        // grows to the largest value recorded: a run holds two per size bin and class,
        // and allocating (and zeroing) each one's full range up front — 24,576 counters,
        // 192 KiB — was a sixth of a short run's time (docs/model.md, "Speed"). The
        // buckets are the same at any size, so the percentiles are too.
        let mut hist = Histogram::new_with_bounds(1, 2, 3).expect("valid bounds");
        hist.auto(true);
        SlowdownStats { scale: SCALE, hist, count: 0, sum: 0.0, max: 0.0 }
    }
}

impl SlowdownStats {
    /// The same statistics over latencies in nanoseconds (1 ns .. 10 s at 3 digits).
    pub fn latency_ns() -> Self {
        SlowdownStats { scale: 1.0, ..Self::default() }
    }

    pub fn record(&mut self, slowdown: f64) {
        let v = round_to_u64(slowdown * self.scale).clamp(1, HIGHEST);
        self.hist.record(v).expect("an auto-resizing histogram takes any value up to HIGHEST");
        self.count += 1;
        self.sum += slowdown;
        self.max = self.max.max(slowdown);
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// Adds `other`'s samples: the result is what recording both sets into one would
    /// give (histograms of equal bounds add bucket by bucket, exactly).
    pub fn merge(&mut self, other: &SlowdownStats) {
        debug_assert_eq!(self.scale, other.scale);
        self.hist.add(&other.hist).expect("histograms of equal bounds add");
        self.count += other.count;
        self.sum += other.sum;
        self.max = self.max.max(other.max);
    }

    /// The mean; None without samples.
    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum / self.count as f64)
    }

    /// The largest sample; None without samples.
    pub fn max(&self) -> Option<f64> {
        (self.count > 0).then_some(self.max)
    }

    /// Nearest-rank percentile, `q` in (0, 1]; None without samples.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        (self.count > 0).then(|| (self.hist.value_at_quantile(q) as f64 / self.scale).min(self.max))
    }

    pub fn percentiles(&self) -> Percentiles {
        Percentiles {
            count: self.count,
            mean: self.mean(),
            p50: self.quantile(0.5),
            p90: self.quantile(0.9),
            p99: self.quantile(0.99),
            p999: self.quantile(0.999),
            max: self.max(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_within_histogram_precision() {
        let mut s = SlowdownStats::default();
        for i in 1..=1000 {
            s.record(1.0 + i as f64 / 100.0);
        }
        // Nearest rank of p99 over 1000 samples is the 990th: 1 + 9.90 = 10.9.
        let p99 = s.quantile(0.99).unwrap();
        assert!((p99 - 10.9).abs() <= 10.9 * 1e-3, "{p99}");
        assert!((s.mean().unwrap() - (1.0 + 5.005)).abs() < 1e-9);
        assert_eq!(s.quantile(1.0), Some(11.0));
    }

    #[test]
    fn no_samples_no_statistics() {
        let p = SlowdownStats::default().percentiles();
        assert_eq!(p.count, 0);
        assert_eq!([p.mean, p.p50, p.p90, p.p99, p.p999, p.max], [None; 6]);
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(json, r#"{"count":0,"mean":null,"p50":null,"p90":null,"p99":null,"p999":null,"max":null}"#);
    }
}
