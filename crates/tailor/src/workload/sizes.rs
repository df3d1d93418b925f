//! The size distribution of a traffic class: a CDF table ([`Cdf`], read step or linear,
//! see `cdf`), a fixed size, or an exponential (the M/G/1 and M/M/1 checks of HULL §3 and
//! SWP's functional model use exponential sizes). The built-in tables are re-exported
//! here ([`builtin`], [`workloads_dir`]) so that `workload::sizes` is the one place to
//! look for sizes.

use rand::Rng;
use rand_distr::Exp1;

pub use super::builtin::{builtin, builtin_names, load_builtin, workloads_dir};
pub use super::cdf::{Cdf, Interpolation};

/// The size distribution of a traffic class.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeDist {
    Cdf(Cdf),
    Fixed(u64),
    /// Exponential with this mean, rounded to whole bytes, at least 1 byte.
    Exponential {
        mean: f64,
    },
    /// Pareto with this shape α and scale (its smallest size), truncated at `max`
    /// (HULL §6.3: shape 1.05, mean 100 KB before truncation). Sizes are rounded up to
    /// whole bytes. The untruncated mean α·scale/(α − 1) is what the paper quotes; with
    /// α near 1 a sample's mean approaches it only over astronomically many draws, so a
    /// run must truncate, and [`SizeDist::mean`] is the truncated distribution's.
    Pareto {
        shape: f64,
        scale: f64,
        max: f64,
    },
}

impl SizeDist {
    pub fn sample(&self, rng: &mut impl Rng) -> u64 {
        match self {
            SizeDist::Cdf(c) => c.sample(rng),
            SizeDist::Fixed(n) => *n,
            SizeDist::Exponential { mean } => {
                let x: f64 = rng.sample(Exp1);
                ((x * mean).round() as u64).max(1)
            }
            SizeDist::Pareto { shape, scale, max } => {
                let u: f64 = rng.random();
                (pareto_quantile(*shape, *scale, *max, u).ceil() as u64).max(1)
            }
        }
    }

    /// The nominal mean, used to turn a load into a mean gap. For `Exponential` rounding
    /// and the 1-byte floor shift the sample mean by a negligible amount unless the mean is
    /// a few bytes.
    pub fn mean(&self) -> f64 {
        match self {
            SizeDist::Cdf(c) => c.mean(),
            SizeDist::Fixed(n) => *n as f64,
            SizeDist::Exponential { mean } => *mean,
            SizeDist::Pareto { shape, scale, max } => pareto_mean(*shape, *scale, *max),
        }
    }

    /// The distribution as point masses (size, probability) summing to 1 ([`Cdf::atoms`];
    /// an exponential by 4,096 equal-probability quantiles at their middles).
    pub fn atoms(&self) -> Vec<(u64, f64)> {
        match self {
            SizeDist::Cdf(c) => c.atoms(),
            SizeDist::Fixed(n) => vec![(*n, 1.0)],
            SizeDist::Exponential { mean } => {
                const N: usize = 4096;
                (0..N)
                    .map(|k| {
                        let u = (k as f64 + 0.5) / N as f64;
                        (((-(1.0 - u).ln() * mean).round() as u64).max(1), 1.0 / N as f64)
                    })
                    .collect()
            }
            SizeDist::Pareto { shape, scale, max } => {
                const N: usize = 4096;
                (0..N)
                    .map(|k| {
                        let u = (k as f64 + 0.5) / N as f64;
                        ((pareto_quantile(*shape, *scale, *max, u).ceil() as u64).max(1), 1.0 / N as f64)
                    })
                    .collect()
            }
        }
    }

    /// E[f(size)] over [`SizeDist::atoms`].
    pub fn expect(&self, f: impl Fn(u64) -> f64) -> f64 {
        self.atoms().into_iter().map(|(s, p)| p * f(s)).sum()
    }

    /// Upper edges of the default size bins: a table's sizes with mass; one bin for a
    /// fixed size; for an exponential a 1-2-5 log grid from 10 B to 50 means (beyond which
    /// lies e^-50 of the mass).
    pub fn bin_edges(&self) -> Vec<u64> {
        match self {
            SizeDist::Cdf(c) => c.sizes(),
            SizeDist::Fixed(n) => vec![*n],
            SizeDist::Exponential { mean } => log_edges(10, (mean * 50.0).max(10.0) as u64),
            SizeDist::Pareto { scale, max, .. } => log_edges((*scale as u64).max(1), *max as u64),
        }
    }

    /// Reject parameters that cannot describe a message size.
    pub fn validate(&self) -> Result<(), String> {
        match self {
            SizeDist::Fixed(0) => Err("a fixed size must be at least 1 byte".into()),
            SizeDist::Exponential { mean } if !(mean.is_finite() && *mean > 0.0) => Err(format!(
                "an exponential size needs a finite mean > 0, got {mean}"
            )),
            SizeDist::Pareto { shape, scale, max } if !(*shape > 1.0 && *scale >= 1.0 && max > scale && max.is_finite()) => {
                Err(format!("a Pareto size needs shape > 1, scale >= 1 B and a finite max above it, got {shape}, {scale}, {max}"))
            }
            _ => Ok(()),
        }
    }
}

/// The `u`-quantile of a Pareto(shape α, scale s) truncated at `max` M:
/// F(x) = (1 − (s/x)^α) / (1 − (s/M)^α).
fn pareto_quantile(shape: f64, scale: f64, max: f64, u: f64) -> f64 {
    let tail = (scale / max).powf(shape);
    scale / (1.0 - u * (1.0 - tail)).powf(1.0 / shape)
}

/// The mean of a Pareto(α, s) truncated at M (α ≠ 1):
/// α s^α (M^(1−α) − s^(1−α)) / ((1 − α)(1 − (s/M)^α)).
fn pareto_mean(shape: f64, scale: f64, max: f64) -> f64 {
    let a = shape;
    a * scale.powf(a) * (max.powf(1.0 - a) - scale.powf(1.0 - a)) / ((1.0 - a) * (1.0 - (scale / max).powf(a)))
}

/// 1-2-5 multiples of powers of ten from `lo` until the first edge >= `hi`.
fn log_edges(lo: u64, hi: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut decade = 1u64;
    loop {
        for m in [1, 2, 5] {
            let e = decade.saturating_mul(m);
            if e >= lo {
                out.push(e);
            }
            if e >= hi || e == u64::MAX {
                return out;
            }
        }
        decade = decade.saturating_mul(10);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::stream;

    /// HULL §6.3's sizes (shape 1.05, mean 100 KB before truncation, here at 1 GB): the
    /// paper's shares (95 % of flows under 100 KB, 0.03 % over 10 MB) and the truncated
    /// mean, against a sample.
    #[test]
    fn a_truncated_pareto_has_the_papers_shares_and_its_analytic_mean() {
        let shape = 1.05;
        let scale = 100_000.0 * (shape - 1.0) / shape;
        let d = SizeDist::Pareto { shape, scale, max: 1e9 };
        let mut rng = crate::sim::rng::stream(3, "test/pareto");
        let n = 2_000_000;
        let xs: Vec<u64> = (0..n).map(|_| d.sample(&mut rng)).collect();
        let share = |f: &dyn Fn(u64) -> bool| xs.iter().filter(|&&x| f(x)).count() as f64 / n as f64;
        assert!((share(&|x| x < 100_000) - 0.959).abs() < 0.002);
        assert!((share(&|x| x > 10_000_000) - 0.00033).abs() < 0.00008);
        assert!(xs.iter().all(|&x| x as f64 >= scale && x <= 1_000_000_000));
        // The mean of the truncated law, well below the untruncated 100 KB.
        let m = d.mean();
        assert!(m > 40_000.0 && m < 70_000.0, "{m}");
        // Within a few percent of a large sample: the truncation bounds the variance.
        let sample = xs.iter().map(|&x| x as f64).sum::<f64>() / n as f64;
        assert!((sample / m - 1.0).abs() < 0.05, "sample {sample} vs {m}");
    }

    #[test]
    fn other_distributions() {
        let mut rng = stream(3, "test/sizes");
        assert_eq!(SizeDist::Fixed(1500).sample(&mut rng), 1500);
        let e = SizeDist::Exponential { mean: 10_000.0 };
        let n = 200_000;
        let mean = (0..n).map(|_| e.sample(&mut rng) as f64).sum::<f64>() / n as f64;
        assert!((mean / 10_000.0 - 1.0).abs() < 0.01);
        let edges = e.bin_edges();
        assert_eq!(&edges[..4], &[10, 20, 50, 100]);
        assert!(*edges.last().unwrap() >= 500_000);
        assert!(SizeDist::Fixed(0).validate().is_err());
        assert!(SizeDist::Exponential { mean: -1.0 }.validate().is_err());
    }
}
