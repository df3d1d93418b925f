//! NDP (Handley et al., "Re-architecting datacenter networks and stacks for low latency
//! and high performance", SIGCOMM 2017): a receiver-pulled transport over switches that
//! trim (docs/ndp.md).
//!
//! - Switches (§3.1, `net::port`, `[switch] overflow = "trim"`): a small data queue per
//!   port; a packet that does not fit loses its payload and its header goes on in the
//!   high-priority queue with the control packets, so the receiver learns of every packet
//!   sent to it.
//! - A sender sends a message's first window, about one bandwidth-delay product, at line
//!   rate without waiting (§3.2), and after that one packet per PULL: a trimmed one again
//!   first, then new data. It serves its messages in the order their permissions came
//!   (no priority among them).
//! - A receiver ACKs every DATA packet and NACKs every trimmed header at once; each adds a
//!   pull request, and one pull queue per host sends PULLs round robin over its messages,
//!   paced at its link's rate by the size of what each pulls (§3.2–§3.3).
//! - A timeout (§3.3) sends again what was lost without a trace: packets unanswered for
//!   `rto`, and the last PULL of a message whose pulled packets stopped arriving.
//!
//! This module holds the configuration: its scenario table, the ideal latency of a
//! message and its bytes on the wire. `wire` cuts messages into packets, `outgoing` and
//! `incoming` are a sender's and a receiver's record of one message, `endpoint` is one
//! host's NDP.

mod endpoint;
mod incoming;
mod outgoing;
pub mod wire;

#[cfg(test)]
mod tests;

pub use endpoint::{NdpEndpoint, CONTROL_LEVEL, DATA_LEVEL};
pub use wire::{Kind, Layout, Wire};

use crate::input::{ScenarioError, Table};
use crate::measure::ideal::{pipeline, pipeline_blocks, Block, Train};
use crate::net::ids::HostId;
use crate::net::topology::{Discipline, NetSpec};
use crate::sim::{Rate, Time};
use crate::transport::path::{line_rate, longest_hops, Path};
use crate::transport::registry::Entry;
use crate::transport::{Endpoint, Transport, TransportConfig};
use std::sync::Arc;

/// Its line in the registry.
pub const ENTRY: Entry = Entry {
    name: "ndp",
    about: "receiver-pulled: a blind first window, per-packet PULLs paced at the downlink, NACKs for trimmed headers",
    keys: &["kind", "window", "rto"],
    // NDP §3.1: a data queue of 8 full packets (8 x 1,538 B) per port that trims what does not
    // fit, the arriving packet or the newest queued one by a coin, and sends headers at the high
    // level of two.
    needs: r#"switch = { scheduler = "priority", priority_levels = 2, overflow = "trim_random", buffer = "per_port", buffer_size = "12304B" }
host = { nic_depth = 0 }"#,
    parse,
};

#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub wire: Wire,
    /// Bytes on the wire a sender sends of a message before any pull (§3.2): it sends
    /// packets while it has sent fewer.
    pub window: u64,
    /// Silence after which a packet or a pull is sent again (§3.3).
    pub rto: Time,
    /// The host link's rate: the pull pacer's.
    pub line_rate: Rate,
}

impl Config {
    /// Packets of a message of `size` bytes sent before any pull.
    pub fn blind_packets(&self, size: u64) -> u32 {
        let first = self.window.div_ceil(self.wire.full() as u64).max(1);
        Layout::new(&self.wire, size).packets().min(first.min(u32::MAX as u64) as u32)
    }

    /// The message's packets as blocks of equal packets: full ones and the last.
    fn blocks(&self, size: u64) -> [Block; 2] {
        let l = Layout::new(&self.wire, size);
        let n = l.packets() as u64;
        let last = self.wire.data(l.chunk(l.packets() - 1).1) as u64;
        [Block { count: n - 1, bytes: self.wire.full() as u64 }, Block { count: 1, bytes: last }]
    }
}

/// `[transport] kind = "ndp"` (docs/ndp.md).
pub fn parse(t: &mut Table, net: &NetSpec) -> Result<TransportConfig, ScenarioError> {
    let wire = Wire::PAPER;
    let window = match t.size("window")? {
        Some(b) if b < wire.full() as u64 => {
            return Err(t.error("window", format!("is below one full packet; accepted: at least \"{}B\"", wire.full())));
        }
        Some(b) => b,
        None => round_trip_bytes(net, &wire),
    };
    let rto = match t.time("rto")? {
        Some(d) if d < Time::from_us(1) => {
            return Err(t.error("rto", "is below 1us; accepted: a time of at least \"1us\" such as \"5ms\""));
        }
        Some(d) => d,
        None => DEFAULT_RTO,
    };
    check_switches(t, net)?;
    Ok(Arc::new(Config { wire, window, rto, line_rate: line_rate(net) }))
}

/// One bandwidth-delay product (§3.2): a full DATA packet out and a PULL back over the
/// longest path, host delays included, at the host link's rate, rounded up.
pub fn round_trip_bytes(net: &NetSpec, wire: &Wire) -> u64 {
    let hops = longest_hops(net);
    let one = |bytes: u64| pipeline(&hops, Train { packets: 1, full: bytes, last: bytes });
    let rtt = net.host_tx_delay + net.host_tx_delay + one(wire.full() as u64) + one(wire.control() as u64);
    (rtt.ps() as u128 * line_rate(net).bps() as u128).div_ceil(8_000_000_000_000) as u64
}

/// htsim's minimum RTO (`ndp.h`, `DEFAULT_RTO_MIN`), which its RTO is at datacenter
/// round trips.
pub const DEFAULT_RTO: Time = Time::from_ms(5);

/// NDP's headers and control packets go ahead of data (§3.1): the switches must queue by
/// packet priority with at least two levels.
fn check_switches(t: &Table, net: &NetSpec) -> Result<(), ScenarioError> {
    if net.classes.discipline != Discipline::Priority || net.classes.levels < 2 {
        return Err(t.error(
            "kind",
            "\"ndp\" sends headers and control packets at priority level 0 and data at level 1 (NDP §3.1), but the \
             switches do not keep two priority levels; accepted: [switch] scheduler = \"priority\" with priority_levels >= 2",
        ));
    }
    Ok(())
}

impl Transport for Config {
    fn name(&self) -> &'static str {
        ENTRY.name
    }
    fn full_packet(&self) -> u64 {
        self.wire.full() as u64
    }
    fn endpoint(&self, _host: HostId) -> Box<dyn Endpoint> {
        Box::new(NdpEndpoint::new(self.clone()))
    }
    /// The message alone: its packets back to back at line rate through the
    /// store-and-forward tandem of its path (a window of one round trip lets the pulls
    /// arrive in time; docs/ndp.md).
    fn ideal(&self, p: &Path, size: u64) -> Time {
        p.src_tx_delay + pipeline_blocks(&p.fwd, &self.blocks(size))
    }
    /// The window is one bandwidth-delay product: it scales with the links, as does the
    /// pacer's rate.
    fn scaled(&self, factor: f64, _net: &NetSpec) -> TransportConfig {
        Arc::new(Config {
            window: ((self.window as f64 * factor).ceil() as u64).max(self.wire.full() as u64),
            line_rate: Rate::from_bps((self.line_rate.bps() as f64 * factor).round() as u64),
            ..self.clone()
        })
    }
    /// Data packets and one ACK each, in which the pulls ride when nothing else waits
    /// (the empty network).
    fn wire_bytes(&self, size: u64) -> Option<f64> {
        let b = self.blocks(size);
        let data: u64 = b.iter().map(|b| b.count * b.bytes).sum();
        Some((data + (b[0].count + 1) * self.wire.control() as u64) as f64)
    }
    fn settings(&self) -> serde_json::Value {
        serde_json::json!({
            "window": self.window,
            "window_packets": self.window.div_ceil(self.wire.full() as u64),
            "packet_payload": self.wire.payload(),
            "rto_ns": self.rto.ps() / 1000,
        })
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
