//! Per-class and per-size-bin summaries, fed one record at a time.
//!
//! Size bins are given by their upper edges (bytes, inclusive): bin i holds sizes in
//! (edge[i-1], edge[i]]; sizes above the last edge fall in a final open bin. Messages
//! that started before the warm-up time are written to the record sink (flagged by
//! their start time) but left out of every summary.
//!
//! A class with more than [`TABLE_BINS`] non-empty bins also reports `table_bins`: its
//! non-empty bins grouped, in order, into about that many of similar counts, each with
//! the statistics of its merged histograms — what `tailor run` prints, computed here so
//! that printing never reads the run's messages (memory stays flat at any run length).
//!
//! A run cut by `[run] stop` hands its unfinished messages to [`Recorder::reports`], at
//! the latency they had accrued: each class counts them (`incomplete`, `incomplete_bytes`)
//! and its SLOs judge with them (`slo`). They stay out of the slowdown statistics, which
//! describe completed messages.

use super::record::{MessageRecord, RecordSink};
use super::slo::{class_loss, Slo, SloReport, SloTracker};
use super::stats::{Percentiles, SlowdownStats};
use crate::sim::Time;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io;

#[derive(Clone)]
pub struct ClassSummary {
    pub name: String,
    edges: Vec<u64>,
    all: SlowdownStats,
    bins: Vec<SlowdownStats>,
    slos: Vec<SloTracker>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct BinReport {
    pub lower_bytes: u64,
    /// None for the open bin above the last edge.
    pub upper_bytes: Option<u64>,
    #[serde(flatten)]
    pub slowdown: Percentiles,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ClassReport {
    pub slowdown: Percentiles,
    pub bins: Vec<BinReport>,
    /// Messages started after the warm-up and unfinished at the stop, and their bytes.
    pub incomplete: u64,
    pub incomplete_bytes: u64,
    /// The class's SLOs (absent when it has none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub slo: Vec<SloReport>,
    /// SWP eq. 1 over all its SLOs: negative when every one is met.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slo_loss: Option<f64>,
    /// The non-empty bins merged into about `TABLE_BINS` (absent when there are no more).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub table_bins: Vec<BinReport>,
}

/// How many bins the printed table shows at most (about: see `table_bins`).
pub const TABLE_BINS: usize = 14;

impl ClassSummary {
    pub fn new(name: &str, mut edges: Vec<u64>) -> Self {
        edges.sort_unstable();
        edges.dedup();
        let bins = (0..=edges.len()).map(|_| SlowdownStats::default()).collect();
        ClassSummary { name: name.to_string(), edges, all: SlowdownStats::default(), bins, slos: Vec::new() }
    }

    pub fn with_slos(mut self, slos: &[Slo]) -> Self {
        self.slos = slos.iter().map(|s| SloTracker::new(*s)).collect();
        self
    }

    pub fn record(&mut self, size: u64, slowdown: f64, latency_ns: f64) {
        self.all.record(slowdown);
        let i = self.edges.partition_point(|&e| e < size);
        self.bins[i].record(slowdown);
        for s in &mut self.slos {
            s.record(size, slowdown, latency_ns);
        }
    }

    pub fn count(&self) -> u64 {
        self.all.count()
    }

    /// The report of the completed messages alone (a run with nothing left unfinished).
    pub fn report(&self) -> ClassReport {
        self.report_with(&[])
    }

    /// The report with `unfinished` messages of this class: (size, slowdown, latency in
    /// ns) accrued at the stop.
    pub fn report_with(&self, unfinished: &[(u64, f64, f64)]) -> ClassReport {
        let bins = self
            .bins
            .iter()
            .enumerate()
            .filter(|(i, b)| *i < self.edges.len() || b.count() > 0)
            .map(|(i, b)| {
                let (lower_bytes, upper_bytes) = self.bounds(i);
                BinReport { lower_bytes, upper_bytes, slowdown: b.percentiles() }
            })
            .collect();
        let slo: Vec<SloReport> = self
            .slos
            .iter()
            .map(|s| {
                if unfinished.is_empty() {
                    return s.report();
                }
                let mut s = s.clone();
                unfinished.iter().for_each(|&(size, sd, lat)| s.record_unfinished(size, sd, lat));
                s.report()
            })
            .collect();
        let slo_loss = class_loss(&slo);
        ClassReport {
            slowdown: self.all.percentiles(),
            bins,
            incomplete: unfinished.len() as u64,
            incomplete_bytes: unfinished.iter().map(|u| u.0).sum(),
            slo,
            slo_loss,
            table_bins: self.table_bins(),
        }
    }

    /// The bounds of bin i: (lower, upper), upper None for the open bin.
    fn bounds(&self, i: usize) -> (u64, Option<u64>) {
        (if i == 0 { 0 } else { self.edges[i - 1] }, self.edges.get(i).copied())
    }

    /// Consecutive non-empty bins grouped until a group holds 1/`TABLE_BINS` of the
    /// messages; a group starts where the one before it ended. Empty when there are at
    /// most `TABLE_BINS` non-empty bins.
    fn table_bins(&self) -> Vec<BinReport> {
        let full: Vec<usize> = (0..self.bins.len()).filter(|&i| self.bins[i].count() > 0).collect();
        if full.len() <= TABLE_BINS {
            return Vec::new();
        }
        let target = self.all.count() as f64 / TABLE_BINS as f64;
        let mut out = Vec::new();
        let (mut lower, mut acc, mut merged) = (self.bounds(full[0]).0, 0u64, SlowdownStats::default());
        for (k, &i) in full.iter().enumerate() {
            acc += self.bins[i].count();
            merged.merge(&self.bins[i]);
            if acc as f64 >= target || k + 1 == full.len() {
                let upper = self.bounds(i).1;
                out.push(BinReport { lower_bytes: lower, upper_bytes: upper, slowdown: merged.percentiles() });
                (lower, acc, merged) = (upper.unwrap_or(u64::MAX), 0, SlowdownStats::default());
            }
        }
        out
    }
}

/// Routes each completed message to the sink and the summaries.
pub struct Recorder {
    pub classes: Vec<ClassSummary>,
    /// Fed only when it differs from the one class's summary (`mirror`).
    overall: ClassSummary,
    /// One class whose bins are the overall bins: the overall statistics are that class's,
    /// record for record, so the class's summary stands for both (`overall`) — half of
    /// what recording a message costs on a one-class run (docs/model.md, "Speed").
    mirror: bool,
    warmup: Time,
    sink: Box<dyn RecordSink>,
    pub completed: u64,
    pub in_warmup: u64,
}

impl Recorder {
    pub fn new(classes: Vec<ClassSummary>, overall: ClassSummary, warmup: Time, sink: Box<dyn RecordSink>) -> Self {
        let mirror = matches!(&classes[..], [only] if only.edges == overall.edges);
        Recorder { classes, overall, mirror, warmup, sink, completed: 0, in_warmup: 0 }
    }

    /// The summary of every class together.
    pub fn overall(&self) -> std::borrow::Cow<'_, ClassSummary> {
        if !self.mirror {
            return std::borrow::Cow::Borrowed(&self.overall);
        }
        // The class's statistics under the overall summary's name, without its SLOs.
        let mut all = self.classes[0].clone();
        all.name.clone_from(&self.overall.name);
        all.slos.clear();
        std::borrow::Cow::Owned(all)
    }

    pub fn record(&mut self, rec: &MessageRecord) -> io::Result<()> {
        let class = &mut self.classes[rec.class.index()];
        self.sink.record(rec, &class.name)?;
        self.completed += 1;
        if rec.start < self.warmup {
            self.in_warmup += 1;
            return Ok(());
        }
        let (s, lat) = (rec.slowdown(), rec.latency().as_ns_f64());
        class.record(rec.size, s, lat);
        if !self.mirror {
            self.overall.record(rec.size, s, lat);
        }
        Ok(())
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.sink.flush()
    }

    /// The overall and per-class reports, with `unfinished`: the messages still active at
    /// the stop, each as a record finished at the stop (its latency so far, a lower bound).
    /// Those started in the warm-up are left out, as completed ones are.
    pub fn reports(&self, unfinished: &[MessageRecord]) -> (ClassReport, BTreeMap<String, ClassReport>) {
        let mut per_class = vec![Vec::new(); self.classes.len()];
        let mut all = Vec::new();
        for r in unfinished.iter().filter(|r| r.start >= self.warmup) {
            let u = (r.size, r.slowdown(), r.latency().as_ns_f64());
            per_class[r.class.index()].push(u);
            all.push(u);
        }
        let classes = self.classes.iter().zip(&per_class).map(|(c, u)| (c.name.clone(), c.report_with(u))).collect();
        (self.overall().report_with(&all), classes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_are_upper_inclusive_with_an_open_last_bin() {
        let mut c = ClassSummary::new("a", vec![100, 10]);
        for (size, sd) in [(10, 1.0), (11, 2.0), (100, 3.0), (101, 4.0)] {
            c.record(size, sd, 0.0);
        }
        let r = c.report();
        let counts: Vec<(u64, Option<u64>, u64)> =
            r.bins.iter().map(|b| (b.lower_bytes, b.upper_bytes, b.slowdown.count)).collect();
        assert_eq!(counts, vec![(0, Some(10), 1), (10, Some(100), 2), (100, None, 1)]);
        assert_eq!(r.bins[1].slowdown.mean, Some(2.5));
        assert!(r.table_bins.is_empty(), "three bins need no merging");
    }

    #[test]
    fn table_bins_group_the_bins_and_merge_their_histograms_exactly() {
        let edges: Vec<u64> = (1..=40).map(|k| k * 100).collect();
        let mut c = ClassSummary::new("a", edges);
        // Bin k gets k + 1 messages; bins 10 to 14 none.
        let samples: Vec<(u64, f64)> = (0..40u64)
            .filter(|k| !(10..15).contains(k))
            .flat_map(|k| (0..=k).map(move |j| (k * 100 + 50, 1.0 + (k * 7 + j * 13) as f64 / 10.0)))
            .collect();
        for &(size, sd) in &samples {
            c.record(size, sd, 0.0);
        }
        let r = c.report();
        let t = &r.table_bins;
        assert!(t.len() <= TABLE_BINS + 1 && t.len() > 1, "{} table bins", t.len());
        assert_eq!((t[0].lower_bytes, t.last().unwrap().upper_bytes), (0, Some(4000)));
        assert!(t.windows(2).all(|w| w[0].upper_bytes == Some(w[1].lower_bytes)), "contiguous");
        assert_eq!(t.iter().map(|b| b.slowdown.count).sum::<u64>(), samples.len() as u64);
        for b in t {
            // One histogram fed the group's samples directly.
            let mut direct = SlowdownStats::default();
            let inside = samples.iter().filter(|(s, _)| *s > b.lower_bytes && b.upper_bytes.is_none_or(|u| *s <= u));
            inside.for_each(|&(_, sd)| direct.record(sd));
            let want = direct.percentiles();
            assert_eq!(
                (b.slowdown.count, b.slowdown.p50, b.slowdown.p99, b.slowdown.max),
                (want.count, want.p50, want.p99, want.max)
            );
            assert!((b.slowdown.mean.unwrap() - want.mean.unwrap()).abs() < 1e-9);
        }
    }

    /// A one-class run whose bins are the overall bins records into the class alone: its
    /// overall report is still the one a summary fed every record gives, without the
    /// class's SLOs; with other bins the overall summary is fed as before.
    #[test]
    fn one_class_stands_for_the_overall_summary() {
        use super::super::record::NullSink;
        use super::super::slo::{Metric, Stat};
        use crate::ids::{ClassId, HostId};
        let slo = Slo {
            stat: Stat::Percentile(99.0),
            metric: Metric::Slowdown,
            min_size: None,
            max_size: None,
            threshold: 2.0,
        };
        for overall_edges in [vec![100, 10], vec![50]] {
            let class = ClassSummary::new("a", vec![10, 100]).with_slos(&[slo]);
            let mut rec = Recorder::new(
                vec![class],
                ClassSummary::new("all", overall_edges.clone()),
                Time::from_ns(5),
                Box::new(NullSink),
            );
            let mut direct = ClassSummary::new("all", overall_edges);
            for k in 0..300u64 {
                let size = 1 + k * 7 % 150;
                let (start, ideal) = (Time::from_ns(k), Time::from_ns(10));
                let finish = start + Time::from_ns(10 + k * 13 % 97);
                let r = MessageRecord {
                    id: k,
                    class: ClassId::new(0),
                    src: HostId::new(0),
                    dst: HostId::new(1),
                    size,
                    start,
                    finish,
                    ideal,
                };
                rec.record(&r).unwrap();
                if start >= Time::from_ns(5) {
                    direct.record(size, r.slowdown(), r.latency().as_ns_f64());
                }
            }
            let (overall, classes) = rec.reports(&[]);
            assert_eq!(overall, direct.report());
            assert!(overall.slo.is_empty() && overall.slo_loss.is_none(), "the class's SLOs stay the class's");
            assert_eq!(classes["a"].slo.len(), 1);
        }
    }

    /// An edge's bin that no message fell in, and a class with no message, report null
    /// statistics, not zeros.
    #[test]
    fn empty_bins_and_classes_write_null() {
        let mut c = ClassSummary::new("a", vec![10, 100]);
        c.record(50, 2.0, 0.0);
        let json = serde_json::to_value(c.report()).unwrap();
        assert_eq!(json["bins"][0]["count"], 0);
        assert!(json["bins"][0]["p99"].is_null() && json["bins"][0]["mean"].is_null(), "{json}");
        assert_eq!(json["bins"][1]["p99"], 2.0);
        let empty = serde_json::to_value(ClassSummary::new("b", vec![10]).report()).unwrap();
        assert!(empty["slowdown"]["p99"].is_null() && empty["slowdown"]["max"].is_null(), "{empty}");
    }
}
