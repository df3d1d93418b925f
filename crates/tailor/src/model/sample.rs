//! The bottleneck's backlog over time, into `queues.csv` (`measure::queues`).
//!
//! The model holds its backlog as the value at the end of each step (its summary's
//! time-average integrates that step function), so the value at a tick is the backlog
//! at the end of the step the tick falls in; in an idle stretch the network is empty.
//! Ticks are written as steps complete (every tick before the next step's start is
//! written before that step), so nothing is held back. The model has one bottleneck
//! and no port ids: `port` is empty. A class's column holds its queue's backlog when
//! the class has that queue to itself (a class queue under DRR, WFQ, round robin and
//! hierarchical; a priority level of its own); where classes share a FIFO queue the
//! model does not know each one's part and the cell is empty. Values are rounded to
//! whole bytes.

use super::FluidModel;
use crate::measure::queues::QueueLog;
use crate::sim::Time;
use std::io;

impl FluidModel {
    /// Writes every tick strictly before `t` with the current backlog.
    pub(super) fn sample_before(&self, log: &mut QueueLog, t: Time) -> io::Result<()> {
        while let Some(at) = log.tick_before(t) {
            self.sample(log, at)?;
        }
        Ok(())
    }

    /// Writes every tick up to and including `t` (the end of the run) and flushes.
    pub(super) fn sample_through(&self, log: &mut QueueLog, t: Time) -> io::Result<()> {
        while let Some(at) = log.tick_through(t) {
            self.sample(log, at)?;
        }
        log.flush()
    }

    fn sample(&self, log: &mut QueueLog, at: Time) -> io::Result<()> {
        let total: f64 = self.queues.iter().map(|q| q.backlog).sum();
        log.row(at, None, whole(total), |c| self.own_queue(c).map(|q| whole(self.queues[q].backlog)))
    }

    /// The queue class `c` has to itself, if it has one.
    fn own_queue(&self, c: usize) -> Option<usize> {
        let q = self.queue_of(c);
        let shared = (0..self.cfg.classes).any(|o| o != c && self.queue_of(o) == q);
        (q < self.queues.len() && !shared).then_some(q)
    }
}

fn whole(bytes: f64) -> u64 {
    bytes.max(0.0).round() as u64
}
