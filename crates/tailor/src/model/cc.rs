//! The functional model of congestion control (SWP §4.2, eqs. 2–7, 11; Table 2).
//!
//! A flow sends its first min(size, R0·RTT) bytes uncontrolled at R0 from its arrival; it
//! is controlled from its first feedback (the acknowledgement of its first byte: one RTT
//! after arrival in an empty network, later behind a queue). From then its rate starts
//! at R0 and follows the ideal rate of eq. 6 / 11 through a first-order low-pass filter:
//!
//!   f_k(t) = max(0, η·C_k(t) − β·U_k(t) − max(0, Q_k(t − τ) − q0) / RTT) / N_k(t)
//!
//! with U_k the class's uncontrolled rate and N_k its number of controlled flows, both
//! known at the sources at t, Q_k the class's bottleneck queue seen τ earlier, and C_k
//! the capacity available to the class. The filter rises with time constant κ·RTT and
//! falls with time constant one RTT; a flow never has more than R0·RTT bytes in flight,
//! so it sends at most R0·RTT / (RTT + Q_k / C_k). SWP-H (HPCC) shares the residual
//! N_k·f_k mostly in proportion to the flows' reference rates (`Split::Proportional`)
//! rather than evenly. SWP-D (DCTCP) rises by DCTCP's additive increase instead of the
//! filter (`Rise::Additive`): one segment per RTT, up to the ideal, and while the queue
//! it is marked on is at or below q0 on up to line rate (no ideal holds an unmarked
//! window back, so the controlled flows build DCTCP's standing queue); it falls by at
//! most half per RTT (DCTCP's cut is α/2 ≤ 1/2 per RTT of marks). The extraction lost the exact forms;
//! the choices and the calibration against the packet engine are in docs/model.md.
//! That is the calibrated form; `Form::Paper` runs what the text says instead (one
//! filter time constant of κ µs, no window, feedback at arrival + RTT, each class's own
//! queue, U at R0, an even split; docs/model.md, "The paper-literal form").

/// Which reading of §4.2 the model runs (docs/model.md, "The paper-literal form").
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Form {
    /// The forms calibrated against the packet engine (docs/model.md, "Congestion
    /// control"): the asymmetric filter, one initial window in flight, feedback at the
    /// first byte's acknowledgement, a class marked on the port's backlog, U_k as the
    /// step's average, SWP-H's proportional split.
    #[default]
    Calibrated,
    /// What the text says: one time constant of κ µs both ways, no window, feedback at
    /// arrival + RTT (eq. 2), eq. 11 on each class's own queue against q0, every
    /// uncontrolled flow counted at R0 (eqs. 3-4), the residual split evenly.
    Paper,
}

impl Form {
    /// The names the scenario key and the command line accept.
    pub const NAMES: [&'static str; 2] = ["calibrated", "paper"];

    pub fn name(self) -> &'static str {
        match self {
            Form::Calibrated => "calibrated",
            Form::Paper => "paper",
        }
    }

    pub fn parse(name: &str) -> Option<Form> {
        match name {
            "calibrated" => Some(Form::Calibrated),
            "paper" => Some(Form::Paper),
            _ => None,
        }
    }

    /// The filter's gains per step of `dt`: the calibrated form's asymmetric ones, or
    /// eq. 7's single time constant both ways, κ read in µs (the unit the extraction
    /// drops everywhere, as in its "a round-trip delay of 10 ."; docs/model.md, "The
    /// paper-literal form").
    pub fn gains(self, cc: &CcParams, dt: f64, rtt: f64) -> Gains {
        match self {
            Form::Calibrated => cc.gains(dt, rtt),
            Form::Paper => {
                let g = (dt / (cc.kappa * PAPER_KAPPA_UNIT)).min(1.0);
                Gains { up: g, down: g }
            }
        }
    }

    /// Whether a controlled flow has at most one initial window (R0·RTT) in flight.
    pub fn window_cap(self) -> bool {
        self == Form::Calibrated
    }

    /// Whether a flow's first feedback is the acknowledgement of its first byte (later
    /// than arrival + RTT behind a queue) rather than eq. 2's arrival + RTT.
    pub fn feedback_at_first_ack(self) -> bool {
        self == Form::Calibrated
    }

    /// Whether a queue with no threshold of its own sees the port's backlog against q0
    /// (the packet engine's port marking) rather than its own backlog (eq. 11).
    pub fn port_signal(self) -> bool {
        self == Form::Calibrated
    }

    /// The rate an uncontrolled flow adds to U_k in a step where its uncontrolled sending
    /// averages `average` (bytes/s): that average (calibrated), or R0 whenever it sends
    /// uncontrolled bytes at all (eq. 3: R0 from arrival until min(S, R0·RTT) are out).
    pub fn uncontrolled_rate(self, r0: f64, average: f64) -> f64 {
        match self {
            Form::Calibrated => average,
            Form::Paper if average > 0.0 => r0,
            Form::Paper => 0.0,
        }
    }

    /// The parameters this form runs with: the paper form splits every residual evenly
    /// (§4.2: "simply divided evenly among all controlled flows").
    pub fn params(self, cc: CcParams) -> CcParams {
        match self {
            Form::Calibrated => cc,
            Form::Paper => CcParams { split: Split::Even, rise: Rise::Filter, ..cc },
        }
    }
}

/// The paper form's unit of κ, seconds: Table 2's 5.5 read as 5.5 µs.
pub const PAPER_KAPPA_UNIT: f64 = 1e-6;

/// SWP Table 2 parameters.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct CcParams {
    /// Target utilization η.
    pub eta: f64,
    /// Queue threshold q0 (bytes).
    pub q0: f64,
    /// Reaction to uncontrolled traffic β (0 or 1).
    pub beta: f64,
    /// Convergence smoothing κ, in RTTs (the paper form: in µs, `PAPER_KAPPA_UNIT`).
    pub kappa: f64,
    /// Initial rate R0 as a fraction of the link rate.
    pub r0: f64,
    /// How the controlled flows share the residual (docs/model.md, "SWP-H against the
    /// packet engine's HPCC").
    pub split: Split,
    /// How a controlled flow's rate rises (docs/model.md, "Recalibration (issue 25)").
    pub rise: Rise,
    /// The sender's segment (bytes): Rise::Additive's step is one per RTT.
    pub mss: f64,
}

/// How a controlled flow's rate moves up (down, it follows the ideal with time constant
/// one RTT in the calibrated form).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Rise {
    /// Towards the ideal through the low-pass filter, time constant κ·RTT (eq. 7).
    Filter,
    /// DCTCP's additive increase: by one segment per RTT, i.e. MSS / RTT per RTT, up to
    /// the ideal; and while the queue the flow's marks come from is at or below q0 (no
    /// marks), on up to line rate (its window grows unmarked), so the controlled flows
    /// build the standing queue DCTCP keeps below K.
    Additive,
}

/// Under `Split::Proportional`, the part of the residual shared in proportion to the
/// flows' reference rates; the rest is shared evenly (docs/model.md, "SWP-H against the
/// packet engine's HPCC": 0.5, 0.8 and 1 were tried, 0.8 adopted).
pub const PROPORTIONAL_WEIGHT: f64 = 0.8;

/// How eq. 6's residual is divided among a class's controlled flows.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Split {
    /// Evenly (SWP §4.2): every controlled flow's ideal is the residual / N.
    Even,
    /// Mostly in proportion to the flows' reference rates — each flow's rate sampled once
    /// per RTT, as HPCC's W_c — the rest evenly: HPCC scales every window by the same
    /// η/U, so it keeps the ratios of the rates, and a newcomer that starts at line rate
    /// keeps a large share.
    Proportional,
}

impl CcParams {
    /// SWP-D: the DCTCP preset (η 100 %, q0 100 KB, β 0, κ 5.5).
    pub const SWP_D: CcParams = CcParams {
        eta: 1.0,
        q0: 100_000.0,
        beta: 0.0,
        kappa: 5.5,
        r0: 1.0,
        split: Split::Even,
        rise: Rise::Additive,
        mss: 1448.0,
    };
    /// SWP-H: the HPCC preset (η 90 %, q0 0, β 1, κ 5.0).
    pub const SWP_H: CcParams = CcParams {
        eta: 0.9,
        q0: 0.0,
        beta: 1.0,
        kappa: 5.0,
        r0: 1.0,
        split: Split::Proportional,
        rise: Rise::Filter,
        mss: 1448.0,
    };

    /// The ideal per-flow rate (bytes/s) of eq. 11; under `Rise::Additive`, unbounded
    /// while the queue seen is at or below q0 (DCTCP's windows grow unmarked there).
    pub fn ideal_rate(&self, capacity: f64, uncontrolled: f64, queue_seen: f64, rtt: f64, controlled: usize) -> f64 {
        if controlled == 0 {
            return 0.0;
        }
        if self.rise == Rise::Additive && queue_seen <= self.q0 {
            return f64::INFINITY;
        }
        let drain = (queue_seen - self.q0).max(0.0) / rtt;
        (self.eta * capacity - self.beta * uncontrolled - drain).max(0.0) / controlled as f64
    }

    /// Under `Split::Proportional`: the residual of eq. 6 (`even`·N) per unit of the
    /// controlled flows' summed reference rates; None under `Split::Even` or when they
    /// have none (then every flow's ideal is `even`).
    pub fn scale(&self, even: f64, controlled: usize, reference_sum: f64) -> Option<f64> {
        if self.split != Split::Proportional || controlled == 0 || reference_sum <= 0.0 {
            return None;
        }
        Some(even * controlled as f64 / reference_sum)
    }

    /// A controlled flow's ideal under `Split::Proportional`: PROPORTIONAL_WEIGHT of the
    /// residual in proportion to its reference rate (`scale`·`reference`), the rest
    /// evenly (`even`). The flows' ideals still add up to the residual.
    pub fn split_ideal(&self, even: f64, scale: f64, reference: f64) -> f64 {
        (1.0 - PROPORTIONAL_WEIGHT) * even + PROPORTIONAL_WEIGHT * scale * reference
    }

    /// `Rise::Additive`'s moves per step of `dt`: up by one segment per RTT per RTT
    /// (MSS·dt / RTT²), down by at most half per RTT (2^(−dt / RTT)); None under
    /// `Rise::Filter`.
    pub fn additive(&self, dt: f64, rtt: f64) -> Option<Additive> {
        (self.rise == Rise::Additive)
            .then(|| Additive { step: self.mss * dt / (rtt * rtt), halving: 0.5f64.powf(dt / rtt) })
    }

    /// One step of the low-pass filter (eq. 7) over `dt` seconds.
    pub fn filter(&self, rate: f64, ideal: f64, dt: f64, rtt: f64) -> f64 {
        Self::smooth(rate, ideal, self.gains(dt, rtt))
    }

    /// The filter's gains per step of `dt` (the fraction of the gap closed in one step):
    /// towards a higher ideal with time constant κ·RTT, towards a lower one with time
    /// constant one RTT (docs/model.md, "asymmetric filter").
    pub fn gains(&self, dt: f64, rtt: f64) -> Gains {
        Gains { up: (dt / (self.kappa * rtt)).min(1.0), down: (dt / rtt).min(1.0) }
    }

    /// One step of the filter with precomputed `gains`.
    pub fn smooth(rate: f64, ideal: f64, gains: Gains) -> f64 {
        let g = if ideal < rate { gains.down } else { gains.up };
        rate + (ideal - rate) * g
    }
}

/// DCTCP's rate moves per step (`CcParams::additive`, docs/model.md, "Recalibration
/// (issue 25)").
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Additive {
    /// How much a rate rises in one step (bytes/s): one segment per RTT, per RTT.
    pub step: f64,
    /// The least fraction of its rate a flow keeps over one step: half per RTT.
    pub halving: f64,
}

impl Additive {
    /// A controlled flow's next rate: up by `step`, never past the ideal nor line rate
    /// (`r0`, bytes/s: a window of at most one BDP); down towards the ideal as the filter
    /// falls, but by no more than half per RTT.
    pub fn next(self, rate: f64, ideal: f64, gains: Gains, r0: f64) -> f64 {
        if ideal >= rate {
            (rate + self.step).min(ideal).min(r0)
        } else {
            CcParams::smooth(rate, ideal, gains).max(rate * self.halving)
        }
    }
}

/// Per-step gains of the filter (`CcParams::gains`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Gains {
    pub up: f64,
    pub down: f64,
}

/// The rate (bytes/s) of a flow with `window` bytes in flight when the round trip is the
/// base `rtt` plus the queueing delay of `queue` bytes served at `capacity` bytes/s.
pub fn window_rate(window: f64, rtt: f64, queue: f64, capacity: f64) -> f64 {
    if capacity <= 0.0 {
        return 0.0;
    }
    window / (rtt + queue / capacity)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swp_ds_additive_increase_is_one_segment_per_rtt_and_its_cut_at_most_half_per_rtt() {
        let p = CcParams::SWP_D;
        let (rtt, dt) = (10e-6, 0.5e-6);
        let a = p.additive(dt, rtt).expect("SWP-D rises additively");
        let g = p.gains(dt, rtt);
        let steps = (rtt / dt).round() as usize;
        let run = |from: f64, ideal: f64| (0..steps).fold(from, |r, _| a.next(r, ideal, g, 12.5e9));
        // Unmarked (ideal unbounded): one MSS per RTT more each RTT, capped at line rate.
        let up = run(1e9, f64::INFINITY);
        assert!((up - (1e9 + 1448.0 / rtt)).abs() < 1.0, "{up}");
        assert_eq!(run(12.4e9, f64::INFINITY), 12.5e9, "never above line rate");
        assert_eq!(run(1e9, 1.05e9), 1.05e9, "never above the ideal");
        // Marked with nothing left for the controlled flows: half per RTT, not 1/e.
        let down = run(8e9, 0.0);
        assert!((down - 4e9).abs() < 1.0, "{down}");
        // A small cut is the filter's.
        assert!((run(8e9, 7.9e9) - p.filter(8e9, 7.9e9, rtt, rtt)).abs() < 0.2e9);
        // Below q0 the ideal no longer holds the flows back; above it, eq. 11's.
        assert_eq!(p.ideal_rate(12.5e9, 0.0, 100_000.0, rtt, 4), f64::INFINITY);
        assert!((p.ideal_rate(12.5e9, 0.0, 150_000.0, rtt, 4) - (12.5e9 - 5e9) / 4.0).abs() < 1.0);
        // SWP-H and the paper form keep the filter.
        assert_eq!(CcParams::SWP_H.additive(dt, rtt), None);
        assert_eq!(Form::Paper.params(p).additive(dt, rtt), None);
        assert_eq!(Form::Calibrated.params(p).additive(dt, rtt), Some(a));
    }

    #[test]
    fn ideal_rate_shares_the_residual() {
        let p = CcParams::SWP_H;
        // 10 GB/s link, 1 GB/s uncontrolled, empty queue, 4 flows: (9 - 1) / 4.
        assert!((p.ideal_rate(10e9, 1e9, 0.0, 10e-6, 4) - 2e9).abs() < 1.0);
        let d = CcParams { rise: Rise::Filter, ..CcParams::SWP_D };
        // DCTCP ignores uncontrolled traffic and drains the queue above q0 in one RTT.
        let r = d.ideal_rate(10e9, 5e9, 150_000.0, 10e-6, 1);
        assert!((r - (10e9 - 50_000.0 / 10e-6)).abs() < 1.0);
        assert_eq!(d.ideal_rate(10e9, 0.0, 1e9, 10e-6, 2), 0.0, "never negative");
    }

    #[test]
    fn swp_h_splits_the_residual_mostly_by_reference_rate() {
        let h = CcParams::SWP_H;
        // Residual 8 GB/s over 2 flows (even 4 GB/s each), references 3 and 1 GB/s.
        let m = h.scale(4e9, 2, 4e9).expect("proportional");
        let a = h.split_ideal(4e9, m, 3e9);
        let b = h.split_ideal(4e9, m, 1e9);
        assert!((a + b - 8e9).abs() < 1.0, "the ideals add up to the residual");
        let w = PROPORTIONAL_WEIGHT;
        assert!((a - ((1.0 - w) * 4e9 + w * 6e9)).abs() < 1.0, "{a}");
        assert!(b < 4e9 && a > 4e9);
        // SWP-D shares evenly; no reference rate: even too.
        assert_eq!(CcParams::SWP_D.scale(4e9, 2, 4e9), None);
        assert_eq!(h.scale(4e9, 2, 0.0), None);
    }

    #[test]
    fn the_filter_falls_within_one_rtt_and_rises_within_kappa_rtts() {
        let p = CcParams::SWP_D;
        let (rtt, dt) = (10e-6, 0.5e-6);
        let run = |from: f64, to: f64, span: f64| {
            (0..(span / dt).round() as usize).fold(from, |r, _| p.filter(r, to, dt, rtt))
        };
        // Down from 1 to 0: after one RTT, 1/e left (discrete steps: within 3 %).
        let down = run(1.0, 0.0, rtt);
        assert!((down - (-1.0f64).exp()).abs() < 0.03, "{down}");
        // Up from 0 to 1: after one RTT only 1 - e^(-1/κ); after κ RTTs, 1 - 1/e.
        let up = run(0.0, 1.0, rtt);
        assert!((up - (1.0 - (-1.0 / p.kappa).exp())).abs() < 0.01, "{up}");
        let up = run(0.0, 1.0, p.kappa * rtt);
        assert!((up - (1.0 - (-1.0f64).exp())).abs() < 0.01, "{up}");
    }

    #[test]
    fn the_paper_forms_filter_has_one_time_constant_of_kappa_us_both_ways() {
        let p = CcParams::SWP_D;
        let (rtt, dt) = (10e-6, 0.05e-6);
        let g = Form::Paper.gains(&p, dt, rtt);
        assert_eq!(g.up, g.down);
        let run = |from: f64, to: f64| {
            (0..(p.kappa * 1e-6 / dt).round() as usize).fold(from, |r, _| CcParams::smooth(r, to, g))
        };
        // After κ = 5.5 µs, 1/e of the gap is left, falling as rising (discrete steps: within 1 %).
        assert!((run(1.0, 0.0) - (-1.0f64).exp()).abs() < 0.01);
        assert!((run(0.0, 1.0) - (1.0 - (-1.0f64).exp())).abs() < 0.01);
        // Whatever the RTT: a time, not a number of round trips.
        assert_eq!(Form::Paper.gains(&p, dt, 4.0 * rtt), g);
        assert_eq!(Form::Calibrated.gains(&p, dt, rtt), p.gains(dt, rtt), "the calibrated form keeps its filter");
    }

    #[test]
    fn one_window_in_flight_limits_the_rate_by_the_queueing_delay() {
        // 125 KB in flight, 10 us base RTT, 12.5 GB/s: line rate with no queue; half of it
        // behind one BDP of queue (the round trip doubles).
        assert!((window_rate(125_000.0, 10e-6, 0.0, 12.5e9) - 12.5e9).abs() < 1.0);
        assert!((window_rate(125_000.0, 10e-6, 125_000.0, 12.5e9) - 6.25e9).abs() < 1.0);
        assert_eq!(window_rate(125_000.0, 10e-6, 1.0, 0.0), 0.0, "no capacity, no rate");
    }

    #[test]
    fn filter_converges_with_time_constant_kappa_rtts() {
        let p = CcParams::SWP_D;
        let (rtt, dt) = (10e-6, 0.1e-6);
        let mut r = 0.0;
        let steps = (p.kappa * rtt / dt) as usize;
        for _ in 0..steps {
            r = p.filter(r, 1.0, dt, rtt);
        }
        // After one time constant, 1 - 1/e of the way.
        assert!((r - (1.0 - (-1.0f64).exp())).abs() < 0.01, "{r}");
    }
}
