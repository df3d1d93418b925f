//! One link's simulation (Parsimon §3.2, "link-level topologies"), run by tailor's own
//! packet engine on a small generated network.
//!
//! The link under study becomes the trunk of a dumbbell: the distinct senders of the
//! messages that cross it hang from its near switch, the distinct receivers from its far
//! switch, each on an edge link [`EDGE_SPEEDUP`] times faster than a host link.
//! Parsimon's receivers' links are fast in the same way; its senders' run at the host
//! rate, but on tailor's engine that puts the queue of a host's messages in its NIC,
//! which does not mark, so their DCTCP windows grow without the marks the fabric would
//! give them, and small messages wait behind them for milliseconds (measured: the host
//! uplinks' simulations alone gave a p99 three times the exact engine's whole one;
//! docs/decomposed.md, "Edge links"). The trunk has the
//! link's rate, propagation and per-link mechanisms (an ECN or phantom setting of its
//! kind); the switches have the fabric's buffer, ECN threshold and class scheduling.
//! The reverse direction of the trunk carries the messages' ACKs, as in the fabric.
//!
//! Round trip: the edge links' delay is set so that the dumbbell's one-way fixed delay
//! is the mean of the crossing messages' own paths in the fabric (Parsimon sets each
//! source's delay to its own path's; a dumbbell has one edge delay, so the mean).
//!
//! A host link under study is the same dumbbell with one sender (its uplink) or one
//! receiver (its downlink); the queue forms at the near switch's trunk port either way.
//!
//! Result: each message's delay on the link, its latency in the link's simulation minus
//! what it takes alone on the dumbbell (its ideal there and the part `solo` simulates),
//! and that latency.

use super::feedback::{far_switch, Tally};
use super::plan::{LinkLoad, Plan};
use super::solo::{Bench, Solo};
use crate::engine::{ClassSetup, Config, Progress, RunError, Simulation};
use crate::measure::{MessageRecord, RecordSink};
use crate::net::ids::{HostId, PortId};
use crate::net::port::PortRole;
use crate::net::topology::{LinkSpec, NetSpec, Shape};
use crate::sim::{Rate, Time};
use crate::transport::TransportConfig;
use crate::workload::{MessageSpec, Source, WorkloadError};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// How much faster than a host link the link simulations' edge links run: fast enough
/// that the queue forms at the link under study (whose switch port marks), not in a
/// sender's NIC or a receiver's port (docs/decomposed.md, "Edge links").
pub const EDGE_SPEEDUP: u64 = 10;

/// What every link simulation of a run shares: the scenario's network spec, transports and
/// classes (names, transports, priorities, bins).
#[derive(Clone)]
pub struct Template {
    pub net: NetSpec,
    pub transports: Vec<TransportConfig>,
    pub classes: Vec<ClassTemplate>,
    pub overall_bins: Vec<u64>,
    pub seed: u64,
    /// What messages take alone on the dumbbells, as far as asked (`solo`).
    pub solo: Solo,
}

#[derive(Clone)]
pub struct ClassTemplate {
    pub name: String,
    pub transport: usize,
    pub priority: crate::net::packet::Priority,
    pub bins: Vec<u64>,
}

impl Template {
    pub fn of(cfg: &Config) -> Template {
        Template {
            net: cfg.net.clone(),
            transports: cfg.transports.clone(),
            classes: cfg
                .classes
                .iter()
                .map(|c| ClassTemplate {
                    name: c.name.clone(),
                    transport: c.transport,
                    priority: c.priority,
                    bins: c.bins.clone(),
                })
                .collect(),
            overall_bins: cfg.overall_bins.clone(),
            seed: cfg.seed,
            solo: Solo::default(),
        }
    }
}

/// One link simulated: what each crossing message met there, in the order of
/// `LinkLoad::msgs`, and the engine's event count.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkResult {
    pub port: PortId,
    pub delays: Vec<Delay>,
    pub events: u64,
    /// The queues its data met on the way onto the link (a measurement: not carried by
    /// the Ray path's results, where it is zero).
    pub seen: Seen,
}

/// The queue the link's data packets found on arrival at the ports feeding it — the
/// senders' NICs and the near switch's trunk port — summed, as `ports.csv`'s
/// `arrival_mean_queue_bytes` times the packets sent.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Seen {
    pub packets: u64,
    pub queue_sum: f64,
}

impl Seen {
    /// The mean queue a packet found, in time at `rate` (bits per second).
    pub fn mean_us(self, rate_bps: u64) -> f64 {
        self.queue_sum / self.packets.max(1) as f64 * 8.0 / rate_bps as f64 * 1e6
    }
}

impl Seen {
    fn of(rows: &[crate::engine::report::PortRow], left: usize) -> Seen {
        let mut seen = Seen::default();
        for r in rows {
            let sender = r.role == "host_nic"
                && r.node.strip_prefix("host").and_then(|h| h.parse::<usize>().ok()).is_some_and(|h| h < left);
            let trunk = r.role == "trunk" && r.node == "switch0";
            if sender || trunk {
                seen.packets += r.sent_packets;
                seen.queue_sum += r.arrival_mean_queue_bytes * r.sent_packets as f64;
            }
        }
        seen
    }
}

/// One message on one link's simulation.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Delay {
    /// Its delay there: its latency minus what it takes alone there (its ideal and the
    /// rounds its window needs, `solo`).
    pub total: Time,
    /// Its latency there (its start to its delivery): with its start, the time it shared
    /// the link with the others, which `combine` splits its delay over.
    pub latency: Time,
}

/// The packet engine's run of `link`'s dumbbell (the module doc), its edge links `speedup`
/// times a host link's rate; each message's (sender, receiver) there, and the senders.
pub(super) fn config(
    plan: &Plan,
    tpl: &Template,
    link: &LinkLoad,
    speedup: u64,
) -> (Config, Vec<(usize, usize)>, usize) {
    let (mut senders, mut receivers) = (BTreeMap::new(), BTreeMap::new());
    for &i in &link.msgs {
        let m = &plan.msgs[i as usize];
        senders.entry(m.src).or_insert(0usize);
        receivers.entry(m.dst).or_insert(0usize);
    }
    let left = senders.len();
    for (k, v) in senders.values_mut().enumerate() {
        *v = k;
    }
    for (k, v) in receivers.values_mut().enumerate() {
        *v = left + k;
    }
    let mean_delay = mean_delay(plan, link);
    let trunk = LinkSpec {
        rate: link.rate,
        delay: link.propagation,
        mechanisms: spec_of(&tpl.net.shape, link.role).mechanisms.clone(),
    };
    let host = host_link(&tpl.net.shape);
    let n = &tpl.net;
    let fixed = 2 * n.switch_delay.ps() + n.host_nic_delay.ps() + n.host_rx_delay.ps() + trunk.delay.ps();
    let edge = ((mean_delay - fixed as f64) / 2.0).max(0.0).round() as u64;
    let host_link = LinkSpec {
        rate: Rate::from_bps(host.rate.bps() * speedup),
        delay: Time::from_ps(edge),
        mechanisms: host.mechanisms.clone(),
    };
    let mut net = tpl.net.clone();
    net.shape = Shape::Dumbbell { left, right: receivers.len(), host_link, trunk };
    net.seed = net_seed(tpl.seed, link.port);
    let mut per_class: Vec<Vec<MessageSpec>> = vec![Vec::new(); tpl.classes.len()];
    let mut pairs = Vec::with_capacity(link.msgs.len());
    for (k, &i) in link.msgs.iter().enumerate() {
        let m = &plan.msgs[i as usize];
        pairs.push((senders[&m.src], receivers[&m.dst]));
        per_class[m.class.index()].push(MessageSpec {
            id: Some(k as u64),
            start: m.start,
            src: HostId::new(senders[&m.src]),
            dst: HostId::new(receivers[&m.dst]),
            size: m.size,
            class: m.class,
            response: None,
            channel: None,
        });
    }
    let classes = tpl
        .classes
        .iter()
        .zip(per_class)
        .map(|(c, msgs)| ClassSetup {
            name: c.name.clone(),
            source: Box::new(Listed(msgs.into_iter())),
            bins: c.bins.clone(),
            slos: Vec::new(),
            transport: c.transport,
            priority: c.priority,
            probe: false,
        })
        .collect();
    let cfg = Config {
        net,
        transports: tpl.transports.clone(),
        classes,
        overall_bins: tpl.overall_bins.clone(),
        seed: net_seed(tpl.seed, link.port),
        stop_at: None,
        warmup: Time::ZERO,
        sojourn: None,
        persistent: false,
    };
    (cfg, pairs, left)
}

/// The mean fixed one-way delay of the paths of `link`'s messages (ps).
fn mean_delay(plan: &Plan, link: &LinkLoad) -> f64 {
    link.msgs.iter().map(|&i| plan.msgs[i as usize].delay.ps() as f64).sum::<f64>() / link.msgs.len() as f64
}

/// Simulates `link` of `plan`; `go` is asked now and then whether to continue.
pub fn simulate(plan: &Plan, tpl: &Template, link: &LinkLoad, go: &dyn Fn() -> bool) -> Result<LinkResult, RunError> {
    simulate_with(plan, tpl, link, None, go)
}

/// Simulates `link` of `plan`; with `downstream` (each message's rate after its sender's
/// NIC, bytes per ps, in `link.msgs` order: the second pass, `feedback`), at host-rate
/// edge links with the far switch marking for the links downstream, else at
/// [`EDGE_SPEEDUP`].
pub fn simulate_with(
    plan: &Plan,
    tpl: &Template,
    link: &LinkLoad,
    downstream: Option<Vec<f64>>,
    go: &dyn Fn() -> bool,
) -> Result<LinkResult, RunError> {
    let speedup = if downstream.is_some() { 1 } else { EDGE_SPEEDUP };
    let (cfg, pairs, left) = config(plan, tpl, link, speedup);
    let got = Arc::new(Mutex::new(vec![None::<Delay>; link.msgs.len()]));
    let mut sim = Simulation::new(cfg, Box::new(Collect(got.clone())))?;
    let tally = downstream.is_some();
    if let Some(rate) = downstream {
        // Without a switch threshold nothing downstream marks.
        let k = tpl.net.setting::<crate::net::ecn::SwitchThreshold>().map_or(f64::INFINITY, |k| k.0 as f64);
        sim.set_agent(far_switch(), Box::new(Tally::new(left, &pairs, rate, k)));
    }
    sim.run(&mut |_: &Progress| go())?;
    if tally {
        let agent: Box<dyn std::any::Any> = sim.take_agent(far_switch()).expect("the tally was installed");
        let tally = agent.downcast::<Tally>().expect("the far switch's agent is the tally");
        let sizes = link.msgs.iter().map(|&i| plan.msgs[i as usize].size);
        tally.check(sizes).map_err(|e| {
            RunError::Io(std::io::Error::other(format!(
                "the second pass over the link fed by port {}: {e}",
                link.port.index()
            )))
        })?;
    }
    let events = sim.events();
    let seen = Seen::of(&sim.ports(), left);
    drop(sim);
    let got = std::mem::take(&mut *got.lock().expect("no link simulation panicked"));
    // What each message would take alone here is not a delay the others caused (`solo`).
    let bench = Bench::of(link, speedup, mean_delay(plan, link));
    let delays = got
        .into_iter()
        .zip(&link.msgs)
        .enumerate()
        .map(|(k, (d, &i))| {
            let mut d = d.ok_or_else(|| RunError::Io(unfinished(link.port, k)))?;
            let m = &plan.msgs[i as usize];
            d.total = d.total.saturating_sub(tpl.solo.extra(tpl, bench, m.class, m.size)?);
            Ok(d)
        })
        .collect::<Result<Vec<_>, RunError>>()?;
    Ok(LinkResult { port: link.port, delays, events, seen })
}

fn net_seed(seed: u64, port: PortId) -> u64 {
    crate::sim::rng::splitmix64(seed ^ 0x6c69_6e6b ^ (port.index() as u64) << 24)
}

fn unfinished(port: PortId, k: usize) -> std::io::Error {
    std::io::Error::other(format!(
        "the simulation of the link fed by port {} left its message {k} unfinished",
        port.index()
    ))
}

/// The spec of the links a port of `role` feeds, in `shape`.
fn spec_of(shape: &Shape, role: PortRole) -> &LinkSpec {
    match (shape, role) {
        (Shape::Star { link, .. }, _) => link,
        (Shape::Dumbbell { trunk, .. }, PortRole::Trunk) => trunk,
        (Shape::LeafSpine { fabric_link, .. } | Shape::FatTree { fabric_link, .. }, PortRole::Up | PortRole::Down) => {
            fabric_link
        }
        _ => host_link(shape),
    }
}

pub(super) fn host_link(shape: &Shape) -> &LinkSpec {
    match shape {
        Shape::Star { link, .. } => link,
        Shape::Dumbbell { host_link, .. } | Shape::LeafSpine { host_link, .. } | Shape::FatTree { host_link, .. } => {
            host_link
        }
        // Refused by the decomposition's scope (`scenario::decomposed`); its host cables
        // share one rate.
        Shape::Graph(g) => &g.host_cable(0).link,
    }
}

/// A class's messages on one link, in start order.
struct Listed(std::vec::IntoIter<MessageSpec>);

impl Source for Listed {
    fn next_message(&mut self) -> Result<Option<MessageSpec>, WorkloadError> {
        Ok(self.0.next())
    }
}

/// Keeps each message's latency on the link and its latency beyond its ideal there, by its
/// index.
pub(super) struct Collect(pub(super) Arc<Mutex<Vec<Option<Delay>>>>);

impl RecordSink for Collect {
    fn record(&mut self, rec: &MessageRecord, _: &str) -> std::io::Result<()> {
        let latency = rec.latency();
        let delay = Delay { total: latency.saturating_sub(rec.ideal), latency };
        self.0.lock().expect("no link simulation panicked")[rec.id as usize] = Some(delay);
        Ok(())
    }
}
