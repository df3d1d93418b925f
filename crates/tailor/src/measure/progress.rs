//! A run's progress over time: `progress.csv`, one row per sampling tick.
//!
//! What it answers: is the run in a steady state, or does its backlog grow? An open-loop
//! load beyond what a transport sustains shows as `generated_bytes - delivered_bytes`
//! growing without bound (the Homa paper's Fig. 15 criterion, §5.2: "if the offered load
//! exceeds the protocol's capacity, queues grow without bound"), whatever the transport —
//! the backlog of a receiver-driven transport waits in its senders, not in the switches,
//! so queue samples do not show it.
//!
//! Columns, each a count from time zero to the tick (ticks as in `queues.csv`: multiples
//! of the interval, the state once every event at or before the tick has happened; and a
//! last row at the end of the run, when it is not a tick):
//! - `time_ns`;
//! - `generated_messages`, `generated_bytes`: messages started (an RPC's request and its
//!   response count as two) and their sizes;
//! - `completed_messages`, `completed_bytes`: those finished;
//! - `delivered_bytes`: message (payload) bytes handed to the receivers' endpoints for
//!   messages still active — a retransmitted packet that arrives twice counts twice, a
//!   packet of a finished message not at all;
//! - `active_messages`: started, not finished.

use super::queues::{push_int, push_ns, Ticks};
use crate::sim::Time;
use std::io::{self, Write};

/// The counts a row holds, kept by the engine whether or not they are recorded.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub generated_messages: u64,
    pub generated_bytes: u64,
    pub completed_messages: u64,
    pub completed_bytes: u64,
    pub delivered_bytes: u64,
}

impl Tally {
    pub fn active_messages(&self) -> u64 {
        self.generated_messages - self.completed_messages
    }
}

/// The ticks still to sample and the CSV they go to.
pub struct ProgressLog {
    ticks: Ticks,
    rows: u64,
    out: Box<dyn Write + Send>,
    line: Vec<u8>,
}

pub const HEADER: &str =
    "time_ns,generated_messages,generated_bytes,completed_messages,completed_bytes,delivered_bytes,active_messages";

impl ProgressLog {
    pub fn new(every: Time, mut out: Box<dyn Write + Send>) -> io::Result<ProgressLog> {
        writeln!(out, "{HEADER}")?;
        Ok(ProgressLog { ticks: Ticks::new(every), rows: 0, out, line: Vec::with_capacity(96) })
    }

    pub fn ticks(&mut self) -> &mut Ticks {
        &mut self.ticks
    }

    pub fn every(&self) -> Time {
        self.ticks.every()
    }

    pub fn row(&mut self, at: Time, t: &Tally) -> io::Result<()> {
        let line = &mut self.line;
        line.clear();
        push_ns(line, at);
        for v in [
            t.generated_messages,
            t.generated_bytes,
            t.completed_messages,
            t.completed_bytes,
            t.delivered_bytes,
            t.active_messages(),
        ] {
            line.push(b',');
            push_int(line, v);
        }
        line.push(b'\n');
        self.rows += 1;
        self.out.write_all(line)
    }

    pub fn rows(&self) -> u64 {
        self.rows
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::queues::tests::Shared;

    #[test]
    fn a_row_has_every_column_and_active_is_started_less_finished() {
        let buf = Shared::default();
        let mut log = ProgressLog::new(Time::from_us(1), Box::new(buf.clone())).unwrap();
        let t = Tally {
            generated_messages: 5,
            generated_bytes: 5_000,
            completed_messages: 3,
            completed_bytes: 1_200,
            delivered_bytes: 2_500,
        };
        log.row(Time::from_ps(1_000_001), &t).unwrap();
        let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        assert_eq!(text, format!("{HEADER}\n1000.001,5,5000,3,1200,2500,2\n"));
        assert_eq!(log.rows(), 1);
    }
}
