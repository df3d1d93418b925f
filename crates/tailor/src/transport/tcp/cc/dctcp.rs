//! DCTCP (RFC 8257 §3.3): alpha <- (1 - g) alpha + g F once per window of data, F the
//! fraction of acknowledged bytes whose ACK carried ECE; on ECE the window is cut to
//! (1 - alpha / 2) cwnd, at most once per window (the sender's CWR state, through PRR).
//! Growth and loss are Reno's.

use super::reno::Growth;
use super::{Ack, Controller, Window};

/// DCTCP's estimate of the fraction of marked bytes.
#[derive(Copy, Clone, Debug)]
pub struct Estimator {
    pub alpha: f64,
    pub g: f64,
    acked: u64,
    marked: u64,
    /// End of the current observation window (a sequence number); None before the
    /// first ACK.
    window_end: Option<u64>,
}

impl Estimator {
    pub fn new(g: f64, alpha: f64) -> Self {
        Estimator { alpha, g, acked: 0, marked: 0, window_end: None }
    }

    /// Accounts an advancing ACK. `snd_nxt` is the next sequence to send, before any
    /// transmission this ACK triggers.
    pub fn on_ack(&mut self, ack: u64, newly_acked: u64, ece: bool, snd_nxt: u64) {
        let end = *self.window_end.get_or_insert(snd_nxt);
        self.acked += newly_acked;
        if ece {
            self.marked += newly_acked;
        }
        if ack >= end {
            let f = if self.acked == 0 { 0.0 } else { self.marked as f64 / self.acked as f64 };
            self.alpha = (1.0 - self.g) * self.alpha + self.g * f;
            self.window_end = Some(snd_nxt);
            self.acked = 0;
            self.marked = 0;
        }
    }

    /// The slow-start threshold after a congestion signal: (1 - alpha/2) cwnd.
    pub fn ssthresh(&self, cwnd: u64) -> u64 {
        ((1.0 - self.alpha / 2.0) * cwnd as f64) as u64
    }
}

/// The DCTCP controller: Reno's growth and loss reaction, α's cut on ECN-Echo.
#[derive(Copy, Clone, Debug)]
pub struct Dctcp {
    est: Estimator,
    growth: Growth,
}

impl Dctcp {
    pub fn new(mss: u64, g: f64, initial_alpha: f64) -> Self {
        Dctcp { est: Estimator::new(g, initial_alpha), growth: Growth::new(mss) }
    }

    /// The current estimate α.
    pub fn alpha(&self) -> f64 {
        self.est.alpha
    }
}

impl Controller for Dctcp {
    fn on_ack(&mut self, w: &mut Window, a: &Ack) {
        w.cwnd = w.clamp(self.growth.grow(w.cwnd, w.ssthresh, a.segs));
    }

    fn on_ecn(&mut self, a: &Ack) {
        self.est.on_ack(a.ack, a.newly, a.ece, a.snd_nxt);
    }

    fn ecn(&self) -> bool {
        true
    }

    /// RFC 8257 §3.3: (1 − α/2) cwnd, at least one segment.
    fn ecn_ssthresh(&mut self, w: &Window) -> u64 {
        self.est.ssthresh(w.cwnd).max(w.mss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dctcp_alpha_moves_once_per_window_towards_marked_fraction() {
        let mut d = Estimator::new(1.0 / 16.0, 1.0);
        // Window ends at 10_000; half the bytes marked.
        d.on_ack(1_000, 1_000, true, 10_000);
        assert_eq!(d.alpha, 1.0, "no update inside the window");
        for i in 2..=10 {
            d.on_ack(i * 1_000, 1_000, i <= 5, 10_000);
        }
        let expected = 15.0 / 16.0 + 0.5 / 16.0;
        assert!((d.alpha - expected).abs() < 1e-12);
        assert_eq!(d.ssthresh(100_000), (100_000.0 * (1.0 - expected / 2.0)) as u64);
    }
}
