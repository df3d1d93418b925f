//! The decomposition's first step (Parsimon §3.1): every message of the scenario, drawn
//! exactly as the packet engine draws it (same classes, same random streams, same ids:
//! `oracle`'s `Arrivals`), routed along its ECMP path, and the fabric split into its
//! directed links, each with the messages that cross it.
//!
//! Routing: the packet engine's ECMP hashes a message by its connection's flow-table
//! slot, which is reused as messages finish and so depends on the run's dynamics. The
//! decomposition cannot know it without running the exact engine; it hashes the
//! message's id through the same per-switch hash instead (`Network::path`), so paths
//! are spread over the same candidates with the same distribution but a given message
//! may take another of its equal-cost paths than in a packet run.

use crate::engine::{Config, RunError};
use crate::ids::ClassId;
use crate::net::ids::{HostId, PortId};
use crate::net::port::PortRole;
use crate::sim::{Rate, Time};
use crate::transport::path::Path;
use crate::transport::TransportConfig;

/// One message of the scenario and its path.
#[derive(Clone, Debug)]
pub struct Msg {
    /// The id the packet engine gives it.
    pub id: u64,
    pub class: ClassId,
    pub src: HostId,
    pub dst: HostId,
    pub size: u64,
    pub start: Time,
    /// Its latency alone on its path in the whole fabric (the packet engine's ideal).
    pub ideal: Time,
    /// The egress ports of its path, first the sender's NIC: each feeds one link.
    pub hops: Vec<PortId>,
    /// The fixed one-way delay of its path (propagation and node delays).
    pub delay: Time,
}

/// One directed link and the messages that cross it (indices into `Plan::msgs`, in start
/// order).
#[derive(Clone, Debug)]
pub struct LinkLoad {
    pub port: PortId,
    pub role: PortRole,
    pub rate: Rate,
    /// The link's propagation delay (without the node delays at its ends).
    pub propagation: Time,
    pub msgs: Vec<u32>,
}

/// The scenario's messages and the fabric's loaded links.
pub struct Plan {
    pub msgs: Vec<Msg>,
    /// Links with at least one message, by port id.
    pub links: Vec<LinkLoad>,
    /// Ports in the fabric.
    pub ports: usize,
    /// Each class's transport.
    pub transports: Vec<TransportConfig>,
}

impl Plan {
    /// Draws and routes every message of `cfg` (a scenario built for a seed; the
    /// decomposition's scope check passed, so there is no stop and every class is
    /// one-way), consuming its sources.
    pub fn new(cfg: &mut Config) -> Result<Plan, RunError> {
        let net = crate::net::topology::build(&cfg.net);
        let transports: Vec<TransportConfig> =
            cfg.classes.iter().map(|c| cfg.transports[c.transport].clone()).collect();
        let sources = cfg.classes.iter_mut().map(|c| std::mem::replace(&mut c.source, Box::new(Empty))).collect();
        let mut arrivals = crate::oracle::arrivals::Arrivals::new(sources)?;
        let mut msgs = Vec::new();
        let mut per_port: Vec<Vec<u32>> = vec![Vec::new(); net.ports.len()];
        while let Some((id, m)) = arrivals.pop()? {
            let hops = net.path(m.src, m.dst, id);
            let path = Path::between(&net, m.src, m.dst);
            let ideal = transports[m.class.index()].ideal(&path, m.size);
            let delay = path.fwd.iter().map(|h| h.delay).fold(Time::ZERO, |a, d| a + d);
            let i = u32::try_from(msgs.len()).expect("fewer than 2^32 messages");
            for p in &hops {
                per_port[p.index()].push(i);
            }
            msgs.push(Msg {
                id,
                class: m.class,
                src: m.src,
                dst: m.dst,
                size: m.size,
                start: m.start,
                ideal,
                hops,
                delay,
            });
        }
        let links = per_port
            .into_iter()
            .enumerate()
            .filter(|(_, m)| !m.is_empty())
            .map(|(p, msgs)| {
                let port = net.port(PortId::new(p));
                let propagation = net.links[port.link.index()].propagation;
                LinkLoad { port: PortId::new(p), role: port.role, rate: port.rate, propagation, msgs }
            })
            .collect();
        Ok(Plan { msgs, links, ports: net.ports.len(), transports })
    }
}

/// A class's source once the plan has taken its messages.
struct Empty;

impl crate::workload::Source for Empty {
    fn next_message(&mut self) -> Result<Option<crate::workload::MessageSpec>, crate::workload::WorkloadError> {
        Ok(None)
    }
}
