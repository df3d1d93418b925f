//! pFabric (Alizadeh et al., "pFabric: Minimal Near-Optimal Datacenter Transport",
//! SIGCOMM 2013): switches schedule by priority, end hosts do almost nothing
//! (docs/pfabric.md).
//!
//! - §4.1: every packet carries its message's remaining size as its priority: here its
//!   `rank`, the message bytes not yet acknowledged (`sender`). ACKs carry rank 0.
//! - §4.2: switch ports serve the most important packet's message, earliest packet first,
//!   and drop the least important packet when full: `[switch] scheduler = "rank"` with
//!   `overflow = "evict"` (`net::sched::rank`), small per-port buffers. This transport
//!   refuses a fabric whose ports would ignore its ranks.
//! - §4.3: minimal rate control: a message starts at line rate with about a BDP of
//!   packets, grows by ACKs, falls to one packet on a timeout of a small fixed RTO (no
//!   fast retransmission), and probes with header-only packets after repeated timeouts
//!   (`sender`). Per message, as the Homa authors ran it (one connection per message).
//!
//! Parameters are the Homa authors' (their ns-2 scripts, HomaSimulation branch
//! `ns2_pfabric`): 1,460-byte payloads, a window of 12 packets, a 24 µs RTO, probe mode
//! after 5 timeouts. This module holds the configuration: its scenario table, the ideal
//! latency of a message and its bytes on the wire.

mod endpoint;
mod receiver;
mod sender;
pub mod wire;

#[cfg(test)]
mod tests;

pub use endpoint::PfabricEndpoint;
pub use sender::{Control, Sender};
pub use wire::{Segment, Wire};

use crate::input::{ScenarioError, Table};
use crate::measure::ideal::{pipeline, Train};
use crate::net::ids::HostId;
use crate::net::topology::{BufferSpec, Discipline, NetSpec, NicQueue};
use crate::sim::Time;
use crate::transport::path::{bdp_bytes, Path};
use crate::transport::registry::Entry;
use crate::transport::{Endpoint, Transport, TransportConfig};
use std::sync::Arc;

/// Its line in the registry.
pub const ENTRY: Entry = Entry {
    name: "pfabric",
    about: "pFabric: packets ranked by remaining size at rank-scheduled switches, minimal rate control",
    keys: &["kind", "mss", "header", "init_cwnd", "max_cwnd", "rto", "probe_after"],
    // pFabric §4.2: ports serve the least remaining size and, full, drop the largest, in small
    // buffers: 13 full packets, as the Homa authors ran it (13 x 1,538 B, one byte short: ns-2
    // refuses at >=); §4.1: the endpoint picks each packet by rank when the link is idle.
    needs: r#"switch = { scheduler = "rank", overflow = "evict", buffer = "per_port", buffer_size = "19993B" }
host = { nic_depth = 0 }"#,
    parse,
};

#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Config {
    pub wire: Wire,
    pub control: Control,
}

/// `[transport] kind = "pfabric"` (docs/pfabric.md).
pub fn parse(t: &mut Table, net: &NetSpec) -> Result<TransportConfig, ScenarioError> {
    let mss = t.size("mss")?.unwrap_or(1460);
    if !(1..=1 << 20).contains(&mss) {
        return Err(t.error("mss", "is out of range; accepted: \"1B\" to \"1MiB\""));
    }
    let header = t.size("header")?.unwrap_or(78);
    if header > 65_535 {
        return Err(t.error("header", "is out of range; accepted: at most \"65535B\""));
    }
    let wire = Wire { mss: mss as u32, header: header as u32 };
    check_packet_fits(t, net, mss + header)?;
    let bdp = bdp_bytes(net, mss, header).div_ceil(mss).max(1) as u32;
    let init_cwnd = window(t, "init_cwnd", bdp)?.unwrap_or(12);
    let max_cwnd = window(t, "max_cwnd", bdp)?.unwrap_or(init_cwnd.max(12));
    if max_cwnd < init_cwnd {
        return Err(
            t.error("max_cwnd", format!("is below init_cwnd ({init_cwnd}); accepted: {init_cwnd} packets or more"))
        );
    }
    let rto = t.time("rto")?.unwrap_or(Time::from_us(24));
    if rto < Time::from_ns(100) {
        return Err(t.error("rto", "is below 100ns; accepted: a time such as \"24us\" (a few round trips, §4.3)"));
    }
    let probe_after = t.get("probe_after", |v| match v {
        toml::Value::Integer(i) if (1..=1_000_000).contains(i) => Ok(Some(*i as u32)),
        toml::Value::String(s) if s == "off" => Ok(None),
        _ => {
            Err("is not a count; accepted: a number of consecutive timeouts from 1 to 1000000, or \"off\"".to_string())
        }
    })?;
    check_fabric(t, net)?;
    let control = Control { init_cwnd, max_cwnd, rto, probe_after: probe_after.unwrap_or(Some(5)) };
    Ok(Arc::new(Config { wire, control }))
}

/// A window in packets, or `"bdp"`: the packets of one full packet's and its ACK's round
/// trip on the longest path at the host link's rate.
fn window(t: &mut Table, key: &'static str, bdp: u32) -> Result<Option<u32>, ScenarioError> {
    t.get(key, |v| match v {
        toml::Value::Integer(i) if (1..=1_000_000).contains(i) => Ok(*i as u32),
        toml::Value::String(s) if s == "bdp" => Ok(bdp),
        _ => Err("is not a window; accepted: a number of packets from 1 to 1000000, or \"bdp\"".to_string()),
    })
}

/// A full packet larger than a switch's buffer is dropped at every try and sent again at
/// every timeout: the run would spin without end.
fn check_packet_fits(t: &Table, net: &NetSpec, packet: u64) -> Result<(), ScenarioError> {
    let buffer = match net.buffer {
        BufferSpec::PerPort { bytes } | BufferSpec::Shared { bytes, .. } => bytes,
        BufferSpec::Unlimited => return Ok(()),
    };
    if packet > buffer {
        let key = if t.has("mss") { "mss" } else { "header" };
        return Err(t.error(
            key,
            format!(
            "makes a full packet of {packet} B (mss + header), above the switch buffer of {buffer} B, which would drop \
             it at every try; accepted: mss + header of at most [switch] buffer_size"
        ),
        ));
    }
    Ok(())
}

/// pFabric's ranks mean something only where packets are served by them: switch ports
/// (§4.2) and the hosts' own queues (§4.1).
fn check_fabric(t: &Table, net: &NetSpec) -> Result<(), ScenarioError> {
    if net.classes.discipline != Discipline::Rank {
        return Err(t.error(
            "kind",
            "pFabric ranks packets by remaining size and these switch ports would ignore the ranks; \
             accepted: [switch] scheduler = \"rank\" (with overflow = \"evict\" for pFabric's dropping)",
        ));
    }
    if net.nic != NicQueue::Rank && net.nic_depth != Some(0) {
        return Err(t.error(
            "kind",
            "pFabric hosts serve their packets by rank too, and this NIC queue would not; \
             accepted: [host] nic_depth = 0 (the transport picks each packet when the link is idle) or nic = \"rank\"",
        ));
    }
    Ok(())
}

impl Config {
    /// The message's data packets on the wire.
    fn train(&self, size: u64) -> Train {
        let packets = self.wire.packets(size);
        let full = self.wire.bytes(self.wire.mss) as u64;
        let last = self.wire.bytes(self.wire.payload(size, packets - 1)) as u64;
        Train { packets, full, last }
    }
}

impl Transport for Config {
    fn name(&self) -> &'static str {
        ENTRY.name
    }
    fn full_packet(&self) -> u64 {
        self.wire.bytes(self.wire.mss) as u64
    }
    fn endpoint(&self, _host: HostId) -> Box<dyn Endpoint> {
        Box::new(PfabricEndpoint::new(*self))
    }
    /// The last byte at the receiver, the message's packets back to back through the
    /// store-and-forward tandem of its path (completion is measured at the receiver; a
    /// window of at least a BDP never holds a lone message back).
    fn ideal(&self, p: &Path, size: u64) -> Time {
        p.src_tx_delay + pipeline(&p.fwd, self.train(size))
    }
    /// The window is sized in packets per round trip: it scales with the links; the RTO
    /// is a time.
    fn scaled(&self, factor: f64, _net: &NetSpec) -> TransportConfig {
        let times = |x: u32| ((x as f64 * factor).ceil() as u32).max(1);
        let mut c = *self;
        c.control.init_cwnd = times(c.control.init_cwnd);
        c.control.max_cwnd = times(c.control.max_cwnd);
        Arc::new(c)
    }
    /// Data packets and one ACK per data packet.
    fn wire_bytes(&self, size: u64) -> Option<f64> {
        let t = self.train(size);
        let data = (t.packets - 1) * t.full + t.last;
        Some((data + t.packets * self.wire.control() as u64) as f64)
    }
    fn settings(&self) -> serde_json::Value {
        let c = &self.control;
        serde_json::json!({
            "mss": self.wire.mss,
            "header": self.wire.header,
            "init_cwnd": c.init_cwnd,
            "max_cwnd": c.max_cwnd,
            "rto_ns": c.rto.ps() as f64 / 1e3,
            "probe_after": c.probe_after,
        })
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
