//! HPCC's window law: Li et al., "HPCC: High Precision Congestion Control",
//! SIGCOMM 2019, Algorithm 1 (§3.2–§3.3).
//!
//! HPCC is a congestion controller over the TCP sender's reliability machinery (sequence
//! numbers, cumulative ACKs, fast retransmit, RTO), so it is a [`Controller`] of that
//! sender rather than a transport of its own: only the window law and the pacing differ,
//! and duplicating loss recovery would give two copies to keep in step. This module is
//! the law alone, fed the INT stack each ACK echoes (`net::int`):
//!
//! - **MeasureInflight**: per hop i, txRate = Δtx_bytes / Δts between this ACK's record
//!   and the previous ACK's, u_i = min(qlen, qlen_prev) / (B_i·T) + txRate / B_i; u is the
//!   largest u_i, τ that hop's Δts (at most T), and U ← (1 − τ/T)·U + (τ/T)·u.
//! - **ComputeWind**: if U ≥ η or incStage ≥ maxStage, W = W_c / (U/η) + W_AI (and incStage
//!   restarts); otherwise W = W_c + W_AI (incStage + 1). The reference window W_c (and
//!   incStage) only take the new value on the first ACK beyond `last_update_seq`, the
//!   snd_nxt of the previous reference update — once per round trip — so a burst of ACKs
//!   within one RTT does not compound the reaction.
//! - The sender paces at R = W / T, capped at the line rate, and W ≤ line rate × T.
//!
//! Where the paper is silent tailor does what HPCC's ns-3 model does: U starts at 1; the
//! first ACK only records the stack and sets `last_update_seq` (there is nothing to
//! difference it with); T is one base RTT for every flow (its scripts' `GLOBAL_T 1`).
//! A hop whose record comes from another port than last time (the path changed) or that
//! has no newer sample than the previous ACK's is skipped.

use super::{Ack, Controller, Window};
use crate::net::int::{Hop, Stack};
use crate::sim::{Rate, Time};

/// HPCC's parameters (docs/transport.md gives the defaults and why).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Params {
    /// Target utilization η.
    pub eta: f64,
    /// Additive-increase rounds before a multiplicative increase.
    pub max_stage: u32,
    /// Additive increase W_AI, bytes.
    pub w_ai: u64,
    /// Initial window W_init, bytes.
    pub w_init: u64,
    /// The base round-trip time T.
    pub base_rtt: Time,
    /// The sender's line rate: the pacing ceiling (and W ≤ line rate × T).
    pub line_rate: Rate,
}

impl Params {
    /// The window that paces at exactly the line rate: line rate × T, in bytes.
    pub fn w_max(&self) -> f64 {
        self.line_rate.bps() as f64 * self.base_rtt.ps() as f64 / 8e12
    }
}

#[derive(Clone, Debug)]
pub struct Control {
    p: Params,
    /// The window W (bytes), updated on every ACK.
    w: f64,
    /// The reference window W_c, updated once per round trip.
    wc: f64,
    /// The utilization estimate U.
    u: f64,
    inc_stage: u32,
    last_update_seq: u64,
    /// The stack of the previous ACK (L in Algorithm 1), None before the first.
    last: Option<Stack>,
}

impl Control {
    pub fn new(p: Params) -> Control {
        // W_init of a whole line-rate window (`init_cwnd = "bdp"`, rounded down to bytes)
        // paces at exactly the line rate.
        let w = if p.w_init as f64 >= p.w_max().floor() { p.w_max() } else { p.w_init as f64 };
        Control { p, w, wc: w, u: 1.0, inc_stage: 0, last_update_seq: 0, last: None }
    }

    /// The window W in bytes.
    pub fn window(&self) -> u64 {
        self.w as u64
    }
    /// The reference window W_c in bytes.
    pub fn reference(&self) -> u64 {
        self.wc as u64
    }
    pub fn utilization(&self) -> f64 {
        self.u
    }
    pub fn inc_stage(&self) -> u32 {
        self.inc_stage
    }
    pub fn params(&self) -> &Params {
        &self.p
    }

    /// Time to pace out `bytes` at R = W / T: the line rate's serialization time when W
    /// allows the line rate (exactly, so a lone flow meets its ideal), longer otherwise.
    pub fn gap(&self, bytes: u64) -> Time {
        let line = self.p.line_rate.ser(bytes);
        if self.w >= self.p.w_max() {
            return line;
        }
        let ps = (bytes as f64 * self.p.base_rtt.ps() as f64 / self.w).ceil() as u64;
        Time::from_ps(ps).max(line)
    }

    /// NewAck of Algorithm 1: an ACK for everything below `ack` arrived carrying `int`;
    /// `snd_nxt` is the next byte the sender would send.
    pub fn on_ack(&mut self, ack: u64, snd_nxt: u64, int: &Stack) {
        let Some(prev) = self.last.replace(*int) else {
            self.last_update_seq = snd_nxt;
            return;
        };
        if !self.measure_inflight(&prev, int) {
            return;
        }
        let update_wc = ack > self.last_update_seq;
        self.compute_wind(update_wc);
        if update_wc {
            self.last_update_seq = snd_nxt;
        }
    }

    /// Updates U from two consecutive stacks; false if no hop gave a new sample.
    fn measure_inflight(&mut self, prev: &Stack, int: &Stack) -> bool {
        let t = self.p.base_rtt.ps() as f64;
        let mut best: Option<(f64, u64)> = None;
        for (i, hop) in int.hops().iter().enumerate() {
            let Some(old) = prev.hops().get(i) else { continue };
            let Some(u) = hop_utilization(old, hop, t) else { continue };
            if best.is_none_or(|(b, _)| u > b) {
                best = Some((u, hop.ts.ps() - old.ts.ps()));
            }
        }
        let Some((u, tau)) = best else { return false };
        let frac = (tau as f64).min(t) / t;
        self.u = (1.0 - frac) * self.u + frac * u;
        true
    }

    fn compute_wind(&mut self, update_wc: bool) {
        let (eta, u) = (self.p.eta, self.u);
        let multiplicative = u >= eta || self.inc_stage >= self.p.max_stage;
        let w = if multiplicative {
            if u > 0.0 {
                self.wc / (u / eta) + self.p.w_ai as f64
            } else {
                f64::INFINITY
            }
        } else {
            self.wc + self.p.w_ai as f64
        };
        self.w = w.min(self.p.w_max());
        if update_wc {
            self.inc_stage = if multiplicative { 0 } else { self.inc_stage + 1 };
            self.wc = self.w;
        }
    }
}

/// HPCC's window is its own (W in the open state, set from every ACK's INT stack), and it
/// paces; a loss episode caps the window only until it ends, by NewReno's arithmetic: HPCC
/// has no loss reaction of its own (its paper assumes a lossless fabric; its ns-3 model
/// goes back N at an unchanged rate).
impl Controller for Control {
    fn initial_window(&self, _init: u64, _ceiling: Option<u64>) -> u64 {
        self.window()
    }
    /// No growth here: W comes from `on_int`.
    fn on_ack(&mut self, _w: &mut Window, _a: &Ack) {}
    fn on_int(&mut self, ack: u64, snd_nxt: u64, int: &Stack) {
        Control::on_ack(self, ack, snd_nxt, int);
    }
    fn owned_window(&self) -> Option<u64> {
        Some(self.window())
    }
    fn paces(&self) -> bool {
        true
    }
    fn pacing_gap(&self, bytes: u64) -> Time {
        self.gap(bytes)
    }
    fn telemetry(&self) -> bool {
        true
    }
}

/// u_i of Algorithm 1 line 5 for one hop, or None when the hop has no new sample.
fn hop_utilization(old: &Hop, new: &Hop, t_ps: f64) -> Option<f64> {
    if old.port != new.port || new.ts <= old.ts || new.tx_bytes < old.tx_bytes {
        return None;
    }
    let bps = new.rate.bps() as f64;
    let dt = (new.ts.ps() - old.ts.ps()) as f64;
    let tx = (new.tx_bytes - old.tx_bytes) as f64 * 8e12 / dt;
    let bdp_bytes = bps * t_ps / 8e12;
    Some(new.qlen.min(old.qlen) as f64 / bdp_bytes + tx / bps)
}
