//! NewReno (RFC 5681, RFC 6582): Reno's growth; a loss halves the flight, an ECN-Echo
//! under RFC 3168 halves cwnd (the trait's defaults). Fast recovery itself is the
//! sender's.

use super::reno::Growth;
use super::{Ack, Controller, Window};

#[derive(Copy, Clone, Debug)]
pub struct NewReno {
    growth: Growth,
}

impl NewReno {
    pub fn new(mss: u64) -> Self {
        NewReno { growth: Growth::new(mss) }
    }
}

impl Controller for NewReno {
    fn on_ack(&mut self, w: &mut Window, a: &Ack) {
        w.cwnd = w.clamp(self.growth.grow(w.cwnd, w.ssthresh, a.segs));
    }
}
