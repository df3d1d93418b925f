//! What a run of the packet engine needs in memory, estimated from the scenario before
//! anything is built, and the refusal of a run that would not fit (docs/scenario.md,
//! "Memory"; docs/performance.md, "Where tailor runs out", which has the measurements the
//! constants come from: `scripts/bench_capacity.py`).
//!
//! The memory is the fabric's, fixed (ports, links, routing: `NetSpec::memory_bytes`;
//! per host its endpoints and NIC), and the state in flight: per active message its flow
//! and both ends' connection state, and per packet its transport has queued (its window
//! waiting in the sender's NIC queue, or on a switch) 64 bytes in a queue whose capacity
//! is a power of two. Little's law gives the active messages: a class's arrival rate
//! times the time its messages stay, here each size's transfer time at the host rate
//! stretched by 2 / (1 - load) (twice a processor-sharing link's mean: [`STRETCH`]), at least a
//! round trip,
//! and no longer than the class sends (a run of 1 ms of arrivals holds at most 1 ms of
//! them at the end of its arrivals, its peak). It is an expectation, not a bound:
//! `engine::memory` stops a run that exceeds its limit all the same.

use super::reader::ScenarioError;
use super::{ClassKind, Offered, Scenario};
use crate::engine::memory::{gb, Limit};
use crate::workload::generated::mean_gap_ns;
use crate::workload::Pattern;

/// Per host: its NIC's stages, its endpoints (built on first use; a TCP endpoint is 516 B)
/// and their tables.
pub const HOST_BYTES: u64 = 1_024;
/// Per active message: the engine's flow record and both endpoints' connection state.
pub const MESSAGE_BYTES: u64 = 2_048;
/// Per queued packet of a transport that queues every packet of a message at once (raw,
/// udp): 64 bytes in a queue whose capacity doubles (111 B measured per packet of the
/// estimate on a k = 8 fat-tree).
pub const PACKET_BYTES: u64 = 136;
/// Per queued packet of a windowed transport: a queue keeps the largest capacity it
/// reached, and a window's packets pass through several queues (a NIC, switch ports, the
/// links' pipes) whose peaks come at different times, so the memory is the sum of each
/// queue's peak, not the peak of their sum. Measured per packet of the estimate: 284 B
/// (DCTCP, k = 16, 1 ms) to 330 B (DCTCP, k = 8), 188 B (Homa, k = 8).
pub const WINDOWED_PACKET_BYTES: u64 = 336;
/// Per summary (each class's, and the overall one): its slowdown histograms (1.4 MB for
/// the two of a one-class run in DHAT's profile).
pub const SUMMARY_BYTES: u64 = 750_000;
/// The packets a windowed transport (every transport but raw and udp) keeps queued per
/// active message at most, in the estimate: its window.
pub const WINDOW_PACKETS: f64 = 256.0;
/// How much longer than a processor-sharing link's mean (its transfer time / (1 - load))
/// a message stays: it crosses two contended host links, its sender's and its
/// receiver's. Measured (`tests/capacity.rs`): with 1 alone the active messages at the
/// peak were under-counted 1.4 to 1.9 times on k = 8 and 16 fat-trees at 50 %.
const STRETCH: f64 = 2.0;
/// The least time a message stays active: a datacenter round trip.
const MIN_STAY_S: f64 = 10e-6;

/// What a run needs, by part (bytes, and the expected counts behind them).
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// Ports, links, routing, hosts and the summaries.
    pub fabric: u64,
    pub ports: u64,
    pub hosts: u64,
    /// Messages active at once and packets they hold queued, expected.
    pub messages: f64,
    pub packets: f64,
    pub in_flight: u64,
}

impl Estimate {
    pub fn total(&self) -> u64 {
        self.fabric + self.in_flight
    }

    /// "fabric 0.75 GB (1,024 hosts, 5,120 ports) + in flight 1.2 GB (3,700 messages
    /// active, 550,000 packets queued)".
    pub fn describe(&self) -> String {
        format!(
            "fabric {} ({} hosts, {} ports) + in flight {} (about {:.0} messages active at once, {:.0} packets queued)",
            gb(self.fabric),
            self.hosts,
            self.ports,
            gb(self.in_flight),
            self.messages,
            self.packets
        )
    }
}

/// The estimate of what running `sc` on the packet engine needs beyond the process.
pub fn estimate(sc: &Scenario) -> Estimate {
    let hosts = sc.net.shape.host_count() as u64;
    let ports = sc.net.shape.port_count() as u64;
    let classes = sc.classes.len() as u64;
    let fabric = sc.net.memory_bytes(sc.classes.len()) + hosts * HOST_BYTES + (classes + 1) * SUMMARY_BYTES;
    let load = total_load(sc).min(1.0);
    let (mut messages, mut packets, mut bytes) = (0.0, 0.0, 0.0);
    for i in 0..sc.classes.len() {
        let (m, p) = in_flight(sc, i, load);
        let per_packet = if windowed(sc, i) { WINDOWED_PACKET_BYTES } else { PACKET_BYTES };
        messages += m;
        packets += p;
        bytes += m * MESSAGE_BYTES as f64 + p * per_packet as f64;
    }
    let in_flight = bytes as u64;
    Estimate { fabric, ports, hosts, messages, packets, in_flight }
}

/// The load all classes offer together, as a fraction of the capacity they are offered to.
fn total_load(sc: &Scenario) -> f64 {
    (0..sc.classes.len())
        .map(|i| match &sc.classes[i].kind {
            ClassKind::Generated { offered: Offered::Load(l), .. } => *l,
            ClassKind::Generated { offered: Offered::Rate(r), pattern, .. } => {
                r.bps() as f64 / sc.reference_rate(pattern).bps() as f64
            }
            _ => 0.0,
        })
        .sum()
}

/// Class `i`'s expected messages active at once and packets queued, under `load` in all.
fn in_flight(sc: &Scenario, i: usize, load: f64) -> (f64, f64) {
    let ClassKind::Generated { sizes, offered, pattern, count, until, start, wire_load, .. } = &sc.classes[i].kind
    else {
        // A trace's rate is what its file says: the run's guard holds it.
        return (0.0, 0.0);
    };
    let t = sc.transport_of(i);
    let packet = t.full_packet().max(1) as f64;
    let window = if windowed(sc, i) { WINDOW_PACKETS } else { f64::INFINITY };
    let queued = |s: u64| (s as f64 / packet).ceil().min(window);
    let rate = match offered {
        Offered::Closed { outstanding, .. } => {
            let m = senders(pattern) as f64 * *outstanding as f64;
            return (m, m * sizes.expect(queued));
        }
        Offered::Load(l) => *l * sc.reference_rate(pattern).bps() as f64,
        Offered::Rate(r) => r.bps() as f64,
    };
    let gap_s = mean_gap_ns(sc.mean_bytes(i, *wire_load), 1.0, rate as u64).max(1e-3) / 1e9;
    // How long the class sends: `until`, its `messages`, or the run's stop.
    let sending = [until.map(|u| u.as_secs_f64() - start.as_secs_f64()), count.map(|n| n as f64 * gap_s)]
        .into_iter()
        .flatten()
        .chain(sc.stop.map(|s| s.as_secs_f64()))
        .fold(f64::INFINITY, f64::min)
        .max(0.0);
    let host_bps = sc.host_rate.bps() as f64;
    let stretch = if load < 0.99 { STRETCH / (1.0 - load) } else { f64::INFINITY };
    let stay = |s: u64| (s as f64 * 8.0 / host_bps * stretch).max(MIN_STAY_S).min(sending);
    let messages = sizes.expect(stay) / gap_s;
    let packets = sizes.expect(|s| stay(s) * queued(s)) / gap_s;
    (messages, packets)
}

/// Whether class `i`'s transport sends a window at a time (all but raw and udp, which
/// hand the NIC every packet of a message at once).
fn windowed(sc: &Scenario, i: usize) -> bool {
    !matches!(sc.transport_of(i).name(), "raw" | "udp")
}

fn senders(p: &Pattern) -> usize {
    match p {
        Pattern::AllToAll { senders, .. } | Pattern::NToOne { senders, .. } => senders.len(),
        Pattern::Permutation { hosts } => hosts.len(),
    }
}

/// The limit a run of `sc` is held to: `[run] memory_limit` if set, else what the
/// process holds now (`used`) and `memory::USABLE` of the memory available now.
pub fn limit(sc: &Scenario, used: u64) -> Option<Limit> {
    if let Some(bytes) = sc.memory_limit {
        return Some(Limit { bytes, source: "[run] memory_limit".into() });
    }
    let m = super::memory::here()?;
    let source = format!(
        "{:.0} % of the {} available when the run started, with the {} the process held; \
         [run] memory_limit or --memory-limit sets it",
        super::memory::USABLE * 100.0,
        gb(m.available),
        gb(used)
    );
    Some(Limit { bytes: used + m.usable(), source })
}

/// Refuses a run whose estimate, on top of the `used` bytes the process holds, exceeds
/// `limit`: the error names the estimate, what dominates it and what to change.
pub fn check(sc: &Scenario, used: u64, limit: &Limit) -> Result<(), ScenarioError> {
    let e = estimate(sc);
    if used + e.total() <= limit.bytes {
        return Ok(());
    }
    let change = if used >= limit.bytes {
        "the process alone holds more than that: a higher limit"
    } else if e.fabric >= e.in_flight {
        "the fabric dominates: fewer hosts, or --engine decomposed (estimates by per-link simulations)"
    } else {
        "the messages in flight dominate: a lower load, a shorter run (until, messages, [run] stop), fewer hosts, \
         a window-limited transport, or --engine decomposed (estimates by per-link simulations)"
    };
    Err(ScenarioError {
        file: sc.file.clone(),
        path: "run.memory_limit".into(),
        message: format!(
            "the packet engine would need about {} ({}; the process holds {} already), over the limit of {} ({}); \
             accepted: {change}, or a higher memory_limit where the machine has it",
            gb(used + e.total()),
            e.describe(),
            gb(used),
            gb(limit.bytes),
            limit.source
        ),
    })
}
