//! The receiver's record of one message (NDP §3.2–§3.3): which packets arrived, and what
//! its pulls will bring.
//!
//! Each DATA packet or trimmed header that arrives adds one pull request (§3.3). The
//! receiver knows the message's size from its first packet, so it knows what the sender
//! still has to send: the packets it NACKed and has not pulled for yet, then the packets
//! never sent. It keeps no more pull requests than that (htsim sends pulls until the last
//! packet arrives and its sender ignores those that find nothing), and it knows the size
//! of the packet each pull brings, which paces the next pull (a short last packet frees
//! the downlink sooner).

use super::wire::{Layout, Wire};
use crate::net::ids::{ClassId, ConnId, HostId};
use crate::sim::Time;
use std::collections::VecDeque;

pub struct Incoming {
    pub conn: ConnId,
    pub src: HostId,
    pub class: ClassId,
    layout: Layout,
    got: Vec<bool>,
    received: u32,
    /// Trimmed packets not pulled for yet, oldest first.
    nacked: VecDeque<u32>,
    /// The next new packet a pull will bring (the first window is sent blind).
    next_new: u32,
    /// Pull requests waiting, and whether it is in the pull queue for them.
    pub queued: u32,
    pub in_queue: bool,
    /// Pulls sent: the cumulative pull number.
    pub pulls: u32,
    /// The last time a packet of it arrived.
    pub last_heard: Time,
}

/// What an arriving packet was to the message.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// Its payload was new.
    New,
    /// Its payload had already arrived (a retransmission after a timeout).
    Duplicate,
    /// It was trimmed and its payload has not arrived: NACK it.
    Trimmed,
}

impl Incoming {
    /// A message of `size` bytes whose sender sends `blind` packets before any pull.
    pub fn new(wire: &Wire, conn: ConnId, src: HostId, class: ClassId, size: u64, blind: u32, now: Time) -> Incoming {
        let layout = Layout::new(wire, size);
        let n = layout.packets();
        Incoming {
            conn,
            src,
            class,
            layout,
            got: vec![false; n as usize],
            received: 0,
            nacked: VecDeque::new(),
            next_new: blind.min(n),
            queued: 0,
            in_queue: false,
            pulls: 0,
            last_heard: now,
        }
    }

    pub fn index_of(&self, offset: u64) -> u32 {
        self.layout.index_of(offset).min(self.layout.packets() - 1)
    }

    /// Packet `i` arrived, `trimmed` or whole; one more pull request (§3.3), as many as
    /// the sender still has packets to send.
    pub fn arrive(&mut self, i: u32, trimmed: bool, now: Time) -> Arrival {
        self.last_heard = now;
        let seen = self.got[i as usize];
        let what = match (trimmed, seen) {
            (_, true) => Arrival::Duplicate,
            (true, false) => {
                self.nacked.push_back(i);
                Arrival::Trimmed
            }
            (false, false) => {
                self.got[i as usize] = true;
                self.received += 1;
                Arrival::New
            }
        };
        self.queued = (self.queued + 1).min(self.pullable());
        what
    }

    /// Packets the sender still has to send that no pull has asked for yet.
    pub fn pullable(&self) -> u32 {
        self.nacked.len() as u32 + (self.layout.packets() - self.next_new)
    }

    /// One pull: its cumulative number and the wire bytes of the packet it brings (a
    /// trimmed one first, as the sender sends them first), or None if none is owed.
    pub fn take_pull(&mut self, wire: &Wire) -> Option<(u32, u32)> {
        if self.queued == 0 {
            return None;
        }
        let i = match self.nacked.pop_front() {
            Some(i) => i,
            None if self.next_new < self.layout.packets() => {
                self.next_new += 1;
                self.next_new - 1
            }
            None => return None,
        };
        self.pulls += 1;
        self.queued = (self.queued - 1).min(self.pullable());
        Some((self.pulls, wire.data(self.layout.chunk(i).1)))
    }

    pub fn complete(&self) -> bool {
        self.received == self.layout.packets()
    }

    /// Whether it still expects packets it pulled for (a silent sender is then asked again).
    pub fn expecting(&self) -> bool {
        !self.complete() && self.pulls > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pulls_follow_what_the_sender_still_has_and_bring_the_nacked_packets_first() {
        let w = Wire::PAPER;
        // 10 packets, the last of 100 bytes; 7 sent blind.
        let mut m = Incoming::new(
            &w,
            ConnId { slot: 0, gen: 0 },
            HostId::new(0),
            ClassId::new(0),
            9 * 1_442 + 100,
            7,
            Time::ZERO,
        );
        assert_eq!(m.pullable(), 3);
        assert_eq!(m.arrive(0, false, Time::ZERO), Arrival::New);
        assert_eq!(m.arrive(1, true, Time::ZERO), Arrival::Trimmed);
        assert_eq!((m.queued, m.pullable()), (2, 4));
        assert_eq!(m.take_pull(&w), Some((1, 1_538)), "the trimmed packet first");
        assert_eq!(m.take_pull(&w), Some((2, 1_538)), "then packet 7");
        assert_eq!(m.take_pull(&w), None, "only two requests so far");
        for i in 2..7 {
            m.arrive(i, false, Time::ZERO);
        }
        assert_eq!((m.queued, m.pullable()), (2, 2), "five arrivals, two packets left to ask for");
        assert_eq!(m.take_pull(&w), Some((3, 1_538)));
        assert_eq!(m.take_pull(&w), Some((4, 196)), "the short last packet paces the next pull");
        assert_eq!((m.queued, m.take_pull(&w)), (0, None));
        for i in [1, 7, 8] {
            assert_eq!(m.arrive(i, false, Time::ZERO), Arrival::New);
        }
        assert!(!m.complete() && m.expecting());
        assert_eq!(m.arrive(8, false, Time::ZERO), Arrival::Duplicate);
        assert_eq!(m.arrive(9, false, Time::ZERO), Arrival::New);
        assert!(m.complete() && !m.expecting());
    }
}
