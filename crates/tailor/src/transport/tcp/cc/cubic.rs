//! CUBIC congestion control (RFC 9438), the window PL2's testbed compares against (VMA's
//! TCP Cubic, PL2 §F).
//!
//! After a congestion event at window W_max the window follows
//!
//! ```text
//! W_cubic(t) = C (t - K)^3 + W_max,   K = cbrt((W_max - cwnd_epoch) / C)      (§4.2, eq. 1-2)
//! ```
//!
//! in segments, t in seconds since the congestion-avoidance epoch began (the first ACK
//! after the reduction). Each ACK moves cwnd towards target = W_cubic(t + RTT), clamped
//! to [cwnd, 1.5 cwnd] (§4.4), by (target - cwnd) / cwnd segments per segment
//! acknowledged; where Reno would be faster (W_est, grown by alpha_cubic per window,
//! §4.3) cwnd follows W_est. A loss sets W_max (reduced further by fast convergence when
//! the window had not regained the previous W_max, §4.7) and ssthresh = cwnd × β_cubic
//! (§4.6); a timeout also restarts the curve from the window it reaches (§4.8). Slow start
//! below ssthresh is the sender's own (RFC 5681); HyStart++ (RFC 9406) is not modelled.

use super::reno::Growth;
use super::{Ack, Controller, Window};
use crate::sim::Time;

/// RFC 9438's constants (§5: C = 0.4, β_cubic = 0.7, fast convergence on).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Params {
    pub c: f64,
    pub beta: f64,
    pub fast_convergence: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params { c: 0.4, beta: 0.7, fast_convergence: true }
    }
}

/// The state of one connection's CUBIC window (segments as reals; the sender keeps cwnd
/// in bytes and converts).
#[derive(Copy, Clone, Debug)]
pub struct Cubic {
    p: Params,
    /// The window just before the last reduction (W_max).
    w_max: f64,
    /// The window at the last reduction (cwnd_prior, §4.3's switch of alpha_cubic).
    cwnd_prior: f64,
    /// The epoch: its start, K and the Reno-friendly estimate.
    epoch: Option<Epoch>,
    /// The next epoch starts from its own window with K = 0 (after a timeout, §4.8).
    after_timeout: bool,
}

#[derive(Copy, Clone, Debug)]
struct Epoch {
    start: Time,
    k: f64,
    w_est: f64,
}

impl Cubic {
    pub fn new(p: Params) -> Cubic {
        Cubic { p, w_max: 0.0, cwnd_prior: 0.0, epoch: None, after_timeout: false }
    }

    pub fn params(&self) -> Params {
        self.p
    }

    /// W_max of the current curve (segments).
    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// K of the current epoch (seconds), once it has begun.
    pub fn k(&self) -> Option<f64> {
        self.epoch.map(|e| e.k)
    }

    /// W_cubic(t) of the current epoch, t in seconds since it began.
    pub fn w_cubic(&self, t: f64) -> Option<f64> {
        self.epoch.map(|e| self.p.c * (t - e.k).powi(3) + self.w_max)
    }

    /// A congestion event (fast retransmit) at window `cwnd` segments: the new ssthresh in
    /// segments (§4.6-4.7). The caller sets cwnd from it.
    pub fn on_loss(&mut self, cwnd: f64) -> f64 {
        self.w_max = if self.p.fast_convergence && cwnd < self.w_max { cwnd * (1.0 + self.p.beta) / 2.0 } else { cwnd };
        self.cwnd_prior = cwnd;
        self.epoch = None;
        self.after_timeout = false;
        (cwnd * self.p.beta).max(2.0)
    }

    /// A retransmission timeout at window `cwnd`: ssthresh as for a loss; the next epoch
    /// starts from its own window with K = 0 (§4.8).
    pub fn on_timeout(&mut self, cwnd: f64) -> f64 {
        let ssthresh = self.on_loss(cwnd);
        self.after_timeout = true;
        ssthresh
    }

    /// `segs` segments acknowledged in congestion avoidance at `now`, with smoothed RTT
    /// `rtt`: the new window (segments) from `cwnd`.
    pub fn on_ack(&mut self, now: Time, cwnd: f64, segs: f64, rtt: Time) -> f64 {
        let e = *self.epoch.get_or_insert_with(|| {
            if self.after_timeout || self.w_max <= cwnd {
                // §4.8 after a timeout, or a first epoch with no loss yet: the plateau
                // is here.
                self.w_max = self.w_max.max(cwnd);
                if self.after_timeout {
                    self.w_max = cwnd;
                }
                Epoch { start: now, k: 0.0, w_est: cwnd }
            } else {
                Epoch { start: now, k: ((self.w_max - cwnd) / self.p.c).cbrt(), w_est: cwnd }
            }
        });
        self.after_timeout = false;
        let t = (now - e.start).as_secs_f64();
        let target = (self.p.c * (t + rtt.as_secs_f64() - e.k).powi(3) + self.w_max).clamp(cwnd, 1.5 * cwnd);
        let cubic = cwnd + (target - cwnd) / cwnd * segs;
        // §4.3: Reno-friendly estimate, alpha_cubic until it regains cwnd_prior, then 1.
        let beta = self.p.beta;
        let alpha = if e.w_est >= self.cwnd_prior { 1.0 } else { 3.0 * (1.0 - beta) / (1.0 + beta) };
        let w_est = e.w_est + alpha * segs / cwnd;
        self.epoch = Some(Epoch { w_est, ..e });
        let w_now = self.p.c * (t - e.k).powi(3) + self.w_max;
        if w_now < w_est {
            cubic.max(w_est)
        } else {
            cubic
        }
    }
}

/// The CUBIC controller: Reno's slow start below ssthresh, the curve above it, β on a
/// loss, an RFC 3168 ECN-Echo or a timeout (the sender keeps cwnd in bytes, the curve
/// segments).
#[derive(Copy, Clone, Debug)]
pub struct CubicWindow {
    cubic: Cubic,
    growth: Growth,
}

impl CubicWindow {
    pub fn new(mss: u64, p: Params) -> Self {
        CubicWindow { cubic: Cubic::new(p), growth: Growth::new(mss) }
    }

    /// The curve's state.
    pub fn cubic(&self) -> &Cubic {
        &self.cubic
    }
}

impl Controller for CubicWindow {
    fn on_ack(&mut self, w: &mut Window, a: &Ack) {
        if w.cwnd < w.ssthresh {
            w.cwnd = w.clamp(self.growth.grow(w.cwnd, w.ssthresh, a.segs));
            return;
        }
        let mss = w.mss as f64;
        let next = self.cubic.on_ack(a.now, w.cwnd as f64 / mss, a.newly as f64 / mss, a.rtt);
        w.cwnd = w.clamp(((next * mss) as u64).max(w.cwnd));
    }

    /// Linux's `ssthresh` callback: cwnd × β, which also starts the next epoch.
    fn ecn_ssthresh(&mut self, w: &Window) -> u64 {
        (self.cubic.on_loss(w.cwnd as f64 / w.mss as f64) * w.mss as f64) as u64
    }

    fn on_loss(&mut self, w: &mut Window) {
        let mss = w.mss as f64;
        w.ssthresh = (self.cubic.on_loss(w.cwnd as f64 / mss) * mss) as u64;
        w.cwnd = w.ssthresh + 3 * w.mss;
    }

    /// RFC 9438 §4.8.
    fn on_rto(&mut self, w: &mut Window) {
        let mss = w.mss as f64;
        w.ssthresh = (self.cubic.on_timeout(w.cwnd as f64 / mss) * mss) as u64;
        w.cwnd = w.mss;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 9438 §4.2's curve on a scripted loss at W = 1000 segments and a steady ACK
    /// clock (one ACK per segment, cwnd ACKs per 100 ms round trip, where the curve grows
    /// faster than Reno would): K = cbrt(1000 × 0.3 / 0.4) = 9.09 s; the window stays
    /// within W_cubic(t ± RTT) through the concave and the convex region and passes W_max
    /// at t = K.
    #[test]
    fn the_window_follows_rfc_9438s_cubic_curve_after_a_loss() {
        let mut c = Cubic::new(Params::default());
        let ssthresh = c.on_loss(1000.0);
        assert!((ssthresh - 700.0).abs() < 1e-9);
        let rtt = Time::from_ms(100);
        let mut cwnd = ssthresh;
        let mut now = Time::from_ms(1000);
        let start = now;
        let k_expected = (1000.0f64 * 0.3 / 0.4).cbrt();
        let mut checked = 0;
        let mut at_k = None;
        while now - start < Time::from_ms(12_000) {
            // One round trip: cwnd ACKs spread evenly over it.
            let acks = cwnd.floor() as u64;
            for _ in 0..acks {
                cwnd = c.on_ack(now, cwnd, 1.0, rtt);
                now += Time::from_ps(rtt.ps() / acks);
            }
            let t = (now - start).as_secs_f64();
            let w = |t: f64| c.w_cubic(t).unwrap();
            let (lo, hi) = (w(t - 0.1) - 1.0, w(t + 0.1) + 1.0);
            assert!(cwnd >= lo && cwnd <= hi, "t = {t:.2} s: cwnd {cwnd:.1} outside [{lo:.1}, {hi:.1}]");
            if at_k.is_none() && t >= k_expected {
                at_k = Some(cwnd);
            }
            checked += 1;
        }
        assert!((c.k().unwrap() - k_expected).abs() < 1e-9, "K = {:?}", c.k());
        assert!(checked > 100);
        assert!((at_k.unwrap() - 1000.0).abs() < 2.0, "cwnd at K: {at_k:?}");
        // At t = 12 s, 2.9 s past K, the curve is convex: W_max + 0.4 × 2.9^3 ≈ 1010.
        assert!(cwnd > 1008.0, "cwnd {cwnd}");
    }

    /// Fast convergence (§4.7): a loss before the window regains W_max lowers W_max to
    /// cwnd (1 + β) / 2.
    #[test]
    fn fast_convergence_releases_bandwidth_on_a_second_loss() {
        let mut c = Cubic::new(Params::default());
        c.on_loss(100.0);
        c.on_loss(80.0);
        assert!((c.w_max() - 80.0 * 1.7 / 2.0).abs() < 1e-9);
        let mut slow = Cubic::new(Params { fast_convergence: false, ..Params::default() });
        slow.on_loss(100.0);
        slow.on_loss(80.0);
        assert_eq!(slow.w_max(), 80.0);
    }

    /// The Reno-friendly region (§4.3): with a short RTT the cubic curve barely moves in a
    /// few RTTs, and cwnd grows by alpha_cubic = 3 (1 - β) / (1 + β) ≈ 0.53 segments per
    /// round trip, Reno's rate at the same average window.
    #[test]
    fn at_short_rtts_the_window_grows_at_least_as_reno_would() {
        let mut c = Cubic::new(Params::default());
        let mut cwnd = c.on_loss(1000.0);
        let rtt = Time::from_us(10);
        let mut now = Time::ZERO;
        for _ in 0..10 {
            let acks = cwnd.floor() as u64;
            for _ in 0..acks {
                cwnd = c.on_ack(now, cwnd, 1.0, rtt);
                now += Time::from_ps(rtt.ps() / acks);
            }
        }
        let alpha = 3.0 * 0.3 / 1.7;
        assert!((cwnd - (700.0 + 10.0 * alpha)).abs() < 0.2, "cwnd {cwnd}");
    }
}
