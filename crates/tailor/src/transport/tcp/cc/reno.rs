//! Reno's window growth (RFC 5681), counted in segments as Linux `tcp_cong_avoid_ai` and
//! ns-3's `TcpLinuxReno` do: slow start adds one MSS per segment acknowledged up to
//! ssthresh; congestion avoidance adds one MSS per window's worth of segments. NewReno,
//! DCTCP and CUBIC's slow start grow by it.

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
}
