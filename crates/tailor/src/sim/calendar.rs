//! The store behind the event queue: a timing wheel for the near future, a binary heap
//! for the rest (Brown's calendar queue, CACM 1988, with a fixed bucket width and an
//! overflow heap in place of resizing).
//!
//! On a fabric, nearly every event is due within a few microseconds of now (a link's next
//! arrival, a port's end of transmission) and only timers lie further out. A bucket holds
//! the events of one 1,024-picosecond span, so a push is an append; the first non-empty
//! bucket, found through a bitmap, is sorted once when it becomes the first (what is
//! pushed into it later is put in its place), and taking the least is taking its last; a
//! binary heap of the thousands pending on a fabric of a thousand hosts sifts
//! a dozen levels for each (docs/performance.md, "A thousand hosts"). Order is exact: the
//! least is the lesser of the wheel's least and the heap's top, keys being unique.

use super::queue::Entry;

/// log2 of a bucket's width in picoseconds.
const SHIFT: u32 = 10;
/// Buckets of the wheel: it spans 2.1 us from now (4,096 buckets measured 5 % more
/// cache misses and 1.03x the CPU time on the 1,024-host fat-tree; docs/performance.md).
const BUCKETS: usize = 2048;
const WORDS: usize = BUCKETS / 64;
const MASK: u64 = BUCKETS as u64 - 1;

/// Entries of at least `now`'s bucket: those within the wheel's span of it in their
/// bucket, the rest in `overflow`.
pub(super) struct Calendar<E> {
    buckets: Vec<Vec<Entry<E>>>,
    /// Bit i: bucket i holds an entry.
    full: [u64; WORDS],
    in_wheel: usize,
    /// The bucket whose entries are in descending order (the one popped from last): its
    /// least is its last, and what is pushed into it is put in its place.
    sorted: Option<usize>,
    /// The bucket number (time >> SHIFT) of now: no entry is earlier, and the wheel holds
    /// the entries of the `BUCKETS` bucket numbers from it.
    now: u64,
    overflow: Heap<E>,
}

fn bucket_of(key: u128) -> u64 {
    ((key >> 64) as u64) >> SHIFT
}

impl<E: Copy> Calendar<E> {
    pub(super) fn new() -> Calendar<E> {
        Calendar {
            buckets: (0..BUCKETS).map(|_| Vec::new()).collect(),
            full: [0; WORDS],
            in_wheel: 0,
            sorted: None,
            now: 0,
            overflow: Heap(Vec::new()),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.in_wheel + self.overflow.0.len()
    }

    /// Time has reached `key`'s bucket: entries pushed from now on are no earlier.
    pub(super) fn advance(&mut self, key: u128) {
        debug_assert!(bucket_of(key) >= self.now, "time goes forward");
        self.now = bucket_of(key);
    }

    #[inline(always)]
    pub(super) fn push(&mut self, e: Entry<E>) {
        let b = bucket_of(e.key);
        // (An entry before now, which the engine never pushes, would go to the heap and
        // still come out first.)
        if b.wrapping_sub(self.now) < BUCKETS as u64 {
            let i = (b & MASK) as usize;
            let bucket = &mut self.buckets[i];
            if self.sorted == Some(i) {
                // Keys are unique: the search never finds `e`'s, only its place.
                let at = bucket.partition_point(|x| x.key > e.key);
                bucket.insert(at, e);
            } else {
                bucket.push(e);
            }
            self.full[i / 64] |= 1 << (i % 64);
            self.in_wheel += 1;
        } else {
            self.overflow.push(e);
        }
    }

    /// Removes and returns the least entry.
    pub(super) fn pop(&mut self) -> Option<Entry<E>> {
        let Some(i) = self.first_full() else { return self.overflow.pop() };
        let bucket = &mut self.buckets[i];
        if self.sorted != Some(i) {
            // A bucket is sorted once, when it becomes the first; scanning it for the least
            // at every pop cost 5.5 % of the 1,024-host run's instructions, its buckets
            // holding a few dozen events (docs/performance.md).
            bucket.sort_unstable_by_key(|e| std::cmp::Reverse(e.key));
            self.sorted = Some(i);
        }
        let least = bucket.last().expect("a full bucket has an entry");
        if self.overflow.0.first().is_some_and(|o| o.key < least.key) {
            return self.overflow.pop();
        }
        let e = bucket.pop().expect("a full bucket has an entry");
        if bucket.is_empty() {
            self.full[i / 64] &= !(1 << (i % 64));
        }
        self.in_wheel -= 1;
        Some(e)
    }

    /// The first non-empty bucket from now's, going round the wheel once.
    fn first_full(&self) -> Option<usize> {
        if self.in_wheel == 0 {
            return None;
        }
        let start = (self.now & MASK) as usize;
        let (w0, s) = (start / 64, start % 64);
        let here = self.full[w0] & (!0u64 << s);
        if here != 0 {
            return Some(w0 * 64 + here.trailing_zeros() as usize);
        }
        for k in 1..=WORDS {
            let w = (w0 + k) % WORDS;
            // Back at the first word: only the bits before now's (the wheel's far end).
            let bits = if k == WORDS { self.full[w] & !(!0u64 << s) } else { self.full[w] };
            if bits != 0 {
                return Some(w * 64 + bits.trailing_zeros() as usize);
            }
        }
        unreachable!("in_wheel counts an entry no bucket holds")
    }
}

/// A binary min-heap of entries by key (keys are unique: the sequence is).
struct Heap<E>(Vec<Entry<E>>);

impl<E: Copy> Heap<E> {
    /// The heap's overflow holds what lies beyond the wheel (timers), a few percent of
    /// the events: plain code, no tuning.
    fn push(&mut self, e: Entry<E>) {
        let hole = self.0.len();
        self.0.push(e);
        self.rise(hole, e);
    }

    /// The least entry. The last entry fills its place: the hole goes down to a leaf by
    /// the lesser child (one comparison per level, as std's `sift_down_to_bottom`; the
    /// last entry is usually among the latest), then the last entry rises to its place.
    fn pop(&mut self) -> Option<Entry<E>> {
        let last = self.0.pop()?;
        let h = &mut self.0;
        let Some(&top) = h.first() else { return Some(last) };
        let end = h.len();
        let (mut hole, mut child) = (0, 1);
        while child + 1 < end {
            child += usize::from(h[child + 1].key < h[child].key);
            h[hole] = h[child];
            hole = child;
            child = 2 * hole + 1;
        }
        if child + 1 == end {
            h[hole] = h[child];
            hole = child;
        }
        self.rise(hole, last);
        Some(top)
    }

    /// Puts `e` in the hole at `hole` or above it, moving larger parents down.
    fn rise(&mut self, mut hole: usize, e: Entry<E>) {
        let h = &mut self.0;
        while hole > 0 {
            let parent = (hole - 1) / 2;
            if h[parent].key <= e.key {
                break;
            }
            h[hole] = h[parent];
            hole = parent;
        }
        h[hole] = e;
    }
}
