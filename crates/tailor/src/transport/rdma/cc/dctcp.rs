//! DCTCP's law (Alizadeh et al., SIGCOMM 2010, §3.1 eq. 1 and §3.2) on a rate instead of
//! a window, as the HPCC authors' ns-3 programs run it in the NIC (`CC_MODE 8`): per
//! batch of data (from one update's `snd_nxt` to the next), F = marked ACKs / packets
//! in the batch, α ← (1 − g)·α + g·F; on an ECN echo outside CWR, R ← max(min, R·(1 −
//! α/2)) and CWR lasts until the ACK passes the `snd_nxt` of the cut; outside CWR each new
//! batch adds `rate_ai` (their 615 Mb/s is one 1 kB packet per 13 µs round trip). α
//! starts at 1, the rate at line rate; there is no slow start.

use super::{scale, Bounds, Feedback, RateControl};

/// DCTCP's parameters (the programs' `EWMA_GAIN`, `DCTCP_RATE_AI` and payload size).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Params {
    pub g: f64,
    pub rate_ai: u64,
    /// Payload bytes per packet (counts a batch's packets).
    pub mss: u64,
    pub bounds: Bounds,
}

#[derive(Clone, Debug)]
pub struct Dctcp {
    p: Params,
    rate: u64,
    alpha: f64,
    marked: u64,
    batch: u64,
    last_update_seq: u64,
    /// In CWR until an ACK passes this sequence.
    cwr_until: Option<u64>,
}

impl Dctcp {
    pub fn new(p: Params) -> Dctcp {
        Dctcp { rate: p.bounds.line, p, alpha: 1.0, marked: 0, batch: 1, last_update_seq: 0, cwr_until: None }
    }

    pub fn alpha(&self) -> f64 {
        self.alpha
    }
}

impl RateControl for Dctcp {
    fn rate(&self) -> u64 {
        self.rate
    }

    fn on_feedback(&mut self, fb: &Feedback) {
        self.marked += fb.ecn as u64;
        let new_batch = fb.ack > self.last_update_seq;
        if new_batch {
            if self.last_update_seq == 0 {
                self.batch = fb.snd_nxt / self.p.mss + 1;
            } else {
                let f = (self.marked as f64 / self.batch as f64).min(1.0);
                self.alpha = (1.0 - self.p.g) * self.alpha + self.p.g * f;
                self.marked = 0;
                self.batch = (fb.snd_nxt - fb.ack.min(fb.snd_nxt)) / self.p.mss + 1;
            }
            self.last_update_seq = fb.snd_nxt;
        }
        if self.cwr_until.is_some_and(|high| fb.ack > high) {
            self.cwr_until = None;
        }
        if fb.ecn && self.cwr_until.is_none() {
            self.rate = scale(self.rate, 1.0 - self.alpha / 2.0).max(self.p.bounds.min);
            self.cwr_until = Some(fb.snd_nxt);
        }
        if self.cwr_until.is_none() && new_batch {
            self.rate = (self.rate + self.p.rate_ai).min(self.p.bounds.line);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Time;

    const G: u64 = 1_000_000_000;

    fn ack(d: &mut Dctcp, ack: u64, snd_nxt: u64, ecn: bool) -> u64 {
        d.on_feedback(&Feedback { now: Time::ZERO, ack, ecn, rtt: Time::ZERO, int: None, snd_nxt });
        d.rate()
    }

    /// The first mark halves the rate (α starts at 1); marks within CWR do not cut
    /// again; after CWR each new batch adds R_AI; α follows the marked fraction.
    #[test]
    fn cuts_once_per_window_and_tracks_the_marked_fraction() {
        let p = Params { g: 1.0 / 16.0, rate_ai: 615_000_000, mss: 1000, bounds: Bounds { line: 100 * G, min: G } };
        let mut d = Dctcp::new(p);
        // First ACK opens the first batch (10 packets in flight) at line rate + nothing.
        assert_eq!(ack(&mut d, 1000, 10_000, false), 100 * G);
        // A marked ACK inside the batch: cut to 50 Gb/s, CWR until 11,000.
        assert_eq!(ack(&mut d, 2000, 11_000, true), 50 * G);
        // Another mark in CWR: no cut.
        assert_eq!(ack(&mut d, 3000, 12_000, true), 50 * G);
        // The ACK passing 10,000 ends the batch: F = 2/11, α = 15/16 + 2/176; still CWR.
        assert_eq!(ack(&mut d, 10_500, 20_000, false), 50 * G);
        assert!((d.alpha() - (15.0 / 16.0 + 2.0 / 11.0 / 16.0)).abs() < 1e-12);
        // Past 11,000: CWR ends; no new batch (20,000 not passed), so no increase yet.
        assert_eq!(ack(&mut d, 11_500, 21_000, false), 50 * G);
        // The batch ends at 20,000: + R_AI.
        assert_eq!(ack(&mut d, 20_500, 30_000, false), 50 * G + 615_000_000);
    }
}
