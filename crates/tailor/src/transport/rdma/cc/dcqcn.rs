//! DCQCN's reaction point (Zhu et al., "Congestion Control for Large-Scale RDMA
//! Deployments", SIGCOMM 2015, §3.1 and Fig. 7) in the form the HPCC authors' ns-3
//! programs run it, which their README calls Mellanox's ConnectX-4 version:
//!
//! - **α**: on the first CNP α = 1 and two periodic timers start, α's (every
//!   `alpha_interval`) and the decrease check (every `decrease_interval`, the first 1 ns
//!   later so that it follows α's update at the same instant). α ← (1 − g)·α + g if a CNP
//!   came in the period, else (1 − g)·α (§3.1 eq. 2).
//! - **Cut**: at a decrease check that saw a CNP since the last one, R_T ← R_C if the rate
//!   rose since the last cut (or `clamp_target`), R_C ← max(min, R_C·(1 − α/2)) (§3.1
//!   eq. 1), and the increase timer restarts.
//! - **Increase**: every `rp_timer` after a cut, at stage s (then s + 1): fast recovery
//!   R_C ← (R_C + R_T)/2 while s < F; additive increase R_T += R_AI at s = F; hyper
//!   increase R_T += R_HAI beyond (a constant step), R_T at most line rate, then R_C ←
//!   (R_C + R_T)/2.
//!
//! Where the programs differ from the paper, tailor follows the programs: the first CNP
//! does not cut (the rate on the first CNP is R_C), and CNPs are the ECN echoes of ACKs
//! unless `cnp_interval` asks for the paper's (`super::super`). The programs have no byte
//! counter; `byte_counter = B` adds the paper's (§3.1, as QCN): every B bytes sent after a
//! cut is an increase event too, and with the timer's count T and the byte counter's BC
//! since the cut, an event is fast recovery while max(T, BC) ≤ F, hyper increase by
//! i·R_HAI with i = min(T, BC) − F once both exceed F, and additive increase otherwise.

use super::{scale, Bounds, Feedback, RateControl};
use crate::sim::Time;

/// DCQCN's parameters (the programs' `EWMA_GAIN`, `ALPHA_RESUME_INTERVAL`,
/// `RATE_DECREASE_INTERVAL`, `RP_TIMER`, `FAST_RECOVERY_TIMES`, `RATE_AI`, `RATE_HAI`,
/// `CLAMP_TARGET_RATE`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Params {
    pub g: f64,
    pub alpha_interval: Time,
    pub decrease_interval: Time,
    pub rp_timer: Time,
    pub fast_recovery: u32,
    pub rate_ai: u64,
    pub rate_hai: u64,
    pub clamp_target: bool,
    /// The paper's byte counter B (bytes); None: the programs' timer alone.
    pub byte_counter: Option<u64>,
    pub bounds: Bounds,
}

/// A running timer: when it fires, and when it was set (ns-3 fires timers due at the
/// same instant in the order they were scheduled).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Due {
    at: Time,
    set: Time,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Which {
    Alpha,
    Decrease,
    Increase,
}

#[derive(Clone, Debug)]
pub struct Dcqcn {
    p: Params,
    /// R_C and R_T, bit/s.
    rate: u64,
    target: u64,
    alpha: f64,
    cnp_for_alpha: bool,
    cnp_for_decrease: bool,
    /// Increase events since the last cut (the timer's, with a byte counter).
    stage: u32,
    /// Byte-counter events since the last cut, and bytes sent towards the next.
    byte_stage: u32,
    bytes: u64,
    /// A cut happened, so increases run.
    cut_once: bool,
    first_cnp_seen: bool,
    alpha_timer: Option<Due>,
    decrease_timer: Option<Due>,
    increase_timer: Option<Due>,
}

impl Dcqcn {
    pub fn new(p: Params) -> Dcqcn {
        let line = p.bounds.line;
        Dcqcn {
            p,
            rate: line,
            target: line,
            alpha: 1.0,
            cnp_for_alpha: false,
            cnp_for_decrease: false,
            stage: 0,
            byte_stage: 0,
            bytes: 0,
            cut_once: false,
            first_cnp_seen: false,
            alpha_timer: None,
            decrease_timer: None,
            increase_timer: None,
        }
    }

    pub fn alpha(&self) -> f64 {
        self.alpha
    }
    pub fn target(&self) -> u64 {
        self.target
    }

    fn next(&self) -> Option<(Due, Which)> {
        [
            (self.alpha_timer, Which::Alpha),
            (self.decrease_timer, Which::Decrease),
            (self.increase_timer, Which::Increase),
        ]
        .into_iter()
        .filter_map(|(d, w)| Some((d?, w)))
        .min_by_key(|(d, _)| *d)
    }

    fn update_alpha(&mut self, now: Time) {
        let g = self.p.g;
        self.alpha = (1.0 - g) * self.alpha + if self.cnp_for_alpha { g } else { 0.0 };
        self.cnp_for_alpha = false;
        self.alpha_timer = Some(Due { at: now + self.p.alpha_interval, set: now });
    }

    fn check_decrease(&mut self, now: Time) {
        self.decrease_timer = Some(Due { at: now + self.p.decrease_interval, set: now });
        if !self.cnp_for_decrease {
            return;
        }
        if self.p.clamp_target || self.stage != 0 {
            self.target = self.rate;
        }
        self.rate = scale(self.rate, 1.0 - self.alpha / 2.0).max(self.p.bounds.min);
        self.stage = 0;
        self.byte_stage = 0;
        self.bytes = 0;
        self.cut_once = true;
        self.cnp_for_decrease = false;
        self.increase_timer = Some(Due { at: now + self.p.rp_timer, set: now });
    }

    fn increase(&mut self, now: Time) {
        self.increase_timer = Some(Due { at: now + self.p.rp_timer, set: now });
        if self.p.byte_counter.is_some() {
            self.stage += 1;
            self.paper_step();
            return;
        }
        let step = match self.stage.cmp(&self.p.fast_recovery) {
            std::cmp::Ordering::Less => 0,
            std::cmp::Ordering::Equal => self.p.rate_ai,
            std::cmp::Ordering::Greater => self.p.rate_hai,
        };
        self.raise(step);
        self.stage += 1;
    }

    /// An increase event of the paper's two counters, after the one that fired counted it.
    fn paper_step(&mut self) {
        let f = self.p.fast_recovery;
        let (hi, lo) = (self.stage.max(self.byte_stage), self.stage.min(self.byte_stage));
        let step = if hi <= f {
            0
        } else if lo > f {
            (lo - f) as u64 * self.p.rate_hai
        } else {
            self.p.rate_ai
        };
        self.raise(step);
    }

    /// R_T up by `step` (at most line rate), then R_C halfway to it.
    fn raise(&mut self, step: u64) {
        self.target = (self.target + step).min(self.p.bounds.line);
        self.rate = self.rate / 2 + self.target / 2;
    }
}

impl RateControl for Dcqcn {
    fn rate(&self) -> u64 {
        self.rate
    }

    fn on_feedback(&mut self, fb: &Feedback) {
        if !fb.ecn {
            return;
        }
        self.cnp_for_alpha = true;
        self.cnp_for_decrease = true;
        if !self.first_cnp_seen {
            self.first_cnp_seen = true;
            self.alpha = 1.0;
            self.cnp_for_alpha = false;
            self.alpha_timer = Some(Due { at: fb.now + self.p.alpha_interval, set: fb.now });
            let first = fb.now + self.p.decrease_interval + Time::from_ns(1);
            self.decrease_timer = Some(Due { at: first, set: fb.now });
            self.target = self.rate;
        }
    }

    fn next_timer(&self) -> Option<Time> {
        self.next().map(|(d, _)| d.at)
    }

    fn on_sent(&mut self, bytes: u64) {
        let Some(b) = self.p.byte_counter.filter(|_| self.cut_once) else { return };
        self.bytes += bytes;
        while self.bytes >= b {
            self.bytes -= b;
            self.byte_stage += 1;
            self.paper_step();
        }
    }

    fn on_timer(&mut self, now: Time) {
        while let Some((due, which)) = self.next().filter(|(d, _)| d.at <= now) {
            match which {
                Which::Alpha => self.update_alpha(due.at),
                Which::Decrease => self.check_decrease(due.at),
                Which::Increase => self.increase(due.at),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const G: u64 = 1_000_000_000;

    fn params() -> Params {
        // run.py's `dcqcn_paper` at 40 Gb/s: α and decrease every 50 µs, RP timer 55 µs,
        // F = 1, R_AI = 5·40/25 = 8 Mb/s, R_HAI = 50·40/25 = 80 Mb/s.
        Params {
            g: 1.0 / 256.0,
            alpha_interval: Time::from_us(50),
            decrease_interval: Time::from_us(50),
            rp_timer: Time::from_us(55),
            fast_recovery: 1,
            rate_ai: 8_000_000,
            rate_hai: 80_000_000,
            clamp_target: false,
            byte_counter: None,
            bounds: Bounds { line: 40 * G, min: 100_000_000 },
        }
    }

    fn cnp(d: &mut Dcqcn, at: Time) {
        let fb = Feedback { now: at, ack: 0, ecn: true, rtt: Time::ZERO, int: None, snd_nxt: 0 };
        d.on_feedback(&fb);
    }

    /// One CNP at t = 0 and none after, worked by hand from the rules above
    /// (docs/rdma.md, "DCQCN's rate trace"): no cut at the CNP; α = 255/256 at 50 µs; the
    /// cut at 50.001 µs to 40·(1 − 0.498046875) = 20.078125 Gb/s; then every 55 µs one
    /// fast-recovery step, one additive step (R_T pinned at line rate) and hyper steps,
    /// each halving the distance to 40 Gb/s.
    #[test]
    fn one_cnp_gives_the_hand_computed_rate_trace() {
        let mut d = Dcqcn::new(params());
        cnp(&mut d, Time::ZERO);
        assert_eq!(d.rate(), 40 * G, "the first CNP does not cut");
        d.on_timer(Time::from_us(50));
        assert_eq!(d.alpha(), 255.0 / 256.0);
        assert_eq!(d.rate(), 40 * G);
        let cut = Time::from_us(50) + Time::from_ns(1);
        assert_eq!(d.next_timer(), Some(cut));
        d.on_timer(cut);
        assert_eq!(d.rate(), 20_078_125_000);
        let expected = [30_039_062_500u64, 35_019_531_250, 37_509_765_625, 38_754_882_812, 39_377_441_406];
        for (k, want) in expected.iter().enumerate() {
            let at = cut + Time::from_us(55 * (k as u64 + 1));
            d.on_timer(at);
            assert_eq!(d.rate(), *want, "increase event {}", k + 1);
            assert_eq!(d.target(), 40 * G);
        }
        // α decayed once per 50 µs tick: 6 ticks by 325 µs.
        let ticks = 6;
        assert!((d.alpha() - (255.0f64 / 256.0).powi(ticks)).abs() < 1e-12, "{}", d.alpha());
    }

    /// A second CNP after the rate rose clamps the target to the current rate (the stage
    /// is not 0), and the cut uses α as its timer left it.
    #[test]
    fn a_cnp_after_an_increase_clamps_the_target() {
        let mut d = Dcqcn::new(params());
        cnp(&mut d, Time::ZERO);
        let cut = Time::from_us(50) + Time::from_ns(1);
        d.on_timer(cut);
        d.on_timer(cut + Time::from_us(55));
        assert_eq!(d.rate(), 30_039_062_500);
        let at = cut + Time::from_us(60);
        cnp(&mut d, at);
        d.on_timer(cut + Time::from_us(100));
        let alpha = d.alpha();
        assert_eq!(d.target(), 30_039_062_500);
        assert_eq!(d.rate(), scale(30_039_062_500, 1.0 - alpha / 2.0));
    }

    /// The paper's two counters, F = 5, B = 1 MB (no bytes count before the first cut):
    /// five byte events (BC = 1..5) and five timer events (T = 1..5) are fast recovery;
    /// the sixth timer event (T = 6, BC = 5) is additive; the sixth byte event (T = 6,
    /// BC = 6) the first hyper increase, i = 1; the next timer event (T = 7, BC = 6) hyper
    /// with i = 1 again.
    #[test]
    fn the_byte_counter_counts_increase_events_as_the_paper_does() {
        let mut p = params();
        p.fast_recovery = 5;
        p.byte_counter = Some(1_000_000);
        let mut d = Dcqcn::new(p);
        cnp(&mut d, Time::ZERO);
        d.on_sent(3_000_000);
        assert_eq!(d.byte_stage, 0, "before the first cut no byte counts");
        let cut = Time::from_us(50) + Time::from_ns(1);
        d.on_timer(cut);
        // R_T up by `step`, then R_C halfway to it.
        let next = |(r, t): (u64, u64), step: u64| {
            let t = (t + step).min(40 * G);
            (r / 2 + t / 2, t)
        };
        let mut want = (d.rate(), d.target());
        d.on_sent(5_000_000);
        for _ in 0..5 {
            want = next(want, 0); // BC = 1..5, T = 0: fast recovery
        }
        assert_eq!((d.rate(), d.target()), want);
        let mut at = cut;
        for k in 1..=6u64 {
            at += Time::from_us(55);
            d.on_timer(at);
            // T = k, BC = 5: fast recovery while k ≤ 5, then additive.
            want = next(want, if k <= 5 { 0 } else { 8_000_000 });
            assert_eq!((d.rate(), d.target()), want, "timer event {k}");
        }
        d.on_sent(1_000_000);
        want = next(want, 80_000_000);
        assert_eq!((d.rate(), d.target()), want, "BC = 6, T = 6: hyper, i = 1");
        at += Time::from_us(55);
        d.on_timer(at);
        want = next(want, 80_000_000);
        assert_eq!((d.rate(), d.target()), want, "T = 7, BC = 6: hyper, i = 1");
    }

    /// Without a CNP, nothing runs: no timer, line rate.
    #[test]
    fn no_cnp_no_timers() {
        let mut d = Dcqcn::new(params());
        let fb = Feedback { now: Time::from_us(3), ack: 1000, ecn: false, rtt: Time::ZERO, int: None, snd_nxt: 2000 };
        d.on_feedback(&fb);
        assert_eq!(d.next_timer(), None);
        assert_eq!(d.rate(), 40 * G);
    }
}
