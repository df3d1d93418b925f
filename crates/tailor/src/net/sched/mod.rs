//! Queues and schedulers of an egress port.
//!
//! A `Scheduler` holds the packets that wait at a port and decides which one goes next:
//! the classifier, the queues and the scheduling discipline of DESIGN.md's port pipeline
//! in one object. FIFO and per-connection round robin (host NICs, as the HPCC ns-3
//! fork's NIC) are here; the class schedulers — strict priority, round robin, DRR, WFQ
//! and hierarchical class weights with per-flow fair queueing inside each class (SWP
//! §2.1, §4.3) — are in `classes` and `hier`; queueing by packet priority in `priority`,
//! and by packet rank (pFabric §4.2) in `rank`.

#[cfg(test)]
mod class_tests;
pub mod classes;
pub mod hier;
pub mod priority;
pub mod rank;

use super::ids::{ClassId, ConnId};
use super::packet::Packet;
use crate::sim::Time;
use std::collections::{HashMap, VecDeque};

pub trait Scheduler: Send {
    /// Takes a packet that admission accepted.
    fn enqueue(&mut self, now: Time, pkt: Packet);
    /// The next packet to transmit, if any.
    fn dequeue(&mut self, now: Time) -> Option<Packet>;
    /// The next packet to transmit whose PFC priority ([`pfc_priority`]) is not paused
    /// (a bit each in `paused`), if any: what a port that PFC has paused for some
    /// priorities may send (IEEE 802.1Qbb; `net::pfc`). Only schedulers that answer
    /// [`Scheduler::pausable`] are asked.
    fn dequeue_unpaused(&mut self, now: Time, paused: u8) -> Option<Packet> {
        let _ = (now, paused);
        None
    }
    /// Whether it implements `dequeue_unpaused` (PFC refuses the ports of a scheduler that
    /// does not).
    fn pausable(&self) -> bool {
        false
    }
    /// Bytes waiting (not counting the packet on the wire).
    fn bytes(&self) -> u64;
    /// Packets waiting.
    fn len(&self) -> usize;
    /// Bytes waiting in the queue a packet of `class` joins (per-queue ECN and buffer
    /// limits); a single-queue scheduler answers for the whole port.
    fn queue_bytes(&self, class: ClassId) -> u64 {
        let _ = class;
        self.bytes()
    }
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Bytes waiting in the queue `pkt` joins (what markers and limits compare against).
    fn queue_bytes_of(&self, pkt: &Packet) -> u64 {
        self.queue_bytes(pkt.class)
    }
    /// How many queues it keeps, which one a packet joins, and the bytes in each: a
    /// read-only view for stages and tests (a single-queue scheduler has queue 0).
    fn queues(&self) -> usize {
        1
    }
    fn queue_of(&self, pkt: &Packet) -> usize {
        let _ = pkt;
        0
    }
    fn bytes_in(&self, queue: usize) -> u64 {
        if queue == 0 {
            self.bytes()
        } else {
            0
        }
    }
    /// When `dequeue` returned nothing although packets wait: the time it will have one
    /// (a pacer's or a timeslot's next opening). The port then wakes itself at that time.
    fn wake_at(&self, now: Time) -> Option<Time> {
        let _ = now;
        None
    }
    /// A packet reached the host whose NIC this scheduler queues for (called for NIC
    /// schedulers only, as the packet arrives, before the host's receive stages): a NIC
    /// stage that watches the reverse direction, as HULL's pacer associates flows on
    /// ECN-Echo ACKs (§4.2).
    fn observe_arrival(&mut self, now: Time, pkt: &Packet) {
        let _ = (now, pkt);
    }
    /// The scheduler itself, for a mechanism that reads its own counters from it
    /// (`net::mechanism`'s `report`: HULL's pacer); None: nothing to read.
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }
    /// Takes out a queued packet that matters less than `arriving`, to make room for it
    /// (the `evict` overflow verdict); None if no queued packet matters less.
    fn evict_for(&mut self, arriving: &Packet) -> Option<Packet> {
        let _ = arriving;
        None
    }
    /// Takes out the newest packet of the queue `like` would join (a trimming port may
    /// trim it instead of the arriving packet, NDP §3.1); None if it cannot say.
    fn pop_tail(&mut self, like: &Packet) -> Option<Packet> {
        let _ = like;
        None
    }
}

/// One first-in first-out queue.
#[derive(Default)]
pub struct Fifo {
    q: VecDeque<Packet>,
    bytes: u64,
}

/// A packet's PFC priority: its level (`Packet::prio`), the last of PFC's eight for the
/// levels beyond.
pub fn pfc_priority(pkt: &Packet) -> u8 {
    pkt.prio.min(7)
}

impl Scheduler for Fifo {
    fn enqueue(&mut self, _now: Time, pkt: Packet) {
        self.bytes += pkt.wire_bytes as u64;
        self.q.push_back(pkt);
    }
    fn dequeue(&mut self, _now: Time) -> Option<Packet> {
        let p = self.q.pop_front()?;
        self.bytes -= p.wire_bytes as u64;
        // The next packet leaves when this one has been serialized; a NIC queue holding a
        // sender's window wrote it long ago, so it is no longer in the cache.
        match self.q.front() {
            Some(next) => crate::sim::prefetch::prefetch(next),
            // Emptied: the next packet goes to the ring's first slot, which the last
            // busy spell wrote, rather than to the slot after this one, a turn of the
            // ring old (a write that missed the cache on most ports of a large fabric).
            None => self.q.clear(),
        }
        Some(p)
    }
    /// One queue: a packet of a paused priority at its head holds back everything behind
    /// it (the head-of-line blocking of a port without per-priority queues).
    fn dequeue_unpaused(&mut self, now: Time, paused: u8) -> Option<Packet> {
        let head = self.q.front()?;
        if paused & (1 << pfc_priority(head)) != 0 {
            return None;
        }
        self.dequeue(now)
    }
    fn pausable(&self) -> bool {
        true
    }
    fn bytes(&self) -> u64 {
        self.bytes
    }
    fn len(&self) -> usize {
        self.q.len()
    }
    fn pop_tail(&mut self, _like: &Packet) -> Option<Packet> {
        let p = self.q.pop_back()?;
        self.bytes -= p.wire_bytes as u64;
        Some(p)
    }
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}

/// A port's scheduler as the port holds it: a plain FIFO (most ports of most runs) in the
/// port itself, any other boxed. On a fabric of a thousand hosts the box is a cache line
/// fetched from memory on every packet (docs/performance.md, "A thousand hosts").
/// Dereferences to the scheduler, so the port calls it as it would a box.
pub enum Queues {
    Fifo(Fifo),
    Boxed(Box<dyn Scheduler>),
}

impl Queues {
    /// An empty FIFO is taken in by value; anything else stays boxed.
    pub fn new(sched: Box<dyn Scheduler>) -> Queues {
        let fifo = sched.as_any().is_some_and(|a| a.is::<Fifo>());
        if fifo && sched.is_empty() {
            Queues::Fifo(Fifo::default())
        } else {
            Queues::Boxed(sched)
        }
    }
    /// The scheduler boxed again (to wrap it in another: a mechanism's pacer).
    pub fn into_box(self) -> Box<dyn Scheduler> {
        match self {
            Queues::Fifo(f) => Box::new(f),
            Queues::Boxed(b) => b,
        }
    }
}

impl std::ops::Deref for Queues {
    type Target = dyn Scheduler;
    fn deref(&self) -> &(dyn Scheduler + 'static) {
        match self {
            Queues::Fifo(f) => f,
            Queues::Boxed(b) => b.as_ref(),
        }
    }
}

impl std::ops::DerefMut for Queues {
    fn deref_mut(&mut self) -> &mut (dyn Scheduler + 'static) {
        match self {
            Queues::Fifo(f) => f,
            Queues::Boxed(b) => b.as_mut(),
        }
    }
}

/// Per-connection FIFO queues with a DRR deficit each; emptied queues are recycled, so
/// steady state allocates nothing per packet. Shared by `FlowRoundRobin` and the
/// per-flow level of `hier::Hierarchical`.
#[derive(Default)]
pub(super) struct ConnQueues {
    queues: HashMap<ConnId, (VecDeque<Packet>, u64)>,
    spare: Vec<VecDeque<Packet>>,
    bytes: u64,
    len: usize,
}

impl ConnQueues {
    /// Queues the packet; true if its connection had nothing queued.
    pub(super) fn push(&mut self, pkt: Packet) -> bool {
        self.bytes += pkt.wire_bytes as u64;
        self.len += 1;
        let spare = &mut self.spare;
        let mut new = false;
        self.queues
            .entry(pkt.conn)
            .or_insert_with(|| {
                new = true;
                (spare.pop().unwrap_or_default(), 0)
            })
            .0
            .push_back(pkt);
        new
    }

    pub(super) fn head_bytes(&self, c: ConnId) -> Option<u64> {
        self.queues.get(&c).and_then(|(q, _)| q.front()).map(|p| p.wire_bytes as u64)
    }

    pub(super) fn deficit(&mut self, c: ConnId) -> &mut u64 {
        &mut self.queues.get_mut(&c).expect("a queued connection").1
    }

    /// Pops the head of c's queue; true if the queue is now empty (and recycled).
    pub(super) fn pop(&mut self, c: ConnId) -> (Packet, bool) {
        let (q, _) = self.queues.get_mut(&c).expect("a queued connection");
        let pkt = q.pop_front().expect("a queued connection has a packet");
        let empty = q.is_empty();
        if empty {
            let (q, _) = self.queues.remove(&c).expect("present");
            self.spare.push(q);
        }
        self.bytes -= pkt.wire_bytes as u64;
        self.len -= 1;
        (pkt, empty)
    }

    pub(super) fn bytes(&self) -> u64 {
        self.bytes
    }
    pub(super) fn len(&self) -> usize {
        self.len
    }
}

/// Packet-by-packet round robin over connections: each backlogged connection sends one
/// packet per round.
#[derive(Default)]
pub struct FlowRoundRobin {
    conns: ConnQueues,
    active: VecDeque<ConnId>,
}

impl Scheduler for FlowRoundRobin {
    fn enqueue(&mut self, _now: Time, pkt: Packet) {
        let c = pkt.conn;
        if self.conns.push(pkt) {
            self.active.push_back(c);
        }
    }
    fn dequeue(&mut self, _now: Time) -> Option<Packet> {
        let c = self.active.pop_front()?;
        let (pkt, empty) = self.conns.pop(c);
        if !empty {
            self.active.push_back(c);
        }
        Some(pkt)
    }
    fn bytes(&self) -> u64 {
        self.conns.bytes()
    }
    fn len(&self) -> usize {
        self.conns.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::ids::ClassId;
    use crate::net::packet::Header;

    fn pkt(slot: u32, offset: u64) -> Packet {
        Packet::scripted(ConnId { slot, gen: 0 }, ClassId::new(0), 100, Header([offset, 0, 0]))
    }

    #[test]
    fn round_robin_alternates_between_backlogged_connections() {
        let mut rr = FlowRoundRobin::default();
        for i in 0..3 {
            rr.enqueue(Time::ZERO, pkt(1, i));
        }
        rr.enqueue(Time::ZERO, pkt(2, 0));
        let order: Vec<u32> = std::iter::from_fn(|| rr.dequeue(Time::ZERO)).map(|p| p.conn.slot).collect();
        assert_eq!(order, vec![1, 2, 1, 1]);
        assert_eq!(rr.bytes(), 0);
    }

    #[test]
    fn a_fifo_whose_head_is_paused_holds_back_the_packets_behind_it() {
        let mut f = Fifo::default();
        for (slot, prio) in [(1, 3u8), (2, 0), (3, 12)] {
            f.enqueue(Time::ZERO, Packet { prio, ..pkt(slot, 0) });
        }
        assert!(f.dequeue_unpaused(Time::ZERO, 1 << 3).is_none(), "head of line blocked");
        assert_eq!(f.dequeue_unpaused(Time::ZERO, 1 << 0).map(|p| p.conn.slot), Some(1));
        assert_eq!(f.dequeue_unpaused(Time::ZERO, 1 << 3).map(|p| p.conn.slot), Some(2));
        assert!(f.dequeue_unpaused(Time::ZERO, 1 << 7).is_none(), "level 12 is PFC's priority 7");
        assert_eq!((f.len(), f.bytes()), (1, 100));
    }

    #[test]
    fn fifo_keeps_order_and_counts_bytes() {
        let mut f = Fifo::default();
        f.enqueue(Time::ZERO, pkt(2, 0));
        f.enqueue(Time::ZERO, pkt(1, 0));
        assert_eq!(f.bytes(), 200);
        assert_eq!(f.dequeue(Time::ZERO).unwrap().conn.slot, 2);
        assert_eq!(f.bytes(), 100);
    }
}
