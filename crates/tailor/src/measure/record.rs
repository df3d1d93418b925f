//! Per-message records and where they go.

use crate::ids::{ClassId, HostId};
use crate::sim::Time;
use std::io::{self, Write};

#[derive(Copy, Clone, Debug, PartialEq)]
pub struct MessageRecord {
    pub id: u64,
    pub class: ClassId,
    pub src: HostId,
    pub dst: HostId,
    pub size: u64,
    pub start: Time,
    pub finish: Time,
    pub ideal: Time,
}

impl MessageRecord {
    pub fn latency(&self) -> Time {
        self.finish - self.start
    }
    pub fn slowdown(&self) -> f64 {
        self.latency().ps() as f64 / self.ideal.ps() as f64
    }
}

/// Receives each record as its message completes.
pub trait RecordSink: Send {
    fn record(&mut self, rec: &MessageRecord, class_name: &str) -> io::Result<()>;
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Discards records (summaries only).
pub struct NullSink;

impl RecordSink for NullSink {
    fn record(&mut self, _: &MessageRecord, _: &str) -> io::Result<()> {
        Ok(())
    }
}

/// Keeps records in memory (tests and small runs).
#[derive(Default)]
pub struct MemorySink(pub Vec<MessageRecord>);

impl RecordSink for MemorySink {
    fn record(&mut self, rec: &MessageRecord, _: &str) -> io::Result<()> {
        self.0.push(*rec);
        Ok(())
    }
}

/// `messages.csv`: id,class,src,dst,size_bytes,start_ns,finish_ns,ideal_ns,slowdown.
/// Times are written in ns with 3 decimals (exact picoseconds).
pub struct CsvSink<W: Write> {
    out: W,
}

impl<W: Write> CsvSink<W> {
    pub fn new(mut out: W) -> io::Result<Self> {
        writeln!(out, "id,class,src,dst,size_bytes,start_ns,finish_ns,ideal_ns,slowdown")?;
        Ok(CsvSink { out })
    }
}

/// A time written in ns with 3 decimals, without building a string (a run writes
/// millions of them).
pub(crate) struct Ns(pub(crate) Time);

impl std::fmt::Display for Ns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{:03}", self.0.ps() / 1000, self.0.ps() % 1000)
    }
}

impl<W: Write + Send> RecordSink for CsvSink<W> {
    fn record(&mut self, r: &MessageRecord, class_name: &str) -> io::Result<()> {
        writeln!(
            self.out,
            "{},{},{},{},{},{},{},{},{:.6}",
            r.id,
            class_name,
            r.src.index(),
            r.dst.index(),
            r.size,
            Ns(r.start),
            Ns(r.finish),
            Ns(r.ideal),
            r.slowdown()
        )
    }
    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}
