//! The sender's record of one message (NDP §3.2–§3.3).
//!
//! It sends its first window blind; after that one packet per pull. What a pull sends is
//! decided when the packet leaves: a packet the receiver NACKed (or a timeout declared
//! lost) first, oldest first, then the next new one. A pull that finds nothing to send is
//! kept (NDP's cumulative pull number: htsim's `_last_pull < _max_pull`) and spent on the
//! next NACK. Every packet sent waits for its ACK or NACK; one silent for `rto` is sent
//! again at once (§3.3), which covers a lost packet, a lost header and a lost ACK.

use super::wire::{Kind, Layout, Wire};
use crate::sim::Time;
use crate::transport::Message;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// Where a packet of the message is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum State {
    Unsent,
    /// Sent, neither ACKed nor NACKed.
    InFlight,
    /// To be sent again (in `rtx`).
    Lost,
    Acked,
}

pub struct Outgoing {
    pub msg: Message,
    layout: Layout,
    state: Vec<State>,
    /// The next packet never sent.
    next_new: u32,
    /// Packets to send again, oldest loss first.
    rtx: VecDeque<u32>,
    /// When each packet in flight was sent.
    sent_at: FxHashMap<u32, Time>,
    /// The highest pull number heard.
    max_pull: u32,
    /// Pulls that found nothing to send, kept for the next NACK.
    pub banked: u32,
}

impl Outgoing {
    pub fn new(wire: &Wire, msg: Message) -> Outgoing {
        let layout = Layout::new(wire, msg.size);
        let n = layout.packets() as usize;
        Outgoing {
            msg,
            layout,
            state: vec![State::Unsent; n],
            next_new: 0,
            rtx: VecDeque::new(),
            sent_at: FxHashMap::default(),
            max_pull: 0,
            banked: 0,
        }
    }

    /// A pull numbered `pull`: how many packets it lets go (0 if an earlier pull already
    /// counted; pull numbers are cumulative, so a lost PULL is made good by the next).
    pub fn on_pull(&mut self, pull: u32) -> u32 {
        let new = pull.saturating_sub(self.max_pull);
        self.max_pull = self.max_pull.max(pull);
        new
    }

    /// The packet at `offset` arrived whole (also late, after a timeout declared it lost:
    /// it is then not sent again).
    pub fn on_ack(&mut self, offset: u64) {
        let i = self.layout.index_of(offset) as usize;
        if matches!(self.state.get(i), Some(State::InFlight | State::Lost)) {
            self.state[i] = State::Acked;
            self.sent_at.remove(&(i as u32));
        }
    }

    /// The packet at `offset` arrived trimmed: true if it now waits to be sent again.
    pub fn on_nack(&mut self, offset: u64) -> bool {
        let i = self.layout.index_of(offset);
        if self.state.get(i as usize) != Some(&State::InFlight) {
            return false;
        }
        self.sent_at.remove(&i);
        self.lose(i);
        true
    }

    fn lose(&mut self, i: u32) {
        self.state[i as usize] = State::Lost;
        self.rtx.push_back(i);
    }

    /// The next packet to send, if it has one: a lost one first, else the next new one.
    pub fn next_packet(&mut self, wire: &Wire, now: Time) -> Option<(Kind, u32, u32)> {
        while self.rtx.front().is_some_and(|&i| self.state[i as usize] != State::Lost) {
            self.rtx.pop_front();
        }
        let (i, retransmit) = match self.rtx.pop_front() {
            Some(i) => (i, true),
            None if (self.next_new as usize) < self.state.len() => {
                self.next_new += 1;
                (self.next_new - 1, false)
            }
            None => return None,
        };
        self.state[i as usize] = State::InFlight;
        self.sent_at.insert(i, now);
        let (offset, len) = self.layout.chunk(i);
        Some((Kind::Data { offset, len, retransmit }, wire.data(len), len))
    }

    /// Packets in flight for `rto` or longer (§3.3): lost, to be sent again at once, in
    /// the order they were sent. Returns how many.
    pub fn expire(&mut self, now: Time, rto: Time) -> u32 {
        let mut late: Vec<(Time, u32)> =
            self.sent_at.iter().filter(|(_, &t)| now - t >= rto).map(|(&i, &t)| (t, i)).collect();
        late.sort_unstable();
        for &(_, i) in &late {
            self.sent_at.remove(&i);
            self.lose(i);
        }
        late.len() as u32
    }

    /// Whether it has packets sent and not yet answered.
    pub fn in_flight(&self) -> bool {
        !self.sent_at.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::ids::{ClassId, ConnId, HostId};

    fn msg(size: u64) -> Message {
        Message {
            conn: ConnId { slot: 0, gen: 0 },
            class: ClassId::new(0),
            src: HostId::new(0),
            dst: HostId::new(1),
            size,
            start: Time::ZERO,
            rpc: Default::default(),
            channel: None,
        }
    }

    #[test]
    fn lost_packets_go_before_new_ones_and_timeouts_lose_only_silent_packets() {
        let w = Wire::PAPER;
        let mut o = Outgoing::new(&w, msg(4 * 1_442 + 10));
        let offsets: Vec<u64> = (0..3)
            .map(|i| match o.next_packet(&w, Time::from_ns(i)) {
                Some((Kind::Data { offset, retransmit: false, .. }, 1_538, 1_442)) => offset,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(offsets, vec![0, 1_442, 2_884]);
        o.on_ack(0);
        assert!(o.on_nack(1_442));
        assert!(!o.on_nack(1_442), "a second NACK of the same packet changes nothing");
        assert_eq!(
            o.next_packet(&w, Time::from_ns(5)).map(|p| p.0),
            Some(Kind::Data { offset: 1_442, len: 1_442, retransmit: true })
        );
        // Packet 2 (sent at 2 ns) and the retransmission (5 ns) are in flight.
        assert_eq!(o.expire(Time::from_ns(9), Time::from_ns(8)), 0);
        assert_eq!(o.expire(Time::from_ns(10), Time::from_ns(8)), 1, "only the packet sent at 2 ns");
        assert_eq!(
            o.next_packet(&w, Time::from_ns(11)).map(|p| p.0),
            Some(Kind::Data { offset: 2_884, len: 1_442, retransmit: true })
        );
        assert_eq!(o.next_packet(&w, Time::from_ns(12)).map(|p| (p.1, p.2)), Some((1_442 + 96, 1_442)));
        assert_eq!(o.next_packet(&w, Time::from_ns(13)).map(|p| (p.1, p.2)), Some((106, 10)), "the short last packet");
        assert_eq!(o.next_packet(&w, Time::from_ns(14)), None);
        assert_eq!((o.on_pull(3), o.on_pull(2), o.on_pull(5)), (3, 0, 2), "pull numbers are cumulative");
    }
}
