//! Serving by rank: the pFabric switch port (Alizadeh et al., "pFabric: Minimal
//! Near-Optimal Datacenter Transport", SIGCOMM 2013, §4.1–4.2).
//!
//! Every packet carries a priority level (`Packet::prio`) and a rank within it
//! (`Packet::rank`; pFabric's transport puts its message's remaining bytes there, §4.1).
//! A packet matters more than another if its (level, rank) is lower: levels first, so
//! that what a class or a transport puts on a level keeps its meaning on these ports
//! (a trimmed header at level 0, a class given `priority = 0` above the rest), and
//! within a level the rank decides. A transport that sets no rank (0) gets strict
//! priority with FIFO levels: the same service as `priority::PriorityQueues`.
//!
//! - **Dequeue** (§4.2): find the most important packet — lowest (level, rank), the
//!   earliest to arrive among equals — and send the *earliest* queued packet of the
//!   same message (`conn`). A message's later packets carry fewer bytes left and so
//!   outrank its earlier ones; serving the earliest keeps the message's packets in
//!   order and never starves its own first packets behind them. So the packet sent
//!   belongs to the message holding the most important packet, but may itself rank
//!   lower than packets of other messages.
//! - **Evict** (§4.2, the `evict` overflow verdict of `net::port`): when the buffer is
//!   full, the least important queued packet — highest (level, rank), the latest to
//!   arrive among equals — is dropped if it matters less than the arriving one;
//!   otherwise the arriving packet is dropped. On a tie the arriving packet loses: it
//!   is the latest, as in the authors' ns-2 queue (HomaSimulation branch
//!   `ns2_pfabric`, `queue/drop-tail.cc`, `drop_prio_`/`deque_prio_`/`keep_order_`).
//!
//! Cost: O(log n) per operation in the packets queued, since users may give ports
//! large buffers. While a port holds at most `SMALL` packets (pFabric's ports hold a
//! dozen) they sit in one array in arrival order and each operation scans it: a few
//! dozen comparisons in one or two kilobytes, cheaper than any index, and nothing
//! allocated. A port that holds more moves its packets into an index until it empties:
//! one B-tree orders every packet by (level and rank, arrival) and serves both ends, and
//! each message keeps its packets' arrival order in a FIFO of its own. A packet evicted
//! from the middle of its message's FIFO leaves a tombstone there (its slot is freed or
//! holds a later arrival), skipped when it reaches the front; a message's FIFO is
//! dropped with its last live packet, tombstones included.

use super::Scheduler;
use crate::net::ids::ConnId;
use crate::net::packet::Packet;
use crate::sim::Time;
use rustc_hash::FxHashMap;
use std::collections::{BTreeSet, VecDeque};

/// The most packets a port keeps in its array before it builds the index.
const SMALL: usize = 32;

/// A packet's importance as one number, lower first: its level above its rank.
fn importance(p: &Packet) -> u64 {
    (p.prio as u64) << 32 | p.rank as u64
}

struct Queued {
    pkt: Packet,
    /// Its arrival number (unique, increasing): the tie-breaker and the tombstone check.
    arrival: u64,
}

/// One message's packets in arrival order, as (arrival, slot); `live` counts the ones
/// still queued (the rest are tombstones of evicted packets).
struct Flow {
    order: VecDeque<(u64, u32)>,
    live: u32,
}

/// The index of a port holding many packets.
#[derive(Default)]
struct Tree {
    slots: Vec<Option<Queued>>,
    free: Vec<u32>,
    /// (importance, arrival, slot) of every packet.
    by_rank: BTreeSet<(u64, u64, u32)>,
    flows: FxHashMap<ConnId, Flow>,
    /// Emptied FIFOs kept for reuse.
    spare: Vec<VecDeque<(u64, u32)>>,
}

impl Tree {
    fn insert(&mut self, q: Queued) {
        let (key, conn, arrival) = (importance(&q.pkt), q.pkt.conn, q.arrival);
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = Some(q);
                s
            }
            None => {
                self.slots.push(Some(q));
                (self.slots.len() - 1) as u32
            }
        };
        self.by_rank.insert((key, arrival, slot));
        let spare = &mut self.spare;
        let flow = self.flows.entry(conn).or_insert_with(|| Flow { order: spare.pop().unwrap_or_default(), live: 0 });
        flow.order.push_back((arrival, slot));
        flow.live += 1;
    }

    /// Takes the packet out of its slot; the caller has removed it from `by_rank` and
    /// from its message's FIFO (or left a tombstone there).
    fn release(&mut self, slot: u32) -> Packet {
        let q = self.slots[slot as usize].take().expect("a queued packet's slot is live");
        self.free.push(slot);
        let flow = self.flows.get_mut(&q.pkt.conn).expect("a queued packet's message has a FIFO");
        flow.live -= 1;
        if flow.live == 0 {
            let mut f = self.flows.remove(&q.pkt.conn).expect("present").order;
            f.clear();
            self.spare.push(f);
        }
        q.pkt
    }

    /// The earliest packet of the message holding the most important one.
    fn pop_served(&mut self) -> Option<Packet> {
        let &(_, _, best) = self.by_rank.first()?;
        let conn = self.slots[best as usize].as_ref().expect("indexed packets are live").pkt.conn;
        let flow = self.flows.get_mut(&conn).expect("the best packet's message has a FIFO");
        let (arrival, slot) = loop {
            let (arrival, slot) = flow.order.pop_front().expect("a FIFO with live packets reaches one");
            if self.slots[slot as usize].as_ref().is_some_and(|q| q.arrival == arrival) {
                break (arrival, slot);
            }
        };
        let key = importance(&self.slots[slot as usize].as_ref().expect("live").pkt);
        self.by_rank.remove(&(key, arrival, slot));
        Some(self.release(slot))
    }

    /// The least important packet (the latest among equals), if it matters less than `than`.
    fn pop_least(&mut self, than: u64) -> Option<Packet> {
        let &(key, _, slot) = self.by_rank.last()?;
        if key <= than {
            return None;
        }
        self.by_rank.pop_last();
        Some(self.release(slot))
    }

    fn len(&self) -> usize {
        self.by_rank.len()
    }
}

pub struct RankQueue {
    /// The packets in arrival order while the port holds at most `small` of them.
    array: Vec<Queued>,
    /// The index, holding every packet instead, from the arrival that found the array
    /// full until the port empties.
    tree: Tree,
    indexed: bool,
    small: usize,
    arrivals: u64,
    bytes: u64,
}

impl Default for RankQueue {
    fn default() -> Self {
        RankQueue::with_array(SMALL)
    }
}

impl RankQueue {
    /// A queue that keeps at most `small` packets in its array (0: always the index).
    pub fn with_array(small: usize) -> RankQueue {
        RankQueue { array: Vec::new(), tree: Tree::default(), indexed: false, small, arrivals: 0, bytes: 0 }
    }

    /// The position in `array` of the packet served next.
    fn served_in_array(&self) -> Option<usize> {
        let mut best = 0;
        for (i, q) in self.array.iter().enumerate().skip(1) {
            // Strictly more important: among equals the earlier (lower index) stays.
            if importance(&q.pkt) < importance(&self.array[best].pkt) {
                best = i;
            }
        }
        let conn = self.array.get(best)?.pkt.conn;
        self.array.iter().position(|q| q.pkt.conn == conn)
    }

    /// The position in `array` of the least important packet, the latest among equals.
    fn least_in_array(&self) -> Option<usize> {
        let mut least = 0;
        for (i, q) in self.array.iter().enumerate().skip(1) {
            if importance(&q.pkt) >= importance(&self.array[least].pkt) {
                least = i;
            }
        }
        (!self.array.is_empty()).then_some(least)
    }

    /// After a packet left: an emptied index hands the port back to the array.
    fn took(&mut self, pkt: Packet) -> Packet {
        self.bytes -= pkt.wire_bytes as u64;
        if self.indexed && self.tree.len() == 0 {
            self.indexed = false;
        }
        pkt
    }
}

impl Scheduler for RankQueue {
    fn enqueue(&mut self, _now: Time, pkt: Packet) {
        let q = Queued { pkt, arrival: self.arrivals };
        self.arrivals += 1;
        self.bytes += pkt.wire_bytes as u64;
        if !self.indexed && self.array.len() >= self.small {
            self.indexed = true;
            for q in self.array.drain(..) {
                self.tree.insert(q);
            }
        }
        if self.indexed {
            self.tree.insert(q);
        } else {
            self.array.push(q);
        }
    }

    fn dequeue(&mut self, _now: Time) -> Option<Packet> {
        let pkt = if self.indexed { self.tree.pop_served()? } else { self.array.remove(self.served_in_array()?).pkt };
        Some(self.took(pkt))
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }

    fn len(&self) -> usize {
        if self.indexed {
            self.tree.len()
        } else {
            self.array.len()
        }
    }

    fn evict_for(&mut self, arriving: &Packet) -> Option<Packet> {
        let than = importance(arriving);
        let pkt = if self.indexed {
            self.tree.pop_least(than)?
        } else {
            let i = self.least_in_array()?;
            if importance(&self.array[i].pkt) <= than {
                return None;
            }
            self.array.remove(i).pkt
        };
        Some(self.took(pkt))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::ids::ClassId;
    use crate::net::packet::Header;
    use rand::{Rng, SeedableRng};

    fn pkt(conn: u32, prio: u8, rank: u32, bytes: u32, n: u64) -> Packet {
        Packet {
            prio,
            rank,
            ..Packet::scripted(ConnId { slot: conn, gen: 0 }, ClassId::new(0), bytes, Header([n, 0, 0]))
        }
    }

    fn tag(p: &Packet) -> u64 {
        p.hdr.0[0]
    }

    /// Both ways of holding packets: the array and the index (and one that switches).
    const ARRAYS: [usize; 3] = [SMALL, 0, 2];

    #[test]
    fn the_best_message_goes_first_and_its_earliest_packet_leads_it() {
        for small in ARRAYS {
            let mut q = RankQueue::with_array(small);
            // Message 1 ranks 100 then 50 (bytes left shrink); message 2 ranks 70.
            q.enqueue(Time::ZERO, pkt(1, 0, 100, 1500, 0));
            q.enqueue(Time::ZERO, pkt(2, 0, 70, 1500, 1));
            q.enqueue(Time::ZERO, pkt(1, 0, 50, 1500, 2));
            let order: Vec<u64> = std::iter::from_fn(|| q.dequeue(Time::ZERO)).map(|p| tag(&p)).collect();
            // Message 1 holds the best packet (50): its earliest (100) goes, then its 50;
            // then message 2.
            assert_eq!(order, vec![0, 2, 1], "array of {small}");
            assert_eq!((q.len(), q.bytes()), (0, 0));
        }
    }

    #[test]
    fn levels_come_before_ranks_and_equal_keys_go_in_arrival_order() {
        for small in ARRAYS {
            let mut q = RankQueue::with_array(small);
            q.enqueue(Time::ZERO, pkt(1, 1, 0, 100, 0));
            q.enqueue(Time::ZERO, pkt(2, 0, 9_000, 100, 1));
            q.enqueue(Time::ZERO, pkt(3, 0, 9_000, 100, 2));
            q.enqueue(Time::ZERO, pkt(4, 0, 10, 100, 3));
            let order: Vec<u64> = std::iter::from_fn(|| q.dequeue(Time::ZERO)).map(|p| tag(&p)).collect();
            assert_eq!(order, vec![3, 1, 2, 0], "array of {small}");
        }
    }

    #[test]
    fn eviction_takes_the_least_important_and_latest_and_never_an_equal() {
        for small in ARRAYS {
            let mut q = RankQueue::with_array(small);
            for (i, (c, r)) in [(1, 500), (2, 900), (3, 900), (4, 10)].iter().enumerate() {
                q.enqueue(Time::ZERO, pkt(*c, 0, *r, 100, i as u64));
            }
            assert_eq!(
                q.evict_for(&pkt(9, 0, 900, 100, 99)).map(|p| tag(&p)),
                None,
                "a tie goes against the arriving packet"
            );
            assert_eq!(q.evict_for(&pkt(9, 0, 899, 100, 99)).map(|p| tag(&p)), Some(2), "the latest of the two 900s");
            assert_eq!(q.evict_for(&pkt(9, 0, 0, 100, 99)).map(|p| tag(&p)), Some(1));
            assert_eq!(
                q.evict_for(&pkt(9, 1, 0, 100, 99)).map(|p| tag(&p)),
                None,
                "a lower level matters less than any rank"
            );
            assert_eq!((q.len(), q.bytes()), (2, 200), "array of {small}");
        }
    }

    #[test]
    fn a_message_evicted_from_its_middle_keeps_its_order() {
        // The index: an evicted packet leaves a tombstone in its message's FIFO.
        let mut q = RankQueue::with_array(0);
        q.enqueue(Time::ZERO, pkt(1, 0, 30, 100, 0));
        q.enqueue(Time::ZERO, pkt(1, 0, 90, 100, 1));
        q.enqueue(Time::ZERO, pkt(1, 0, 20, 100, 2));
        assert_eq!(q.evict_for(&pkt(2, 0, 50, 100, 9)).map(|p| tag(&p)), Some(1));
        // The freed slot is reused by a packet of another message: the tombstone of
        // message 1 must not take it for its own.
        q.enqueue(Time::ZERO, pkt(2, 0, 50, 100, 3));
        let order: Vec<u64> = std::iter::from_fn(|| q.dequeue(Time::ZERO)).map(|p| tag(&p)).collect();
        assert_eq!(order, vec![0, 2, 3]);
        assert!(q.tree.flows.is_empty(), "message FIFOs leave with their last packet");
        assert!(!q.indexed, "an emptied port goes back to its array");
    }

    /// The naive reference: a list scanned in full for every operation.
    #[derive(Default)]
    struct Model {
        q: Vec<(u64, u64, Packet)>,
        arrivals: u64,
    }

    impl Model {
        fn enqueue(&mut self, p: Packet) {
            self.q.push((importance(&p), self.arrivals, p));
            self.arrivals += 1;
        }
        fn dequeue(&mut self) -> Option<Packet> {
            let best = self.q.iter().min_by_key(|e| (e.0, e.1))?.2.conn;
            let i = (0..self.q.len()).filter(|&i| self.q[i].2.conn == best).min_by_key(|&i| self.q[i].1)?;
            Some(self.q.remove(i).2)
        }
        fn evict_for(&mut self, a: &Packet) -> Option<Packet> {
            let i = (0..self.q.len()).max_by_key(|&i| (self.q[i].0, self.q[i].1))?;
            (self.q[i].0 > importance(a)).then(|| self.q.remove(i).2)
        }
    }

    #[test]
    fn random_sequences_match_the_naive_reference_and_conserve_packets_and_bytes() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(13);
        for round in 0..300 {
            let small = ARRAYS[round % 3];
            let (mut q, mut m) = (RankQueue::with_array(small), Model::default());
            let (mut in_pkts, mut in_bytes, mut out_pkts, mut out_bytes) = (0u64, 0u64, 0u64, 0u64);
            let conns = rng.random_range(1..6u32);
            for step in 0..rng.random_range(1..300u64) {
                let p = pkt(
                    rng.random_range(0..conns),
                    rng.random_range(0..3u8),
                    rng.random_range(0..8u32),
                    rng.random_range(64..1600u32),
                    step,
                );
                match rng.random_range(0..10) {
                    0..=4 => {
                        q.enqueue(Time::ZERO, p);
                        m.enqueue(p);
                        in_pkts += 1;
                        in_bytes += p.wire_bytes as u64;
                    }
                    5..=7 => {
                        let (a, b) = (q.dequeue(Time::ZERO), m.dequeue());
                        assert_eq!(a, b, "round {round} step {step}: dequeue");
                        if let Some(a) = a {
                            // The invariant of §4.2 stated directly: nothing left matters
                            // more than the best packet of the message served, and nothing
                            // of that message arrived before the packet served.
                            let served =
                                (m.q.iter().filter(|e| e.2.conn == a.conn).map(|e| e.0).min().unwrap_or(u64::MAX))
                                    .min(importance(&a));
                            assert!(
                                m.q.iter().all(|e| e.0 >= served || e.2.conn == a.conn),
                                "round {round} step {step}: a more important message waits"
                            );
                            out_pkts += 1;
                            out_bytes += a.wire_bytes as u64;
                        }
                    }
                    _ => {
                        let (a, b) = (q.evict_for(&p), m.evict_for(&p));
                        assert_eq!(a, b, "round {round} step {step}: eviction");
                        if let Some(a) = a {
                            assert!(
                                m.q.iter().all(|e| e.0 <= importance(&a)),
                                "round {round} step {step}: evicted a more important packet"
                            );
                            out_pkts += 1;
                            out_bytes += a.wire_bytes as u64;
                        }
                    }
                }
                assert_eq!(
                    (q.len() as u64, q.bytes()),
                    (in_pkts - out_pkts, in_bytes - out_bytes),
                    "round {round} step {step}"
                );
            }
            while let Some(a) = q.dequeue(Time::ZERO) {
                assert_eq!(Some(a), m.dequeue());
            }
            assert!(m.q.is_empty() && q.tree.flows.is_empty() && q.bytes() == 0 && !q.indexed);
        }
    }
}
