//! What a finished (or stopped) run reports: the summary of DESIGN.md's result format,
//! per-port counters, and the packet/byte conservation ledger.

use super::Simulation;
use crate::engine::sojourn::SojournStats;
use crate::measure::summary::ClassReport;
use crate::measure::MessageRecord;
use crate::net::ids::Node;
use crate::transport::Counters;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Messages {
    pub generated: u64,
    pub completed: u64,
    pub incomplete: u64,
    /// Bytes of the messages still active when the run stopped (the packet engine's; a
    /// backlog that grows with the run length says the load is not sustainable).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub incomplete_bytes: Option<u64>,
    /// Completed but started before the warm-up time: in messages.csv, not in summaries.
    pub warmup_excluded: u64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct NetworkReport {
    pub drops: u64,
    pub ecn_marks: u64,
    /// The largest queue any switch port reached.
    pub max_queue_bytes: u64,
    /// The time-averaged queue of the switch port with the largest average.
    pub mean_queue_bytes: f64,
    /// The busiest switch port's utilization over the run.
    pub utilization: f64,
    pub max_host_nic_queue_bytes: u64,
    /// Each mechanism's counters under its name (`net::mechanism`'s `report`: HULL's
    /// pacers as `pacer`, summed over the hosts, absent without `[host] pacer`).
    #[serde(flatten)]
    pub mechanisms: crate::net::mechanism::Reports,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RunReport {
    pub events: u64,
    pub sim_ns: f64,
    pub messages: Messages,
    pub overall: ClassReport,
    pub classes: BTreeMap<String, ClassReport>,
    pub network: NetworkReport,
    /// Each transport's counters (`Endpoint::counters`), summed over its endpoints.
    pub transport_counters: Counters,
    /// What each transport chose for the run (`Transport::settings`), by name; omitted
    /// when none says anything.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub transport_settings: BTreeMap<String, serde_json::Value>,
    /// The probe classes' waits at each port they crossed; omitted without probes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub probes: Vec<ProbeRow>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PortRow {
    pub port: usize,
    pub node: String,
    pub role: &'static str,
    pub rate_bps: u64,
    pub sent_packets: u64,
    pub sent_bytes: u64,
    pub drops: u64,
    pub drop_bytes: u64,
    pub ecn_marks: u64,
    pub max_queue_bytes: u64,
    pub mean_queue_bytes: f64,
    pub utilization: f64,
    /// The mean and largest queue an admitted packet found ahead of it, the packet on
    /// the wire not counted (the Homa paper's Table 1).
    pub arrival_mean_queue_bytes: f64,
    pub arrival_max_queue_bytes: u64,
    /// The same with the untransmitted rest of the frame on the wire counted, as the
    /// Homa authors' simulator samples its queues (HomaSimulation `DropTailQueue`).
    pub arrival_mean_queue_wire_bytes: f64,
    pub arrival_max_queue_wire_bytes: u64,
    /// Bytes sent per traffic class (index = class; not in ports.csv).
    #[serde(skip)]
    pub class_sent_bytes: Vec<u64>,
    /// Every packet's wait at this port, if recorded (`[record] sojourn`).
    pub sojourn: Option<SojournStats>,
}

/// The waits of a probe class's packets at one port they crossed (`engine::sojourn`).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ProbeRow {
    pub class: String,
    pub port: usize,
    pub node: String,
    pub role: &'static str,
    #[serde(flatten)]
    pub waits: SojournStats,
}

/// Packets and bytes: what hosts sent = delivered + dropped + still in the network, for
/// packets; for bytes, the payload bytes ports trimmed off (`trimmed`, counted apart:
/// the packet itself goes on) are the fourth term.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ledger {
    pub sent: (u64, u64),
    pub delivered: (u64, u64),
    pub dropped: (u64, u64),
    pub in_flight: (u64, u64),
    /// Packets trimmed and payload bytes cut.
    pub trimmed: (u64, u64),
}

impl Ledger {
    /// Whether every packet and byte sent is accounted for.
    pub fn balances(&self) -> bool {
        self.sent.0 == self.delivered.0 + self.dropped.0 + self.in_flight.0
            && self.sent.1 == self.delivered.1 + self.dropped.1 + self.in_flight.1 + self.trimmed.1
    }
}

pub(crate) fn node_name(n: Node) -> String {
    match n {
        Node::Host(h) => format!("host{}", h.index()),
        Node::Switch(s) => format!("switch{}", s.index()),
    }
}

impl Simulation {
    pub fn ports(&self) -> Vec<PortRow> {
        let span = self.now().ps().max(1) as f64;
        self.net
            .ports
            .iter()
            .enumerate()
            .map(|(i, p)| PortRow {
                port: i,
                node: node_name(p.owner),
                role: p.role.name(),
                rate_bps: p.rate.bps(),
                sent_packets: p.stats.sent_packets,
                sent_bytes: p.stats.sent_bytes,
                drops: p.stats.drop_packets,
                drop_bytes: p.stats.drop_bytes,
                ecn_marks: p.stats.marks,
                max_queue_bytes: p.stats.max_queue_bytes,
                mean_queue_bytes: p.stats.queue_area as f64 / span,
                utilization: p.stats.busy_ps as f64 / span,
                arrival_mean_queue_bytes: p.stats.seen_queue_sum as f64 / p.stats.enq_packets.max(1) as f64,
                arrival_max_queue_bytes: p.stats.seen_queue_max,
                arrival_mean_queue_wire_bytes: p.stats.seen_wire_sum as f64 / p.stats.enq_packets.max(1) as f64,
                arrival_max_queue_wire_bytes: p.stats.seen_wire_max,
                class_sent_bytes: p.stats.class_sent_bytes.to_vec(),
                sojourn: self.sojourn.as_ref().and_then(|s| s.port(i)),
            })
            .collect()
    }

    /// The probe classes' waits at every port their packets crossed.
    pub fn probes(&self, class_names: &[String]) -> Vec<ProbeRow> {
        let Some(s) = self.sojourn.as_ref() else { return Vec::new() };
        s.probes()
            .map(|(c, p, waits)| {
                let port = &self.net.ports[p];
                ProbeRow {
                    class: class_names[c].clone(),
                    port: p,
                    node: node_name(port.owner),
                    role: port.role.name(),
                    waits,
                }
            })
            .collect()
    }

    pub fn report(&self) -> RunReport {
        let rows = self.ports();
        let switch_rows = || rows.iter().filter(|r| r.role != "host_nic");
        let network = NetworkReport {
            drops: rows.iter().map(|r| r.drops).sum::<u64>()
                + self.net.switches.iter().map(|s| s.dropped.0).sum::<u64>(),
            ecn_marks: rows.iter().map(|r| r.ecn_marks).sum(),
            max_queue_bytes: switch_rows().map(|r| r.max_queue_bytes).max().unwrap_or(0),
            mean_queue_bytes: switch_rows().map(|r| r.mean_queue_bytes).fold(0.0, f64::max),
            utilization: switch_rows().map(|r| r.utilization).fold(0.0, f64::max),
            max_host_nic_queue_bytes: rows
                .iter()
                .filter(|r| r.role == "host_nic")
                .map(|r| r.max_queue_bytes)
                .max()
                .unwrap_or(0),
            mechanisms: crate::net::mechanism::Reports::of(&crate::net::mechanism::Ran {
                network: &self.net,
                agents: &self.agents,
            }),
        };
        let rec = &self.recorder;
        let generated = self.generated();
        let (overall, classes) = rec.reports(&self.unfinished());
        RunReport {
            events: self.events(),
            sim_ns: self.now().as_ns_f64(),
            messages: Messages {
                generated,
                completed: rec.completed,
                incomplete: generated - rec.completed,
                incomplete_bytes: Some(self.flows.active_bytes()),
                warmup_excluded: rec.in_warmup,
            },
            overall,
            classes,
            network,
            transport_counters: self.transport_counters(),
            transport_settings: self
                .transports
                .iter()
                .map(|t| (t.name().to_string(), t.settings()))
                .filter(|(_, v)| !v.is_null())
                .collect(),
            probes: self.probes(&rec.classes.iter().map(|c| c.name.clone()).collect::<Vec<_>>()),
        }
    }

    /// The messages still active, as the records they would have if they finished now: an
    /// RPC from its request's start with the response's size and both ideals.
    fn unfinished(&self) -> Vec<MessageRecord> {
        use crate::engine::flows::FlowRpc;
        self.flows
            .iter()
            .map(|f| {
                let m = f.msg;
                match f.rpc {
                    FlowRpc::OneWay => MessageRecord { finish: self.now(), ..m },
                    FlowRpc::Request { response } => {
                        let back = self.transports[f.transport].ideal(&self.path(m.dst, m.src), response);
                        MessageRecord { size: response, finish: self.now(), ideal: m.ideal + back, ..m }
                    }
                    FlowRpc::Response { id, start, ideal, .. } => MessageRecord {
                        id,
                        src: m.dst,
                        dst: m.src,
                        start,
                        finish: self.now(),
                        ideal: ideal + m.ideal,
                        ..m
                    },
                }
            })
            .collect()
    }

    pub fn ledger(&self) -> Ledger {
        let hosts = &self.net.hosts;
        let sum = |f: &dyn Fn(&crate::net::HostStats) -> u64| hosts.iter().map(|h| f(&h.stats)).sum::<u64>();
        let ports = &self.net.ports;
        let switches = &self.net.switches;
        let emitted = switches.iter().fold((0, 0), |a, s| (a.0 + s.emitted.0, a.1 + s.emitted.1));
        let consumed = switches.iter().fold((0, 0), |a, s| (a.0 + s.consumed.0, a.1 + s.consumed.1));
        Ledger {
            // Switch agents send and take packets too.
            sent: (sum(&|s| s.sent_packets) + emitted.0, sum(&|s| s.sent_bytes) + emitted.1),
            delivered: (sum(&|s| s.recv_packets) + consumed.0, sum(&|s| s.recv_bytes) + consumed.1),
            dropped: (
                ports.iter().map(|p| p.stats.drop_packets).sum::<u64>()
                    + switches.iter().map(|s| s.dropped.0).sum::<u64>(),
                ports.iter().map(|p| p.stats.drop_bytes).sum::<u64>()
                    + switches.iter().map(|s| s.dropped.1).sum::<u64>(),
            ),
            in_flight: self.net.in_flight(),
            trimmed: (ports.iter().map(|p| p.stats.trim_packets).sum(), ports.iter().map(|p| p.stats.trim_bytes).sum()),
        }
    }
}
