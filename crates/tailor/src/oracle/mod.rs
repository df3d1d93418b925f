//! The SRPT oracle: the lower bound the Homa authors plotted beside the transports
//! (Homa §5.2, Fig. 12 and 13, "SRPT-Oracle"; their `GreedySRPTOracleScheduler.py`). A
//! central scheduler that sees every message the moment it reaches its sender's link
//! and runs a greedy global shortest-remaining-first matching over the host links, with
//! no transport overhead: no grants, no acknowledgements, no queueing in the fabric.
//! Choices and the differences from the authors' script: docs/oracle.md.
//!
//! - Messages: exactly those the packet engine starts for the same scenario and seed,
//!   with the same ids (`arrivals`); each reaches its sender's link after the host's
//!   transmit delay, as the packet engine's do.
//! - Matching (`schedule`): each host link carries one message at a time; at every
//!   instant the messages holding links are the greedy matching by fewest message bytes
//!   left (ties: smaller message, earlier start, earlier arrival). A shorter message that
//!   arrives takes its links at once, mid-packet if need be; the one it displaces resumes
//!   where it stopped. The matching changes only when a message arrives or sends its last
//!   byte, as in the authors' script.
//! - Packets (`message`): each message is sent as its transport's packets
//!   (`Transport::frames`, headers and framing included), back to back at the host link's
//!   rate while it holds its links. A packet enters the fabric whole, when its last bit
//!   has left the sender, and crosses the rest of its path store-and-forward behind the
//!   message's own earlier packets and nothing else. A message completes when its last
//!   bit reaches the receiver's transport (after the host's receive delay), the instant
//!   the transport's ideal counts to: a message alone meets its ideal exactly, and
//!   slowdowns are measured against that ideal, so they are never below 1.
//!
//! Invariants (checked by `tests`): after every event the matching equals the authors'
//! full greedy recomputation; no message waits while both its links are free or held by
//! messages with more bytes left; every byte of every message is sent once; the same
//! scenario and seed give the same records.

pub(crate) mod arrivals;
mod message;
mod schedule;

#[cfg(test)]
mod tests;

use crate::engine::{Config, Phase, Progress, RunError};
use crate::measure::{ClassSummary, MessageRecord, RecordSink, Recorder};
use crate::net::topology;
use crate::sim::Time;
use crate::transport::path::Path;
use crate::transport::TransportConfig;
use arrivals::Arrivals;
use message::{Msg, Pipe};
use schedule::Schedule;

/// What an oracle run did besides its records.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Arrivals and ends handled.
    pub events: u64,
    pub generated: u64,
    /// Bytes of the messages not delivered by the stop time.
    pub incomplete_bytes: u64,
    /// Those messages, each as a record finished at the stop (the latency it accrued).
    pub unfinished: Vec<MessageRecord>,
    /// The last delivery, or the stop time if messages were left.
    pub sim_end: Time,
    pub packets: u64,
    pub preemptions: u64,
    /// The largest share of the run any host link was held.
    pub utilization: f64,
}

/// Calls `progress` every this many events.
const PROGRESS_EVERY: u64 = 1 << 16;

/// Runs `cfg` (a scenario built for a seed; `scenario::oracle::check` passed) through the oracle,
/// writing each delivered message to `sink`; returns the outcome and the summaries.
pub fn run(
    cfg: Config,
    sink: Box<dyn RecordSink>,
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<(Outcome, Recorder), RunError> {
    let summaries = cfg.classes.iter().map(|c| ClassSummary::new(&c.name, c.bins.clone()).with_slos(&c.slos)).collect();
    let mut rec = Recorder::new(summaries, ClassSummary::new("all", cfg.overall_bins.clone()), cfg.warmup, sink);
    let transports: Vec<TransportConfig> = cfg.classes.iter().map(|c| cfg.transports[c.transport].clone()).collect();
    let net = topology::build(&cfg.net);
    let mut arrivals = Arrivals::new(cfg.classes.into_iter().map(|c| c.source).collect())?;
    let mut sched = Schedule::new(net.hosts.len());
    let (stop, tx_delay) = (cfg.stop_at, cfg.net.host_tx_delay);
    let within = |t: Time| stop.is_none_or(|s| t <= s);
    let (mut now, mut events, mut last) = (Time::ZERO, 0u64, Time::ZERO);
    let mut late = Vec::new();
    loop {
        let arrival = arrivals.peek().filter(|&t| within(t)).map(|t| t + tx_delay);
        let end = sched.next_end().filter(|&t| within(t));
        // An end before an arrival at the same instant: the matching after both is the
        // same either way (it is unique), and the ending message is then gone.
        let end = end.filter(|&e| arrival.is_none_or(|a| e <= a));
        if let Some(e) = end {
            now = e;
            let r = sched.end(e);
            if within(r.finish) {
                last = last.max(r.finish);
                rec.record(&r)?;
            } else {
                late.push(r);
            }
        } else if let Some(a) = arrival {
            now = a;
            let (id, m) = arrivals.pop()?.expect("an arrival was peeked");
            let t = &transports[m.class.index()];
            let path = Path::between(&net, m.src, m.dst);
            let r = MessageRecord {
                id,
                class: m.class,
                src: m.src,
                dst: m.dst,
                size: m.size,
                start: m.start,
                finish: Time::ZERO,
                ideal: t.ideal(&path, m.size),
            };
            let frames =
                t.frames(m.size).expect("scenario::oracle::check: every class's transport frames its messages");
            sched.arrive(a, Msg::new(r, arrivals.started, frames, Pipe::new(&path.fwd)));
        } else {
            break;
        }
        events += 1;
        if events % PROGRESS_EVERY == 0 && !progress(&report(now, events, &arrivals, &rec, &sched)) {
            return Err(RunError::Cancelled);
        }
    }
    rec.flush()?;
    progress(&report(now, events, &arrivals, &rec, &sched));
    let left = sched.active() > 0 || !late.is_empty();
    let sim_end = match stop {
        Some(s) if left => s,
        _ => last.max(now),
    };
    let unfinished: Vec<MessageRecord> = late
        .iter()
        .chain(sched.active_records())
        .map(|r| MessageRecord { finish: sim_end.max(r.start), ..*r })
        .collect();
    let outcome = Outcome {
        events,
        generated: arrivals.started,
        incomplete_bytes: unfinished.iter().map(|r| r.size).sum(),
        unfinished,
        sim_end,
        packets: sched.counts.sent.packets,
        preemptions: sched.counts.preemptions,
        utilization: sched.utilization(sim_end),
    };
    Ok((outcome, rec))
}

fn report(now: Time, events: u64, arrivals: &Arrivals, rec: &Recorder, sched: &Schedule) -> Progress {
    Progress {
        phase: Phase::Running,
        built: 0,
        ports: 0,
        now,
        events,
        started: arrivals.started,
        completed: rec.completed,
        active: sched.active(),
    }
}
