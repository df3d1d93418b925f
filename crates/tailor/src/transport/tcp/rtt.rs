//! Round-trip estimation and the retransmission timeout (RFC 6298 §2).
//!
//! Samples come from the timestamp option (RFC 7323), so every advancing ACK gives one
//! and Karn's rule is not needed. RTO = max(min_rto, SRTT + max(G, 4·RTTVAR)) with clock
//! granularity G; before the first sample it is `initial`.

use crate::sim::Time;

#[derive(Copy, Clone, Debug)]
pub struct RttEstimator {
    srtt: Option<Time>,
    rttvar: Time,
    initial: Time,
    min_rto: Time,
    granularity: Time,
}

impl RttEstimator {
    pub fn new(initial: Time, min_rto: Time, granularity: Time) -> Self {
        RttEstimator { srtt: None, rttvar: Time::ZERO, initial, min_rto, granularity }
    }

    pub fn sample(&mut self, rtt: Time) {
        match self.srtt {
            None => {
                self.srtt = Some(rtt);
                self.rttvar = Time::from_ps(rtt.ps() / 2);
            }
            Some(srtt) => {
                let err = srtt.ps().abs_diff(rtt.ps());
                // RTTVAR <- 3/4 RTTVAR + 1/4 |SRTT - R'|;  SRTT <- 7/8 SRTT + 1/8 R'
                self.rttvar = Time::from_ps((3 * self.rttvar.ps() + err) / 4);
                self.srtt = Some(Time::from_ps((7 * srtt.ps() + rtt.ps()) / 8));
            }
        }
    }

    pub fn srtt(&self) -> Option<Time> {
        self.srtt
    }

    pub fn rto(&self) -> Time {
        match self.srtt {
            None => self.initial.max(self.min_rto),
            Some(srtt) => {
                let var = Time::from_ps(4 * self.rttvar.ps()).max(self.granularity);
                (srtt + var).max(self.min_rto)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rto_follows_rfc6298() {
        let mut r = RttEstimator::new(Time::from_ms(1), Time::from_us(200), Time::from_ps(1));
        assert_eq!(r.rto(), Time::from_ms(1));
        r.sample(Time::from_us(100));
        // SRTT 100, RTTVAR 50 -> 100 + 200 = 300 us.
        assert_eq!(r.rto(), Time::from_us(300));
        r.sample(Time::from_us(100));
        // RTTVAR 37.5 -> 100 + 150 = 250 us.
        assert_eq!(r.rto(), Time::from_us(250));
        for _ in 0..100 {
            r.sample(Time::from_us(10));
        }
        assert_eq!(r.rto(), Time::from_us(200), "floored at min_rto");
    }
}
