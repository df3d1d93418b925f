//! Sampling the queues of selected ports into a `QueueLog` (`measure::queues`), and the
//! run's progress into a `ProgressLog` (`measure::progress`).
//!
//! Sampling is folded into the event loop rather than scheduled as events of its own.
//! A queue changes only when an event is handled, so its occupancy at a tick is what the
//! last event at or before the tick left; the loop writes every tick that lies before
//! the next event's time just before handling that event, and the ticks up to the end
//! of the run when it stops. This is exactly what a periodic sampling event would read
//! (ordered after every other event of its picosecond), but it puts nothing on the heap,
//! costs one comparison per event when no tick is due (`Simulation::next_tick` stays at
//! `Time::MAX` when nothing is recorded), and cannot keep a drained simulation alive:
//! ticks inside an idle stretch are written when the next event or the end comes.

use super::{RunError, Simulation};
use crate::ids::{Node, PortRole};
use crate::measure::progress::{ProgressLog, Tally};
use crate::measure::queues::{PortTable, QueueLog, QueueSpec};
use crate::net::ids::PortId;
use crate::net::Network;
use crate::sim::Time;

/// The ports a `PortSelect` picks from (`measure::queues` reads no network).
impl PortTable for Network {
    fn port_kinds(&self) -> impl Iterator<Item = (Node, PortRole)> + '_ {
        self.ports.iter().map(|p| (p.owner, p.role))
    }
}

pub(super) struct Sampler {
    log: QueueLog,
    ports: Vec<PortId>,
}

impl Simulation {
    /// Samples the ports `spec` selects every `spec.every` into `log`, from time zero to
    /// the end of the run. Call before `run`.
    pub fn record_queues(&mut self, spec: &QueueSpec, log: QueueLog) {
        let ports = spec.ports.resolve(&self.net);
        self.sampler = Some(Sampler { log, ports });
        self.next_tick = self.earliest_tick();
    }

    /// Samples the run's progress every `log`'s interval, from time zero to the end of
    /// the run. Call before `run`.
    pub fn record_progress(&mut self, log: ProgressLog) {
        self.progress_log = Some(log);
        self.next_tick = self.earliest_tick();
    }

    /// The progress log, once `record_progress` has been called.
    pub fn progress_log(&self) -> Option<&ProgressLog> {
        self.progress_log.as_ref()
    }

    /// Messages started and finished, bytes delivered, so far.
    pub fn tally(&self) -> Tally {
        self.tally
    }

    fn earliest_tick(&mut self) -> Time {
        let q = self.sampler.as_ref().map_or(Time::MAX, |s| s.log.next());
        let p = self.progress_log.as_mut().map_or(Time::MAX, |l| l.ticks().next());
        q.min(p)
    }

    /// The queue log, once `record_queues` has been called.
    pub fn queue_log(&self) -> Option<&QueueLog> {
        self.sampler.as_ref().map(|s| &s.log)
    }

    /// The ports being sampled (ascending).
    pub fn sampled_ports(&self) -> &[PortId] {
        self.sampler.as_ref().map_or(&[], |s| &s.ports)
    }

    /// Writes every tick strictly before `t` (an event at `t` is about to be handled).
    pub(super) fn sample_before(&mut self, t: Time) -> Result<(), RunError> {
        if let Some(s) = self.sampler.as_mut() {
            while let Some(at) = s.log.tick_before(t) {
                s.write(at, &self.net)?;
            }
        }
        if let Some(l) = self.progress_log.as_mut() {
            while let Some(at) = l.ticks().before(t) {
                l.row(at, &self.tally)?;
            }
        }
        self.next_tick = self.earliest_tick();
        Ok(())
    }

    /// Writes every tick up to and including `t` (the run ends at `t`) and flushes.
    pub(super) fn sample_through(&mut self, t: Time) -> Result<(), RunError> {
        if let Some(s) = self.sampler.as_mut() {
            while let Some(at) = s.log.tick_through(t) {
                s.write(at, &self.net)?;
            }
            s.log.flush()?;
        }
        if let Some(l) = self.progress_log.as_mut() {
            let mut last = None;
            while let Some(at) = l.ticks().through(t) {
                l.row(at, &self.tally)?;
                last = Some(at);
            }
            // And the end itself, so that the last row holds the run's final counts.
            if last != Some(t) {
                l.row(t, &self.tally)?;
            }
            l.flush()?;
        }
        self.next_tick = self.earliest_tick();
        Ok(())
    }
}

impl Sampler {
    fn write(&mut self, at: Time, net: &crate::net::Network) -> std::io::Result<()> {
        for &p in &self.ports {
            let port = net.port(p);
            self.log.row(at, Some(p), port.queued_bytes(), |c| Some(port.queued_class_bytes(c)))?;
        }
        Ok(())
    }
}
