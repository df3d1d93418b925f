//! Proportional Rate Reduction (RFC 6937, slow-start reduction bound): spreads an ECN
//! window reduction over the round trip instead of stopping transmission, as Linux and
//! ns-3 do. The sender runs it whatever the controller (the controller gives ssthresh).

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
