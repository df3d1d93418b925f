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
        }
    }

    /// Reject parameters that cannot describe a message size.
    pub fn validate(&self) -> Result<(), String> {
        match self {
            SizeDist::Fixed(0) => Err("a fixed size must be at least 1 byte".into()),
            SizeDist::Exponential { mean } if !(mean.is_finite() && *mean > 0.0) => Err(format!(
                "an exponential size needs a finite mean > 0, got {mean}"
            )),
            _ => Ok(()),
        }
    }
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
