//! The functional model of congestion control (SWP §4.2, eqs. 2–7, 11; Table 2).
//!
//! A flow sends its first min(size, R0·RTT) bytes uncontrolled at R0 from its arrival;
//! from one RTT after arrival (when feedback reaches it) it is controlled: it takes the
//! ideal rate of eq. 6 / 11 at once, then follows it through a first-order low-pass filter
//! with time constant κ·RTT:
//!
//!   f_k(t) = max(0, η·C_k(t) − β·U_k(t) − max(0, Q_k(t − τ) − q0) / RTT) / N_k(t)
//!
//! with U_k the class's uncontrolled rate and N_k its number of controlled flows, both
//! known at the sources at t, Q_k the class's bottleneck queue seen τ earlier, and C_k
//! the capacity available to the class. The extraction lost the exact forms; the choices
//! (queue excess drained within one RTT, κ in RTTs) are in docs/model.md.

/// SWP Table 2 parameters.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct CcParams {
    /// Target utilization η.
    pub eta: f64,
    /// Queue threshold q0 (bytes).
    pub q0: f64,
    /// Reaction to uncontrolled traffic β (0 or 1).
    pub beta: f64,
    /// Convergence smoothing κ, in RTTs.
    pub kappa: f64,
    /// Initial rate R0 as a fraction of the link rate.
    pub r0: f64,
}

impl CcParams {
    /// SWP-D: the DCTCP preset (η 100 %, q0 100 KB, β 0, κ 5.5).
    pub const SWP_D: CcParams = CcParams { eta: 1.0, q0: 100_000.0, beta: 0.0, kappa: 5.5, r0: 1.0 };
    /// SWP-H: the HPCC preset (η 90 %, q0 0, β 1, κ 5.0).
    pub const SWP_H: CcParams = CcParams { eta: 0.9, q0: 0.0, beta: 1.0, kappa: 5.0, r0: 1.0 };

    /// The ideal per-flow rate (bytes/s) of eq. 11.
    pub fn ideal_rate(&self, capacity: f64, uncontrolled: f64, queue_seen: f64, rtt: f64, controlled: usize) -> f64 {
        if controlled == 0 {
            return 0.0;
        }
        let drain = (queue_seen - self.q0).max(0.0) / rtt;
        (self.eta * capacity - self.beta * uncontrolled - drain).max(0.0) / controlled as f64
    }

    /// One step of the low-pass filter (eq. 7) over `dt` seconds.
    pub fn filter(&self, rate: f64, ideal: f64, dt: f64, rtt: f64) -> f64 {
        Self::smooth(rate, ideal, self.gain(dt, rtt))
    }

    /// The filter's gain per step of `dt`: the fraction of the gap closed in one step.
    pub fn gain(&self, dt: f64, rtt: f64) -> f64 {
        (dt / (self.kappa * rtt)).min(1.0)
    }

    /// One step of the filter with a precomputed `gain`.
    pub fn smooth(rate: f64, ideal: f64, gain: f64) -> f64 {
        rate + (ideal - rate) * gain
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ideal_rate_shares_the_residual() {
        let p = CcParams::SWP_H;
        // 10 GB/s link, 1 GB/s uncontrolled, empty queue, 4 flows: (9 - 1) / 4.
        assert!((p.ideal_rate(10e9, 1e9, 0.0, 10e-6, 4) - 2e9).abs() < 1.0);
        let d = CcParams::SWP_D;
        // DCTCP ignores uncontrolled traffic and drains the queue above q0 in one RTT.
        let r = d.ideal_rate(10e9, 5e9, 150_000.0, 10e-6, 1);
        assert!((r - (10e9 - 50_000.0 / 10e-6)).abs() < 1.0);
        assert_eq!(d.ideal_rate(10e9, 0.0, 1e9, 10e-6, 2), 0.0, "never negative");
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
