//! How long a host takes to act on a GRT beyond the network's own delays: PL2's
//! prototype measured RSV-GRT exchanges of 1 µs (min), 1.06 µs (median) and 14 µs (max)
//! NIC to NIC with hardware timestamps, and 1.98 / 2.05 / 22.25 µs with software
//! timestamps, in an idle network and the same near line rate (§E); the paper says this
//! variability costs it.
//!
//! tailor's network already gives each exchange its minimum (links, the 347 ns switch,
//! the hosts' software delays), so a host delay is the extra time above the minimum,
//! drawn per GRT: `"0ns"` (the default: deterministic) or any fixed time, or one of the
//! shipped tables below. The paper publishes three points of each distribution and not
//! the number of exchanges behind its maximum; the tables place the maximum at the
//! 99.99th percentile (an assumption: a run of 10^4 exchanges or more would have seen
//! it) and interpolate linearly in log(1 - p) between the published points: a tail that
//! falls geometrically, which is what a single maximum over many samples suggests, where
//! linear interpolation in p would put the 90th percentile at 10 µs.

use crate::input::{ScenarioError, Table};
use crate::sim::Time;
use rand::Rng;

/// A shipped table: (quantile, extra delay above the minimum in ns), quantiles rising
/// from 0 and below 1.
struct Shipped {
    name: &'static str,
    about: &'static str,
    points: &'static [(f64, u64)],
}

const SHIPPED: &[Shipped] = &[
    Shipped {
        name: "prototype_hw",
        about: "PL2 §E, hardware timestamps: 1.00 / 1.06 / 14 µs (min / median / max, max placed at p99.99)",
        points: &[(0.0, 0), (0.5, 60), (0.9999, 13_000)],
    },
    Shipped {
        name: "prototype_sw",
        about: "PL2 §E, software timestamps: 1.98 / 2.05 / 22.25 µs (min / median / max, max placed at p99.99)",
        points: &[(0.0, 0), (0.5, 70), (0.9999, 20_270)],
    },
];

/// The extra delay of each RSV-GRT exchange.
#[derive(Clone, Debug, PartialEq)]
pub enum HostDelay {
    Fixed(Time),
    Table { name: &'static str, points: &'static [(f64, u64)] },
}

impl HostDelay {
    /// One draw (a fixed delay draws nothing).
    pub fn sample(&self, rng: &mut impl Rng) -> Time {
        match self {
            HostDelay::Fixed(t) => *t,
            HostDelay::Table { points, .. } => {
                Time::from_ps((quantile(points, rng.random::<f64>()) * 1e3).round() as u64)
            }
        }
    }

    pub fn describe(&self) -> String {
        match self {
            HostDelay::Fixed(t) => format!("{t}"),
            HostDelay::Table { name, .. } => {
                let about = SHIPPED.iter().find(|s| s.name == *name).map_or("", |s| s.about);
                format!("{name}: {about}")
            }
        }
    }
}

/// The delay (ns) at quantile `u`: linear in -log(1 - p) between points; the last
/// point's value above it.
fn quantile(points: &[(f64, u64)], u: f64) -> f64 {
    let x = |p: f64| -(1.0 - p).ln();
    for w in points.windows(2) {
        let ((p0, d0), (p1, d1)) = (w[0], w[1]);
        if u <= p1 {
            let f = (x(u) - x(p0)) / (x(p1) - x(p0));
            return d0 as f64 + f.clamp(0.0, 1.0) * (d1 as f64 - d0 as f64);
        }
    }
    points.last().map_or(0.0, |p| p.1 as f64)
}

/// `host_delay`: a time, or a shipped table's name.
pub fn parse(t: &mut Table) -> Result<HostDelay, ScenarioError> {
    let names: Vec<&str> = SHIPPED.iter().map(|s| s.name).collect();
    if let Some(toml::Value::String(s)) = t.peek("host_delay") {
        if let Some(sh) = SHIPPED.iter().find(|sh| sh.name == s) {
            t.choice("host_delay", &names)?;
            return Ok(HostDelay::Table { name: sh.name, points: sh.points });
        }
        if s.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) {
            return Err(t.error(
                "host_delay",
                format!(
                    "is not a time or a shipped table; accepted: a time such as \"500ns\", or {}",
                    names.join(", ")
                ),
            ));
        }
    }
    Ok(HostDelay::Fixed(t.time("host_delay")?.unwrap_or(Time::ZERO)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_tables_keep_the_published_median_and_maximum() {
        for s in SHIPPED {
            assert_eq!(quantile(s.points, 0.0), 0.0);
            assert!((quantile(s.points, 0.5) - s.points[1].1 as f64).abs() < 1e-6);
            assert!((quantile(s.points, 0.99995) - s.points[2].1 as f64).abs() < 1e-6);
            // The geometric tail: p99 sits about half way (in log) between median and max.
            let p99 = quantile(s.points, 0.99);
            assert!(p99 > 0.3 * s.points[2].1 as f64 && p99 < 0.6 * s.points[2].1 as f64, "{}: p99 {p99}", s.name);
        }
        let mut rng = crate::sim::rng::stream(1, "t");
        let d = HostDelay::Table { name: SHIPPED[0].name, points: SHIPPED[0].points };
        let mut v: Vec<u64> = (0..20_000).map(|_| d.sample(&mut rng).ps()).collect();
        v.sort_unstable();
        let median_ns = v[10_000] as f64 / 1e3;
        assert!((median_ns - 60.0).abs() < 5.0, "median {median_ns} ns");
    }
}
