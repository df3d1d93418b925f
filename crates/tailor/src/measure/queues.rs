//! Queue occupancy over time: `queues.csv`, one row per selected port per sampling tick.
//!
//! A tick is a multiple of the interval, from time zero to the end of the run. The value
//! at a tick is the queue the port holds once every event at or before the tick has
//! happened: the bytes waiting, not counting the packet on the wire — the quantity
//! `ports.csv` averages (`mean_queue_bytes`) and maximises (`max_queue_bytes`). Rows are
//! written as the run advances (streaming, like `messages.csv`); memory does not grow
//! with the run's length.
//!
//! Columns: `time_ns` (the tick, ns with 3 decimals: exact picoseconds, as in
//! `messages.csv`), `port` (the id of `ports.csv`; empty for the fast model, which has
//! one bottleneck and no ports), `queue_bytes`, and when the scenario has more than one
//! class, `queue_bytes.<class>` per class: the bytes of that class's packets (data and
//! ACKs) among them, empty where the engine cannot tell (the model's shared queues).

use crate::ids::{Node, PortId, PortRole};
use crate::sim::Time;
use std::io::{self, Write};

/// `[record] queues` and `queue_ports` (docs/scenario.md).
#[derive(Clone, Debug, PartialEq)]
pub struct QueueSpec {
    /// Sampling interval (positive).
    pub every: Time,
    pub ports: PortSelect,
}

/// Which ports are sampled.
#[derive(Clone, Debug, PartialEq)]
pub enum PortSelect {
    /// Every switch egress port (the default).
    Switches,
    /// Every port, host NICs included.
    All,
    /// Every port of one role.
    Role(PortRole),
    /// These ports (ascending, distinct).
    Ids(Vec<PortId>),
}

/// What [`PortSelect::resolve`] needs of a network: each port's owner and role. The
/// network provides it (`engine::queues`), so that `measure` does not import `net`, which
/// imports `measure` (its counters).
pub trait PortTable {
    /// The owner and role of every port, in port-id order.
    fn port_kinds(&self) -> impl Iterator<Item = (Node, PortRole)> + '_;
}

impl PortSelect {
    /// The selected ports of `net`, ascending.
    pub fn resolve(&self, net: &impl PortTable) -> Vec<PortId> {
        let pick = |f: &dyn Fn(Node, PortRole) -> bool| {
            net.port_kinds()
                .enumerate()
                .filter(|&(_, (owner, role))| f(owner, role))
                .map(|(i, _)| PortId::new(i))
                .collect()
        };
        match self {
            PortSelect::Switches => pick(&|owner, _| matches!(owner, Node::Switch(_))),
            PortSelect::All => pick(&|_, _| true),
            PortSelect::Role(r) => pick(&|_, role| role == *r),
            PortSelect::Ids(ids) => ids.clone(),
        }
    }
}

/// Sampling ticks: multiples of an interval from time zero (`queues.csv`, `progress.csv`).
#[derive(Clone, Debug)]
pub struct Ticks {
    every: Time,
    next: Time,
}

impl Ticks {
    pub fn new(every: Time) -> Ticks {
        assert!(every > Time::ZERO, "the scenario reader refuses a zero interval");
        Ticks { every, next: Time::ZERO }
    }

    /// The sampling interval.
    pub fn every(&self) -> Time {
        self.every
    }

    /// The next tick to sample.
    pub fn next(&self) -> Time {
        self.next
    }

    /// Takes the next tick if it is strictly before `t`.
    pub fn before(&mut self, t: Time) -> Option<Time> {
        (self.next < t).then(|| self.advance())
    }

    /// Takes the next tick if it is at or before `t`.
    pub fn through(&mut self, t: Time) -> Option<Time> {
        (self.next <= t).then(|| self.advance())
    }

    fn advance(&mut self) -> Time {
        let at = self.next;
        self.next += self.every;
        at
    }
}

/// The ticks still to sample and the CSV they go to.
pub struct QueueLog {
    ticks: Ticks,
    classes: usize,
    rows: u64,
    out: Box<dyn Write + Send>,
    /// The row being formatted (reused).
    line: Vec<u8>,
}

impl QueueLog {
    /// Writes the header. Per-class columns only when there is more than one class.
    pub fn new(every: Time, class_names: &[String], mut out: Box<dyn Write + Send>) -> io::Result<QueueLog> {
        let ticks = Ticks::new(every);
        write!(out, "time_ns,port,queue_bytes")?;
        let classes = if class_names.len() > 1 { class_names.len() } else { 0 };
        for name in &class_names[..classes] {
            write!(out, ",queue_bytes.{name}")?;
        }
        writeln!(out)?;
        Ok(QueueLog { ticks, classes, rows: 0, out, line: Vec::with_capacity(64) })
    }

    /// The sampling interval.
    pub fn every(&self) -> Time {
        self.ticks.every()
    }

    /// The next tick to sample.
    pub fn next(&self) -> Time {
        self.ticks.next()
    }

    /// Takes the next tick if it is strictly before `t`.
    pub fn tick_before(&mut self, t: Time) -> Option<Time> {
        self.ticks.before(t)
    }

    /// Takes the next tick if it is at or before `t`.
    pub fn tick_through(&mut self, t: Time) -> Option<Time> {
        self.ticks.through(t)
    }

    /// How many per-class columns a row has (0 or the number of classes).
    pub fn classes(&self) -> usize {
        self.classes
    }

    /// One row; `per_class(c)` is class c's bytes, None for an empty cell.
    pub fn row(
        &mut self,
        at: Time,
        port: Option<PortId>,
        bytes: u64,
        per_class: impl Fn(usize) -> Option<u64>,
    ) -> io::Result<()> {
        // Formatted by hand into one buffer: a run may write tens of millions of rows,
        // and `write!` per cell cost about 200 ns a row (5x the digits' own work).
        let line = &mut self.line;
        line.clear();
        push_ns(line, at);
        line.push(b',');
        if let Some(p) = port {
            push_int(line, p.index() as u64);
        }
        line.push(b',');
        push_int(line, bytes);
        for c in 0..self.classes {
            line.push(b',');
            if let Some(b) = per_class(c) {
                push_int(line, b);
            }
        }
        line.push(b'\n');
        self.rows += 1;
        self.out.write_all(line)
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Appends the decimal digits of `v`.
pub(crate) fn push_int(buf: &mut Vec<u8>, mut v: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    buf.extend_from_slice(&digits[i..]);
}

/// Appends a time in ns with 3 decimals (exact picoseconds), as `record::Ns` writes it.
pub(crate) fn push_ns(buf: &mut Vec<u8>, t: Time) {
    push_int(buf, t.ps() / 1000);
    let ps = t.ps() % 1000;
    buf.extend_from_slice(&[b'.', b'0' + (ps / 100) as u8, b'0' + (ps / 10 % 10) as u8, b'0' + (ps % 10) as u8]);
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// A writer whose bytes the test reads back (the log owns its writer). Also used
    /// by `progress`'s tests.
    #[derive(Clone, Default)]
    pub(crate) struct Shared(pub(crate) Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn ticks_are_multiples_of_the_interval_and_rows_have_one_cell_per_column() {
        let buf = Shared::default();
        let names = vec!["web".to_string(), "rpc".to_string()];
        let mut log = QueueLog::new(Time::from_ps(2_500), &names, Box::new(buf.clone())).unwrap();
        let mut ticks = Vec::new();
        while let Some(t) = log.tick_before(Time::from_ps(7_500)) {
            ticks.push(t.ps());
        }
        assert_eq!(ticks, [0, 2_500, 5_000]);
        assert_eq!(log.tick_through(Time::from_ps(7_499)), None);
        assert_eq!(log.tick_through(Time::from_ps(7_500)), Some(Time::from_ps(7_500)));
        log.row(Time::from_ps(7_500), Some(PortId::new(3)), 3004, |c| [Some(1502), Some(1502)][c]).unwrap();
        log.row(Time::from_ps(10_000), None, 10, |_| None).unwrap();
        let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        assert_eq!(
            text,
            "time_ns,port,queue_bytes,queue_bytes.web,queue_bytes.rpc\n7.500,3,3004,1502,1502\n10.000,,10,,\n"
        );
        assert_eq!(log.rows(), 2);
    }

    #[test]
    fn numbers_are_written_as_display_writes_them() {
        for v in [0u64, 7, 10, 999, 1000, 123_456_789, u64::MAX] {
            let mut b = Vec::new();
            push_int(&mut b, v);
            assert_eq!(String::from_utf8(b).unwrap(), v.to_string());
        }
        for ps in [0u64, 1, 10, 999, 1000, 1_000_001, 439_949_060_267] {
            let mut b = Vec::new();
            push_ns(&mut b, Time::from_ps(ps));
            assert_eq!(String::from_utf8(b).unwrap(), crate::measure::record::Ns(Time::from_ps(ps)).to_string());
        }
    }

    #[test]
    fn one_class_has_no_class_columns() {
        let buf = Shared::default();
        let mut log = QueueLog::new(Time::from_ns(1), &["only".to_string()], Box::new(buf.clone())).unwrap();
        log.row(Time::ZERO, Some(PortId::new(0)), 0, |_| Some(0)).unwrap();
        assert_eq!(String::from_utf8(buf.0.lock().unwrap().clone()).unwrap(), "time_ns,port,queue_bytes\n0.000,0,0\n");
    }
}
