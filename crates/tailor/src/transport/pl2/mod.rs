//! Any transport over PL2 (Le et al., "PL2: Towards Predictable Low Latency in Rack-Scale
//! Networks"): the host side of the timeslot reservations the ToR hands out
//! (`net::pl2`, Algorithm 2).
//!
//! `kind = "pl2"` wraps another transport (`over`: raw Ethernet, UDP, TCP with its
//! congestion control off, or any other) and stands between it and the NIC, as the
//! prototype's user-space stack intercepts VMA's sends (§E). Its data packets are cut
//! into bursts of at most K (§D.3); for each burst a sending thread sends an RSV, takes
//! the GRT's two timeslots, sends at chosenTimeslot = max(sendTimeslot, recvTimeslot)
//! after waiting (eq. 2)
//!
//! ```text
//! waitingTime = chosenTimeslot × MTU / linerate − rsvGrtDelay − pendingBytes / linerate
//! ```
//!
//! and blocks until the burst has left the NIC (§E: the send call blocks). A thread has at
//! most one RSV outstanding (§D.2.1); `threads` of them serve a host's messages. While the
//! last GRT of a thread was recent, for the same receiver, and chose a timeslot below t,
//! the next burst goes out unsolicited with its RSV (Algorithm 3, §D.4), and is sent again
//! at its scheduled time if the GRT comes back above t (the switch may have dropped it).
//! Control packets of the inner transport (ACKs) and traffic leaving the rack pass
//! without a reservation (the ToR schedules only its own ports: docs/pl2.md).
//!
//! The endpoint (`endpoint`) wraps the inner transport's endpoint; `host_delay` models the
//! variable time the prototype's RSV-GRT exchanges took (§E).

mod delay;
mod endpoint;
#[cfg(test)]
mod tests;

pub use delay::HostDelay;
pub use endpoint::Pl2Endpoint;

use crate::input::{ScenarioError, Table};
use crate::net::ids::HostId;
use crate::net::packet::Priority;
use crate::net::topology::NetSpec;
use crate::sim::{Rate, Time};
use crate::transport::path::{line_rate, Path};
use crate::transport::registry::{self, Entry};
use crate::transport::{Endpoint, Traffic, Transport, TransportConfig};
use std::sync::Arc;

/// Its line in the registry.
pub const ENTRY: Entry = Entry {
    name: "pl2",
    about: "another transport over PL2's timeslot reservations at the ToR (needs [switch] pl2)",
    keys: &["kind", "over", "burst", "unsolicited_below", "recent", "threads", "mtu", "host_delay"],
    // PL2 §D: Algorithm 2 in every ToR, RSVs and GRTs passing data at the highest level (802.1q).
    needs: r#"switch = { pl2 = {}, scheduler = "priority" }
host = { nic = "priority" }"#,
    parse,
};

/// The configuration of a transport over PL2.
#[derive(Clone, Debug)]
pub struct Config {
    /// The transport whose packets PL2 schedules.
    pub over: TransportConfig,
    /// K: packets per burst (one RSV each), §D.3.
    pub burst: u32,
    /// t: a burst may go unsolicited while the last chosen timeslot is below this (§D.4).
    pub unsolicited_below: u32,
    /// How long a GRT counts as recent for §D.4's condition (ii).
    pub recent: Time,
    /// Sending threads per host, each with at most one RSV outstanding (§D.2.1).
    pub threads: u32,
    /// One timeslot: a full packet's wire bytes at the host link's rate (§D.1's MTU).
    pub slot: Time,
    /// The host link's rate (eq. 2's linerate).
    pub rate: Rate,
    /// The host's software transmit delay (`[host] tx_delay`): a packet handed to the NIC
    /// reaches its queue this much later.
    pub tx_delay: Time,
    /// Wire bytes and priority level of an RSV (`[switch] pl2`).
    pub control_bytes: u32,
    pub control_priority: Priority,
    /// The extra delay of each RSV-GRT exchange seen by the host (§E).
    pub host_delay: HostDelay,
    /// Each host's rack: reservations are made only within one.
    pub rack: Arc<[u32]>,
    pub seed: u64,
}

/// A host sends a burst unsolicited when its last GRT chose a slot below t, and does not
/// send it again when the burst's own GRT does too; the ToR drops it when the ports'
/// reservations, its own K slots included, exceed T. With T < t + K − 1 a burst granted
/// just below t is dropped with no other traffic in the way and never resent, and over a
/// transport that does not recover (raw) its message never completes. The paper asks
/// T ≫ t (§D.4); contention can still drop bursts above this bound (docs/pl2.md).
fn check_threshold(t: &Table, spec: &crate::net::pl2::Pl2Switch, burst: u32, below: u32) -> Result<(), ScenarioError> {
    let least = below as u64 + burst as u64 - 1;
    if (spec.threshold as u64) >= least {
        return Ok(());
    }
    let message = format!(
        "unsolicited_below (t = {below}) + burst (K = {burst}) - 1 = {least} is above [switch] pl2 threshold \
         (T = {}): a burst granted just below t would be dropped at T with no other traffic in the way and never \
         sent again; accepted: T >= t + K - 1 (the paper: T much larger than t)",
        spec.threshold
    );
    let mut e =
        t.error(if t.has("burst") && !t.has("unsolicited_below") { "burst" } else { "unsolicited_below" }, message);
    if !t.has("unsolicited_below") && !t.has("burst") {
        e.path = "switch.pl2.threshold".to_string();
    }
    Err(e)
}

/// `kind = "pl2"`: the inner transport's table under `over`, then PL2's keys.
pub fn parse(t: &mut Table, net: &NetSpec) -> Result<TransportConfig, ScenarioError> {
    let Some(&spec) = net.setting::<crate::net::pl2::Pl2Switch>() else {
        return Err(t.error(
            "kind",
            "\"pl2\" needs PL2's agent in the ToRs; accepted: [switch] pl2 = {} (or a table of its keys) with it",
        ));
    };
    if !matches!(net.nic, crate::net::topology::NicQueue::Priority(_))
        || net.classes.discipline != crate::net::topology::Discipline::Priority
    {
        return Err(t.error(
            "kind",
            "\"pl2\" sends RSVs and GRTs at the highest priority (802.1q, PL2 §2), which needs queues by priority; accepted: [host] nic = \"priority\" and [switch] scheduler = \"priority\" with it",
        ));
    }
    let mut inner = t.table("over")?.ok_or_else(|| {
        t.error("over", "missing; accepted: the table of the transport PL2 schedules, such as { kind = \"raw\" }")
    })?;
    let over = registry::parse_table(&mut inner, net)?;
    if over.name() == ENTRY.name {
        return Err(inner.error("kind", "is \"pl2\" again; accepted: a transport that is not PL2 itself"));
    }
    inner.finish()?;
    let burst = t.int("burst", 1, 1024)?.unwrap_or(4) as u32;
    let unsolicited_below = t.int("unsolicited_below", 0, 1 << 20)?.unwrap_or(15) as u32;
    check_threshold(t, &spec, burst, unsolicited_below)?;
    let recent = t.time("recent")?.unwrap_or(Time::from_us(4));
    let threads = t.int("threads", 1, 4096)?.unwrap_or(12) as u32;
    // A timeslot must be a full packet's time on the wire exactly: one a little short
    // books the port a little faster than it drains, and the difference accumulates
    // into a queue no reservation sees (docs/pl2.md).
    let full = over.frames(1 << 20).and_then(|f| f.iter().map(|r| r.wire as u64).max());
    let mtu = match (t.size("mtu")?, full) {
        (Some(m), _) => m,
        (None, Some(w)) => w,
        (None, None) => {
            return Err(t.error("mtu", format!("missing; \"{}\" does not say how large its packets are; accepted: a full packet's bytes on the wire, such as \"1518B\"", over.name())))
        }
    };
    if !(64..=1 << 16).contains(&mtu) {
        return Err(t.error("mtu", "is out of range; accepted: \"64B\" to \"64KiB\" (the prototype's is \"1500B\")"));
    }
    let host_delay = delay::parse(t)?;
    let rate = line_rate(net);
    let rack: Arc<[u32]> = (0..net.shape.host_count()).map(|h| net.shape.rack_of(h) as u32).collect();
    Ok(Arc::new(Config {
        over,
        burst,
        unsolicited_below,
        recent,
        threads,
        slot: rate.ser(mtu),
        rate,
        tx_delay: net.host_tx_delay,
        control_bytes: spec.control_bytes,
        control_priority: spec.priority,
        host_delay,
        rack,
        seed: net.seed,
    }))
}

impl Transport for Config {
    fn name(&self) -> &'static str {
        ENTRY.name
    }
    fn full_packet(&self) -> u64 {
        self.over.full_packet()
    }
    fn segmentation_offload(&self) -> Option<u64> {
        self.over.segmentation_offload()
    }
    fn endpoint(&self, host: HostId) -> Box<dyn Endpoint> {
        Box::new(Pl2Endpoint::new(self.clone(), host))
    }
    /// The inner transport's: a message alone in the network over raw Ethernet without
    /// PL2 is the paper's optimum (§F.3, "raw Ethernet (optimal)"), so slowdowns count
    /// what PL2's exchanges cost too.
    fn ideal(&self, p: &Path, size: u64) -> Time {
        self.over.ideal(p, size)
    }
    fn collects_telemetry(&self) -> bool {
        self.over.collects_telemetry()
    }
    fn persistent_connections(&self) -> bool {
        self.over.persistent_connections()
    }
    fn scaled(&self, factor: f64, net: &NetSpec) -> TransportConfig {
        let mut c = self.clone();
        c.over = self.over.scaled(factor, net);
        c.rate = Rate::from_bps((self.rate.bps() as f64 * factor).round() as u64);
        c.slot = Time::from_ps((self.slot.ps() as f64 / factor).round() as u64);
        Arc::new(c)
    }
    fn bind(&self, traffic: &Traffic) -> Result<Option<TransportConfig>, String> {
        Ok(self.over.bind(traffic)?.map(|over| Arc::new(Config { over, ..self.clone() }) as TransportConfig))
    }
    fn settings(&self) -> serde_json::Value {
        serde_json::json!({
            "over": self.over.name(),
            "burst": self.burst,
            "unsolicited_below": self.unsolicited_below,
            "recent_ns": self.recent.as_ns_f64(),
            "threads": self.threads,
            "slot_ns": self.slot.as_ns_f64(),
            "host_delay": self.host_delay.describe(),
            "over_settings": self.over.settings(),
        })
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
