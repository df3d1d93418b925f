//! HPCC (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019, §3.2–§3.3,
//! Algorithm 1) as the HPCC authors' ns-3 programs run it (`CC_MODE 3`, `MULTI_RATE 0`),
//! on a rate rather than tailor's own HPCC's window (`transport::tcp::cc::hpcc`, which
//! runs over TCP's loss recovery; docs/rdma.md lists the differences):
//!
//! - per hop i of the INT stack the ACK echoes, against the stack of the previous ACK:
//!   txRate_i = Δbytes/Δt, u_i = txRate_i/B_i + min(qlen, qlen_prev)·R_max/(B_i·W);
//! - the largest u_i and its Δt = τ (at most T) update U ← (U·(T − τ) + u·τ)/T on every
//!   ACK;
//! - k = U/η: if k ≥ 1 or the stage reached `max_stage`, R = R_c/k + R_AI (stage 0), else
//!   R = R_c + R_AI (stage + 1), R within [min, line rate];
//! - R applies at once and re-times the next packet (`ChangeRate`); R_c and the stage
//!   take it only on the first ACK beyond the `snd_nxt` of the last reference update,
//!   once per round trip, so ACKs in between react from the same R_c (`FAST_REACT`).
//!
//! The programs stamp INT only at switches, so the sender's own NIC hop, which tailor's
//! ports stamp first, is left out. Their hop records hold the port's bytes sent in units of
//! 128·`int_multi` B and its queue in units of 80·`int_multi` B (`INT_MULTI`, which their
//! `run.py` sets to the line rate over 25 Gb/s so the fields do not wrap); the records are
//! read here in those units, truncated as theirs are. The very first ACK only records the
//! stack.

use super::{Bounds, Feedback, RateControl};
use crate::net::int::{Hop, MAX_HOPS};
use crate::sim::Time;

/// HPCC's parameters (the programs' `U_TARGET`, `MI_THRESH`, `RATE_AI`, `FAST_REACT`, the
/// base round trip T and the window W it normalizes queues by).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Params {
    pub eta: f64,
    pub max_stage: u32,
    pub rate_ai: u64,
    pub fast_react: bool,
    pub base_rtt: Time,
    /// W, bytes: the window of a line-rate flow over T.
    pub window: u64,
    /// The INT fields' unit multiplier (`INT_MULTI`); 0 reads the records exactly.
    pub int_multi: u32,
    pub bounds: Bounds,
}

/// A hop record as the programs' 64-bit INT field holds it: bytes sent in units of
/// 128·m B and the queue in units of 80·m B, truncated.
fn quantized(h: Hop, m: u32) -> Hop {
    if m == 0 {
        return h;
    }
    let (bytes, qlen) = (128 * m as u64, 80 * m as u64);
    Hop { tx_bytes: h.tx_bytes / bytes * bytes, qlen: h.qlen / qlen * qlen, ..h }
}

#[derive(Clone, Debug)]
pub struct Hpcc {
    p: Params,
    rate: u64,
    /// The reference rate R_c.
    reference: u64,
    u: f64,
    stage: u32,
    last_update_seq: u64,
    hops: [Option<Hop>; MAX_HOPS],
}

impl Hpcc {
    pub fn new(p: Params) -> Hpcc {
        let line = p.bounds.line;
        Hpcc { p, rate: line, reference: line, u: 1.0, stage: 0, last_update_seq: 0, hops: [None; MAX_HOPS] }
    }

    pub fn utilization(&self) -> f64 {
        self.u
    }

    /// The largest u_i of this stack against the stored one, and its τ (ps); the stack
    /// is stored. None if no hop could be differenced.
    fn measure(&mut self, hops: &[Hop]) -> Option<(f64, u64)> {
        let mut max: Option<(f64, u64)> = None;
        let line = self.p.bounds.line as f64;
        for (i, h) in hops.iter().enumerate().take(MAX_HOPS) {
            let h = &quantized(*h, self.p.int_multi);
            let prev = self.hops[i].replace(*h);
            let Some(prev) = prev.filter(|p| p.port == h.port && h.ts > p.ts) else { continue };
            let tau = (h.ts - prev.ts).ps();
            let b = h.rate.bps() as f64;
            let tx_rate = (h.tx_bytes.saturating_sub(prev.tx_bytes) * 8) as f64 / (tau as f64 * 1e-12);
            let u = tx_rate / b + h.qlen.min(prev.qlen) as f64 * line / b / self.p.window as f64;
            if max.is_none_or(|(m, _)| u > m) {
                max = Some((u, tau));
            }
        }
        max
    }
}

impl RateControl for Hpcc {
    fn rate(&self) -> u64 {
        self.rate
    }

    fn retimes(&self) -> bool {
        true
    }

    fn on_feedback(&mut self, fb: &Feedback) {
        let Some(stack) = fb.int else { return };
        // The sender's NIC stamped the first hop; the programs' hosts stamp none.
        let hops = stack.hops().get(1..).unwrap_or(&[]);
        if self.last_update_seq == 0 {
            self.last_update_seq = fb.snd_nxt;
            for (i, h) in hops.iter().enumerate().take(MAX_HOPS) {
                self.hops[i] = Some(quantized(*h, self.p.int_multi));
            }
            return;
        }
        let full = fb.ack > self.last_update_seq;
        if !full && !self.p.fast_react {
            return;
        }
        let Some((umax, tau)) = self.measure(hops) else { return };
        let t = self.p.base_rtt.ps() as f64;
        let tau = (tau as f64).min(t);
        self.u = (self.u * (t - tau) + umax * tau) / t;
        let k = self.u / self.p.eta;
        let (rate, stage) = if k >= 1.0 || self.stage >= self.p.max_stage {
            ((self.reference as f64 / k) as u64 + self.p.rate_ai, 0)
        } else {
            (self.reference + self.p.rate_ai, self.stage + 1)
        };
        self.rate = self.p.bounds.clamp(rate);
        if full {
            self.reference = self.rate;
            self.stage = stage;
            self.last_update_seq = fb.snd_nxt;
        }
    }
}

#[cfg(test)]
mod tests {
    /// Their units at INT_MULTI 4: 512 B of bytes sent, 320 B of queue, truncated.
    #[test]
    fn records_are_read_in_their_units() {
        let h = Hop { port: PortId::new(1), qlen: 1_000, tx_bytes: 1_090, ts: Time::ZERO, rate: Rate::from_bps(G) };
        let q = quantized(h, 4);
        assert_eq!((q.tx_bytes, q.qlen), (1_024, 960));
        assert_eq!(quantized(h, 0), h);
    }

    use super::*;
    use crate::net::ids::PortId;
    use crate::net::int::Stack;
    use crate::sim::Rate;

    const G: u64 = 1_000_000_000;

    fn stack(ts_ns: u64, tx_bytes: u64, qlen: u64) -> Stack {
        let nic =
            Hop { port: PortId::new(0), qlen: 0, tx_bytes: 0, ts: Time::from_ns(ts_ns), rate: Rate::from_bps(100 * G) };
        let sw = Hop { port: PortId::new(7), qlen, tx_bytes, ts: Time::from_ns(ts_ns), rate: Rate::from_bps(100 * G) };
        Stack::of(&[nic, sw])
    }

    /// One hop at 100 Gb/s, T = 10 µs, W = 125,000 B: the hop sent 12,500 B in 1 µs
    /// (100 Gb/s, txRate/B = 1) with 62,500 B queued both times (half of W: +0.5), so
    /// u = 1.5 and U = (1·9 + 1.5·1)/10 = 1.05; k = 1.05/0.95; R = 100 G/k + R_AI.
    #[test]
    fn a_full_update_follows_algorithm_1_by_hand() {
        let p = Params {
            eta: 0.95,
            max_stage: 0,
            rate_ai: 50_000_000,
            fast_react: true,
            base_rtt: Time::from_us(10),
            window: 125_000,
            int_multi: 0,
            bounds: Bounds { line: 100 * G, min: 100_000_000 },
        };
        let mut h = Hpcc::new(p);
        let s0 = stack(1_000, 0, 62_500);
        h.on_feedback(&Feedback {
            now: Time::ZERO,
            ack: 1000,
            ecn: false,
            rtt: Time::ZERO,
            int: Some(&s0),
            snd_nxt: 5000,
        });
        assert_eq!(h.rate(), 100 * G, "the first ACK only records the stack");
        let s1 = stack(2_000, 12_500, 62_500);
        h.on_feedback(&Feedback {
            now: Time::ZERO,
            ack: 6000,
            ecn: false,
            rtt: Time::ZERO,
            int: Some(&s1),
            snd_nxt: 9000,
        });
        assert!((h.utilization() - 1.05).abs() < 1e-12, "{}", h.utilization());
        let want = (100e9 / (1.05 / 0.95)) as u64 + 50_000_000;
        assert_eq!(h.rate(), want);
        // A fast reaction (ACK 7000 ≤ 9000) computes from R_c, not from the rate just set.
        let s2 = stack(3_000, 25_000, 62_500);
        h.on_feedback(&Feedback {
            now: Time::ZERO,
            ack: 7000,
            ecn: false,
            rtt: Time::ZERO,
            int: Some(&s2),
            snd_nxt: 10_000,
        });
        let u = (1.05 * 9.0 + 1.5) / 10.0;
        assert!((h.utilization() - u).abs() < 1e-12);
        assert_eq!(h.rate(), (want as f64 / (u / 0.95)) as u64 + 50_000_000);
    }
}
