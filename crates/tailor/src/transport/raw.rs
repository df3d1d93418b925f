//! The raw message transport: no congestion control, no acknowledgements.
//!
//! The sender hands every packet of the message to its NIC at once (so packets leave at
//! line rate); the receiver counts bytes and the message completes when the last one
//! arrives. A lost packet is never recovered: the message stays incomplete. This is the
//! transport of queueing-theory checks (M/M/1 through one port) and a building block for
//! transports whose pacing lives elsewhere.

use crate::net::packet::{Ecn, Header};
use crate::sim::Time;
use crate::transport::Transmit;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Payload bytes per packet.
    pub mtu_payload: u32,
    /// Header bytes per packet on the wire.
    pub header: u32,
}

pub struct Sender {
    cfg: Config,
    size: u64,
    next: u64,
}

impl Sender {
    pub fn new(cfg: Config, size: u64) -> Sender {
        Sender { cfg, size, next: 0 }
    }

    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        if self.next >= self.size {
            return None;
        }
        let len = (self.cfg.mtu_payload as u64).min(self.size - self.next) as u32;
        let hdr = Header::Raw { offset: self.next, len };
        self.next += len as u64;
        Some(Transmit { hdr, wire_bytes: len + self.cfg.header, ecn: Ecn::NotEct, int: None })
    }
}

pub struct Receiver {
    size: u64,
    received: u64,
    pub completed_at: Option<Time>,
}

impl Receiver {
    pub fn new(size: u64) -> Receiver {
        Receiver { size, received: 0, completed_at: None }
    }

    pub fn handle_packet(&mut self, now: Time, hdr: &Header) {
        if let Header::Raw { len, .. } = *hdr {
            self.received += len as u64;
            if self.received >= self.size && self.completed_at.is_none() {
                self.completed_at = Some(now);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_sender_segments_the_message_and_receiver_completes_on_the_last_byte() {
        let cfg = Config { mtu_payload: 1000, header: 50 };
        let mut s = Sender::new(cfg, 2_500);
        let pkts: Vec<Transmit> = std::iter::from_fn(|| s.poll_transmit()).collect();
        assert_eq!(pkts.iter().map(|p| p.wire_bytes).collect::<Vec<_>>(), vec![1050, 1050, 550]);
        let mut r = Receiver::new(2_500);
        for (i, p) in pkts.iter().enumerate() {
            assert!(r.completed_at.is_none());
            r.handle_packet(Time::from_ns(i as u64), &p.hdr);
        }
        assert_eq!(r.completed_at, Some(Time::from_ns(2)));
    }
}
