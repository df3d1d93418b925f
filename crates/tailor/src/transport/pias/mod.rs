//! PIAS (Bai et al., "Information-Agnostic Flow Scheduling for Commodity Data Centers",
//! NSDI 2015): DCTCP underneath, a multi-level feedback queue on top (docs/pias.md).
//!
//! - Rate control is DCTCP's (PIAS §4: ECN-based window control keeps the priority
//!   queues short): `transport::tcp` with the DCTCP flavour, one connection per message,
//!   reused as it is; this module adds no TCP logic.
//! - The end host tags every packet with a priority level (§3.1, §4.1): a message's
//!   first bytes go at the highest level (0) and it is demoted one level each time the
//!   bytes it has sent cross a threshold, so that short messages finish in the high
//!   levels without any size being known (`endpoint::Tagger`). ACKs go at level 0.
//! - The thresholds come from the workload (§4.2, `thresholds`): computed when the
//!   transport is bound to its classes (`Transport::bind`) from their size distribution
//!   and load, or given in the table (`thresholds = [...]`).
//! - Switches keep one strict-priority queue per level (PIAS §4: commodity switches'
//!   8 priority queues) and mark ECN over the port's queues (the scenario's `[switch]`; PIAS's and the Homa
//!   authors' ns-2 scripts mark per port, `ECN_scheme_ = 2`).
//! - Homa §5.2's change (`packet_level = "last_byte"`): a packet whose bytes straddle
//!   thresholds goes at the lowest of their levels instead of the highest.
//!
//! A message is complete when its receiver has the last byte (one-way delivery, as the
//! Homa paper's Fig. 12 and the authors' ns-2 scripts measure it), so its ideal is its
//! data packets back to back at line rate through its path.

mod endpoint;
pub mod thresholds;

#[cfg(test)]
mod tests;

pub use endpoint::{PiasEndpoint, Tagger};

use crate::input::{ScenarioError, Table};
use crate::measure::ideal::{pipeline, Train};
use crate::net::ids::HostId;
use crate::net::topology::{Discipline, NetSpec};
use crate::sim::Time;
use crate::transport::path::Path;
use crate::transport::registry::Entry;
use crate::transport::tcp::{self, TcpEndpoint};
use crate::transport::{Endpoint, Traffic, Transport, TransportConfig};
use std::sync::Arc;

/// Its line in the registry.
pub const ENTRY: Entry = Entry {
    name: "pias",
    about: "PIAS (NSDI 2015): DCTCP with end-host multi-level feedback queue tagging, thresholds from the workload",
    keys: &KEYS,
    // PIAS §4: the tagged levels are strict-priority queues at switches and NICs. DCTCP's
    // marking threshold scales with the link rate: the scenario or the candidate gives it.
    needs: r#"switch = { scheduler = "priority", priority_levels = 8 }
host = { nic = "priority", priority_levels = 8 }"#,
    parse,
};

/// DCTCP's keys and PIAS's own.
const KEYS: [&str; 24] = tcp::keys(&[&tcp::DCTCP_KEYS, &["priority_levels", "thresholds", "packet_level"]]);

/// The most levels PIAS tags (its ns-2 code's `MAX_QUEUE_NUM`; commodity switches' 8).
pub const MAX_LEVELS: usize = 8;

/// Which level a packet whose bytes fall on both sides of a threshold goes at.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PacketLevel {
    /// Its first byte's: the bytes the message sent before the packet (PIAS's ns-2 code).
    FirstByte,
    /// Its last byte's, the lowest level of its bytes (the Homa authors' change, §5.2).
    LastByte,
}

/// Where the thresholds come from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// The scenario's `thresholds`.
    Given,
    /// PIAS §4.2's model at this load; `delay` is the model's mean queueing time.
    Derived { load: f64, delay: f64 },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// DCTCP as the table configures it.
    pub tcp: tcp::Config,
    /// Priority levels K (K − 1 thresholds at most).
    pub levels: usize,
    pub packet_level: PacketLevel,
    /// The thresholds, once given or bound to the workload, and where they came from.
    pub thresholds: Option<(Vec<u64>, Source)>,
}

impl Config {
    /// The tagger of this run (the scenario binds every transport before a run).
    pub fn tagger(&self) -> Tagger {
        let (t, _) = self
            .thresholds
            .as_ref()
            .expect("a PIAS transport is bound to its workload before it runs (Transport::bind)");
        Tagger { thresholds: t.clone(), packet_level: self.packet_level }
    }
}

/// `[transport] kind = "pias"` (docs/pias.md): DCTCP's keys with DCTCP's defaults, and
/// `priority_levels`, `thresholds`, `packet_level`.
pub fn parse(t: &mut Table, net: &NetSpec) -> Result<TransportConfig, ScenarioError> {
    let levels = t.int("priority_levels", 1, MAX_LEVELS as i64)?.unwrap_or(MAX_LEVELS as i64) as usize;
    let given = t.get("thresholds", size_list)?;
    if let Some(g) = &given {
        if g.len() >= levels {
            return Err(t.error(
                "thresholds",
                format!("holds {} thresholds for {levels} levels; accepted: at most {}", g.len(), levels - 1),
            ));
        }
    }
    let packet_level = match t.choice("packet_level", &["first_byte", "last_byte"])?.as_deref() {
        Some("last_byte") => PacketLevel::LastByte,
        _ => PacketLevel::FirstByte,
    };
    check_switch_levels(t, net, levels)?;
    // DCTCP's `completion` is not PIAS's to choose: PIAS measures one-way delivery always.
    if t.has("completion") {
        return Err(t.error("completion", "is not PIAS's: PIAS completes a message when its receiver has the last byte (docs/pias.md); accepted: no completion key"));
    }
    let dctcp = tcp::table::dctcp(t, net)?;
    let tcp = *dctcp.as_any().downcast_ref::<tcp::Config>().expect("the DCTCP table reads a TCP configuration");
    let thresholds = given.map(|g| (g, Source::Given));
    Ok(Arc::new(Config { tcp, levels, packet_level, thresholds }))
}

/// An array of increasing sizes with units.
fn size_list(v: &toml::Value) -> Result<Vec<u64>, String> {
    let items =
        v.as_array().ok_or("is not an array; accepted: an array of increasing sizes such as [\"1460B\", \"10KB\"]")?;
    let mut out: Vec<u64> = Vec::new();
    for it in items {
        let s = it.as_str().ok_or("holds a value that is not a size; accepted: sizes with units such as \"1460B\"")?;
        let b = crate::input::units::parse_size(s)?;
        if b == 0 {
            return Err(
                "holds \"0B\", which would demote before the first byte; accepted: sizes of at least \"1B\"".into()
            );
        }
        if out.last().is_some_and(|&p| b <= p) {
            return Err(format!("is not increasing at \"{s}\"; accepted: increasing sizes"));
        }
        out.push(b);
    }
    Ok(out)
}

/// PIAS's levels mean nothing on ports that do not queue by priority.
fn check_switch_levels(t: &Table, net: &NetSpec, levels: usize) -> Result<(), ScenarioError> {
    if levels == 1 {
        return Ok(());
    }
    if net.classes.discipline != Discipline::Priority {
        return Err(t.error("priority_levels", format!(
            "PIAS tags {levels} priority levels but [switch] scheduler is not \"priority\", so ports would ignore them; \
             accepted: [switch] scheduler = \"priority\", or priority_levels = 1 (DCTCP)"
        )));
    }
    if net.classes.levels < levels {
        return Err(t.error("priority_levels", format!(
            "is {levels} but switch ports keep {} levels; accepted: at most {} (or [switch] priority_levels = {levels})",
            net.classes.levels, net.classes.levels
        )));
    }
    Ok(())
}

impl Transport for Config {
    fn name(&self) -> &'static str {
        ENTRY.name
    }
    fn full_packet(&self) -> u64 {
        self.tcp.mss as u64 + self.tcp.header as u64
    }
    fn segmentation_offload(&self) -> Option<u64> {
        self.tcp.lso
    }

    fn endpoint(&self, host: HostId) -> Box<dyn Endpoint> {
        Box::new(PiasEndpoint::new(TcpEndpoint::new(self.tcp, host).completing_at_receiver(), self.tagger()))
    }

    /// One-way: the message's segments back to back at line rate through its path (a
    /// lone message's window never stalls it on the paper's fabric: its first ACK is back
    /// before the initial window is out, and slow start then grows faster than the link).
    fn ideal(&self, p: &Path, size: u64) -> Time {
        p.src_tx_delay + pipeline(&p.fwd, Train::of(size, self.tcp.mss as u64, self.tcp.header as u64))
    }

    /// DCTCP's windows scale with the link; thresholds are message bytes and do not.
    fn scaled(&self, factor: f64, net: &NetSpec) -> TransportConfig {
        let scaled = self.tcp.scaled(factor, net);
        let tcp = *scaled.as_any().downcast_ref::<tcp::Config>().expect("TCP scales to TCP");
        Arc::new(Config { tcp, ..self.clone() })
    }

    /// The thresholds of PIAS §4.2 for the classes' sizes and load, unless given.
    fn bind(&self, traffic: &Traffic) -> Result<Option<TransportConfig>, String> {
        if self.thresholds.is_some() {
            return Ok(None);
        }
        let atoms = traffic.atoms().ok_or(
            "a class replays a trace, so PIAS cannot derive its thresholds from a size distribution; \
             accepted: thresholds = [...] in the transport table",
        )?;
        let loads: Option<Vec<f64>> = traffic.classes.iter().map(|c| c.load).collect();
        let load: f64 = loads
            .ok_or("a class gives a rate, not a load, so PIAS's model (§4.2) has no load to work at; accepted: thresholds = [...] in the transport table, or load = ... in the class")?
            .iter()
            .sum();
        if load >= 1.0 {
            return Err(format!(
                "the classes offer a load of {load} together; PIAS's model (§4.2) needs less than 1; accepted: thresholds = [...] in the transport table"
            ));
        }
        let s = thresholds::optimal(&atoms, load, self.levels)?;
        let source = Source::Derived { load, delay: s.delay };
        Ok(Some(Arc::new(Config { thresholds: Some((s.thresholds, source)), ..self.clone() })))
    }

    /// Data segments with their headers, one ACK per segment (every second one with
    /// delayed ACKs), and SYN / SYN-ACK with a handshake: what DCTCP puts on the wire.
    fn wire_bytes(&self, size: u64) -> Option<f64> {
        let (mss, hdr) = (self.tcp.mss as u64, self.tcp.header as u64);
        let train = Train::of(size, mss, hdr);
        let data = (train.packets - 1) * train.full + train.last;
        let acks = if self.tcp.delayed_ack { train.packets.div_ceil(2) } else { train.packets };
        let handshake = if self.tcp.handshake { 2 } else { 0 };
        Some((data + (acks + handshake) * hdr) as f64)
    }

    fn settings(&self) -> serde_json::Value {
        let Some((t, source)) = &self.thresholds else { return serde_json::Value::Null };
        let mut s = serde_json::json!({
            "priority_levels": self.levels,
            "levels_used": t.len() + 1,
            "thresholds": t,
            "packet_level": match self.packet_level { PacketLevel::FirstByte => "first_byte", PacketLevel::LastByte => "last_byte" },
        });
        match source {
            Source::Given => s["threshold_source"] = "given".into(),
            Source::Derived { load, delay } => {
                s["threshold_source"] = "derived".into();
                s["model_load"] = serde_json::json!((load * 1e4).round() / 1e4);
                s["model_delay"] = serde_json::json!((delay * 1e4).round() / 1e4);
            }
        }
        s
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
