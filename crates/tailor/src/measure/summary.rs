//! Per-class and per-size-bin summaries, fed one record at a time.
//!
//! Size bins are given by their upper edges (bytes, inclusive): bin i holds sizes in
//! (edge[i-1], edge[i]]; sizes above the last edge fall in a final open bin. Messages
//! that started before the warm-up time are written to the record sink (flagged by
//! their start time) but left out of every summary.

use super::record::{MessageRecord, RecordSink};
use super::slo::{class_loss, Slo, SloReport, SloTracker};
use super::stats::{Percentiles, SlowdownStats};
use crate::sim::Time;
use serde::Serialize;
use std::io;

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
    /// The class's SLOs (absent when it has none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub slo: Vec<SloReport>,
    /// SWP eq. 1 over all its SLOs: negative when every one is met.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slo_loss: Option<f64>,
}

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

    pub fn report(&self) -> ClassReport {
        let bins = self
            .bins
            .iter()
            .enumerate()
            .filter(|(i, b)| *i < self.edges.len() || b.count() > 0)
            .map(|(i, b)| BinReport {
                lower_bytes: if i == 0 { 0 } else { self.edges[i - 1] },
                upper_bytes: self.edges.get(i).copied(),
                slowdown: b.percentiles(),
            })
            .collect();
        let slo: Vec<SloReport> = self.slos.iter().map(SloTracker::report).collect();
        let slo_loss = class_loss(&slo);
        ClassReport { slowdown: self.all.percentiles(), bins, slo, slo_loss }
    }
}

/// Routes each completed message to the sink and the summaries.
pub struct Recorder {
    pub classes: Vec<ClassSummary>,
    pub overall: ClassSummary,
    warmup: Time,
    sink: Box<dyn RecordSink>,
    pub completed: u64,
    pub in_warmup: u64,
}

impl Recorder {
    pub fn new(classes: Vec<ClassSummary>, overall: ClassSummary, warmup: Time, sink: Box<dyn RecordSink>) -> Self {
        Recorder { classes, overall, warmup, sink, completed: 0, in_warmup: 0 }
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
        self.overall.record(rec.size, s, lat);
        Ok(())
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.sink.flush()
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
