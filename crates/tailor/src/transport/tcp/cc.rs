//! Congestion window arithmetic: Linux-style Reno growth, DCTCP's alpha, and
//! Proportional Rate Reduction.
//!
//! - Growth (RFC 5681, counted in segments as Linux `tcp_cong_avoid_ai` and ns-3's
//!   `TcpLinuxReno` do): slow start adds one MSS per segment acknowledged up to
//!   ssthresh; congestion avoidance adds one MSS per window's worth of segments.
//! - DCTCP (RFC 8257 §3.3): alpha <- (1 - g) alpha + g F once per window of data, F the
//!   fraction of acknowledged bytes whose ACK carried ECE; on ECE the window is cut to
//!   (1 - alpha / 2) cwnd, at most once per window.
//! - PRR (RFC 6937, slow-start reduction bound): spreads a window reduction over the
//!   round trip instead of stopping transmission, as Linux and ns-3 do.

/// Window growth state (bytes, except the AI counter which counts segments).
#[derive(Copy, Clone, Debug)]
pub struct Growth {
    pub mss: u64,
    /// Segments acknowledged since the last additive increase.
    ai_count: u64,
}

impl Growth {
    pub fn new(mss: u64) -> Self {
        Growth { mss, ai_count: 0 }
    }

    /// New cwnd after `segs` full segments were acknowledged in the open state.
    pub fn grow(&mut self, cwnd: u64, ssthresh: u64, segs: u64) -> u64 {
        if segs == 0 {
            return cwnd;
        }
        if cwnd < ssthresh {
            return (cwnd + segs * self.mss).min(ssthresh);
        }
        let w = (cwnd / self.mss).max(1);
        let mut cwnd = cwnd;
        if self.ai_count >= w {
            self.ai_count = 0;
            cwnd += self.mss;
        }
        self.ai_count += segs;
        if self.ai_count >= w {
            let inc = self.ai_count / w;
            self.ai_count -= inc * w;
            cwnd += inc * self.mss;
        }
        cwnd
    }
}

/// DCTCP's estimate of the fraction of marked bytes.
#[derive(Copy, Clone, Debug)]
pub struct Dctcp {
    pub alpha: f64,
    pub g: f64,
    acked: u64,
    marked: u64,
    /// End of the current observation window (a sequence number); None before the
    /// first ACK.
    window_end: Option<u64>,
}

impl Dctcp {
    pub fn new(g: f64, alpha: f64) -> Self {
        Dctcp { alpha, g, acked: 0, marked: 0, window_end: None }
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

/// Which Proportional Rate Reduction a sender runs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PrrVariant {
    /// RFC 6937 §3 with the slow-start reduction bound.
    Rfc6937,
    /// ns-3 3.37's `TcpPrrRecovery`: the data delivered by the ACK that starts the
    /// reduction is counted twice (its `DoRecovery` runs in `EnterCwr` and again in
    /// `ProcessAck`), and below ssthresh it sends min(delivered, ssthresh − pipe).
    /// For side-by-side comparisons with ns-3 (docs/transport.md, docs/validation.md).
    Ns3,
}

/// Proportional Rate Reduction during one reduction episode.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Prr {
    delivered: u64,
    out: u64,
    recover_fs: u64,
    variant: PrrVariant,
}

impl Prr {
    pub fn new(recover_fs: u64, variant: PrrVariant) -> Self {
        Prr { delivered: 0, out: 0, recover_fs: recover_fs.max(1), variant }
    }

    /// The congestion window on the ACK that starts the reduction.
    pub fn on_entry(&mut self, delivered: u64, pipe: u64, ssthresh: u64, mss: u64) -> u64 {
        if self.variant == PrrVariant::Ns3 {
            self.delivered += delivered;
        }
        self.on_ack(delivered, pipe, ssthresh, mss)
    }

    /// The congestion window after `delivered` more bytes left the network, with
    /// `pipe` bytes still in flight (RFC 6937 §3).
    pub fn on_ack(&mut self, delivered: u64, pipe: u64, ssthresh: u64, mss: u64) -> u64 {
        self.delivered += delivered;
        let sndcnt = if pipe > ssthresh {
            let num = self.delivered as u128 * ssthresh as u128;
            (num.div_ceil(self.recover_fs as u128) as u64).saturating_sub(self.out)
        } else if self.variant == PrrVariant::Ns3 {
            delivered.min(ssthresh - pipe)
        } else {
            let limit = self.delivered.saturating_sub(self.out).max(delivered) + mss;
            (ssthresh - pipe).min(limit)
        };
        let sndcnt = if self.out == 0 { sndcnt.max(mss) } else { sndcnt };
        pipe + sndcnt
    }

    pub fn on_sent(&mut self, bytes: u64) {
        self.out += bytes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_then_one_mss_per_window() {
        let mut g = Growth::new(1000);
        assert_eq!(g.grow(10_000, 12_000, 1), 11_000);
        assert_eq!(g.grow(11_500, 12_000, 1), 12_000, "slow start stops at ssthresh");
        // Congestion avoidance at 12 segments: +1 MSS after 12 segments acked.
        let mut cwnd = 12_000;
        for _ in 0..11 {
            cwnd = g.grow(cwnd, 12_000, 1);
        }
        assert_eq!(cwnd, 12_000);
        assert_eq!(g.grow(cwnd, 12_000, 1), 13_000);
    }

    #[test]
    fn dctcp_alpha_moves_once_per_window_towards_marked_fraction() {
        let mut d = Dctcp::new(1.0 / 16.0, 1.0);
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

    #[test]
    fn ns3_prr_counts_the_entry_ack_twice() {
        // alpha = 0.2: ssthresh = 0.9 cwnd. RFC 6937 lets one segment out on the entry ACK
        // (ceil(1000 * 0.9) = 900, raised to one MSS); ns-3 counts 2000 delivered: 1800.
        let mut rfc = Prr::new(100_000, PrrVariant::Rfc6937);
        let mut ns3 = Prr::new(100_000, PrrVariant::Ns3);
        assert_eq!(rfc.on_entry(1_000, 99_000, 90_000, 1_000), 100_000);
        assert_eq!(ns3.on_entry(1_000, 99_000, 90_000, 1_000), 100_800);
        // Below ssthresh ns-3 sends at most what was delivered, RFC 6937 one MSS more.
        let mut rfc = Prr::new(100_000, PrrVariant::Rfc6937);
        let mut ns3 = Prr::new(100_000, PrrVariant::Ns3);
        rfc.on_ack(5_000, 95_000, 90_000, 1_000);
        ns3.on_ack(5_000, 95_000, 90_000, 1_000);
        assert_eq!(rfc.on_ack(1_000, 80_000, 90_000, 1_000), 80_000 + 7_000);
        assert_eq!(ns3.on_ack(1_000, 80_000, 90_000, 1_000), 80_000 + 1_000);
    }

    #[test]
    fn prr_sends_in_proportion_while_pipe_exceeds_ssthresh() {
        let mut p = Prr::new(100_000, PrrVariant::Rfc6937);
        // ssthresh half of the flight: one MSS first (nothing sent yet), then about one
        // byte per two delivered.
        let cwnd = p.on_ack(1_000, 99_000, 50_000, 1_000);
        assert_eq!(cwnd, 100_000);
        p.on_sent(1_000);
        let cwnd = p.on_ack(1_000, 98_000, 50_000, 1_000);
        assert_eq!(cwnd, 98_000, "2000 delivered * 1/2 - 1000 out = 0");
        let cwnd = p.on_ack(2_000, 96_000, 50_000, 1_000);
        assert_eq!(cwnd, 97_000);
    }
}
