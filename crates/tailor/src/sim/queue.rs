//! The event queue: events ordered by (time, insertion sequence), the next one held
//! apart (so that looking at it costs nothing) and the rest in a calendar (`calendar`).
//!
//! Two events at the same picosecond fire in the order they were scheduled, which makes
//! every run deterministic without relying on the heap's tie-breaking (cf. nexosim's
//! priority queue). Cancelled timers are not removed: their owners keep a generation
//! number and ignore stale firings (timers are data, DESIGN.md).

use super::calendar::Calendar;
use super::time::Time;

/// A pending event; `key` is (time << 64 | sequence), so one integer comparison orders
/// entries by time and then by insertion.
#[derive(Copy, Clone)]
pub(super) struct Entry<E> {
    pub(super) key: u128,
    pub(super) event: E,
}

impl<E> Entry<E> {
    fn time(&self) -> Time {
        Time::from_ps((self.key >> 64) as u64)
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
    /// The least pending entry; every entry of `rest` is later.
    next: Option<Entry<E>>,
    rest: Calendar<E>,
    next_seq: u64,
    popped: u64,
    /// The slot of the event popped last: what "has already happened" means.
    current: Slot,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue { next: None, rest: Calendar::new(), next_seq: 0, popped: 0, current: Slot(0) }
    }
}

impl<E: Copy> EventQueue<E> {
    #[inline(always)]
    pub fn push(&mut self, time: Time, event: E) {
        let slot = self.reserve(time);
        self.insert(Entry { key: slot.0, event });
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
    #[inline(always)]
    pub fn push_reserved(&mut self, slot: Slot, event: E) {
        debug_assert!(slot > self.current, "a slot is filled before its turn");
        self.insert(Entry { key: slot.0, event });
    }
    #[inline(always)]
    fn insert(&mut self, e: Entry<E>) {
        match &mut self.next {
            Some(n) if n.key < e.key => self.rest.push(e),
            Some(n) => self.rest.push(std::mem::replace(n, e)),
            None => self.next = Some(e),
        }
    }
    /// Whether an event in `slot` would already have been popped.
    pub fn passed(&self, slot: Slot) -> bool {
        slot <= self.current
    }
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let e = self.next.take()?;
        self.popped += 1;
        self.current = Slot(e.key);
        self.rest.advance(e.key);
        self.next = self.rest.pop();
        Some((e.time(), e.event))
    }
    /// The next event, if any.
    pub fn peek(&self) -> Option<&E> {
        self.next.as_ref().map(|e| &e.event)
    }
    pub fn peek_time(&self) -> Option<Time> {
        self.next.as_ref().map(|e| e.time())
    }
    /// Events processed so far.
    pub fn popped(&self) -> u64 {
        self.popped
    }
    pub fn len(&self) -> usize {
        usize::from(self.next.is_some()) + self.rest.len()
    }
    pub fn is_empty(&self) -> bool {
        self.next.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against a sort of the same (time, sequence) keys, with pushes between pops, each
    /// no earlier than the last pop (the queue's contract): at the same picosecond, within
    /// a wheel bucket (the first one sorted, pushes into it put in their place), across the
    /// wheel, beyond its span (the overflow heap), after jumps of time that leave the wheel
    /// empty, and reserved slots filled after later pushes.
    #[test]
    fn pops_in_key_order_under_any_interleaving() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
        let mut q = EventQueue::default();
        let mut model = std::collections::BTreeSet::new();
        let mut out = Vec::new();
        let mut want = Vec::new();
        let mut now = 0u64;
        let (mut len_max, mut far, mut filled) = (0, 0, 0);
        let mut reserved = Vec::new();
        for n in 0..200_000u32 {
            let ahead = match rng.random_range(0..10u32) {
                0 => 0,
                1..=3 => rng.random_range(0..2_000u64),
                4..=7 => rng.random_range(0..5_000_000u64),
                8 => rng.random_range(0..50_000_000u64),
                _ => rng.random_range(0..2_000_000_000u64),
            };
            far += u32::from(ahead > 2_100_000);
            if rng.random_bool(0.1) {
                // A slot taken now and filled later, if its place has not passed: it
                // lands among entries pushed after it (in a sorted bucket, in the middle).
                reserved.push((q.reserve(Time::from_ps(now + ahead)), now + ahead, n));
            } else {
                q.push(Time::from_ps(now + ahead), n);
                model.insert((now + ahead, n));
            }
            if reserved.len() > 8 || rng.random_bool(0.05) {
                for (slot, t, m) in reserved.drain(..) {
                    if !q.passed(slot) {
                        q.push_reserved(slot, m);
                        model.insert((t, m));
                        filled += 1;
                    }
                }
            }
            len_max = len_max.max(q.len());
            // Pops a little more often than pushes in long runs, so the queue empties.
            let pops = if n % 50_000 < 40_000 { 0.45 } else { 0.7 };
            while rng.random_bool(pops) && !model.is_empty() {
                want.push(model.pop_first().expect("not empty"));
                let (t, e) = q.pop().unwrap();
                now = t.ps();
                out.push((now, e));
                assert_eq!(q.len(), model.len());
            }
        }
        want.extend(model);
        while let Some((t, e)) = q.pop() {
            out.push((t.ps(), e));
        }
        assert_eq!(out, want);
        assert!(q.is_empty() && q.peek_time().is_none());
        assert!(len_max > 1_000 && far > 10_000, "the wheel and the overflow are both exercised");
        assert!(filled > 5_000, "reserved slots are filled among later entries");
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
