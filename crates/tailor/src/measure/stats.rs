//! Online slowdown statistics: exact count, mean and max; percentiles from an HDR
//! histogram.
//!
//! Percentiles are nearest-rank — the smallest recorded value with at least a fraction
//! q of the samples at or below it — read from an HDR histogram with 3 significant
//! digits: the value reported is the upper edge of the histogram bucket that holds the
//! nearest-rank sample, at most 0.1 % above it. Slowdowns are recorded in thousandths.

use hdrhistogram::Histogram;
use serde::Serialize;

const SCALE: f64 = 1000.0;

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
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
}

impl Default for SlowdownStats {
    fn default() -> Self {
        // 1.0 .. 10^7 slowdown at 3 significant digits; values above are clamped.
        let hist = Histogram::new_with_bounds(1, 10_000_000_000, 3).expect("valid bounds");
        SlowdownStats { scale: SCALE, hist, count: 0, sum: 0.0, max: 0.0 }
    }
}

impl SlowdownStats {
    /// The same statistics over latencies in nanoseconds (1 ns .. 10 s at 3 digits).
    pub fn latency_ns() -> Self {
        SlowdownStats { scale: 1.0, ..Self::default() }
    }

    pub fn record(&mut self, slowdown: f64) {
        let v = (slowdown * self.scale).round().clamp(1.0, 1e10) as u64;
        self.hist.saturating_record(v);
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

    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum / self.count as f64
        }
    }

    /// Nearest-rank percentile, `q` in (0, 1].
    pub fn quantile(&self, q: f64) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let v = self.hist.value_at_quantile(q) as f64 / self.scale;
        v.min(self.max)
    }

    pub fn percentiles(&self) -> Percentiles {
        Percentiles {
            count: self.count,
            mean: self.mean(),
            p50: self.quantile(0.5),
            p90: self.quantile(0.9),
            p99: self.quantile(0.99),
            p999: self.quantile(0.999),
            max: self.max,
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
        let p99 = s.quantile(0.99);
        assert!((p99 - 10.9).abs() <= 10.9 * 1e-3, "{p99}");
        assert!((s.mean() - (1.0 + 5.005)).abs() < 1e-9);
        assert_eq!(s.quantile(1.0), 11.0);
    }
}
