//! The receiving side of one message: which packets arrived, and the ACK each arrival
//! earns. Every data packet is acknowledged at once (ns-2 `segsperack_ 1`), duplicates
//! and probes too, with the cumulative ACK and the packet answered (a one-packet SACK
//! block: every packet has its own ACK, so one block per ACK tells the sender what
//! several blocks would unless ACKs are lost). The message is complete when its last
//! missing packet arrives: completion is measured at the receiver, as the Homa authors
//! measured pFabric (their `outputParser.py`, `twoWayStretch = False`).

use super::sender::Bits;
use super::wire::Segment;

pub struct Receiver {
    packets: u64,
    got: Bits,
    /// The first packet missing.
    cum: u64,
}

impl Receiver {
    pub fn new(packets: u64) -> Receiver {
        Receiver { packets, got: Bits::with_len(packets), cum: 0 }
    }

    /// Packet `index` arrived; false if it was a duplicate (or not of this message).
    pub fn on_data(&mut self, index: u64) -> bool {
        if index >= self.packets || !self.got.insert(index) {
            return false;
        }
        while self.cum < self.packets && self.got.get(self.cum) {
            self.cum += 1;
        }
        true
    }

    /// The ACK of packet `answered` (None: of a probe).
    pub fn ack(&self, answered: Option<u64>) -> Segment {
        Segment::Ack { cum: self.cum, sack: answered }
    }

    pub fn is_complete(&self) -> bool {
        self.cum >= self.packets
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cumulative_ack_jumps_over_what_arrived_out_of_order() {
        let mut r = Receiver::new(4);
        assert!(r.on_data(1) && r.on_data(3));
        assert_eq!(r.ack(Some(3)), Segment::Ack { cum: 0, sack: Some(3) });
        assert!(!r.on_data(1), "a duplicate");
        assert!(!r.on_data(9), "not a packet of the message");
        assert!(r.on_data(0));
        assert_eq!(r.ack(Some(0)), Segment::Ack { cum: 2, sack: Some(0) });
        assert!(!r.is_complete());
        assert!(r.on_data(2));
        assert!(r.is_complete());
        assert_eq!(r.ack(None), Segment::Ack { cum: 4, sack: None });
    }
}
