//! Queueing by packet priority: one FIFO per level, the lowest-numbered non-empty level
//! always first (strict priority). The level is what the packet carries — chosen by its
//! transport (Homa's receiver-assigned levels, PIAS's demotion) or its class's fixed
//! level — so this is the scheduler of ports that "queue by priority" rather than by
//! class. A packet above the last level joins the last.
//!
//! It can make room for an important packet by evicting the last packet of the least
//! important non-empty level below it (the `evict` overflow verdict, pFabric-style).

use super::Scheduler;
use crate::net::packet::Packet;
use crate::sim::Time;
use std::collections::VecDeque;

/// The number of levels when a scenario does not say (Homa's and most switches' eight).
pub const DEFAULT_LEVELS: usize = 8;
/// The most levels a port keeps.
pub const MAX_LEVELS: usize = 64;

pub struct PriorityQueues {
    q: Vec<VecDeque<Packet>>,
    bytes: Vec<u64>,
    total: u64,
    len: usize,
}

impl PriorityQueues {
    pub fn new(levels: usize) -> Self {
        assert!((1..=MAX_LEVELS).contains(&levels), "1 to {MAX_LEVELS} priority levels");
        PriorityQueues { q: (0..levels).map(|_| VecDeque::new()).collect(), bytes: vec![0; levels], total: 0, len: 0 }
    }

    fn level(&self, pkt: &Packet) -> usize {
        (pkt.prio as usize).min(self.q.len() - 1)
    }

    fn take(&mut self, k: usize, back: bool) -> Option<Packet> {
        let pkt = if back { self.q[k].pop_back() } else { self.q[k].pop_front() }?;
        self.bytes[k] -= pkt.wire_bytes as u64;
        self.total -= pkt.wire_bytes as u64;
        self.len -= 1;
        Some(pkt)
    }
}

impl Scheduler for PriorityQueues {
    fn enqueue(&mut self, _now: Time, pkt: Packet) {
        let k = self.level(&pkt);
        self.bytes[k] += pkt.wire_bytes as u64;
        self.total += pkt.wire_bytes as u64;
        self.len += 1;
        self.q[k].push_back(pkt);
    }
    fn dequeue(&mut self, _now: Time) -> Option<Packet> {
        let k = self.q.iter().position(|q| !q.is_empty())?;
        self.take(k, false)
    }
    /// The first level that has packets and whose PFC priority is not paused (levels from
    /// 7 on share PFC's last priority).
    fn dequeue_unpaused(&mut self, _now: Time, paused: u8) -> Option<Packet> {
        let k = (0..self.q.len()).find(|&k| !self.q[k].is_empty() && paused & (1 << k.min(7)) == 0)?;
        self.take(k, false)
    }
    fn pausable(&self) -> bool {
        true
    }
    fn bytes(&self) -> u64 {
        self.total
    }
    fn len(&self) -> usize {
        self.len
    }
    /// Queue limits and per-class ECN thresholds read the packet's level here.
    fn queue_bytes_of(&self, pkt: &Packet) -> u64 {
        self.bytes[self.level(pkt)]
    }
    fn queues(&self) -> usize {
        self.q.len()
    }
    fn queue_of(&self, pkt: &Packet) -> usize {
        self.level(pkt)
    }
    fn bytes_in(&self, queue: usize) -> u64 {
        self.bytes.get(queue).copied().unwrap_or(0)
    }
    fn evict_for(&mut self, arriving: &Packet) -> Option<Packet> {
        let mine = self.level(arriving);
        let k = (mine + 1..self.q.len()).rev().find(|&k| !self.q[k].is_empty())?;
        self.take(k, true)
    }
    fn pop_tail(&mut self, like: &Packet) -> Option<Packet> {
        let k = self.level(like);
        self.take(k, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::ids::{ClassId, ConnId};
    use crate::net::packet::Header;

    fn pkt(prio: u8, n: u64) -> Packet {
        Packet { prio, ..Packet::scripted(ConnId { slot: 0, gen: 0 }, ClassId::new(0), 100, Header([n, 0, 0])) }
    }

    #[test]
    fn paused_priorities_are_passed_over_and_the_rest_keep_their_order() {
        let mut s = PriorityQueues::new(10);
        for (i, p) in [3u8, 0, 3, 8, 1, 9].iter().enumerate() {
            s.enqueue(Time::ZERO, pkt(*p, i as u64));
        }
        let mut take = |paused| s.dequeue_unpaused(Time::ZERO, paused).map(|p| p.hdr.0[0]);
        // 0 and 3 paused: level 1, then levels 8 and 9 (PFC's priority 7) in level order.
        assert_eq!([take(0b1001), take(0b1001), take(0b1001), take(0b1001)], [Some(4), Some(3), Some(5), None]);
        // Priority 7 paused too; then nothing paused.
        assert_eq!(take(0xff), None);
        assert_eq!([take(0b1000_0001), take(0), take(0), take(0)], [Some(0), Some(1), Some(2), None]);
    }

    #[test]
    fn lower_levels_always_go_first_and_each_level_is_fifo() {
        let mut s = PriorityQueues::new(4);
        for (i, p) in [3u8, 1, 3, 0, 1, 9].iter().enumerate() {
            s.enqueue(Time::ZERO, pkt(*p, i as u64));
        }
        assert_eq!((s.len(), s.bytes(), s.bytes_in(3)), (6, 600, 300), "level 9 joins the last level");
        let order: Vec<(u8, u64)> =
            std::iter::from_fn(|| s.dequeue(Time::ZERO)).map(|p| (p.prio, p.hdr.0[0])).collect();
        assert_eq!(order, vec![(0, 3), (1, 1), (1, 4), (3, 0), (3, 2), (9, 5)]);
        assert_eq!((s.len(), s.bytes()), (0, 0));
    }

    #[test]
    fn eviction_takes_the_newest_packet_of_the_least_important_level_below() {
        let mut s = PriorityQueues::new(8);
        for (i, p) in [2u8, 5, 5, 1].iter().enumerate() {
            s.enqueue(Time::ZERO, pkt(*p, i as u64));
        }
        let v = s.evict_for(&pkt(3, 99)).expect("level 5 matters less than 3");
        assert_eq!((v.prio, v.hdr.0[0]), (5, 2));
        assert_eq!(s.evict_for(&pkt(5, 99)).map(|p| p.prio), None, "nothing below level 5 but level 5 itself");
        assert_eq!(s.evict_for(&pkt(0, 99)).map(|p| (p.prio, p.hdr.0[0])), Some((5, 1)));
        assert_eq!((s.len(), s.bytes()), (2, 200));
    }
}
