//! Homa (Montazeri et al., SIGCOMM 2018): a receiver-driven message transport that
//! uses the switches' priority queues to approximate SRPT (docs/homa.md).
//!
//! - Messages, not connections (§3.1): each host's endpoint keeps one record per message
//!   it sends (`outgoing`) and per message it receives (`incoming`).
//! - A sender sends the first `unscheduled_bytes` of a message at once (§3.2), the rest
//!   only when granted, and picks among its messages the one with the fewest bytes left
//!   to send, control packets first (§3.2).
//! - A receiver sends a GRANT for each DATA packet that arrives, keeping `rtt_bytes` on
//!   the wire granted but not received for each message it grants to (§3.3), to at most
//!   `overcommitment` senders at once (§3.5), naming the priority level (§3.4, `levels`).
//! - Lost packets (§3.7): a receiver that hears nothing of a message it expects bytes of
//!   for `resend_timeout` sends a RESEND for the first missing range; a sender busy with
//!   shorter messages answers BUSY. A sender whose receiver never spoke of a message sends
//!   its first packet again after the same silence (the one-way stand-in for §3.7's client
//!   RESEND on a missing response).
//!
//! This module holds the configuration: its scenario table, the ideal latency of a
//! message, its bytes on the wire, and the plan of priority levels it makes from the
//! workload (`Transport::bind`).

mod endpoint;
mod incoming;
pub mod levels;
mod outgoing;
pub mod wire;

#[cfg(test)]
mod tests;

pub use endpoint::HomaEndpoint;

/// The keys of an endpoint's periodic timer and grant timer (for scripted tests).
#[cfg(test)]
fn endpoint_tick() -> crate::transport::TimerKey {
    crate::transport::TimerKey::new(0)
}
#[cfg(test)]
fn endpoint_grant_timer() -> crate::transport::TimerKey {
    crate::transport::TimerKey::new(1)
}
pub use levels::{Levels, Request};
pub use wire::{Kind, Layout, Wire};

use crate::input::{ScenarioError, Table};
use crate::measure::ideal::{pipeline_blocks, Block};
use crate::net::ids::HostId;
use crate::net::topology::{Discipline, NetSpec};
use crate::sim::{Rate, Time};
use crate::transport::path::{line_rate, longest_hops, Path};
use crate::transport::registry::Entry;
use crate::transport::{Endpoint, Frames, Traffic, Transport, TransportConfig};
use std::sync::Arc;

/// Its line in the registry.
pub const ENTRY: Entry = Entry {
    name: "homa",
    about: "receiver-driven: blind RTTbytes, grants, receiver-assigned priorities, controlled overcommitment",
    keys: &[
        "kind",
        "rtt_bytes",
        "unscheduled_bytes",
        "priority_levels",
        "unscheduled_levels",
        "scheduled_levels",
        "unscheduled_cutoffs",
        "overcommitment",
        "receiver_budget",
        "sticky_slots",
        "grant_on_arrival",
        "tail_boost",
        "resend_timeout",
        "incast_threshold",
        "incast_unscheduled",
    ],
    // §3.4: eight strict levels at every port; §4: the NIC asks for a packet only when its link
    // is idle, so the receiver's priorities, not a NIC queue, order what goes out.
    needs: r#"switch = { scheduler = "priority", priority_levels = 8 }
host = { nic_depth = 0 }"#,
    parse,
};

#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub wire: Wire,
    /// Bytes on the wire a receiver keeps granted but not received per message (§3.3).
    pub rtt_bytes: u64,
    /// Message bytes a sender sends before any grant (§3.2).
    pub unscheduled_bytes: u64,
    pub request: Request,
    /// The plan, once bound to the workload.
    pub levels: Option<Levels>,
    /// Senders a receiver grants to at once (§3.5); None: as many as scheduled levels
    /// on the switches (collapsed levels collapse it: `Levels::switch_scheduled`);
    /// `usize::MAX`: no limit (RAMCloud's Basic).
    pub overcommitment: Option<usize>,
    /// A receiver grants only while the bytes granted or sent blind to it and not yet
    /// arrived are below `overcommitment` × `rtt_bytes` (tailor's own bound, in neither
    /// the paper nor the authors' simulator; off by default).
    pub receiver_budget: bool,
    /// The authors' simulator's scheduled slots: a granted sender keeps its level when
    /// a sender above or below it leaves or a new one arrives above it, instead of the
    /// granted senders being re-packed onto the lowest levels at every grant (§3.4).
    pub sticky_slots: bool,
    /// RAMCloud's grant clock (HomaTransport `dataPacketArrive`, where §5.1's Fig. 10 was
    /// measured): every DATA packet that arrives lets the receiver grant one packet, to the
    /// best granted message with room, and nothing else grants; so its grants never outrun
    /// its arrivals (§3.3: "data packets for that message may result in grants to other
    /// messages"). Off: the authors' simulator's clock, each granted message paced at one
    /// packet per packet time by a timer (the default: the simulations of §5.2 ran it).
    pub grant_on_arrival: bool,
    /// A receiver that holds back a message whose granted bytes have all arrived tells
    /// its sender so (BUSY) at least every half `resend_timeout`, so that the sender does
    /// not probe it (RAMCloud's client, `checkTimeouts`). Homa: on; PL2's RDS: off.
    pub receiver_busy: bool,
    /// A message with fewer ungranted bytes on the wire than this is granted at the
    /// unscheduled level of its remaining size (the authors' simulator; 0: off).
    pub tail_boost: u64,
    /// Silence before a RESEND (§3.7); None: off (a fabric that cannot drop: RESENDs
    /// there only answer packets starved at low levels).
    pub resend_timeout: Option<Time>,
    /// A client with more RPCs outstanding than this marks its new requests, and their
    /// responses go with only `incast_unscheduled` bytes blind (§3.6); None: off.
    pub incast_threshold: Option<u64>,
    pub incast_unscheduled: u64,
    /// The host link rate (wasted-bandwidth accounting).
    pub line_rate: Rate,
    /// Packets one GRANT schedules (1 for Homa; PL2's RDS schedules up to 4, §F.1).
    pub grant_packets: u32,
    /// A receiver that sees a packet arrive past a missing one asks for the missing ones
    /// at once (PL2's RDS, §F.1) instead of waiting for `resend_timeout` (Homa, §3.7).
    pub resend_on_gap: bool,
}

impl Config {
    /// The plan (the scenario binds every transport before a run).
    pub fn levels(&self) -> &Levels {
        self.levels.as_ref().expect("a Homa transport is bound to its workload before it runs (Transport::bind)")
    }

    /// The degree of overcommitment in effect: the key's, or §3.5's "the number of
    /// scheduled priority levels" counted on the switches (HomaP1 grants to one sender).
    pub fn degree(&self) -> usize {
        self.overcommitment.unwrap_or_else(|| self.levels().switch_scheduled() as usize)
    }

    /// The layout of a message of `size` bytes.
    pub fn layout(&self, size: u64) -> Layout {
        Layout::new(&self.wire, size, self.unscheduled_bytes)
    }

    /// The wire bytes of packet `i` of `l`.
    pub fn packet_bytes(&self, l: &Layout, i: u32) -> u32 {
        let h = if l.is_scheduled(i) { self.wire.scheduled_header } else { self.wire.unscheduled_header };
        self.wire.bytes(h, l.chunk(i).1)
    }

    /// The message's data packets in sending order as runs of equal packets: full
    /// unscheduled ones (1,442 B of message, 1,538 B on the wire), the last unscheduled
    /// one, full scheduled ones (1,456 B, 1,538 B) and the last one.
    pub fn frame_runs(&self, size: u64) -> Vec<Frames> {
        let l = self.layout(size);
        let mut out: Vec<Frames> = Vec::new();
        for (first, count) in boundaries(&l) {
            let (payload, wire) = (l.chunk(first).1, self.packet_bytes(&l, first));
            match out.last_mut() {
                Some(f) if (f.payload, f.wire) == (payload, wire) => f.count += count as u64,
                _ => out.push(Frames { count: count as u64, payload, wire }),
            }
        }
        out
    }

    /// The same packets as blocks of equal wire lengths (full ones are 1538 bytes either
    /// way; the last unscheduled and the last packet may be shorter).
    fn blocks(&self, size: u64) -> Vec<Block> {
        let mut out: Vec<Block> = Vec::new();
        for f in self.frame_runs(size) {
            match out.last_mut() {
                Some(b) if b.bytes == f.wire as u64 => b.count += f.count,
                _ => out.push(Block { count: f.count, bytes: f.wire as u64 }),
            }
        }
        out
    }
}

/// The packets of `l` as runs (first index, count) within which every packet but
/// possibly the last of the message has the same length.
fn boundaries(l: &Layout) -> Vec<(u32, u32)> {
    let (nu, n) = (l.unscheduled_packets(), l.packets());
    let mut runs = Vec::new();
    let mut push = |first: u32, end: u32| {
        if end > first {
            runs.push((first, end - first));
        }
    };
    // Unscheduled: all full but the last; scheduled: all full but the last.
    push(0, nu - 1);
    push(nu - 1, nu);
    push(nu, n.saturating_sub(1).max(nu));
    if n > nu {
        push(n - 1, n);
    }
    runs
}
/// `resend_timeout`: how long a receiver waits for missing bytes before asking again
/// (§3.7; 5 ms when absent), or "off".
fn resend_timeout(t: &mut Table) -> Result<Option<Time>, ScenarioError> {
    Ok(
        match t.get("resend_timeout", |v| match v.as_str() {
            Some("off") => Ok(None),
            Some(s) => crate::input::units::parse_time(s).map(Some).map_err(|e| format!("{e}; or \"off\"")),
            None => {
                Err(format!("is {}; accepted: a time such as \"5ms\", or \"off\"", crate::input::reader::type_name(v)))
            }
        })? {
            None => Some(Time::from_ms(5)),
            Some(None) => None,
            Some(Some(d)) if d < Time::from_us(1) => {
                return Err(t.error(
                    "resend_timeout",
                    "is below 1us; accepted: at least \"1us\" (Homa waits a few milliseconds, §3.7), or \"off\"",
                ));
            }
            Some(Some(d)) => Some(d),
        },
    )
}

/// `incast_threshold` and `incast_unscheduled` (bytes a sender sends blind past the
/// threshold, 300 when absent): §3.6's incast optimization.
fn incast(t: &mut Table) -> Result<(Option<u64>, u64), ScenarioError> {
    let incast_threshold = t.int("incast_threshold", 1, 1 << 30)?.map(|v| v as u64);
    let incast_unscheduled = t.size("incast_unscheduled")?;
    if incast_unscheduled.is_some() && incast_threshold.is_none() {
        return Err(t.error(
            "incast_unscheduled",
            "is only used with incast_threshold; accepted: incast_threshold = N with it",
        ));
    }
    if incast_unscheduled == Some(0) {
        return Err(t.error("incast_unscheduled", NO_ANNOUNCEMENT));
    }
    let incast_unscheduled = incast_unscheduled.unwrap_or(300);
    Ok((incast_threshold, incast_unscheduled))
}

/// `[transport] kind = "homa"` (docs/scenario.md, "Homa").
pub fn parse(t: &mut Table, net: &NetSpec) -> Result<TransportConfig, ScenarioError> {
    let wire = Wire::PAPER;
    let rate = line_rate(net);
    let rtt_bytes = match t.size("rtt_bytes")? {
        Some(b) if b < wire.full() as u64 => {
            return Err(
                t.error("rtt_bytes", format!("is below one full packet; accepted: at least \"{}B\"", wire.full()))
            );
        }
        Some(b) => b,
        None => computed_rtt_bytes(net, &wire),
    };
    // A message announces itself with its first unscheduled packet (§3.2): it carries at
    // least one byte, or the sender would have nothing it may send and the receiver
    // nothing to grant.
    let unscheduled_bytes = match t.size("unscheduled_bytes")? {
        Some(0) => return Err(t.error("unscheduled_bytes", NO_ANNOUNCEMENT)),
        Some(b) => b,
        None => unscheduled_in(&wire, rtt_bytes),
    };
    let levels = |t: &mut Table, key: &'static str, min: i64| -> Result<Option<u8>, ScenarioError> {
        Ok(t.int(key, min, levels::LEVELS as i64 - 1)?.map(|v| v as u8))
    };
    let physical = t.int("priority_levels", 1, levels::LEVELS as i64)?.unwrap_or(levels::LEVELS as i64) as u8;
    let unscheduled = levels(t, "unscheduled_levels", 1)?;
    let scheduled = levels(t, "scheduled_levels", 1)?;
    let cutoffs = t.get("unscheduled_cutoffs", cutoff_list)?;
    let overcommitment = t.get("overcommitment", |v| match v {
        toml::Value::Integer(i) if (1..=1 << 20).contains(i) => Ok(*i as usize),
        toml::Value::String(s) if s == "unlimited" => Ok(usize::MAX),
        _ => Err("is not a degree; accepted: a number of senders from 1 to 1048576, or \"unlimited\"".to_string()),
    })?;
    let receiver_budget = t.boolean("receiver_budget")?.unwrap_or(false);
    let sticky_slots = t.boolean("sticky_slots")?.unwrap_or(false);
    let grant_on_arrival = t.boolean("grant_on_arrival")?.unwrap_or(false);
    let tail_boost = t.size("tail_boost")?.unwrap_or(0);
    let resend_timeout = resend_timeout(t)?;
    let (incast_threshold, incast_unscheduled) = incast(t)?;
    check_switch_levels(t, net, physical)?;
    let request = Request { unscheduled, scheduled, cutoffs, physical };
    let cfg = Config {
        wire,
        rtt_bytes,
        unscheduled_bytes,
        request,
        levels: None,
        overcommitment,
        receiver_budget,
        sticky_slots,
        grant_on_arrival,
        receiver_busy: true,
        tail_boost,
        resend_timeout,
        incast_threshold,
        incast_unscheduled,
        line_rate: rate,
        grant_packets: 1,
        resend_on_gap: false,
    };
    Ok(Arc::new(cfg))
}

const NO_ANNOUNCEMENT: &str =
    "is 0B: a message's first packet announces it to its receiver and carries its first bytes; accepted: at least \"1B\"";

fn cutoff_list(v: &toml::Value) -> Result<Vec<u64>, String> {
    let items = v.as_array().ok_or("is not an array; accepted: an array of sizes such as [\"1930B\"]")?;
    let mut out: Vec<u64> = Vec::new();
    for it in items {
        let s = it.as_str().ok_or("holds a value that is not a size; accepted: sizes with units such as \"1930B\"")?;
        let b = crate::input::units::parse_size(s)?;
        if out.last().is_some_and(|&p| b <= p) {
            return Err(format!("is not increasing at \"{s}\"; accepted: increasing sizes"));
        }
        out.push(b);
    }
    Ok(out)
}

/// Homa's levels mean nothing on ports that do not queue by priority: the scenario must
/// say so, or collapse them to one.
fn check_switch_levels(t: &Table, net: &NetSpec, physical: u8) -> Result<(), ScenarioError> {
    if physical == 1 {
        return Ok(());
    }
    if net.classes.discipline != Discipline::Priority {
        return Err(t.error("priority_levels", format!(
            "Homa marks {physical} priority levels but [switch] scheduler is not \"priority\", so ports would ignore them; \
             accepted: [switch] scheduler = \"priority\", or priority_levels = 1"
        )));
    }
    if net.classes.levels < physical as usize {
        return Err(t.error("priority_levels", format!(
            "is {physical} but switch ports keep {} levels; accepted: at most {} (or [switch] priority_levels = {physical})",
            net.classes.levels, net.classes.levels
        )));
    }
    Ok(())
}

/// RTTbytes from the topology (§3.2, §5.2): a full DATA packet out and a GRANT back over
/// the longest path, host delays included, at the host link's rate, rounded up.
pub fn computed_rtt_bytes(net: &NetSpec, wire: &Wire) -> u64 {
    let hops = longest_hops(net);
    let one = |bytes: u64| {
        crate::measure::ideal::pipeline(&hops, crate::measure::ideal::Train { packets: 1, full: bytes, last: bytes })
    };
    let rtt = net.host_tx_delay + net.host_tx_delay + one(wire.full() as u64) + one(wire.control() as u64);
    (rtt.ps() as u128 * line_rate(net).bps() as u128).div_ceil(8_000_000_000_000) as u64
}

/// The message bytes that `rtt_bytes` of unscheduled packets on the wire carry (the
/// authors' 10,000 B give 9,328 B: six full packets and one of 676 B).
pub fn unscheduled_in(wire: &Wire, rtt_bytes: u64) -> u64 {
    let full = wire.full() as u64;
    let per = wire.unscheduled_payload() as u64;
    let overhead = full - per;
    let whole = rtt_bytes / full;
    let rest = (rtt_bytes % full).saturating_sub(overhead);
    whole * per + rest
}

impl Transport for Config {
    fn name(&self) -> &'static str {
        ENTRY.name
    }
    fn full_packet(&self) -> u64 {
        self.wire.full() as u64
    }
    fn endpoint(&self, _host: HostId) -> Box<dyn Endpoint> {
        Box::new(HomaEndpoint::new(self.clone()))
    }
    /// The message alone: its packets back to back at line rate, the grants arriving in
    /// time (RTTbytes covers the grant round trip), through the store-and-forward tandem
    /// of its path.
    fn ideal(&self, p: &Path, size: u64) -> Time {
        p.src_tx_delay + pipeline_blocks(&p.fwd, &self.blocks(size))
    }
    /// Nothing Homa sizes scales by itself: RTTbytes is a key or the topology's.
    fn scaled(&self, factor: f64, net: &NetSpec) -> TransportConfig {
        let _ = (factor, net);
        Arc::new(self.clone())
    }
    fn bind(&self, traffic: &Traffic) -> Result<Option<TransportConfig>, String> {
        let atoms = match traffic.atoms() {
            Some(a) => a,
            None if self.request.unscheduled.is_some()
                && (self.request.cutoffs.is_some() || self.request.unscheduled == Some(1)) =>
            {
                Vec::new()
            }
            None => {
                return Err("a class replays a trace, so Homa cannot derive its priority cutoffs from a size \
                            distribution; accepted: unscheduled_levels and unscheduled_cutoffs in the transport table"
                    .into())
            }
        };
        let levels = levels::plan(&self.request, &atoms, &self.wire, self.unscheduled_bytes, self.tail_boost)?;
        Ok(Some(Arc::new(Config { levels: Some(levels), ..self.clone() })))
    }
    /// Data packets and one grant per scheduled packet (the authors' load accounting).
    fn wire_bytes(&self, size: u64) -> Option<f64> {
        let l = self.layout(size);
        let scheduled = (l.packets() - l.unscheduled_packets()) as u64;
        let data: u64 = self.blocks(size).iter().map(|b| b.count * b.bytes).sum();
        Some((data + scheduled * self.wire.control() as u64) as f64)
    }
    /// Its data packets: the ideal above is their pipeline.
    fn frames(&self, size: u64) -> Option<Vec<Frames>> {
        Some(self.frame_runs(size))
    }
    fn settings(&self) -> serde_json::Value {
        let Some(l) = &self.levels else { return serde_json::Value::Null };
        serde_json::json!({
            "rtt_bytes": self.rtt_bytes,
            "unscheduled_bytes": self.unscheduled_bytes,
            "priority_levels": l.physical,
            "unscheduled_levels": l.unscheduled,
            "scheduled_levels": l.scheduled,
            "unscheduled_cutoffs": l.cutoffs,
            "unscheduled_share": (l.unscheduled_share * 1e4).round() / 1e4,
            "overcommitment": if self.degree() == usize::MAX { serde_json::json!("unlimited") } else { serde_json::json!(self.degree()) },
            "receiver_budget": self.receiver_budget,
            "sticky_slots": self.sticky_slots,
            "grant_on_arrival": self.grant_on_arrival,
            "tail_boost": self.tail_boost,
        })
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
