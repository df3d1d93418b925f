//! The advisor: switch weights that meet every class's SLO, or the least capacity that
//! can (SWP §3.3 Algorithm 1, §5.2).
//!
//! The optimizer is independent of what evaluates a set of weights: anything that gives
//! each class's loss (SWP eq. 1, negative when met) for a weight vector implements
//! [`optimizer::Evaluator`]; [`problem::ModelEvaluator`] does it on the fast model. What
//! it recommends is re-checked on the packet engine by [`recheck`].

pub mod capacity;
pub mod optimizer;
pub mod problem;
pub mod recheck;
pub mod samples;

use capacity::CapacityAdvice;
use optimizer::{Options, Outcome, Step};
use problem::{ClassVerdict, ModelEvaluator, Problem};
use serde::Serialize;

/// How the bottleneck is shared (the disciplines SWP §5.2 compares).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// One FIFO queue for every class.
    SharedFifo,
    /// Per-class FIFO queues served by weight (DRR/WFQ), weights from Algorithm 1.
    Weights,
    /// Per-class weights with per-flow fair queueing inside each class (hierarchical).
    WeightsFq,
    /// Strict priority, the class with the tightest SLO first.
    Priority,
    /// Each class on capacity of its own, sized for it alone (SWP's "static").
    Static,
}

impl Strategy {
    pub const ALL: [Strategy; 5] =
        [Strategy::SharedFifo, Strategy::Weights, Strategy::WeightsFq, Strategy::Priority, Strategy::Static];
    /// The names the command line accepts.
    pub const NAMES: [&'static str; 5] = ["fifo", "drr", "hierarchical", "priority", "static"];

    pub fn name(self) -> &'static str {
        Self::NAMES[Self::ALL.iter().position(|&s| s == self).expect("listed")]
    }

    pub fn parse(name: &str) -> Option<Strategy> {
        Self::NAMES.iter().position(|&n| n == name).map(|i| Self::ALL[i])
    }

    /// A human description.
    pub fn describe(self) -> &'static str {
        match self {
            Strategy::SharedFifo => "shared FIFO",
            Strategy::Weights => "per-class FIFO, SWP weights",
            Strategy::WeightsFq => "SWP weights + fair queueing in each class",
            Strategy::Priority => "strict priority (tightest SLO first)",
            Strategy::Static => "static per-class provisioning",
        }
    }
}

/// Written by its command-line name.
impl Serialize for Strategy {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// How a capacity C other than the scenario's is read (docs/advisor.md, "Capacity
/// scaling: both readings"; SWP §4.1 "All links have capacity C" against §5.2's "the
/// minimum total bandwidth at the bottleneck" with Table 2's R0 at 100 Gbps).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HostScaling {
    /// Every link follows C, and with it what follows the link rate: windows given as
    /// "bdp", the transports' defaults, the model's R0 (a fraction of C).
    #[default]
    Scaled,
    /// Only the bottleneck link of its own (a dumbbell's trunk) follows C; host links,
    /// windows and the model's R0 stay at the host links' rate (R0 absolute).
    Fixed,
}

impl HostScaling {
    /// The names the command line accepts.
    pub const NAMES: [&'static str; 2] = ["scaled", "fixed"];

    pub fn name(self) -> &'static str {
        match self {
            HostScaling::Scaled => "scaled",
            HostScaling::Fixed => "fixed",
        }
    }

    pub fn parse(name: &str) -> Option<HostScaling> {
        match name {
            "scaled" => Some(HostScaling::Scaled),
            "fixed" => Some(HostScaling::Fixed),
            _ => None,
        }
    }
}

/// What the advisor reports while it searches. Each is sent from the calling thread
/// between pieces of work (a model run per class, or a few thousand packet events), so an
/// observer that returns false stops the search promptly.
#[derive(Clone, Debug)]
pub enum Event {
    /// A round of the baseline searches (every class one model run, in parallel).
    Baselines { strategy: Strategy, capacity_bps: f64, round: usize, rounds: usize },
    /// One round of Algorithm 1 was evaluated.
    Iteration { strategy: Strategy, capacity_bps: f64, iteration: usize, losses: Vec<f64> },
    /// A capacity is being tried; the answer lies in (lo, hi].
    Probe { strategy: Strategy, capacity_bps: f64, lo_bps: f64, hi_bps: Option<f64> },
    /// The packet engine is re-checking an answer (sent again as it runs).
    Recheck { strategy: Strategy, capacity_bps: f64 },
    /// An event of the check of weighted strategy `of`'s answer against shared FIFO
    /// (`capacity`, "The check against shared FIFO"): FIFO's own search, then the grid and
    /// Algorithm 1 at FIFO's capacity, told apart from `of`'s search and from FIFO's.
    FifoCheck { of: Strategy, event: Box<Event> },
}

/// Receives progress; returning false stops the search.
pub type Observer<'a> = dyn FnMut(&Event) -> bool + 'a;

#[derive(Debug, thiserror::Error)]
#[error("stopped by the caller")]
pub struct Cancelled;

/// Weights for a fixed capacity, from Algorithm 1.
#[derive(Clone, Debug, Serialize)]
pub struct WeightAdvice {
    pub strategy: Strategy,
    pub capacity_bps: f64,
    pub outcome: Outcome,
    /// Baseline weights (each class alone against always-backlogged others).
    pub baselines: Vec<f64>,
    /// The recommended weights (normalized): the trajectory's point `chosen` — the last
    /// one when every class is met, else the one whose worst loss was smallest.
    pub weights: Vec<f64>,
    pub chosen: usize,
    /// Each class's SLOs under those weights, on the fast model.
    pub verdicts: Vec<ClassVerdict>,
    pub trajectory: Vec<Step>,
    /// Each run of Algorithm 1's loop (more than one when a run failed and it restarted).
    pub runs: Vec<optimizer::Run>,
}

/// Runs Algorithm 1 on the fast model at `capacity_bps`: per-class FIFO queues served by
/// weight, or with per-flow fair queueing inside each class (`fair`).
pub fn advise_weights(
    problem: &Problem,
    fair: bool,
    capacity_bps: f64,
    opts: &Options,
    observe: &mut Observer<'_>,
) -> Result<WeightAdvice, Cancelled> {
    advise_weights_from(problem, fair, capacity_bps, opts, None, observe)
}

/// [`advise_weights`] with Algorithm 1's loop run first from `warm` (weights that met at
/// a nearby capacity), when given.
pub fn advise_weights_from(
    problem: &Problem,
    fair: bool,
    capacity_bps: f64,
    opts: &Options,
    warm: Option<&[f64]>,
    observe: &mut Observer<'_>,
) -> Result<WeightAdvice, Cancelled> {
    let strategy = if fair { Strategy::WeightsFq } else { Strategy::Weights };
    let eval = ModelEvaluator { problem, capacity_bps, per_flow_fair: fair };
    let r = optimizer::optimize_from(&eval, problem.classes.len(), opts, warm, &mut |p| match p {
        optimizer::Progress::Baseline { round, rounds } => {
            observe(&Event::Baselines { strategy, capacity_bps, round, rounds })
        }
        optimizer::Progress::Step { index, step } => {
            observe(&Event::Iteration { strategy, capacity_bps, iteration: index, losses: step.losses.clone() })
        }
    });
    if r.outcome == Outcome::Stopped {
        return Err(Cancelled);
    }
    let chosen = r.chosen().expect("a search that was not stopped evaluated a point");
    let weights = r.trajectory[chosen].weights.clone();
    let verdicts = problem
        .evaluate_all(crate::model::Sharing::Weighted { weights: weights.clone(), per_flow_fair: fair }, capacity_bps);
    Ok(WeightAdvice {
        strategy,
        capacity_bps,
        outcome: r.outcome,
        baselines: r.baselines,
        weights,
        chosen,
        verdicts,
        trajectory: r.trajectory,
        runs: r.runs,
    })
}

/// What `tailor advise` asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum Mode {
    /// Algorithm 1's weights at the scenario's capacity; `fair`: per-flow fair queueing
    /// inside each class (None: as the scenario's scheduler says).
    Weights { fair: Option<bool> },
    /// The least capacity for each of these disciplines.
    MinCapacity(Vec<Strategy>),
}

#[derive(Clone, Debug)]
pub struct Request {
    pub mode: Mode,
    /// Re-check each answer on the packet engine.
    pub recheck: bool,
    pub search: capacity::SearchOptions,
    /// The model's form (the scenario's `[model] form` unless the caller says).
    pub form: crate::model::Form,
    /// How a capacity other than the scenario's is read.
    pub host_scaling: HostScaling,
}

/// An answer with its packet-engine re-check beside it.
#[derive(Clone, Debug, Serialize)]
pub struct Checked<T> {
    #[serde(flatten)]
    pub model: T,
    /// Each class's SLOs on the packet engine (None when not re-checked).
    pub packet: Option<Vec<ClassVerdict>>,
    /// Why there is no re-check, when there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub packet_note: Option<String>,
}

/// Everything `tailor advise` found.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub scenario: String,
    pub scenario_file: String,
    pub seed: u64,
    pub nominal_bps: f64,
    pub offered_bps: f64,
    /// The model form and the capacity reading the answers were found with.
    pub model_form: crate::model::Form,
    pub host_scaling: HostScaling,
    pub messages: usize,
    pub weights: Option<Checked<WeightAdvice>>,
    pub capacity: Vec<Checked<CapacityAdvice>>,
    pub model_seconds: f64,
    pub packet_seconds: f64,
}

/// Whether `advise` puts fair queueing inside classes when the request does not say:
/// as the scenario's scheduler does (hierarchical), else per-class FIFO.
pub fn scenario_is_fair(sc: &crate::scenario::Scenario) -> bool {
    sc.net.classes.discipline == crate::net::topology::Discipline::Hierarchical
}

/// Runs the advisor on `sc` with `seed`.
pub fn advise(
    sc: &crate::scenario::Scenario,
    seed: u64,
    req: &Request,
    observe: &mut Observer<'_>,
) -> Result<Report, crate::engine::RunError> {
    use crate::engine::RunError;
    use std::time::Instant;
    let mut problem = Problem::from_scenario(sc, seed)?;
    problem.set_reading(sc, req.form, req.host_scaling)?;
    let nominal = problem.nominal_bps();
    let (mut model_s, mut packet_s) = (0.0, 0.0);
    let mut packet = |setting: Option<recheck::Setting>,
                      c: f64,
                      observe: &mut Observer<'_>|
     -> Result<(Option<Vec<ClassVerdict>>, Option<String>), RunError> {
        if !req.recheck {
            return Ok((None, Some("not requested".into())));
        }
        let Some(setting) = setting else {
            return Ok((None, Some("n/a (a link per class)".into())));
        };
        let event = Event::Recheck { strategy: setting.strategy(), capacity_bps: c };
        let t = Instant::now();
        let v = recheck::recheck(sc, &problem, seed, &setting, c, &mut || observe(&event))?;
        packet_s += t.elapsed().as_secs_f64();
        Ok((Some(v), None))
    };
    let mut weights = None;
    let mut caps = Vec::new();
    match &req.mode {
        Mode::MinCapacity(strategies) => {
            for &s in strategies {
                let t = Instant::now();
                let a = capacity::min_capacity(&problem, s, &req.search, observe).map_err(|_| RunError::Cancelled)?;
                model_s += t.elapsed().as_secs_f64();
                let setting = match (s, a.capacity_bps) {
                    (_, None) | (Strategy::Static, _) => None,
                    (Strategy::SharedFifo, _) => Some(recheck::Setting::Fifo),
                    (Strategy::Priority, _) => a.levels.clone().map(recheck::Setting::Priority),
                    (Strategy::Weights | Strategy::WeightsFq, _) => a
                        .weights
                        .clone()
                        .map(|w| recheck::Setting::Weights { weights: w, fair: s == Strategy::WeightsFq }),
                };
                let (p, note) = match a.capacity_bps {
                    None => (None, Some("no feasible capacity found".to_string())),
                    Some(c) => packet(setting, c, observe)?,
                };
                caps.push(Checked { model: a, packet: p, packet_note: note });
            }
        }
        Mode::Weights { fair } => {
            let fair = fair.unwrap_or_else(|| scenario_is_fair(sc));
            let t = Instant::now();
            let a = advise_weights(&problem, fair, nominal, &req.search.optimizer, observe)
                .map_err(|_| RunError::Cancelled)?;
            model_s += t.elapsed().as_secs_f64();
            let setting = recheck::Setting::Weights { weights: a.weights.clone(), fair };
            let (p, note) = packet(Some(setting), nominal, observe)?;
            weights = Some(Checked { model: a, packet: p, packet_note: note });
        }
    }
    Ok(Report {
        scenario: sc.name.clone(),
        scenario_file: sc.file.clone(),
        seed,
        nominal_bps: nominal,
        offered_bps: problem.offered_bps(),
        model_form: req.form,
        host_scaling: req.host_scaling,
        messages: problem.classes.iter().map(|c| c.messages.len()).sum(),
        weights,
        capacity: caps,
        model_seconds: model_s,
        packet_seconds: packet_s,
    })
}
