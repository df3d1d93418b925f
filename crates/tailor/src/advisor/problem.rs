//! What the advisor optimizes: a scenario's messages, drawn once, and its classes' SLOs,
//! evaluated on the fast model under any sharing and capacity (SWP §3.3, §4).
//!
//! Every evaluation replays the same messages, so two weight vectors are compared on the
//! same traffic (common random numbers) and an advice is a deterministic function of the
//! scenario and its seed. The traffic is absolute (bytes at instants): a minimum-capacity
//! search changes the link under fixed traffic, as SWP §5.2 does.

use super::optimizer::Evaluator;
use super::HostScaling;
use crate::engine::RunError;
use crate::measure::record::NullSink;
use crate::measure::slo::{class_loss, Slo, SloReport};
use crate::measure::{ClassSummary, Recorder};
use crate::model::{FluidModel, Form, ModelConfig, Sharing};
use crate::net::topology::Shape;
use crate::scenario::model::LinkKind;
use crate::scenario::scope::Link;
use crate::scenario::Scenario;
use crate::sim::Time;
use crate::workload::{MessageSpec, Source, WorkloadError};

/// A class's messages and objectives.
#[derive(Clone, Debug)]
pub struct ClassTraffic {
    pub name: String,
    pub messages: Vec<MessageSpec>,
    pub slos: Vec<Slo>,
}

impl ClassTraffic {
    /// Mean offered rate in bits per second over the span of the class's arrivals.
    pub fn offered_bps(&self) -> f64 {
        offered_bps(self.messages.iter())
    }
}

fn offered_bps<'a>(msgs: impl Iterator<Item = &'a MessageSpec> + Clone) -> f64 {
    let bytes: u64 = msgs.clone().map(|m| m.size).sum();
    let (lo, hi) = msgs.fold((Time::MAX, Time::ZERO), |(lo, hi), m| (lo.min(m.start), hi.max(m.start)));
    if hi <= lo {
        return 0.0;
    }
    bytes as f64 * 8.0 / (hi - lo).as_secs_f64()
}

/// One class's verdict under one configuration.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ClassVerdict {
    pub class: String,
    pub slo: Vec<SloReport>,
    /// SWP eq. 1 over the class's SLOs; 0 when no message fell in any SLO's range (no
    /// evidence either way: counted as met, with no slack to give).
    pub loss: f64,
    /// The search's criterion (SWP): every SLI within its bound, `loss <= 0`.
    pub met: bool,
    /// Every SLO has a verdict (`SloReport::met` not None): enough messages in range and
    /// none unfinished. The search decides on the SLIs' values either way; a class whose
    /// `met` rests on SLOs not judged is shown so (docs/advisor.md).
    pub judged: bool,
}

/// A scenario made ready for the advisor.
#[derive(Clone, Debug)]
pub struct Problem {
    pub name: String,
    pub classes: Vec<ClassTraffic>,
    /// The model configuration of the scenario as written (its capacity is the nominal one).
    pub base: ModelConfig,
    pub warmup: Time,
    /// Each class's own ECN threshold (`[[class]] ecn_threshold`), if it has one.
    pub class_ecn: Vec<Option<u64>>,
    /// How a capacity other than the nominal one is read (`set_reading`).
    pub host_scaling: HostScaling,
    /// Under `HostScaling::Fixed`: the rate of the link that becomes the bottleneck when
    /// the trunk outgrows it (the receiver's host link when every message goes to one
    /// host); the model runs at min(C, this).
    pub ceiling_bps: Option<f64>,
}

/// Replays a list of messages.
struct Replay<'a>(std::slice::Iter<'a, MessageSpec>);

impl Source for Replay<'_> {
    fn next_message(&mut self) -> Result<Option<MessageSpec>, WorkloadError> {
        Ok(self.0.next().copied())
    }
}

impl Problem {
    /// Draws the scenario's messages with `seed`. Every class must have an SLO: the
    /// optimizer needs each class's loss.
    pub fn from_scenario(sc: &Scenario, seed: u64) -> Result<Problem, RunError> {
        // Outside the model's scope first: no SLO written would make the advice right.
        let base = crate::scenario::model::config(sc).map_err(RunError::Scenario)?;
        if let Some(c) = sc.classes.iter().find(|c| c.slos.is_empty()) {
            let i = sc.classes.iter().position(|x| x.name == c.name).unwrap_or(0);
            return Err(RunError::Scenario(crate::scenario::ScenarioError {
                file: sc.file.clone(),
                path: format!("class[{i}].slo"),
                message: format!("class \"{}\" has no SLO; the advisor needs one per class (e.g. slo = [{{ sli = \"p99\", max_size = \"125KB\", threshold = 4.0 }}])", c.name),
            }));
        }
        let built = sc.build(seed)?;
        let mut classes = Vec::new();
        for c in built.classes {
            let mut source = c.source;
            let mut messages = Vec::new();
            while let Some(m) = source.next_message()? {
                messages.push(m);
            }
            classes.push(ClassTraffic { name: c.name, messages, slos: c.slos });
        }
        let err = |path: String, message: String| {
            RunError::Scenario(crate::scenario::ScenarioError { file: sc.file.clone(), path, message })
        };
        // Every class must give its loss evidence: a class with nothing to measure would
        // count as met and its baseline search would starve it down to the floor.
        for (i, c) in classes.iter().enumerate() {
            let measured = c
                .messages
                .iter()
                .filter(|m| m.start >= built.warmup && c.slos.iter().any(|s| s.covers(m.size)))
                .count();
            if measured == 0 {
                return Err(err(
                    format!("class[{i}].slo"),
                    format!(
                        "no message of class \"{}\" ({} drawn) falls in any of its SLOs' size ranges after the warm-up; widen a range, shorten [run] warmup or draw more messages",
                        c.name,
                        c.messages.len()
                    ),
                ));
            }
        }
        let total: usize = classes.iter().map(|c| c.messages.len()).sum();
        if total < 2 || offered_bps(classes.iter().flat_map(|c| c.messages.iter())) <= 0.0 {
            return Err(err("class".into(), format!("the advisor needs an offered load: the classes draw {total} message(s) arriving at one instant; give them messages or until")));
        }
        let mut class_ecn = sc.net.classes.ecn.clone();
        class_ecn.resize(classes.len(), None);
        Ok(Problem {
            name: sc.name.clone(),
            classes,
            base,
            warmup: built.warmup,
            class_ecn,
            host_scaling: HostScaling::Scaled,
            ceiling_bps: None,
        })
    }

    /// Sets the model form and how capacity scales. `Fixed` needs a bottleneck link of
    /// the topology's own that the model stands for — a dumbbell's trunk — and is refused
    /// otherwise (a star's one link kind is also every host's link).
    pub fn set_reading(&mut self, sc: &Scenario, form: Form, scaling: HostScaling) -> Result<(), RunError> {
        self.base.form = form;
        self.host_scaling = scaling;
        self.ceiling_bps = None;
        if scaling == HostScaling::Scaled {
            return Ok(());
        }
        let refuse = |message: String| {
            RunError::Scenario(crate::scenario::ScenarioError {
                file: sc.file.clone(),
                path: "topology.kind".into(),
                message,
            })
        };
        let Shape::Dumbbell { host_link, .. } = &sc.net.shape else {
            let kind = sc.net.shape.kind();
            return Err(refuse(format!(
                "--host-scaling fixed scales only a bottleneck link of the topology's own, and a {kind} has none (its hosts' links are its only links); accepted: --host-scaling scaled, or a dumbbell (its trunk follows the capacity)"
            )));
        };
        let b = crate::scenario::scope::bottleneck(sc).map_err(RunError::Scenario)?;
        if !matches!(b.link, Link::Trunk | Link::Stated(LinkKind::Trunk)) {
            return Err(refuse(format!(
                "--host-scaling fixed scales the dumbbell's trunk, and the model's bottleneck here is {} (the trunk is faster); accepted: --host-scaling scaled, or a trunk no faster than the host links",
                b.describe()
            )));
        }
        // When the trunk grows past the host links, traffic into one host meets its link.
        let mut wide = sc.clone();
        if let Shape::Dumbbell { trunk, .. } = &mut wide.net.shape {
            trunk.rate = crate::sim::Rate::from_bps(host_link.rate.bps().saturating_mul(2));
        }
        wide.model.bottleneck = None;
        if let Ok(b) = crate::scenario::scope::bottleneck(&wide) {
            self.ceiling_bps = Some(b.rate.bps() as f64);
        }
        Ok(())
    }

    /// The model's configuration at `capacity_bps` with `sharing`.
    pub fn config_at(&self, sharing: Sharing, capacity_bps: f64, own_threshold: Vec<Option<f64>>) -> ModelConfig {
        let mut cfg =
            ModelConfig { capacity_bps, sharing, classes: self.classes.len(), own_threshold, ..self.base.clone() };
        if self.host_scaling == HostScaling::Fixed {
            // R0 stays the host links' rate in absolute terms (a fraction of C in `cc`).
            let r0_bps = self.base.cc.r0 * self.base.capacity_bps;
            cfg.capacity_bps = self.ceiling_bps.map_or(capacity_bps, |c| capacity_bps.min(c));
            cfg.cc.r0 = r0_bps / cfg.capacity_bps;
        }
        cfg
    }

    pub fn nominal_bps(&self) -> f64 {
        self.base.capacity_bps
    }

    /// Mean offered rate of all classes together, bits per second.
    pub fn offered_bps(&self) -> f64 {
        offered_bps(self.classes.iter().flat_map(|c| c.messages.iter()))
    }

    /// Runs the classes in `which` together on the model with `sharing` at `capacity_bps`;
    /// the verdicts of those classes, in that order.
    pub fn evaluate(&self, which: &[usize], sharing: Sharing, capacity_bps: f64) -> Vec<ClassVerdict> {
        let alone = (which.len() == 1).then(|| which[0]);
        let own_threshold = crate::scenario::model::queue_thresholds(&sharing, &self.class_ecn, alone);
        let cfg = self.config_at(sharing, capacity_bps, own_threshold);
        let summaries =
            self.classes.iter().map(|c| ClassSummary::new(&c.name, Vec::new()).with_slos(&c.slos)).collect();
        let mut rec = Recorder::new(summaries, ClassSummary::new("all", Vec::new()), self.warmup, Box::new(NullSink));
        let sources = self
            .classes
            .iter()
            .enumerate()
            .map(|(k, c)| {
                let msgs: &[MessageSpec] = if which.contains(&k) { &c.messages } else { &[] };
                Box::new(Replay(msgs.iter())) as Box<dyn Source + Send + '_>
            })
            .collect();
        FluidModel::new(cfg)
            .run(sources, &mut rec)
            .expect("replayed messages cannot fail and the null sink does not write");
        which
            .iter()
            .map(|&k| {
                let report = rec.classes[k].report();
                let loss = class_loss(&report.slo).unwrap_or(0.0);
                let judged = report.slo.iter().all(|s| s.met.is_some());
                ClassVerdict { class: self.classes[k].name.clone(), slo: report.slo, loss, met: loss <= 0.0, judged }
            })
            .collect()
    }

    /// Every class together.
    pub fn evaluate_all(&self, sharing: Sharing, capacity_bps: f64) -> Vec<ClassVerdict> {
        let all: Vec<usize> = (0..self.classes.len()).collect();
        self.evaluate(&all, sharing, capacity_bps)
    }
}

/// The optimizer's evaluator on the fast model: weighted sharing (FIFO inside each class,
/// or per-flow fair queueing inside each class) at a fixed capacity.
pub struct ModelEvaluator<'a> {
    pub problem: &'a Problem,
    pub capacity_bps: f64,
    pub per_flow_fair: bool,
}

impl Evaluator for ModelEvaluator<'_> {
    fn losses(&self, weights: &[f64]) -> Vec<f64> {
        let sharing = Sharing::Weighted { weights: weights.to_vec(), per_flow_fair: self.per_flow_fair };
        self.problem.evaluate_all(sharing, self.capacity_bps).iter().map(|v| v.loss).collect()
    }

    /// Class k alone, holding weight w against always-backlogged others: it is served at
    /// w·C whenever it has bytes queued (SWP Algorithm 1, line 2).
    fn baseline_loss(&self, k: usize, w: f64) -> f64 {
        let sharing = Sharing::Backlogged { share: w, per_flow_fair: self.per_flow_fair };
        self.problem.evaluate(&[k], sharing, self.capacity_bps)[0].loss
    }

    /// A class served below its mean offered rate misses: its backlog grows for the whole
    /// run (and simulating that takes longest).
    fn least_weight(&self, k: usize) -> f64 {
        self.problem.classes[k].offered_bps() / self.capacity_bps
    }

    fn load(&self, k: usize) -> f64 {
        self.problem.classes[k].offered_bps()
    }
}
