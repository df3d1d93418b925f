//! The event queue: a binary heap ordered by (time, insertion sequence).
//!
//! Two events at the same picosecond fire in the order they were scheduled, which makes
//! every run deterministic without relying on the heap's tie-breaking (cf. nexosim's
//! priority queue). Cancelled timers are not removed: their owners keep a generation
//! number and ignore stale firings (timers are data, DESIGN.md).

use super::time::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A pending event; `key` is (time << 64 | sequence), so one integer comparison orders
/// entries by time and then by insertion.
struct Entry<E> {
    key: u128,
    event: E,
}

impl<E> Entry<E> {
    fn time(&self) -> Time {
        Time::from_ps((self.key >> 64) as u64)
    }
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed: BinaryHeap is a max-heap, we pop the earliest (time, seq).
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

/// An event's place in the order: its time and its insertion sequence. A slot can be
/// taken without an event ([`EventQueue::reserve`]) and filled later, or never: an event
/// that may turn out to be unneeded keeps its place in the order without costing a push.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Slot(u128);

impl Slot {
    pub fn time(self) -> Time {
        Time::from_ps((self.0 >> 64) as u64)
    }
}

/// Pending events, popped in (time, insertion sequence) order.
pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    popped: u64,
    /// The slot of the event popped last: what "has already happened" means.
    current: Slot,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue { heap: BinaryHeap::new(), next_seq: 0, popped: 0, current: Slot(0) }
    }
}

impl<E> EventQueue<E> {
    pub fn push(&mut self, time: Time, event: E) {
        let slot = self.reserve(time);
        self.heap.push(Entry { key: slot.0, event });
    }
    /// Takes the next place in the order at `time` without scheduling anything: the
    /// sequence number is used up whether or not the slot is ever filled, so what is
    /// pushed later orders exactly as if an event had been pushed now.
    pub fn reserve(&mut self, time: Time) -> Slot {
        let seq = self.next_seq;
        self.next_seq += 1;
        Slot((time.ps() as u128) << 64 | seq as u128)
    }
    /// Schedules `event` in a slot taken by `reserve` that has not passed yet.
    pub fn push_reserved(&mut self, slot: Slot, event: E) {
        debug_assert!(slot > self.current, "a slot is filled before its turn");
        self.heap.push(Entry { key: slot.0, event });
    }
    /// Whether an event in `slot` would already have been popped.
    pub fn passed(&self, slot: Slot) -> bool {
        slot <= self.current
    }
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let e = self.heap.pop()?;
        self.popped += 1;
        self.current = Slot(e.key);
        Some((e.time(), e.event))
    }
    /// The next event, if any.
    pub fn peek(&self) -> Option<&E> {
        self.heap.peek().map(|e| &e.event)
    }
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.time())
    }
    /// Events processed so far.
    pub fn popped(&self) -> u64 {
        self.popped
    }
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against a sort of the same (time, sequence) keys, with pushes between pops.
    #[test]
    fn pops_in_key_order_under_any_interleaving() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
        let mut q = EventQueue::default();
        let mut model: Vec<(u64, u32)> = Vec::new();
        let mut out = Vec::new();
        let mut want = Vec::new();
        for n in 0..20_000u32 {
            let t = rng.random_range(0..500u64);
            q.push(Time::from_ps(t), n);
            model.push((t, n));
            if rng.random_bool(0.45) {
                model.sort_unstable();
                want.push(model.remove(0));
                let (t, e) = q.pop().unwrap();
                out.push((t.ps(), e));
            }
        }
        model.sort_unstable();
        want.extend(model);
        while let Some((t, e)) = q.pop() {
            out.push((t.ps(), e));
        }
        assert_eq!(out, want);
        assert!(q.is_empty() && q.peek_time().is_none());
    }

    /// A reserved slot filled later pops where an event pushed at reservation would have,
    /// and `passed` says whether that place is behind the last pop.
    #[test]
    fn a_reserved_slot_orders_as_if_pushed_when_reserved() {
        let mut q = EventQueue::default();
        q.push(Time::from_ns(5), 'a');
        let slot = q.reserve(Time::from_ns(5));
        q.push(Time::from_ns(5), 'c');
        let unused = q.reserve(Time::from_ns(1));
        q.push(Time::from_ns(1), 'x');
        assert_eq!(q.pop(), Some((Time::from_ns(1), 'x')));
        assert!(q.passed(unused) && !q.passed(slot));
        q.push_reserved(slot, 'b');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['a', 'b', 'c']);
        assert!(q.passed(slot));
        assert_eq!(q.popped(), 4);
    }

    #[test]
    fn same_time_events_pop_in_insertion_order() {
        let mut q = EventQueue::default();
        q.push(Time::from_ns(5), 'c');
        q.push(Time::from_ns(1), 'a');
        q.push(Time::from_ns(5), 'd');
        q.push(Time::from_ns(1), 'b');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['a', 'b', 'c', 'd']);
        assert_eq!(q.popped(), 4);
    }
}
