//! The watchdog that stops a run which makes no progress (docs/scenario.md, "A run that
//! makes no progress").
//!
//! A run progresses when a message completes or a payload byte reaches an endpoint
//! (`Tally`). Some mechanisms can spin without either — every packet dropped by a buffer
//! smaller than one packet and sent again by a timer, a trimmed packet retransmitted into
//! the same trim — and the event loop would then run until the machine is switched off.
//! The watchdog ends such a run with [`Stall`], which names the likely cause.
//!
//! It fires only when, with messages active, neither counter moved over [`TIME`] of
//! simulated time *and* [`EVENTS`] events, both at once. A legitimate run cannot meet
//! both: over 100 ms of simulated time (10^4 round trips of a datacenter) with messages
//! active some byte arrives, unless every packet is lost; and a run that waits that long
//! for a timer (a backed-off RTO, a RESEND) does so with few events — the transports'
//! periodic timers tick at a quarter of their timeout — not 50 million. It is checked
//! where the loop reports progress (every 2^16 events), only reads the counters, and so
//! cannot change what a run that progresses computes.

use crate::measure::progress::Tally;
use crate::net::Network;
use crate::sim::Time;

/// Simulated time without progress before a run is stopped.
pub const TIME: Time = Time::from_ms(100);
/// Events without progress before a run is stopped (about 10 s of computing).
pub const EVENTS: u64 = 50_000_000;

/// Where the current stretch without progress began.
#[derive(Copy, Clone, Debug)]
struct Mark {
    completed: u64,
    delivered: u64,
    at: Time,
    events: u64,
    /// The network's packet counters (`Counts`) at the stretch's first check, for the cause.
    counts: Option<Counts>,
}

/// Packets the ports of the network queued, dropped and trimmed so far.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct Counts {
    queued: u64,
    dropped: u64,
    trimmed: u64,
}

impl Counts {
    fn of(net: &Network) -> Counts {
        net.ports.iter().fold(Counts::default(), |c, p| Counts {
            queued: c.queued + p.stats.enq_packets,
            dropped: c.dropped + p.stats.drop_packets,
            trimmed: c.trimmed + p.stats.trim_packets,
        })
    }
}

/// The watchdog: its limits, and the start of the stretch without progress, if one is open.
pub struct Watch {
    since: Option<Mark>,
    time: Time,
    events: u64,
}

impl Default for Watch {
    fn default() -> Watch {
        Watch::with_limits(TIME, EVENTS)
    }
}

/// A run stopped for making no progress: what it did meanwhile, and the likely cause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stall {
    /// When the stretch without progress began, and when the run was stopped.
    pub from: Time,
    pub to: Time,
    pub events: u64,
    pub active: u64,
    pub queued: u64,
    pub dropped: u64,
    pub trimmed: u64,
}

impl Watch {
    /// A watchdog with other limits than [`TIME`] and [`EVENTS`] (tests reach a stall in
    /// milliseconds with them).
    pub fn with_limits(time: Time, events: u64) -> Watch {
        Watch { since: None, time, events }
    }

    /// Called every 2^16 events: Err when the run has made no progress for too long.
    pub fn check(&mut self, now: Time, events: u64, tally: &Tally, net: &Network) -> Result<(), Stall> {
        let (completed, delivered, active) = (tally.completed_messages, tally.delivered_bytes, tally.active_messages());
        let m = match &mut self.since {
            Some(m) if active > 0 && m.completed == completed && m.delivered == delivered => m,
            _ => {
                self.since = (active > 0).then_some(Mark { completed, delivered, at: now, events, counts: None });
                return Ok(());
            }
        };
        // Summed once per stretch, at its first check without progress: a run that
        // progresses never pays for it.
        let start = *m.counts.get_or_insert_with(|| Counts::of(net));
        if now.ps() - m.at.ps() < self.time.ps() || events - m.events < self.events {
            return Ok(());
        }
        let c = Counts::of(net);
        Err(Stall {
            from: m.at,
            to: now,
            events: events - m.events,
            active,
            queued: c.queued - start.queued,
            dropped: c.dropped - start.dropped,
            trimmed: c.trimmed - start.trimmed,
        })
    }
}

impl Stall {
    /// The mechanism most likely at fault, from what the ports did meanwhile.
    fn cause(&self) -> &'static str {
        if self.dropped > 0 {
            "packets are dropped as fast as they are sent again: a buffer smaller than one packet \
             ([switch] buffer_size, a class's queue_limit) or a transport that resends into a full queue"
        } else if self.trimmed > 0 {
            "packets are trimmed to their headers and sent again into the same trim: \
             a buffer smaller than one packet ([switch] buffer_size) under overflow = \"trim\""
        } else if self.queued == 0 {
            "no packet moved: only timers fired (a transport's timeout that resends nothing)"
        } else {
            "only packets without payload moved (control packets or probes, never the data they announce)"
        }
    }
}

impl std::fmt::Display for Stall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the run made no progress: no message completed and no payload byte arrived from {} to {} of \
             simulated time ({} events) with {} messages active; meanwhile ports queued {} packets, dropped {} \
             and trimmed {}; likely cause: {}",
            seconds(self.from),
            seconds(self.to),
            self.events,
            self.active,
            self.queued,
            self.dropped,
            self.trimmed,
            self.cause()
        )
    }
}

/// A time for a person: in s, ms or us, three decimals.
fn seconds(t: Time) -> String {
    let s = t.as_secs_f64();
    match s {
        s if s >= 1.0 => format!("{s:.3} s"),
        s if s >= 1e-3 => format!("{:.3} ms", s * 1e3),
        s => format!("{:.3} us", s * 1e6),
    }
}
