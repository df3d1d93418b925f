//! TIMELY (Mittal et al., "TIMELY: RTT-based Congestion Control for the Datacenter",
//! SIGCOMM 2015, §4 and Algorithm 1) as the HPCC authors' ns-3 programs run it: RTT
//! samples from the send time every data packet carries and its ACK echoes, one update
//! per window of data (the first ACK beyond the `snd_nxt` of the previous update), the
//! first of which only records the RTT.
//!
//! At an update with RTT r: the difference d = r − r_prev enters an EWMA,
//! δ ← (1 − α)·δ + α·d, and the gradient is g = δ / minRTT. Then:
//! - r < T_low: increase;
//! - r > T_high: R ← R·(1 − β·(1 − T_high/r));
//! - g ≤ 0: increase;
//! - else R ← R·max(0, 1 − β·g);
//!
//! where an increase adds R_AI, or R_HAI once five increases of any kind came in a row
//! (the paper's HAI counts negative gradients only; the programs count every increase),
//! and a decrease is floored at the minimum rate.

use super::{scale, Bounds, Feedback, RateControl};
use crate::sim::Time;

/// TIMELY's parameters (the programs' `RATE_AI`, `RATE_HAI` and their `Timely*`
/// attributes).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Params {
    /// EWMA weight of the newest RTT difference.
    pub alpha: f64,
    pub beta: f64,
    pub t_low: Time,
    pub t_high: Time,
    pub min_rtt: Time,
    pub rate_ai: u64,
    pub rate_hai: u64,
    pub bounds: Bounds,
}

/// Increases in a row before the step is R_HAI.
const HAI_AFTER: u32 = 5;

#[derive(Clone, Debug)]
pub struct Timely {
    p: Params,
    rate: u64,
    /// The EWMA of RTT differences, picoseconds.
    rtt_diff: f64,
    last_rtt: Time,
    inc_stage: u32,
    last_update_seq: u64,
}

impl Timely {
    pub fn new(p: Params) -> Timely {
        Timely { rate: p.bounds.line, p, rtt_diff: 0.0, last_rtt: Time::ZERO, inc_stage: 0, last_update_seq: 0 }
    }

    /// The normalized gradient the last update used.
    pub fn gradient(&self) -> f64 {
        self.rtt_diff / self.p.min_rtt.ps() as f64
    }

    fn update(&mut self, rtt: Time) {
        let new_diff = rtt.ps() as f64 - self.last_rtt.ps() as f64;
        let diff = (1.0 - self.p.alpha) * self.rtt_diff + self.p.alpha * new_diff;
        let gradient = diff / self.p.min_rtt.ps() as f64;
        let factor = if rtt < self.p.t_low {
            None
        } else if rtt > self.p.t_high {
            Some(1.0 - self.p.beta * (1.0 - self.p.t_high.ps() as f64 / rtt.ps() as f64))
        } else if gradient <= 0.0 {
            None
        } else {
            Some((1.0 - self.p.beta * gradient).max(0.0))
        };
        match factor {
            None => {
                let step = if self.inc_stage < HAI_AFTER { self.p.rate_ai } else { self.p.rate_hai };
                self.rate = (self.rate + step).min(self.p.bounds.line);
                self.inc_stage += 1;
            }
            Some(c) => {
                self.rate = scale(self.rate, c).max(self.p.bounds.min);
                self.inc_stage = 0;
            }
        }
        self.rtt_diff = diff;
    }
}

impl RateControl for Timely {
    fn rate(&self) -> u64 {
        self.rate
    }

    fn on_feedback(&mut self, fb: &Feedback) {
        if fb.ack <= self.last_update_seq {
            return;
        }
        if self.last_update_seq != 0 {
            self.update(fb.rtt);
        }
        if fb.snd_nxt > self.last_update_seq {
            self.last_update_seq = fb.snd_nxt;
            self.last_rtt = fb.rtt;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: u64 = 1_000_000_000;

    fn params(t_low: Time) -> Params {
        Params {
            alpha: 0.875,
            beta: 0.8,
            t_low,
            t_high: Time::from_us(500),
            min_rtt: Time::from_us(20),
            rate_ai: 10_000_000,
            rate_hai: 50_000_000,
            bounds: Bounds { line: 10 * G, min: 100_000_000 },
        }
    }

    /// Feeds one update per "window": ACK k covers byte k·1000 and snd_nxt is beyond it.
    fn feed(t: &mut Timely, rtts_us: &[u64]) -> Vec<u64> {
        rtts_us
            .iter()
            .enumerate()
            .map(|(k, r)| {
                let k = k as u64 + 1;
                let fb = Feedback {
                    now: Time::from_us(100 * k),
                    ack: 1000 * k,
                    ecn: false,
                    rtt: Time::from_us(*r),
                    int: None,
                    snd_nxt: 1000 * k + 500,
                };
                t.on_feedback(&fb);
                t.rate()
            })
            .collect()
    }

    /// RTT rising 1 µs per update from 20 µs with T_low below it, so the gradient path
    /// decides (docs/rdma.md, "TIMELY under a fixed gradient"): the EWMA of the
    /// differences approaches 1 µs, the gradient 1/20, the factor 1 − 0.8/20 = 0.96. By
    /// hand: 0.965, then 0.960625, 0.960078125, 0.960009766, 0.960001221 times the rate.
    #[test]
    fn a_fixed_gradient_gives_the_hand_computed_rates() {
        let mut t = Timely::new(params(Time::ZERO));
        let rates = feed(&mut t, &[20, 21, 22, 23, 24, 25]);
        assert_eq!(rates[0], 10 * G, "the first update only records the RTT");
        let want = [9.65e9, 9.270031250e9, 8.899954e9, 8.544043e9, 8.202292e9];
        for (got, want) in rates[1..].iter().zip(want) {
            assert!((*got as f64 - want).abs() < 2e3, "{got} vs {want}");
        }
        assert!((t.gradient() - 0.049998474).abs() < 1e-8);
    }

    /// Below T_low every update adds R_AI, and the sixth increase in a row adds R_HAI
    /// (the programs count increases of any kind).
    #[test]
    fn below_t_low_the_rate_rises_by_r_ai_then_r_hai() {
        let mut t = Timely::new(params(Time::from_us(50)));
        t.rate = 5 * G;
        let rates = feed(&mut t, &[20, 21, 22, 23, 24, 25, 26, 27]);
        let m = 1_000_000;
        assert_eq!(
            rates,
            vec![
                5 * G,
                5 * G + 10 * m,
                5 * G + 20 * m,
                5 * G + 30 * m,
                5 * G + 40 * m,
                5 * G + 50 * m,
                5 * G + 100 * m,
                5 * G + 150 * m
            ]
        );
    }

    /// Above T_high the cut is 1 − β(1 − T_high/r): at 1 ms, 1 − 0.8·0.5 = 0.6.
    #[test]
    fn above_t_high_the_cut_follows_the_rtt() {
        let mut t = Timely::new(params(Time::from_us(50)));
        let rates = feed(&mut t, &[20, 1000]);
        assert_eq!(rates[1], 6 * G);
    }
}
