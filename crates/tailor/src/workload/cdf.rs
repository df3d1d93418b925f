//! Empirical message-size distributions: the `.cdf` tables and their two readings.
//!
//! A `.cdf` table (format in `workloads/README.md`, and the shared workload README it
//! follows) lists points `size_bytes cumulative_probability`: P(size <= s_i) = F_i. The
//! simulators that published these tables read them in two ways, and tailor offers both:
//!
//! - **Step** (HomaSimulation OMNeT++, `getInterarrivalSizeFromVec`): draw u and return the
//!   first listed size with F_i >= u. Only listed sizes occur; P(s_i) = F_i - F_(i-1).
//! - **Linear** (HPCC `traffic_gen/custom_rand.py`, also the ns-3 anchor's `CdfSample`): the
//!   first point carries a point mass F_0, the size is uniform between consecutive points,
//!   and a draw is truncated to whole bytes with a minimum of 1 byte.
//!
//! Invariants of a parsed [`Cdf`]: at least one point, sizes strictly increasing,
//! probabilities in [0, 1] and non-decreasing, the last exactly 1.0, and no probability
//! mass on size 0 (a message has at least one byte).

use std::path::Path;

use rand::Rng;

use super::WorkloadError;

/// How the points of a CDF table are read (module doc).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Interpolation {
    Step,
    Linear,
}

/// One point of a table: P(size <= `size`) = `cum`.
#[derive(Copy, Clone, Debug, PartialEq)]
struct Point {
    size: u64,
    cum: f64,
}

/// An empirical size distribution read from a table.
#[derive(Clone, Debug, PartialEq)]
pub struct Cdf {
    points: Vec<Point>,
    interp: Interpolation,
    /// `guide[j]`: the first point with F_i >= j / GUIDE (`Cdf::first_at_least`).
    guide: Vec<u32>,
}

/// Cells of the guide table that narrows a draw's search (Chen and Asau's indexed search):
/// a power of two, so that u·GUIDE and j / GUIDE are exact.
const GUIDE: usize = 1024;

/// Tolerance on the last probability: tables are written with exact decimals, so this only
/// absorbs the rounding of parsing, never a genuinely short table.
const LAST_TOL: f64 = 1e-9;

impl Cdf {
    /// Parse a table. `origin` names it in errors (a path, or `"<inline>"`).
    ///
    /// Lines are `size cum`; `#` starts a comment (whole line or trailing). Probabilities
    /// may be fractions (last 1.0) or percent (last 100, as HPCC's files and the ns-3
    /// anchor's `websearch_cdf.txt`); percent is divided by 100.
    pub fn parse(text: &str, origin: &str, interp: Interpolation) -> Result<Cdf, WorkloadError> {
        let err = |line: usize, msg: String| WorkloadError::Cdf { file: origin.to_string(), line, msg };
        let mut points: Vec<Point> = Vec::new();
        let mut last_line = 0;
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let content = raw.split('#').next().unwrap_or("").trim();
            if content.is_empty() {
                continue;
            }
            let p = parse_point(content).map_err(|m| err(line, m))?;
            check_order(points.last(), &p).map_err(|m| err(line, m))?;
            points.push(p);
            last_line = line;
        }
        if points.is_empty() {
            return Err(WorkloadError::CdfFile {
                file: origin.to_string(),
                msg: "has no points; accepted: lines 'size_bytes cumulative_probability'".into(),
            });
        }
        normalise(&mut points).map_err(|m| err(last_line, m))?;
        let guide = (0..=GUIDE).map(|j| points.partition_point(|p| p.cum < j as f64 / GUIDE as f64) as u32).collect();
        Ok(Cdf { points, interp, guide })
    }

    /// Read and parse a table file.
    pub fn load(path: &Path, interp: Interpolation) -> Result<Cdf, WorkloadError> {
        use crate::input::files::{read_text, MAX_LINE, MAX_TEXT};
        let text = read_text(path, MAX_TEXT, Some(MAX_LINE)).map_err(|e| WorkloadError::Refused(e.to_string()))?;
        Cdf::parse(&text, &path.display().to_string(), interp)
    }

    pub fn interpolation(&self) -> Interpolation {
        self.interp
    }

    /// The same table read the other way.
    pub fn with_interpolation(mut self, interp: Interpolation) -> Cdf {
        self.interp = interp;
        self
    }

    /// One draw, with u ~ U[0, 1).
    pub fn sample(&self, rng: &mut impl Rng) -> u64 {
        let u: f64 = rng.random();
        match self.interp {
            Interpolation::Step => self.step_at(u),
            Interpolation::Linear => self.linear_at(u),
        }
    }

    /// Step: the first size with F_i >= u'. We use u' = 1 - u in (0, 1] so that a point of
    /// zero mass (the `0 0` first line) can never be returned, even for u = 0.
    fn step_at(&self, u: f64) -> u64 {
        let u = 1.0 - u;
        let i = self.first_at_least(u);
        self.points[i.min(self.points.len() - 1)].size
    }

    /// `points.partition_point(|p| p.cum < u)`, the same index, searched only between
    /// the guide's entries for u's cell: W3's 842 points cost a tenth of a model run as
    /// a binary search over the whole table (docs/model.md, "Speed").
    fn first_at_least(&self, u: f64) -> usize {
        if !(0.0..=1.0).contains(&u) {
            return self.points.partition_point(|p| p.cum < u);
        }
        // j / GUIDE <= u < (j + 1) / GUIDE exactly, so the index lies in guide[j]..=guide[j + 1].
        let j = (u * GUIDE as f64) as usize;
        let (lo, hi) = (self.guide[j] as usize, self.guide[(j + 1).min(GUIDE)] as usize);
        lo + self.points[lo..hi].partition_point(|p| p.cum < u)
    }

    /// Linear, as HPCC's `getValueFromPercentile`: the first i with u <= F_i, interpolated
    /// between points i-1 and i, truncated (`int()`), at least 1 byte. u <= F_0 falls on the
    /// first point's mass (HPCC requires F_0 = 0 and would extrapolate instead).
    fn linear_at(&self, u: f64) -> u64 {
        let i = self.first_at_least(u);
        if i == 0 {
            return self.points[0].size.max(1);
        }
        let (a, b) = (self.points[i - 1], self.points[i.min(self.points.len() - 1)]);
        // F_(i-1) < u <= F_i, so the denominator is positive.
        let x = a.size as f64 + (b.size - a.size) as f64 / (b.cum - a.cum) * (u - a.cum);
        (x as u64).clamp(1, b.size)
    }

    /// The exact mean under the chosen reading (README formulas):
    /// step Σ s_i (F_i - F_(i-1)); linear s_0 F_0 + Σ (s_(i-1) + s_i)/2 (F_i - F_(i-1)).
    ///
    /// Linear draws are truncated to whole bytes, so their sample mean is about 0.5 B below
    /// this value (slightly less where the 1-byte minimum lifts draws of 0); the ns-3 anchor
    /// and HPCC's `getAvg()` use this untruncated value to set the load, and so do we.
    pub fn mean(&self) -> f64 {
        let first = self.points[0];
        let mut sum = first.size as f64 * first.cum;
        for w in self.points.windows(2) {
            let mass = w[1].cum - w[0].cum;
            let at = match self.interp {
                Interpolation::Step => w[1].size as f64,
                Interpolation::Linear => (w[0].size + w[1].size) as f64 / 2.0,
            };
            sum += at * mass;
        }
        sum
    }

    /// The listed sizes that carry probability (F_i > F_(i-1), F_(-1) = 0): the natural
    /// upper edges of size bins (the ns-3 anchor bins by the CDF's points).
    pub fn sizes(&self) -> Vec<u64> {
        let mut prev = 0.0;
        let mut out = Vec::new();
        for p in &self.points {
            if p.cum > prev {
                out.push(p.size);
            }
            prev = p.cum;
        }
        out
    }

    /// P(size <= bytes) under the chosen reading (for tests and reports).
    pub fn cdf_at(&self, bytes: u64) -> f64 {
        let i = self.points.partition_point(|p| p.size <= bytes);
        if i == 0 {
            return 0.0;
        }
        let a = self.points[i - 1];
        if self.interp == Interpolation::Step || i == self.points.len() {
            return a.cum;
        }
        let b = self.points[i];
        a.cum + (b.cum - a.cum) * (bytes - a.size) as f64 / (b.size - a.size) as f64
    }

    /// The distribution as point masses (size, probability) summing to 1, for
    /// expectations of functions of the size (a transport's wire bytes per message, its
    /// priority cutoffs). Step: the table's own masses, exact. Linear: each segment's mass
    /// split over up to 64 equal sub-ranges, each at its middle byte (exact for functions
    /// linear within a sub-range; a transport's per-packet overheads change every packet,
    /// so the error is at most one packet's overhead in a sub-range).
    pub fn atoms(&self) -> Vec<(u64, f64)> {
        let first = self.points[0];
        let mut out = Vec::new();
        if first.cum > 0.0 {
            out.push((first.size.max(1), first.cum));
        }
        for w in self.points.windows(2) {
            let mass = w[1].cum - w[0].cum;
            if mass <= 0.0 {
                continue;
            }
            if self.interp == Interpolation::Step {
                out.push((w[1].size, mass));
                continue;
            }
            let (lo, hi) = (w[0].size, w[1].size);
            let parts = (hi - lo).clamp(1, 64);
            for k in 0..parts {
                let a = lo as f64 + (hi - lo) as f64 * k as f64 / parts as f64;
                let b = lo as f64 + (hi - lo) as f64 * (k + 1) as f64 / parts as f64;
                out.push(((((a + b) / 2.0) as u64).max(1), mass / parts as f64));
            }
        }
        out
    }

    /// The largest size a draw can take.
    pub fn max_size(&self) -> u64 {
        self.points[self.points.len() - 1].size
    }
}

fn parse_point(content: &str) -> Result<Point, String> {
    let mut it = content.split_whitespace();
    let (Some(s), Some(c), None) = (it.next(), it.next(), it.next()) else {
        return Err(format!("'{content}' is not a point; accepted: 'size_bytes cumulative_probability'"));
    };
    let size = s
        .parse::<u64>()
        .map_err(|_| format!("size '{s}' is not a whole number of bytes; accepted: 0 or more bytes"))?;
    let cum = c.parse::<f64>().map_err(|_| {
        format!("probability '{c}' is not a number; accepted: a number from 0 to 1 (or 100 in percent)")
    })?;
    if !cum.is_finite() || cum < 0.0 {
        return Err(format!(
            "probability '{c}' is negative or infinite; accepted: a number from 0 to 1 (or 100 in percent)"
        ));
    }
    if size == 0 && cum > 0.0 {
        return Err(
            "size 0 carries probability (a message has at least 1 byte); accepted: probability 0 at size 0".into()
        );
    }
    Ok(Point { size, cum })
}

fn check_order(prev: Option<&Point>, p: &Point) -> Result<(), String> {
    let Some(q) = prev else { return Ok(()) };
    if p.size <= q.size {
        return Err(format!(
            "size {} is not above the previous line's {}; accepted: sizes that increase strictly",
            p.size, q.size
        ));
    }
    if p.cum < q.cum {
        return Err(format!(
            "probability {} is below the previous line's {}; accepted: cumulative probabilities that never decrease",
            p.cum, q.cum
        ));
    }
    Ok(())
}

/// Scale percent to fractions and pin the last probability to exactly 1.0.
fn normalise(points: &mut [Point]) -> Result<(), String> {
    let last = points[points.len() - 1].cum;
    let scale = if (last - 1.0).abs() <= LAST_TOL {
        1.0
    } else if (last - 100.0).abs() <= 100.0 * LAST_TOL {
        100.0
    } else {
        return Err(format!("the last cumulative probability is {last}; accepted: 1 (or 100 in percent)"));
    };
    for p in points.iter_mut() {
        p.cum = (p.cum / scale).min(1.0);
    }
    points[points.len() - 1].cum = 1.0;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::stream;
    use crate::workload::workloads_dir;

    fn shipped(name: &str, interp: Interpolation) -> Cdf {
        Cdf::load(&workloads_dir().join(name), interp).expect("shipped table parses")
    }

    fn parse_err_line(text: &str) -> usize {
        match Cdf::parse(text, "t.cdf", Interpolation::Step) {
            Err(WorkloadError::Cdf { line, .. }) => line,
            other => panic!("expected a Cdf error, got {other:?}"),
        }
    }

    #[test]
    fn parse_errors_name_the_line() {
        assert_eq!(parse_err_line("# c\n1 0.5\n1 1.0\n"), 3); // size not increasing
        assert_eq!(parse_err_line("1 0.5\n2 0.4\n3 1\n"), 2); // probability decreasing
        assert_eq!(parse_err_line("1 0.5\n\n2 x\n"), 3); // garbage
        assert_eq!(parse_err_line("1 0.5\n2 0.5 7\n"), 2); // three fields
        assert_eq!(parse_err_line("1.5 0.5\n"), 1); // fractional size
        assert_eq!(parse_err_line("1 0.5\n2 0.9\n"), 2); // last != 1
        assert_eq!(parse_err_line("0 0.1\n2 1\n"), 1); // mass on size 0
        let e = Cdf::parse("# only a comment\n", "t.cdf", Interpolation::Step).unwrap_err();
        assert!(matches!(e, WorkloadError::CdfFile { .. }), "{e}");
        assert!(e.to_string().contains("t.cdf"));
    }

    /// The guide only narrows the search: every shipped table, at random u, at the cells'
    /// edges and beside them, at each point's own probability, gives the full search's index.
    #[test]
    fn the_guided_search_finds_what_the_full_search_finds() {
        let mut rng = stream(7, "guide");
        for entry in std::fs::read_dir(workloads_dir()).expect("workloads dir") {
            let path = entry.expect("entry").path();
            if path.extension().is_none_or(|e| e != "cdf") {
                continue;
            }
            let c = Cdf::load(&path, Interpolation::Step).expect("shipped table parses");
            let mut us: Vec<f64> = (0..20_000).map(|_| rng.random::<f64>()).collect();
            for j in 0..=GUIDE {
                let edge = j as f64 / GUIDE as f64;
                us.extend([edge, edge.next_up(), edge.next_down()]);
            }
            us.extend(c.points.iter().flat_map(|p| [p.cum, p.cum.next_up(), p.cum.next_down()]));
            us.extend([0.0, 1.0, -0.5, 1.5, f64::NAN]);
            for u in us {
                let full = c.points.partition_point(|p| p.cum < u);
                assert_eq!(c.first_at_least(u), full, "{} at u = {u}", path.display());
            }
        }
    }

    #[test]
    fn percent_and_fractions_agree() {
        let pct = Cdf::parse("0 0\n10 50 # half\n20 100\n", "p", Interpolation::Linear).unwrap();
        let frac = Cdf::parse("0 0\n10 0.5\n20 1.0\n", "f", Interpolation::Linear).unwrap();
        assert_eq!(pct, frac);
        assert_eq!(pct.mean(), 0.5 * 5.0 + 0.5 * 15.0);
    }

    /// The ns-3 anchor's `websearch_cdf.txt` (HPCC's file, percent) reads as the shipped table.
    #[test]
    fn anchor_percent_file_matches_shipped_table() {
        let text = "0 0\n10000 15\n20000 20\n30000 30\n50000 40\n80000 53\n200000 60\n\
                    1000000 70\n2000000 80\n5000000 90\n10000000 97\n30000000 100\n";
        let a = Cdf::parse(text, "websearch_cdf.txt", Interpolation::Linear).unwrap();
        assert!((a.mean() - 1_711_250.0).abs() < 1e-6);
        assert_eq!(a.sizes(), shipped("hpcc_websearch.cdf", Interpolation::Linear).sizes());
    }

    #[test]
    fn means_match_the_readme() {
        let ws = shipped("hpcc_websearch.cdf", Interpolation::Step);
        assert!((ws.mean() - 2_434_900.0).abs() < 1e-6, "{}", ws.mean());
        let ws = ws.with_interpolation(Interpolation::Linear);
        assert!((ws.mean() - 1_711_250.0).abs() < 1e-6, "{}", ws.mean());
        let w3 = shipped("w3_google_all.cdf", Interpolation::Step);
        assert!((w3.mean() - 2927.35).abs() < 0.005, "{}", w3.mean());
        let w3 = w3.with_interpolation(Interpolation::Linear);
        assert!((w3.mean() - 2890.27).abs() < 0.005, "{}", w3.mean());
    }

    #[test]
    fn linear_sample_mean_within_one_percent() {
        let ws = shipped("hpcc_websearch.cdf", Interpolation::Linear);
        let mut rng = stream(1, "test/sizes");
        let n = 200_000;
        let sum: f64 = (0..n).map(|_| ws.sample(&mut rng) as f64).sum();
        let mean = sum / n as f64;
        assert!((mean / ws.mean() - 1.0).abs() < 0.01, "{mean} vs {}", ws.mean());
    }

    #[test]
    fn step_sample_matches_w3_small_fraction() {
        let w3 = shipped("w3_google_all.cdf", Interpolation::Step);
        let listed = w3.sizes();
        let mut rng = stream(2, "test/sizes");
        let n = 200_000;
        let mut small = 0;
        for _ in 0..n {
            let s = w3.sample(&mut rng);
            assert!(listed.binary_search(&s).is_ok(), "step drew unlisted size {s}");
            small += (s <= 1000) as u32;
        }
        let p = small as f64 / n as f64;
        assert!((p - w3.cdf_at(1000)).abs() < 0.005, "{p} vs {}", w3.cdf_at(1000));
        assert!((w3.cdf_at(1000) - 0.8576).abs() < 0.0001);
    }

    #[test]
    fn zero_mass_first_point_is_never_drawn() {
        let c = Cdf::parse("0 0\n10 0.5\n20 1\n", "t", Interpolation::Step).unwrap();
        assert_eq!(c.sizes(), vec![10, 20]);
        assert_eq!(c.step_at(0.0), 20); // u' = 1
        assert_eq!(c.step_at(0.9999), 10);
        let c = c.with_interpolation(Interpolation::Linear);
        assert_eq!(c.linear_at(0.0), 1); // minimum one byte
        assert_eq!(c.linear_at(0.25), 5);
        assert_eq!(c.linear_at(0.75), 15);
    }

    #[test]
    fn linear_point_mass_at_first_point() {
        let c = Cdf::parse("100 0.5\n200 1\n", "t", Interpolation::Linear).unwrap();
        assert_eq!(c.linear_at(0.3), 100);
        assert_eq!(c.linear_at(0.75), 150);
        assert_eq!(c.mean(), 0.5 * 100.0 + 0.5 * 150.0);
    }
}
