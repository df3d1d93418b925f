//! `[model]` and the mapping of a scenario onto the SWP fast model (docs/model.md).
//!
//! The model has one bottleneck, the link [`scope`](super::scope) finds (or `[model]
//! bottleneck` states): its rate is the capacity C, flows start at their host link's
//! rate (R0 = host rate / C, 1 when the bottleneck is a host link), and the round trip
//! of propagation on the longest path is its RTT (SWP's 2τ). DCTCP maps to the SWP-D
//! preset with q0 = the bottleneck port's ECN threshold, HPCC to SWP-H with the
//! transport's η; `[model]` may pick another preset or override any parameter. The switch scheduler maps to the model's sharing: FIFO, strict
//! priority by level, GPS by weight (DRR, WFQ, round robin with equal weights), GPS with
//! per-flow fair queueing inside classes (hierarchical).

use super::reader::{ScenarioError, Table};
use super::scope::Bottleneck;
use super::Scenario;
use crate::model::{CcParams, Form, ModelConfig, Rise, Sharing};
use crate::net::topology::{Discipline, LinkSpec, Shape};
use crate::sim::Time;
use crate::transport::ModelFamily;

/// What `[model]` sets; None keeps the preset's value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelSpec {
    pub preset: Option<CcParams>,
    pub eta: Option<f64>,
    pub q0: Option<u64>,
    pub beta: Option<f64>,
    pub kappa: Option<f64>,
    /// `bottleneck`: the link the user states every class's traffic shares (docs/model.md,
    /// "Scope"); None lets [`scope`](super::scope) decide from the traffic.
    pub bottleneck: Option<LinkKind>,
    /// `form`: the calibrated forms (default) or the paper's own (docs/model.md, "The
    /// paper-literal form").
    pub form: Form,
}

/// A link of the topology, named as its `[topology]` table names it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LinkKind {
    /// A star's `link`.
    Link,
    HostLink,
    Trunk,
    FabricLink,
}

impl LinkKind {
    pub fn name(self) -> &'static str {
        match self {
            LinkKind::Link => "link",
            LinkKind::HostLink => "host_link",
            LinkKind::Trunk => "trunk",
            LinkKind::FabricLink => "fabric_link",
        }
    }

    /// The links a shape has, by the names its `[topology]` table gives them.
    pub fn names(shape: &Shape) -> &'static [&'static str] {
        match shape {
            Shape::Star { .. } => &["link"],
            Shape::Dumbbell { .. } => &["host_link", "trunk"],
            Shape::LeafSpine { .. } | Shape::FatTree { .. } => &["host_link", "fabric_link"],
            // The model does not take a graph (`scope::bottleneck`).
            Shape::Graph(_) => &[],
        }
    }

    fn parse(name: &str) -> LinkKind {
        match name {
            "link" => LinkKind::Link,
            "host_link" => LinkKind::HostLink,
            "trunk" => LinkKind::Trunk,
            _ => LinkKind::FabricLink,
        }
    }

    /// This link's spec in `shape` (a kind `names` lists for it).
    pub fn spec(self, shape: &Shape) -> &LinkSpec {
        match (self, shape) {
            (LinkKind::Trunk, Shape::Dumbbell { trunk, .. }) => trunk,
            (LinkKind::FabricLink, Shape::LeafSpine { fabric_link, .. } | Shape::FatTree { fabric_link, .. }) => {
                fabric_link
            }
            (_, Shape::Star { link, .. }) => link,
            (
                _,
                Shape::Dumbbell { host_link, .. }
                | Shape::LeafSpine { host_link, .. }
                | Shape::FatTree { host_link, .. },
            ) => host_link,
            (_, Shape::Graph(g)) => &g.host_cable(0).link,
        }
    }
}

pub fn parse(t: Option<Table>, shape: &Shape) -> Result<ModelSpec, ScenarioError> {
    let Some(mut t) = t else { return Ok(ModelSpec::default()) };
    let preset = match t.choice("preset", &["swp-d", "swp-h"])?.as_deref() {
        Some("swp-d") => Some(CcParams::SWP_D),
        Some(_) => Some(CcParams::SWP_H),
        None => None,
    };
    let spec = ModelSpec {
        preset,
        eta: t.float("eta", 0.01, 1.0)?,
        q0: t.size("q0")?,
        beta: t.float("beta", 0.0, 1.0)?,
        kappa: t.float("kappa", 0.01, 1000.0)?,
        bottleneck: t.choice("bottleneck", LinkKind::names(shape))?.as_deref().map(LinkKind::parse),
        form: t.choice("form", &Form::NAMES)?.as_deref().and_then(Form::parse).unwrap_or_default(),
    };
    t.finish()?;
    Ok(spec)
}

fn error(sc: &Scenario, path: impl Into<String>, message: impl Into<String>) -> ScenarioError {
    ScenarioError { file: sc.file.clone(), path: path.into(), message: message.into() }
}

/// The round trip of propagation on the longest path.
fn base_rtt(shape: &Shape) -> Time {
    let one_way = match shape {
        Shape::Star { link, .. } => link.delay + link.delay,
        Shape::Dumbbell { host_link, trunk, .. } => host_link.delay + trunk.delay + host_link.delay,
        Shape::LeafSpine { host_link, fabric_link, .. } => {
            host_link.delay + fabric_link.delay + fabric_link.delay + host_link.delay
        }
        Shape::FatTree { host_link, fabric_link, .. } => {
            host_link.delay
                + host_link.delay
                + fabric_link.delay
                + fabric_link.delay
                + fabric_link.delay
                + fabric_link.delay
        }
        Shape::Graph(g) => g.longest.iter().fold(Time::ZERO, |t, l| t + l.delay),
    };
    one_way + one_way
}

/// The model of `sc`, or why the model does not apply to it (its scope: [`super::scope`]).
pub fn config(sc: &Scenario) -> Result<ModelConfig, ScenarioError> {
    configure(sc).map(|(cfg, _)| cfg)
}

/// The model of `sc` and the link it stands for.
pub fn configure(sc: &Scenario) -> Result<(ModelConfig, Bottleneck), ScenarioError> {
    let bottleneck = super::scope::bottleneck(sc)?;
    // What only the packet engine records: refused rather than silently not written.
    if sc.record.waits {
        return Err(error(
            sc,
            "record.waits",
            "is recorded by the packet engine only (the model has no packets); accepted: --engine packet, or no waits",
        ));
    }
    if sc.record.sojourn.is_some() {
        return Err(error(sc, "record.sojourn", "is recorded by the packet engine only (the model has no ports' queues); accepted: --engine packet, or no sojourn"));
    }
    if let Some(i) = sc.classes.iter().position(|c| c.probe) {
        return Err(error(sc, format!("class[{i}].probe"), "probes measure waits at ports, which the model does not have; accepted: --engine packet, or no probe class"));
    }
    if sc.record.progress.is_some() {
        return Err(error(
            sc,
            "record.progress",
            "is recorded by the packet engine only; accepted: --engine packet, or no progress",
        ));
    }
    packet_only(sc)?;
    // One model stands for every class, so every class must use the one transport.
    if let Some(i) = sc.classes.iter().position(|c| c.transport != sc.classes[0].transport) {
        return Err(error(sc, format!("class[{i}].transport"), format!("differs from class[0]'s ({} and {}); accepted: one transport for every class with the model engine (it models one congestion control for all)", sc.transport_of(i).name(), sc.transport_of(0).name())));
    }
    let mut cc = match sc.transport_of(0).model_family() {
        Some(ModelFamily::Dctcp { mss }) => {
            let mut p = CcParams { mss: mss as f64, ..CcParams::SWP_D };
            if let Some(k) = bottleneck.ecn_threshold {
                p.q0 = k as f64;
            }
            p
        }
        // HPCC maps to SWP-H with the transport's own target utilization.
        Some(ModelFamily::Hpcc { eta }) => CcParams { eta, ..CcParams::SWP_H },
        None if sc.model.preset.is_some() => CcParams::SWP_D,
        None => {
            return Err(error(sc, "transport.kind", "the model engine models DCTCP (preset SWP-D) and HPCC (SWP-H); for another transport give [model] preset = \"swp-d\" or \"swp-h\""));
        }
    };
    let m = &sc.model;
    if let Some(p) = m.preset {
        cc = p;
    }
    cc.eta = m.eta.unwrap_or(cc.eta);
    cc.q0 = m.q0.map_or(cc.q0, |q| q as f64);
    cc.beta = m.beta.unwrap_or(cc.beta);
    if let Some(kappa) = m.kappa {
        // κ is the filter's: a scenario that sets it gets the filter's rise, not SWP-D's
        // additive increase (docs/model.md, "Recalibration (issue 25)").
        cc.kappa = kappa;
        cc.rise = Rise::Filter;
    }
    // Flows start at their NIC's line rate, which a slower bottleneck (a trunk) exceeds.
    cc.r0 = sc.host_rate.bps() as f64 / bottleneck.rate.bps() as f64;
    let p = &sc.net.classes;
    let sharing = match p.discipline {
        Discipline::Fifo => Sharing::Fifo,
        // Every transport the model runs leaves the level to the class (its `priority`).
        Discipline::StrictPriority | Discipline::Priority => Sharing::Priority(p.queue_of.clone()),
        Discipline::RoundRobin => Sharing::Weighted { weights: vec![1.0; sc.classes.len()], per_flow_fair: false },
        Discipline::Drr | Discipline::Wfq => Sharing::Weighted { weights: p.weights.clone(), per_flow_fair: false },
        Discipline::Hierarchical => Sharing::Weighted { weights: p.weights.clone(), per_flow_fair: true },
        Discipline::Rank => {
            return Err(error(sc, "switch.scheduler", "the model engine has no per-packet rank order (pFabric's remaining size); accepted: another scheduler, or the packet engine for \"rank\""));
        }
    };
    let rtt = base_rtt(&sc.net.shape);
    if rtt == Time::ZERO {
        return Err(error(sc, "topology", "the model needs a round trip: give the links a delay"));
    }
    let own_threshold = queue_thresholds(&sharing, &p.ecn, None);
    let capacity_bps = bottleneck.rate.bps() as f64;
    Ok((
        ModelConfig { capacity_bps, rtt, cc, sharing, classes: sc.classes.len(), own_threshold, form: m.form },
        bottleneck,
    ))
}

/// What acts on single packets and their timing, which the fluid model does not have: a
/// scenario using it is refused rather than answered as if it were off. The network
/// mechanisms say so themselves (`net::mechanism`); segmentation offload and the
/// workload's shapes are checked here.
fn packet_only(sc: &Scenario) -> Result<(), ScenarioError> {
    if let Some((key, why)) = crate::net::mechanism::refusal(&sc.net, crate::net::mechanism::Engine::Model) {
        return Err(error(sc, key, why));
    }
    if let Some(i) = (0..sc.classes.len()).find(|&i| sc.transport_of(i).segmentation_offload().is_some()) {
        let at =
            if sc.transports.len() == 1 { "transport.lso".to_string() } else { format!("class[{i}].transport.lso") };
        return Err(error(sc, at, "the model has no segmentation offload (its senders are fluid rates, not bursts of segments); accepted: --engine packet, or no lso"));
    }
    let persistent = sc
        .classes
        .iter()
        .position(|c| matches!(c.kind, super::classes::ClassKind::Generated { connections: Some(_), .. }));
    if let Some(i) = persistent {
        return Err(error(sc, format!("class[{i}].connections"), "the model makes every message a flow of its own, and on persistent connections messages wait behind each other; accepted: --engine packet, or no connections"));
    }
    let closed = sc.classes.iter().position(|c| {
        matches!(c.kind, super::classes::ClassKind::Generated { offered: super::classes::Offered::Closed { .. }, .. })
    });
    if let Some(i) = closed {
        return Err(error(sc, format!("class[{i}].outstanding"), "a closed loop issues requests as responses return, and the model draws arrivals at a given rate; accepted: --engine packet, or a load or rate instead of outstanding"));
    }
    Ok(())
}

/// The model's per-queue congestion thresholds from the classes' own ECN thresholds
/// (`[[class]] ecn_threshold`): a queue whose classes mark on their own queue compares
/// that queue with their threshold; every other queue sees the port's backlog against
/// q0, as the packet engine's port-level marking does. `alone` is the class a one-queue
/// sharing holds when it holds a single class (the optimizer's baseline).
pub fn queue_thresholds(sharing: &Sharing, class_ecn: &[Option<u64>], alone: Option<usize>) -> Vec<Option<f64>> {
    let of = |k: usize| class_ecn.get(k).copied().flatten().map(|b| b as f64);
    match sharing {
        Sharing::Fifo | Sharing::Backlogged { .. } => vec![alone.and_then(of)],
        Sharing::Weighted { weights, .. } => (0..weights.len().max(class_ecn.len())).map(of).collect(),
        Sharing::Priority(levels) => {
            let n = levels.iter().copied().max().map_or(0, |m| m + 1);
            (0..n).map(|l| (0..levels.len()).filter(|&k| levels[k] == l).find_map(of)).collect()
        }
    }
}
