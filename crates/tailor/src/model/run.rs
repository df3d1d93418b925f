//! The model's time loop: admit arrivals, send, serve, complete (see the module doc).

use super::cc::{Additive, Gains};
use super::service::{gps, priority};
use super::{CcParams, Flow, FluidModel, ModelStats, Queue, Sharing, Split};
use crate::measure::queues::QueueLog;
use crate::measure::{MessageRecord, Recorder};
use crate::sim::Time;
use crate::workload::{MessageSpec, Source, WorkloadError};

/// A thousandth of a byte: below it, floating-point residue, not data.
const EPS: f64 = 1e-3;
/// A tenth of a picosecond: instants closer than this are the same instant.
const TICK: f64 = 1e-13;

fn queue_io(e: std::io::Error) -> WorkloadError {
    WorkloadError::Io { file: "queues.csv".into(), source: e }
}

fn secs_to_time(s: f64) -> Time {
    Time::from_ps(crate::sim::time::round_to_u64(s * 1e12))
}

impl FluidModel {
    /// Runs every message of `sources` through the model, recording each completion.
    pub fn run<'s>(
        &mut self,
        sources: Vec<Box<dyn Source + Send + 's>>,
        rec: &mut Recorder,
    ) -> Result<ModelStats, WorkloadError> {
        self.run_sampled(sources, rec, None)
    }

    /// `run`, also sampling the bottleneck's backlog into `queues` (`super::sample`).
    pub fn run_sampled<'s>(
        &mut self,
        sources: Vec<Box<dyn Source + Send + 's>>,
        rec: &mut Recorder,
        mut queues: Option<&mut QueueLog>,
    ) -> Result<ModelStats, WorkloadError> {
        let stats = self.run_steps(sources, rec, &mut queues)?;
        if let Some(log) = queues {
            self.sample_through(log, stats.sim_end).map_err(queue_io)?;
        }
        Ok(stats)
    }

    fn run_steps<'s>(
        &mut self,
        mut sources: Vec<Box<dyn Source + Send + 's>>,
        rec: &mut Recorder,
        queues: &mut Option<&mut QueueLog>,
    ) -> Result<ModelStats, WorkloadError> {
        let mut next: Vec<Option<MessageSpec>> =
            sources.iter_mut().map(|s| s.next_message()).collect::<Result<_, _>>()?;
        let mut stats = ModelStats::default();
        let Some(first) = next.iter().flatten().map(|m| m.start).min() else { return Ok(stats) };
        // t = anchor + k dt, not a running sum, so that instants one RTT (20 steps) after
        // an arrival fall exactly on a step boundary instead of drifting past it.
        let (mut anchor, mut k) = (first.as_secs_f64(), 0u64);
        let mut t = anchor;
        // The earliest pending arrival (seconds) and its source, so that a step without
        // one costs a compare.
        let (mut next_at, mut next_src) = (first.as_secs_f64(), earliest(&next));
        loop {
            // Admit every message that starts before the end of this step.
            while next_at < t + self.dt {
                let i = next_src.expect("an arrival is pending");
                let m = next[i].take().expect("some");
                self.admit(m, t + self.dt);
                stats.generated += 1;
                next[i] = sources[i].next_message()?;
                next_src = earliest(&next);
                next_at = next_src.map_or(f64::INFINITY, |i| next[i].expect("some").start.as_secs_f64());
            }
            if !self.busy() {
                match next_src {
                    None => break,
                    Some(i) => {
                        self.reset_idle();
                        anchor = next[i].expect("some").start.as_secs_f64();
                        (t, k) = (anchor, 0);
                        continue;
                    }
                }
            }
            let next = anchor + (k + 1) as f64 * self.dt;
            if let Some(log) = queues.as_deref_mut() {
                self.sample_before(log, secs_to_time(t)).map_err(queue_io)?;
            }
            self.step(t, next, rec).map_err(|e| WorkloadError::Io { file: "message records".into(), source: e })?;
            if let Some(log) = queues.as_deref_mut() {
                self.sample_before(log, secs_to_time(next)).map_err(queue_io)?;
            }
            stats.steps += 1;
            k += 1;
            t = anchor + k as f64 * self.dt;
        }
        stats.sim_end = secs_to_time(t);
        let span = stats.sim_end.as_secs_f64().max(1e-12);
        stats.mean_queue_bytes = self.link.queue_area / span;
        stats.max_queue_bytes = self.link.max_queue;
        stats.utilization = self.link.served / (self.cap * span);
        Ok(stats)
    }

    /// Forgets floating-point residue when the network is empty.
    fn reset_idle(&mut self) {
        for q in &mut self.queues {
            q.pipe.iter_mut().for_each(|x| *x = 0.0);
            q.seen.iter_mut().for_each(|x| *x = 0.0);
            q.backlog = 0.0;
            q.last_rate = 0.0;
            q.active = false;
            q.uncontrolled = 0.0;
            q.controlled = 0;
            q.controlled_reference = 0.0;
            q.cum_sent = 0.0;
            q.cum_out = 0.0;
        }
    }

    /// One step from `t`; `next` is the start of the following step.
    pub(super) fn step(&mut self, t: f64, next: f64, rec: &mut Recorder) -> std::io::Result<()> {
        // The ideal rates are read only by the flows that send this step (`send`): with
        // none (a W3 run's usual step, its flows sent whole and draining), skip them.
        let senders = if self.per_flow_fair() { &self.live } else { &self.sending };
        if !senders.is_empty() {
            self.ideal_rates();
        }
        self.send(t, next);
        self.arrive();
        self.serve(t, rec)
    }

    /// Per queue: the ideal rate of its controlled flows this step (eq. 11). The queue's
    /// U_k and N_k for this step were counted by the previous step's `send` (and `admit`).
    pub(super) fn ideal_rates(&mut self) {
        let rtt = 2.0 * self.tau;
        let window = self.cfg.cc.r0 * self.cap * rtt;
        let form = self.cfg.form;
        // The whole bottleneck's backlog τ ago, for queues marked on the port's backlog.
        let port_seen: f64 = self.queues.iter().map(|q| *q.seen.front().expect("history is full")).sum();
        for k in 0..self.queues.len() {
            let capacity = self.capacity_of(k);
            let own = self.cfg.own_threshold.get(k).copied().flatten();
            let mut cc = self.cfg.cc;
            let q = &mut self.queues[k];
            let own_seen = *q.seen.front().expect("history is full");
            // The congestion signal follows the marking (eq. 11's Q); the window cap
            // follows the delay of the flow's own queue.
            let signal = match own {
                Some(q0) => {
                    cc.q0 = q0;
                    own_seen
                }
                None if form.port_signal() => port_seen,
                None => own_seen,
            };
            q.ideal = cc.ideal_rate(capacity, q.uncontrolled, signal, rtt, q.controlled);
            q.scale = cc.scale(q.ideal, q.controlled, q.controlled_reference);
            q.window_rate =
                if form.window_cap() { super::cc::window_rate(window, rtt, own_seen, capacity) } else { f64::INFINITY };
        }
    }

    /// Every flow sends for this step; each queue adds up what its flows sent.
    fn send(&mut self, t: f64, next: f64) {
        let (rtt, dt, t_end) = (2.0 * self.tau, self.dt, t + self.dt);
        let ctx = StepCtx {
            t,
            t_end,
            span: (t_end - t).max(0.0),
            r0: self.cfg.cc.r0 * self.cap,
            gains: self.gains,
            additive: self.additive,
        };
        let pff = self.per_flow_fair();
        let (cc, form) = (self.cfg.cc, self.cfg.form);
        for q in &mut self.queues {
            q.sent = 0.0;
            q.uncontrolled = 0.0;
            q.controlled = 0;
            q.controlled_reference = 0.0;
        }
        // Flows still sending after this step are the next step's N_k and U_k (eq. 4, 5):
        // controlled if their feedback comes before the next step ends. (A feedback found
        // while serving this step is at least τ away, so it cannot change that.)
        let next_end = next + dt;
        // Under FIFO a flow that has sent everything has its mark and nothing more to do
        // here; under per-flow fair queueing its pipe still advances every step.
        let slots = if pff { &self.live } else { &self.sending };
        // Whether a flow sent its last byte (only then does `sending` lose a flow).
        let mut finished = false;
        let proportional = cc.split == Split::Proportional;
        for &slot in slots {
            let f = self.flows[slot].as_mut().expect("listed flows are live");
            let q = &mut self.queues[f.queue];
            let ideal = q.scale.map_or(q.ideal, |m| cc.split_ideal(q.ideal, m, f.reference));
            let amount = f.send_step(&ctx, ideal, q.window_rate);
            q.cum_sent += amount;
            q.sent += amount;
            // NaN counts as finished: a flow whose backlog is no number is not waited for.
            finished |= f.unsent.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater);
            if f.unsent > 0.0 {
                if next_end - f.feedback > TICK {
                    q.controlled += 1;
                    // HPCC's reference window: taken from the rate once per RTT (read only
                    // when the residual is split by it: `CcParams::scale`).
                    if proportional {
                        if f.controlled && t >= f.reference_until - TICK {
                            f.reference = f.rate;
                            f.reference_until = t + rtt;
                        }
                        q.controlled_reference += f.reference;
                    }
                } else if f.budget > 0.0 {
                    // U_k is the step-average of the uncontrolled sending (eq. 3, 4): a flow
                    // with less than a step's worth of uncontrolled bytes left sends at R0
                    // for part of the step only.
                    q.uncontrolled += form.uncontrolled_rate(ctx.r0, ctx.r0.min(f.budget.min(f.unsent) / dt));
                }
            }
            if pff {
                f.pipe.push_back(amount);
                continue;
            }
            if !f.started && amount > 0.0 {
                f.started = true;
                // The acknowledgement of the head of its data: its first byte begins to leave.
                q.firsts.push_back((q.cum_sent - amount, slot, f.start.max(t)));
            }
            if f.unsent == 0.0 && f.mark.is_none() {
                f.mark = Some(q.cum_sent);
                q.marks.push_back((q.cum_sent, slot));
            }
        }
        if finished {
            let flows = &self.flows;
            self.sending.retain(|&slot| flows[slot].as_ref().is_some_and(|f| f.unsent > 0.0));
        }
    }

    /// Bytes sent τ ago reach the bottleneck.
    fn arrive(&mut self) {
        for q in &mut self.queues {
            let arrived = q.pipe.rotate(q.sent);
            q.backlog += arrived;
            q.active = q.backlog > EPS;
        }
        if self.per_flow_fair() {
            for &slot in &self.live {
                let f = self.flows[slot].as_mut().expect("listed flows are live");
                f.backlog += f.pipe.pop_front().expect("flow pipe is full");
            }
        }
    }

    /// The discipline's service of this step, into each queue's `served`.
    fn allocate(&mut self) {
        let budget = self.cap * self.dt;
        match &self.cfg.sharing {
            Sharing::Fifo => self.queues[0].served = self.queues[0].backlog.min(budget),
            Sharing::Backlogged { share, .. } => self.queues[0].served = self.queues[0].backlog.min(budget * share),
            Sharing::Priority(_) => {
                let demand: Vec<f64> = self.queues.iter().map(|q| q.backlog).collect();
                for (q, s) in self.queues.iter_mut().zip(priority(&demand, budget)) {
                    q.served = s;
                }
            }
            Sharing::Weighted { .. } => {
                let demand: Vec<f64> = self.queues.iter().map(|q| q.backlog).collect();
                let w: Vec<f64> = (0..demand.len()).map(|q| self.weight(q)).collect();
                for (q, s) in self.queues.iter_mut().zip(gps(&demand, &w, budget)) {
                    q.served = s;
                }
            }
        }
    }

    fn serve(&mut self, t: f64, rec: &mut Recorder) -> std::io::Result<()> {
        self.allocate();
        let mut done = std::mem::take(&mut self.done);
        for qi in 0..self.queues.len() {
            let share = self.capacity_of(qi);
            let dt = self.dt;
            let q = &mut self.queues[qi];
            let s = q.served;
            let before = q.cum_out;
            q.backlog = (q.backlog - s).max(0.0);
            q.cum_out += s;
            q.last_rate = s / dt;
            // While backlogged the queue is served at s / dt; when it drains within the
            // step it was serving at (at least) its share and bytes left as they came.
            let rate = if q.backlog > EPS { s / dt } else { share.max(s / dt) };
            // Whether every byte sent has left: then every mark has been crossed, whatever
            // residue the running sums hold (`Queue::drained`). Asked only of a mark the
            // service has not reached, so a run whose marks are all reached is unchanged.
            let mut drained = None;
            while let Some(&(mark, slot, sent)) = q.firsts.front() {
                if mark > q.cum_out + EPS + 1e-12 * mark && !*drained.get_or_insert_with(|| q.drained()) {
                    break;
                }
                let crossing = if rate > 0.0 { t + ((mark - before) / rate).clamp(0.0, dt) } else { t + dt };
                let f = self.flows[slot].as_mut().expect("a flow awaiting feedback is live");
                f.feedback = f.feedback.min((crossing.max(sent + self.tau) + self.tau).max(f.start + 2.0 * self.tau));
                q.firsts.pop_front();
            }
            while let Some(&(mark, slot)) = q.marks.front() {
                // Sums of many fractional steps drift: allow the residue, relative to the mark.
                if mark > q.cum_out + EPS + 1e-12 * mark && !*drained.get_or_insert_with(|| q.drained()) {
                    break;
                }
                let crossing = if rate > 0.0 { t + ((mark - before) / rate).clamp(0.0, dt) } else { t + dt };
                done.push((slot, crossing));
                q.marks.pop_front();
            }
            q.seen.rotate(q.backlog);
        }
        let backlog: f64 = self.queues.iter().map(|q| q.backlog).sum();
        self.link.queue_area += backlog * self.dt;
        self.link.max_queue = self.link.max_queue.max(backlog);
        self.link.served += self.queues.iter().map(|q| q.served).sum::<f64>();
        if self.per_flow_fair() {
            let served: Vec<f64> = self.queues.iter().map(|q| q.served).collect();
            self.serve_flows(t, &served, &mut done);
        }
        for &(slot, at) in &done {
            self.complete(slot, at, rec)?;
        }
        done.clear();
        self.done = done;
        Ok(())
    }

    /// Hierarchical: each queue's service is shared equally by its backlogged flows.
    fn serve_flows(&mut self, t: f64, served: &[f64], done: &mut Vec<(usize, f64)>) {
        for (qi, &s) in served.iter().enumerate() {
            let slots: Vec<usize> = self
                .live
                .iter()
                .copied()
                .filter(|&i| self.flows[i].as_ref().is_some_and(|f| f.queue == qi && f.backlog > 0.0))
                .collect();
            let demand: Vec<f64> = slots.iter().map(|&i| self.flows[i].as_ref().expect("some").backlog).collect();
            let share = gps(&demand, &vec![1.0; slots.len()], s);
            let top = share.iter().copied().fold(0.0, f64::max);
            for (k, &i) in slots.iter().enumerate() {
                let f = self.flows[i].as_mut().expect("some");
                f.backlog = (f.backlog - share[k]).max(0.0);
                let in_flight: f64 = f.pipe.iter().sum();
                if f.unsent == 0.0 && in_flight <= EPS && f.backlog <= EPS {
                    let frac = if top > 0.0 { share[k] / top } else { 1.0 };
                    done.push((i, t + frac * self.dt));
                }
            }
        }
    }

    fn complete(&mut self, slot: usize, at: f64, rec: &mut Recorder) -> std::io::Result<()> {
        let f = self.flows[slot].take().expect("completing a live flow");
        // The last byte cannot leave the bottleneck before it arrived there.
        let at = at.max(f.last_sent + self.tau);
        self.free.push(slot);
        self.live_count -= 1;
        if let Ok(at) = self.live.binary_search(&slot) {
            self.live.remove(at);
        }
        // A flow completes once its last byte has left the bottleneck, so `send` dropped it
        // from `sending` in the step it sent that byte.
        debug_assert!(self.sending.binary_search(&slot).is_err(), "a completing flow is not sending");
        let size = f.spec.size as f64;
        let record = MessageRecord {
            id: f.id,
            class: f.spec.class,
            src: f.spec.src,
            dst: f.spec.dst,
            size: f.spec.size,
            start: f.spec.start,
            finish: f.spec.start.max(secs_to_time(at + self.tau)),
            ideal: secs_to_time(2.0 * self.tau + size / self.cap),
        };
        rec.record(&record)
    }
}

impl Queue {
    /// Whether the queue holds nothing and nothing is on its way to it. The FIFO marks are
    /// compared with the cumulative service, and the two running sums (`cum_sent` added
    /// flow by flow, `cum_out` step by step) drift apart by rounding over a long run, by
    /// more than the tolerance after ~10⁹ bytes: the last flow before an idle period then
    /// waited for the next arrival to push the service past its mark (up to 83 ms, p99
    /// slowdowns of 71 for web search's 10 KB flows at 60 % of 25 Gbps; docs/model.md,
    /// "Recalibration (issue 25)"). With the queue drained every mark has been crossed.
    fn drained(&self) -> bool {
        self.backlog <= EPS && self.pipe.values.iter().all(|&x| x <= EPS)
    }
}

fn earliest(next: &[Option<MessageSpec>]) -> Option<usize> {
    next.iter().enumerate().filter_map(|(i, m)| m.map(|m| (m.start, i))).min().map(|(_, i)| i)
}

/// What every flow's step shares.
#[derive(Copy, Clone)]
struct StepCtx {
    t: f64,
    t_end: f64,
    /// t_end − t (not exactly dt in floating point).
    span: f64,
    /// R0 in bytes per second.
    r0: f64,
    gains: Gains,
    /// Rise::Additive's moves per step (`CcParams::additive`).
    additive: Option<Additive>,
}

impl Flow {
    /// Sends for one step — uncontrolled at R0 until the first feedback (eq. 3), then at
    /// the filtered rate (eq. 7) capped by the window — and returns the bytes sent. When
    /// the last byte goes, records its instant.
    fn send_step(&mut self, c: &StepCtx, ideal: f64, window_rate: f64) -> f64 {
        if self.unsent <= 0.0 {
            return 0.0;
        }
        let mut amount = 0.0;
        // The last stretch sent: (from, bytes, rate), for the instant of the last byte.
        let mut stretch = (c.t_end, 0.0, 0.0);
        if self.controlled && self.feedback <= c.t && self.start <= c.t {
            // Controlled since an earlier step: the whole step (the general case's numbers).
            stretch = self.send_controlled(c.t, c.span, ideal, window_rate, c);
            amount += stretch.1;
        } else {
            let t0 = self.start.max(c.t);
            if !self.controlled {
                let until = self.feedback.min(c.t_end);
                let a = (c.r0 * (until - t0).max(0.0)).min(self.budget).min(self.unsent);
                self.budget -= a;
                self.unsent -= a;
                amount += a;
                stretch = (t0, a, c.r0);
                // From its first feedback the flow is controlled; its rate starts from R0
                // and follows the ideal through the filter (eq. 7).
                self.controlled = c.t_end - self.feedback > TICK;
            }
            if self.controlled && self.unsent > 0.0 {
                let from = t0.max(self.feedback);
                stretch = self.send_controlled(from, (c.t_end - from).max(0.0), ideal, window_rate, c);
                amount += stretch.1;
            }
        }
        if stretch.1 > 0.0 && self.unsent <= EPS {
            let (from, a, rate) = stretch;
            let finish = if rate > 0.0 { from + a / rate } else { c.t_end };
            amount += self.unsent;
            self.unsent = 0.0;
            self.last_sent = finish.min(c.t_end);
        }
        amount
    }

    /// Sends for `span` seconds from `from` at the filtered rate (or DCTCP's additive
    /// increase: `Additive::next`), with no more than one initial window in flight
    /// (docs/model.md): returns (from, bytes, rate).
    fn send_controlled(&mut self, from: f64, span: f64, ideal: f64, window_rate: f64, c: &StepCtx) -> (f64, f64, f64) {
        self.rate = match c.additive {
            Some(a) => a.next(self.rate, ideal, c.gains, c.r0),
            None => CcParams::smooth(self.rate, ideal, c.gains),
        };
        let rate = self.rate.min(window_rate);
        let a = (rate * span).min(self.unsent);
        self.unsent -= a;
        (from, a, rate)
    }
}
