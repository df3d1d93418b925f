//! RDS, the receiver-driven baseline of PL2's testbed (Le et al., §B, §F.1): "a
//! receiver-driven congestion control scheme (RDS) based on Homa".
//!
//! What the paper says of it, and how tailor builds it on Homa's machinery
//! (`transport::homa`, whose endpoint it runs):
//!
//! - senders send up to 61 KiB, the rack's bandwidth-delay product, blindly: Homa's
//!   `rtt_bytes` (`blind`), the unscheduled part the message bytes those wire bytes carry;
//! - the receiver schedules up to 4 packets at a time: one GRANT covers `grant_packets`;
//! - a receiver that sees packets arrive out of order tells the sender of the lost ones at
//!   once (`resend_on_gap`); a burst lost whole is asked for after 1 ms of silence, and a
//!   sender whose blind packets were all lost sends again after 1 ms (`resend_timeout`);
//! - no in-network priorities ("we did not prioritize small messages ... like Homa",
//!   §F.2.3): one level. The receiver grants the message with the fewest bytes left
//!   first, as Homa does; the paper does not say in which order RDS grants, nor to how
//!   many senders at once (`overcommitment`, default 1: one level gives Homa one).
//!
//! Packets are Homa's (the authors' simulator's framing: 1,538 B full on the wire, with
//! preamble and gap), so a comparison with raw Ethernet over PL2 uses the same framing.

use crate::input::{ScenarioError, Table};
use crate::net::ids::HostId;
use crate::net::topology::NetSpec;
use crate::sim::Time;
use crate::transport::homa::{self, unscheduled_in, HomaEndpoint, Wire};
use crate::transport::path::{line_rate, Path};
use crate::transport::registry::Entry;
use crate::transport::{Endpoint, Frames, Traffic, Transport, TransportConfig};
use std::sync::Arc;

/// Its line in the registry.
pub const ENTRY: Entry = Entry {
    name: "rds",
    about: "PL2's receiver-driven baseline: Homa's grants with 61 KiB blind, 4-packet grants, one level, NACK on a gap",
    keys: &["kind", "blind", "grant_packets", "resend_timeout", "overcommitment"],
    // One level, any queue: the baseline PL2 is compared against runs on plain switches.
    needs: "",
    parse,
};

/// RDS: a Homa configuration under its own name.
#[derive(Clone, Debug, PartialEq)]
pub struct Config(pub homa::Config);

/// `[transport] kind = "rds"`.
pub fn parse(t: &mut Table, net: &NetSpec) -> Result<TransportConfig, ScenarioError> {
    let wire = Wire::PAPER;
    let blind = t.size("blind")?.unwrap_or(61 * 1024);
    if blind < wire.full() as u64 {
        return Err(t.error("blind", format!("is below one full packet; accepted: at least \"{}B\"", wire.full())));
    }
    let grant_packets = t.int("grant_packets", 1, 1024)?.unwrap_or(4) as u32;
    // A grant waits for room for all its packets: the window must hold them.
    if blind < grant_packets as u64 * wire.full() as u64 {
        return Err(t.error(
            "grant_packets",
            format!(
                "is {grant_packets}, more full packets than blind ({blind} B) holds; accepted: at most {}",
                (blind / wire.full() as u64).max(1)
            ),
        ));
    }
    let resend_timeout = t.time("resend_timeout")?.unwrap_or(Time::from_ms(1));
    if resend_timeout < Time::from_us(1) {
        return Err(t.error("resend_timeout", "is below 1us; accepted: at least \"1us\" (the paper's is \"1ms\")"));
    }
    let overcommitment = t.int("overcommitment", 1, 1 << 20)?.unwrap_or(1) as usize;
    let cfg = homa::Config {
        wire,
        rtt_bytes: blind,
        unscheduled_bytes: unscheduled_in(&wire, blind),
        // One level for everything. Naming the one unscheduled level lets a class that
        // replays a trace bind too (no size distribution to derive cutoffs from).
        request: homa::Request { unscheduled: Some(1), scheduled: None, cutoffs: None, physical: 1 },
        levels: None,
        overcommitment: Some(overcommitment),
        // RDS keeps the receiver's bound on what it lets in (as it did before Homa's
        // became a key): PL2's results rest on it.
        receiver_budget: true,
        sticky_slots: false,
        // RDS keeps its own clock and timers (§F.1): PL2's results rest on them.
        grant_on_arrival: false,
        receiver_busy: false,
        tail_boost: 0,
        resend_timeout: Some(resend_timeout),
        incast_threshold: None,
        incast_unscheduled: 0,
        line_rate: line_rate(net),
        grant_packets,
        resend_on_gap: true,
    };
    Ok(Arc::new(Config(cfg)))
}

impl Transport for Config {
    fn name(&self) -> &'static str {
        ENTRY.name
    }
    fn full_packet(&self) -> u64 {
        self.0.wire.full() as u64
    }
    fn endpoint(&self, _host: HostId) -> Box<dyn Endpoint> {
        Box::new(HomaEndpoint::new(self.0.clone()))
    }
    fn ideal(&self, p: &Path, size: u64) -> Time {
        self.0.ideal(p, size)
    }
    fn scaled(&self, factor: f64, net: &NetSpec) -> TransportConfig {
        let _ = (factor, net);
        Arc::new(self.clone())
    }
    fn bind(&self, traffic: &Traffic) -> Result<Option<TransportConfig>, String> {
        let bound = self.0.bind(traffic)?;
        Ok(bound.map(|b| {
            let c = b.as_any().downcast_ref::<homa::Config>().expect("Homa binds to a homa::Config").clone();
            Arc::new(Config(c)) as TransportConfig
        }))
    }
    fn wire_bytes(&self, size: u64) -> Option<f64> {
        // Data packets and one GRANT per `grant_packets` scheduled packets.
        let l = self.0.layout(size);
        let scheduled = (l.packets() - l.unscheduled_packets()) as u64;
        let data: u64 = self.0.frame_runs(size).iter().map(|f| f.count * f.wire as u64).sum();
        let grants = scheduled.div_ceil(self.0.grant_packets as u64);
        Some((data + grants * self.0.wire.control() as u64) as f64)
    }
    fn frames(&self, size: u64) -> Option<Vec<Frames>> {
        Some(self.0.frame_runs(size))
    }
    fn settings(&self) -> serde_json::Value {
        serde_json::json!({
            "blind_wire_bytes": self.0.rtt_bytes,
            "unscheduled_bytes": self.0.unscheduled_bytes,
            "grant_packets": self.0.grant_packets,
            "resend_timeout_ns": self.0.resend_timeout.map(|t| t.as_ns_f64()),
            "overcommitment": self.0.overcommitment,
        })
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
