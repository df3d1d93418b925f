//! The SWP fast model (SWP §4): a fluid, time-stepped model of congestion-controlled
//! flows through one bottleneck with a queueing discipline, 100–1000x cheaper than the
//! packet engine because it tracks rates, not packets.
//!
//! Geometry (SWP Fig. 5): sources reach the bottleneck (capacity C, unbounded queues)
//! after a one-way delay τ; RTT = 2τ. Time advances in steps of dt = RTT / 20 (τ is ten
//! steps, so a byte sent in step n reaches the bottleneck in step n + 10). Each step:
//! flows send at their rates (`cc`), the bottleneck serves its queues (`service`), and
//! flows whose last byte left the bottleneck complete, at the interpolated instant, plus
//! τ for the acknowledgement: a lone flow completes in exactly RTT + S / C, SWP's ideal.
//! Idle periods are skipped, and a step visits only the flows that are live (those with
//! bytes to send, under FIFO), in slot order, so its cost does not grow with the number
//! of flows that have come and gone. Forms and choices: docs/model.md.

pub mod cc;
mod run;
mod sample;
pub mod service;
#[cfg(test)]
mod tests;

pub use cc::{Additive, CcParams, Form, Rise, Split};

use crate::sim::Time;
use crate::workload::MessageSpec;
use std::collections::VecDeque;

/// Steps per one-way delay τ.
const STEPS_PER_TAU: usize = 10;

/// How the bottleneck shares its capacity among classes.
#[derive(Clone, Debug, PartialEq)]
pub enum Sharing {
    /// One FIFO queue for every class.
    Fifo,
    /// Strict priority: `level[class]`, 0 first; a level is one FIFO queue.
    Priority(Vec<usize>),
    /// GPS over per-class queues with these weights (DRR, WFQ, round robin in the fluid
    /// limit); `per_flow_fair` shares a class's service equally among its flows
    /// (hierarchical) instead of FIFO.
    Weighted { weights: Vec<f64>, per_flow_fair: bool },
    /// Every class in one queue holding `share` of the link's weight against other
    /// classes that are always backlogged (SWP Algorithm 1's baseline): the queue is
    /// served at share·C whenever it holds bytes, and its congestion control sees share·C.
    /// Line rate (R0) and the ideal stay those of the whole link.
    Backlogged { share: f64, per_flow_fair: bool },
}

#[derive(Clone, Debug, PartialEq)]
pub struct ModelConfig {
    /// Bottleneck capacity, bits per second.
    pub capacity_bps: f64,
    pub rtt: Time,
    pub cc: CcParams,
    pub sharing: Sharing,
    pub classes: usize,
    /// Which backlog each queue's congestion signal compares with which threshold (the
    /// Q − q0 of eq. 11): `Some(q0)` — the queue's own backlog against its own q0 (a
    /// per-queue ECN threshold); `None` or a missing entry — the backlog of the whole
    /// bottleneck against `cc.q0` (an ECN threshold on the port, as switches mark by
    /// default).
    pub own_threshold: Vec<Option<f64>>,
    /// The calibrated forms or the paper's own (docs/model.md, "The paper-literal form").
    pub form: Form,
}

struct Flow {
    id: u64,
    spec: MessageSpec,
    queue: usize,
    start: f64,
    unsent: f64,
    /// Uncontrolled bytes left (min(size, R0·RTT) at arrival).
    budget: f64,
    controlled: bool,
    /// When feedback first reaches the flow (seconds): the acknowledgement of its first
    /// byte; infinite until that byte has left the bottleneck.
    feedback: f64,
    /// Whether the first byte has been sent (and its crossing is awaited).
    started: bool,
    rate: f64,
    /// Split::Proportional: the rate the flow's ideal scales (HPCC's reference window
    /// W_c), taken from `rate` once per RTT; and when it is next taken.
    reference: f64,
    reference_until: f64,
    /// Per-flow fair queueing only: bytes on the way to the bottleneck per step, and
    /// bytes waiting there.
    pipe: VecDeque<f64>,
    backlog: f64,
    /// FIFO only: the queue's cumulative byte count at which this flow's last byte
    /// leaves the bottleneck.
    mark: Option<f64>,
    /// When the last byte left the source (seconds).
    last_sent: f64,
}

/// The last STEPS_PER_TAU values of a per-step quantity, oldest first, in a fixed ring:
/// the step loop moves it on once a step, and a `VecDeque`'s pop and push cost a W3 run
/// about a twentieth of its instructions (docs/model.md, "Speed").
#[derive(Clone, Copy, Default)]
struct History {
    values: [f64; STEPS_PER_TAU],
    /// Where the oldest value is.
    head: usize,
}

impl History {
    /// The oldest value (always there: the ring is full).
    fn front(&self) -> Option<&f64> {
        Some(&self.values[self.head])
    }

    /// Drops the oldest value and returns it; `x` becomes the newest.
    fn rotate(&mut self, x: f64) -> f64 {
        let oldest = std::mem::replace(&mut self.values[self.head], x);
        self.head = if self.head + 1 == STEPS_PER_TAU { 0 } else { self.head + 1 };
        oldest
    }

    fn iter_mut(&mut self) -> std::slice::IterMut<'_, f64> {
        self.values.iter_mut()
    }
}

#[derive(Default)]
struct Queue {
    /// Bytes sent per step, on their way to the bottleneck.
    pipe: History,
    backlog: f64,
    cum_sent: f64,
    cum_out: f64,
    /// Backlog of the last STEPS_PER_TAU steps (the signal the sources see τ late).
    seen: History,
    /// FIFO completions in mark order: (mark, flow slot).
    marks: VecDeque<(f64, usize)>,
    /// First bytes in mark order: (mark, flow slot, instant sent).
    firsts: VecDeque<(f64, usize, f64)>,
    /// Served bytes per second in the last step (strict priority's leftover capacity).
    last_rate: f64,
    active: bool,
    /// This step's signals and results (kept here so a step allocates nothing).
    uncontrolled: f64,
    controlled: usize,
    /// The sum of the next step's controlled flows' reference rates (Split::Proportional).
    controlled_reference: f64,
    ideal: f64,
    /// Split::Proportional: the residual per unit of reference rate (`CcParams::scale`).
    scale: Option<f64>,
    /// The most a flow may send with one initial window in flight (`cc::window_rate`).
    window_rate: f64,
    sent: f64,
    served: f64,
}

pub struct FluidModel {
    cfg: ModelConfig,
    dt: f64,
    tau: f64,
    cap: f64,
    queues: Vec<Queue>,
    flows: Vec<Option<Flow>>,
    free: Vec<usize>,
    /// Per-flow fair queueing only: slots of the live flows, ascending: a step visits only
    /// these, in slot order (so that per-queue sums do not depend on how many slots are
    /// empty). Under FIFO a flow that has sent everything needs no visit: it is counted.
    live: Vec<usize>,
    /// How many flows are live.
    live_count: usize,
    /// Slots of the flows with bytes still to send, ascending (a subset of `live`).
    sending: Vec<usize>,
    next_id: u64,
    /// Completions found in a step: (flow slot, instant).
    done: Vec<(usize, f64)>,
    link: LinkTotals,
    /// Whether a class's service is shared among its flows (`per_flow_fair`), asked
    /// several times a step.
    pff: bool,
    /// The filter's gains and DCTCP's moves per step, the same every step (computing them
    /// each step, a `powf` among them, was a tenth of a W3 step's cost).
    gains: cc::Gains,
    additive: Option<Additive>,
}

/// What a model run did (for the summary).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelStats {
    pub steps: u64,
    pub sim_end: Time,
    pub generated: u64,
    /// The bottleneck's backlog (all its queues, at the end of each step): time average
    /// over [0, sim_end] and maximum, bytes; and the fraction of [0, sim_end] it was busy.
    pub mean_queue_bytes: f64,
    pub max_queue_bytes: f64,
    pub utilization: f64,
}

/// Running totals of the bottleneck (for the summary's `network`).
#[derive(Default)]
struct LinkTotals {
    /// ∫ backlog dt (byte-seconds).
    queue_area: f64,
    max_queue: f64,
    served: f64,
}

impl FluidModel {
    pub fn new(mut cfg: ModelConfig) -> FluidModel {
        cfg.cc = cfg.form.params(cfg.cc);
        let n = match &cfg.sharing {
            Sharing::Fifo | Sharing::Backlogged { .. } => 1,
            Sharing::Priority(levels) => levels.iter().copied().max().map_or(1, |m| m + 1),
            Sharing::Weighted { .. } => cfg.classes.max(1),
        };
        let rtt = cfg.rtt.as_secs_f64();
        let pff = matches!(
            cfg.sharing,
            Sharing::Weighted { per_flow_fair: true, .. } | Sharing::Backlogged { per_flow_fair: true, .. }
        );
        let queues = (0..n).map(|_| Queue::default()).collect();
        let dt = rtt / (2 * STEPS_PER_TAU) as f64;
        FluidModel {
            gains: cfg.form.gains(&cfg.cc, dt, rtt),
            additive: cfg.cc.additive(dt, rtt),
            dt,
            tau: rtt / 2.0,
            cap: cfg.capacity_bps / 8.0,
            cfg,
            queues,
            flows: Vec::new(),
            free: Vec::new(),
            live: Vec::new(),
            live_count: 0,
            sending: Vec::new(),
            next_id: 0,
            done: Vec::new(),
            link: LinkTotals::default(),
            pff,
        }
    }

    fn queue_of(&self, class: usize) -> usize {
        match &self.cfg.sharing {
            Sharing::Fifo | Sharing::Backlogged { .. } => 0,
            Sharing::Priority(levels) => levels.get(class).copied().unwrap_or(0),
            Sharing::Weighted { .. } => class,
        }
    }

    fn weight(&self, q: usize) -> f64 {
        match &self.cfg.sharing {
            Sharing::Weighted { weights, .. } => weights.get(q).copied().unwrap_or(1.0),
            _ => 1.0,
        }
    }

    fn per_flow_fair(&self) -> bool {
        self.pff
    }

    /// Admits a message that starts before `step_end`, the end of the current step.
    fn admit(&mut self, spec: MessageSpec, step_end: f64) -> u64 {
        let rtt = 2.0 * self.tau;
        let size = spec.size as f64;
        let flow = Flow {
            // A trace's own id, else the message's number in start order (as the engine).
            id: spec.id.unwrap_or(self.next_id),
            queue: self.queue_of(spec.class.index()),
            start: spec.start.as_secs_f64(),
            unsent: size,
            budget: size.min(self.cfg.cc.r0 * self.cap * rtt),
            controlled: false,
            // Under FIFO the calibrated form finds the feedback instant when the first
            // byte leaves the bottleneck; per-flow queues and the paper form keep SWP's
            // arrival + RTT (eq. 2).
            feedback: if self.per_flow_fair() || !self.cfg.form.feedback_at_first_ack() {
                spec.start.as_secs_f64() + rtt
            } else {
                f64::INFINITY
            },
            started: false,
            rate: self.cfg.cc.r0 * self.cap,
            reference: self.cfg.cc.r0 * self.cap,
            reference_until: f64::NEG_INFINITY,
            pipe: if self.per_flow_fair() { VecDeque::from(vec![0.0; STEPS_PER_TAU]) } else { VecDeque::new() },
            backlog: 0.0,
            mark: None,
            last_sent: f64::INFINITY,
            spec,
        };
        let id = self.next_id;
        self.next_id += 1;
        let slot = match self.free.pop() {
            Some(slot) => {
                self.flows[slot] = Some(flow);
                slot
            }
            None => {
                self.flows.push(Some(flow));
                self.flows.len() - 1
            }
        };
        if self.per_flow_fair() {
            insert_sorted(&mut self.live, slot);
        }
        self.live_count += 1;
        insert_sorted(&mut self.sending, slot);
        // A new flow is uncontrolled in its first step (its feedback is an RTT away): it
        // adds the step-average of its line-rate sending, from its start to the step's end.
        let r0 = self.cfg.cc.r0 * self.cap;
        let f = self.flows[slot].as_ref().expect("just admitted");
        let queue = f.queue;
        let bytes = f.budget.min(r0 * (step_end - f.start).max(0.0));
        self.queues[queue].uncontrolled += self.cfg.form.uncontrolled_rate(r0, bytes / self.dt);
        id
    }

    fn busy(&self) -> bool {
        self.live_count > 0
    }

    /// Capacity (bytes/s) the congestion control of queue q may use (eq. 10).
    fn capacity_of(&self, q: usize) -> f64 {
        match &self.cfg.sharing {
            Sharing::Fifo => self.cap,
            Sharing::Backlogged { share, .. } => self.cap * share,
            Sharing::Priority(_) => (self.cap - self.queues[..q].iter().map(|x| x.last_rate).sum::<f64>()).max(0.0),
            Sharing::Weighted { .. } => {
                let active: f64 =
                    (0..self.queues.len()).filter(|&k| k == q || self.queues[k].active).map(|k| self.weight(k)).sum();
                self.cap * self.weight(q) / active
            }
        }
    }
}

/// Inserts `slot` into the ascending list `v`.
fn insert_sorted(v: &mut Vec<usize>, slot: usize) {
    let at = v.partition_point(|&s| s < slot);
    v.insert(at, slot);
}
