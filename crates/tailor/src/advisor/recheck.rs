//! Re-checking an advice on the packet engine, the ground truth (SWP §5.2 checks its
//! model's verdicts the same way against ns-3).
//!
//! The packet engine replays the advisor's own messages (the same instants, sizes and
//! endpoints), with the scenario's switches set to the advised discipline. When the
//! advice is for another capacity than the scenario's, every link is scaled by the same
//! factor and so are the window sizes given in segments (a window sized to one BDP stays
//! one BDP), so a flow can still start at line rate as in the model
//! (`HostScaling::Scaled`); under `HostScaling::Fixed` only the dumbbell's trunk is, and
//! the hosts and their transports stay as written (docs/advisor.md, "Capacity scaling:
//! both readings").

use super::problem::{ClassVerdict, Problem};
use super::{HostScaling, Strategy};
use crate::engine::{ClassSetup, RunError, Simulation};
use crate::measure::record::NullSink;
use crate::measure::slo::class_loss;
use crate::net::topology::{Discipline, LinkSpec, Shape};
use crate::scenario::Scenario;
use crate::sim::Rate;
use crate::workload::{MessageSpec, Source, WorkloadError};

/// The configuration to re-check.
#[derive(Clone, Debug, PartialEq)]
pub enum Setting {
    Fifo,
    /// Per-class queues with these weights; `fair` adds per-flow fair queueing inside
    /// each class (hierarchical), else DRR.
    Weights {
        weights: Vec<f64>,
        fair: bool,
    },
    /// Strict priority levels per class, 0 first.
    Priority(Vec<usize>),
}

impl Setting {
    pub fn strategy(&self) -> Strategy {
        match self {
            Setting::Fifo => Strategy::SharedFifo,
            Setting::Weights { fair: false, .. } => Strategy::Weights,
            Setting::Weights { fair: true, .. } => Strategy::WeightsFq,
            Setting::Priority(_) => Strategy::Priority,
        }
    }
}

struct Owned(std::vec::IntoIter<MessageSpec>);

impl Source for Owned {
    fn next_message(&mut self) -> Result<Option<MessageSpec>, WorkloadError> {
        Ok(self.0.next())
    }
}

fn scale(link: &mut LinkSpec, factor: f64) {
    link.rate = Rate::from_bps((link.rate.bps() as f64 * factor).round() as u64);
}

/// The scenario's network with every link scaled by `factor`.
fn scale_shape(shape: &mut Shape, factor: f64) {
    match shape {
        Shape::Star { link, .. } => scale(link, factor),
        Shape::Dumbbell { host_link, trunk, .. } => {
            scale(host_link, factor);
            scale(trunk, factor);
        }
        Shape::LeafSpine { host_link, fabric_link, .. } | Shape::FatTree { host_link, fabric_link, .. } => {
            scale(host_link, factor);
            scale(fabric_link, factor);
        }
        Shape::Graph(g) => {
            let g = std::sync::Arc::make_mut(g);
            g.cables.iter_mut().for_each(|c| scale(&mut c.link, factor));
            g.longest.iter_mut().for_each(|l| scale(l, factor));
        }
    }
}

/// The scenario built with `seed` at `capacity_bps`, read as `problem.host_scaling`
/// says: every link and the transports scaled, or only a dumbbell's trunk; no stop.
pub fn network_at(
    sc: &Scenario,
    problem: &Problem,
    seed: u64,
    capacity_bps: f64,
) -> Result<crate::engine::Config, RunError> {
    let mut cfg = sc.build(seed)?;
    cfg.stop_at = None;
    // Scaled against the bottleneck the model ran at (a dumbbell's trunk may be slower than the host links).
    let factor = capacity_bps / problem.nominal_bps();
    if (factor - 1.0).abs() > 1e-9 {
        match (problem.host_scaling, &mut cfg.net.shape) {
            (HostScaling::Fixed, Shape::Dumbbell { trunk, .. }) => scale(trunk, factor),
            (HostScaling::Fixed, shape) => {
                let message = format!("--host-scaling fixed scales a dumbbell's trunk, and a {} has none; accepted: --host-scaling scaled, or a dumbbell", shape.kind());
                return Err(RunError::Scenario(crate::scenario::ScenarioError {
                    file: sc.file.clone(),
                    path: "topology.kind".into(),
                    message,
                }));
            }
            (HostScaling::Scaled, shape) => {
                scale_shape(shape, factor);
                let net = &cfg.net;
                cfg.transports = cfg.transports.iter().map(|t| t.scaled(factor, net)).collect();
            }
        }
    }
    Ok(cfg)
}

/// Runs the problem's messages through the packet engine with `setting` at
/// `capacity_bps`, to the end (the model has no stop, so neither has the re-check);
/// each class's SLO verdicts. `tick` is called every few thousand events; false stops.
pub fn recheck(
    sc: &Scenario,
    problem: &Problem,
    seed: u64,
    setting: &Setting,
    capacity_bps: f64,
    tick: &mut dyn FnMut() -> bool,
) -> Result<Vec<ClassVerdict>, RunError> {
    let mut cfg = network_at(sc, problem, seed, capacity_bps)?;
    let n = problem.classes.len();
    let policy = &mut cfg.net.classes;
    match setting {
        Setting::Fifo => {
            policy.discipline = Discipline::Fifo;
            policy.queue_of = vec![0; n];
        }
        Setting::Weights { weights, fair } => {
            policy.discipline = if *fair { Discipline::Hierarchical } else { Discipline::Drr };
            policy.queue_of = (0..n).collect();
            // DRR quanta are proportional to weights, the lightest getting the base
            // quantum; a vanishing weight is floored at a thousandth of the largest so
            // no class's quantum grows without bound.
            let top = weights.iter().copied().fold(0.0, f64::max);
            policy.weights = weights.iter().map(|w| w.max(top * 1e-3)).collect();
        }
        Setting::Priority(levels) => {
            policy.discipline = Discipline::StrictPriority;
            policy.queue_of = levels.clone();
        }
    }
    policy.ecn.resize(n, None);
    policy.limits.resize(n, None);
    cfg.classes = problem
        .classes
        .iter()
        .zip(cfg.classes)
        .map(|(c, setup)| ClassSetup { source: Box::new(Owned(c.messages.clone().into_iter())), ..setup })
        .collect::<Vec<ClassSetup>>();
    let mut sim = Simulation::new(cfg, Box::new(NullSink))?;
    sim.run(&mut |_| tick())?;
    let report = sim.report();
    Ok(problem
        .classes
        .iter()
        .map(|c| {
            let slo = report.classes[&c.name].slo.clone();
            let loss = class_loss(&slo).unwrap_or(0.0);
            let judged = slo.iter().all(|s| s.met.is_some());
            ClassVerdict { class: c.name.clone(), slo, loss, met: loss <= 0.0, judged }
        })
        .collect())
}
