//! Class schedulers: one FIFO queue per traffic class (or per priority level) and a
//! discipline choosing among the queues (SWP §4.3).
//!
//! - `StrictPriority`: the lowest-numbered non-empty queue always goes first.
//! - `RoundRobin`: one packet per backlogged queue per round.
//! - `Drr`: deficit round robin (Shreedhar & Varghese, SIGCOMM 1995) with a quantum per
//!   queue proportional to its weight; a continuously backlogged queue receives
//!   C·w_k / Σw of the link, within one quantum per round.
//! - `Wfq`: weighted fair queueing by virtual finish times, self-clocked (Golestani's
//!   SCFQ, INFOCOM 1994): a packet of L bytes joining queue k gets
//!   F = max(V, F_last(k)) + L / w_k, V being the finish time of the packet last sent;
//!   the smallest F goes next. Self-clocking avoids simulating the fluid GPS system.
//!
//! Queues are picked by a `Classifier` (class → queue); a class's ACKs travel in its
//! queue too.

use super::Scheduler;
use crate::net::ids::ClassId;
use crate::net::packet::Packet;
use crate::sim::Time;
use std::collections::VecDeque;

/// Maps traffic classes to queue indices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Classifier {
    queue_of: Vec<usize>,
    queues: usize,
}

impl Classifier {
    /// `queue_of[c]` is the queue of class c.
    pub fn new(queue_of: Vec<usize>) -> Self {
        let queues = queue_of.iter().copied().max().map_or(1, |m| m + 1);
        Classifier { queue_of, queues }
    }
    /// One queue per class.
    pub fn per_class(classes: usize) -> Self {
        Classifier::new((0..classes).collect())
    }
    pub fn queue(&self, class: ClassId) -> usize {
        self.queue_of.get(class.index()).copied().unwrap_or(self.queues - 1)
    }
    pub fn queues(&self) -> usize {
        self.queues
    }
}

/// The FIFO queues of a class scheduler with their byte counts.
struct Queues {
    classifier: Classifier,
    q: Vec<VecDeque<Packet>>,
    bytes: Vec<u64>,
    total_bytes: u64,
    len: usize,
}

impl Queues {
    fn new(classifier: Classifier) -> Self {
        let n = classifier.queues();
        Queues { classifier, q: (0..n).map(|_| VecDeque::new()).collect(), bytes: vec![0; n], total_bytes: 0, len: 0 }
    }
    /// Queues the packet; returns its queue and whether that queue was empty.
    fn push(&mut self, pkt: Packet) -> (usize, bool) {
        let k = self.classifier.queue(pkt.class);
        let was_empty = self.q[k].is_empty();
        self.bytes[k] += pkt.wire_bytes as u64;
        self.total_bytes += pkt.wire_bytes as u64;
        self.len += 1;
        self.q[k].push_back(pkt);
        (k, was_empty)
    }
    fn pop(&mut self, k: usize) -> Packet {
        let pkt = self.q[k].pop_front().expect("popping a backlogged queue");
        self.bytes[k] -= pkt.wire_bytes as u64;
        self.total_bytes -= pkt.wire_bytes as u64;
        self.len -= 1;
        pkt
    }
    fn head_bytes(&self, k: usize) -> Option<u64> {
        self.q[k].front().map(|p| p.wire_bytes as u64)
    }
    fn queue_bytes(&self, class: ClassId) -> u64 {
        self.bytes[self.classifier.queue(class)]
    }
}

macro_rules! queue_accessors {
    () => {
        fn bytes(&self) -> u64 {
            self.queues.total_bytes
        }
        fn len(&self) -> usize {
            self.queues.len
        }
        fn queue_bytes(&self, class: ClassId) -> u64 {
            self.queues.queue_bytes(class)
        }
        fn queues(&self) -> usize {
            self.queues.q.len()
        }
        fn queue_of(&self, pkt: &Packet) -> usize {
            self.queues.classifier.queue(pkt.class)
        }
        fn bytes_in(&self, queue: usize) -> u64 {
            self.queues.bytes.get(queue).copied().unwrap_or(0)
        }
    };
}

/// Queue 0 first, always.
pub struct StrictPriority {
    queues: Queues,
}

impl StrictPriority {
    pub fn new(classifier: Classifier) -> Self {
        StrictPriority { queues: Queues::new(classifier) }
    }
}

impl Scheduler for StrictPriority {
    fn enqueue(&mut self, _now: Time, pkt: Packet) {
        self.queues.push(pkt);
    }
    fn dequeue(&mut self, _now: Time) -> Option<Packet> {
        let k = self.queues.q.iter().position(|q| !q.is_empty())?;
        Some(self.queues.pop(k))
    }
    queue_accessors!();
}

/// One packet per backlogged queue per round, in the order queues became backlogged.
pub struct RoundRobin {
    queues: Queues,
    active: VecDeque<usize>,
}

impl RoundRobin {
    pub fn new(classifier: Classifier) -> Self {
        RoundRobin { queues: Queues::new(classifier), active: VecDeque::new() }
    }
}

impl Scheduler for RoundRobin {
    fn enqueue(&mut self, _now: Time, pkt: Packet) {
        if let (k, true) = self.queues.push(pkt) {
            self.active.push_back(k);
        }
    }
    fn dequeue(&mut self, _now: Time) -> Option<Packet> {
        let k = self.active.pop_front()?;
        let pkt = self.queues.pop(k);
        if !self.queues.q[k].is_empty() {
            self.active.push_back(k);
        }
        Some(pkt)
    }
    queue_accessors!();
}

/// Whose turn it is in deficit round robin over indexed queues: the active list, the
/// queue in its turn and the deficits (shared by `Drr` and the outer level of
/// `hier::Hierarchical`).
pub(super) struct Turns {
    quantum: Vec<u64>,
    deficit: Vec<u64>,
    active: VecDeque<usize>,
    current: Option<usize>,
}

impl Turns {
    pub(super) fn new(quantum: Vec<u64>) -> Self {
        let n = quantum.len();
        Turns { quantum, deficit: vec![0; n], active: VecDeque::new(), current: None }
    }

    /// Queue k became backlogged.
    pub(super) fn activate(&mut self, k: usize) {
        if self.current != Some(k) {
            self.active.push_back(k);
        }
    }

    /// The queue to serve next, its head's size (`head(k)`, None if empty) already
    /// charged to its deficit.
    pub(super) fn next(&mut self, mut head: impl FnMut(usize) -> Option<u64>) -> Option<usize> {
        loop {
            let k = match self.current {
                Some(k) => k,
                None => {
                    let k = self.active.pop_front()?;
                    self.deficit[k] += self.quantum[k];
                    self.current = Some(k);
                    k
                }
            };
            match head(k) {
                Some(size) if size <= self.deficit[k] => {
                    self.deficit[k] -= size;
                    return Some(k);
                }
                Some(_) => {
                    self.active.push_back(k);
                    self.current = None;
                }
                None => {
                    self.deficit[k] = 0;
                    self.current = None;
                }
            }
        }
    }

    /// A packet left queue k; an emptied queue ends its turn and loses its deficit.
    pub(super) fn popped(&mut self, k: usize, now_empty: bool) {
        if now_empty {
            self.deficit[k] = 0;
            self.current = None;
        }
    }
}

/// Deficit round robin with per-queue quanta.
pub struct Drr {
    queues: Queues,
    turns: Turns,
}

impl Drr {
    /// Quanta proportional to `weights`, the smallest being `base` bytes (at least one
    /// full packet, so that every visit sends something).
    pub fn new(classifier: Classifier, weights: &[f64], base: u64) -> Self {
        let n = classifier.queues();
        Drr { queues: Queues::new(classifier), turns: Turns::new(quanta(weights, n, base)) }
    }
}

/// `base · w_k / min(w)` bytes per queue (missing weights count as 1).
pub fn quanta(weights: &[f64], n: usize, base: u64) -> Vec<u64> {
    let w: Vec<f64> = (0..n).map(|k| weights.get(k).copied().unwrap_or(1.0)).collect();
    let min = w.iter().copied().fold(f64::INFINITY, f64::min);
    w.iter().map(|&x| ((base as f64) * x / min).round() as u64).collect()
}

impl Scheduler for Drr {
    fn enqueue(&mut self, _now: Time, pkt: Packet) {
        if let (k, true) = self.queues.push(pkt) {
            self.turns.activate(k);
        }
    }
    fn dequeue(&mut self, _now: Time) -> Option<Packet> {
        let queues = &self.queues;
        let k = self.turns.next(|k| queues.head_bytes(k))?;
        let pkt = self.queues.pop(k);
        self.turns.popped(k, self.queues.q[k].is_empty());
        Some(pkt)
    }
    queue_accessors!();
}

/// Self-clocked weighted fair queueing.
pub struct Wfq {
    queues: Queues,
    weights: Vec<f64>,
    /// Finish tags of the queued packets, per queue, in queue order.
    tags: Vec<VecDeque<f64>>,
    last: Vec<f64>,
    virtual_time: f64,
}

impl Wfq {
    pub fn new(classifier: Classifier, weights: &[f64]) -> Self {
        let n = classifier.queues();
        let weights = (0..n).map(|k| weights.get(k).copied().unwrap_or(1.0)).collect();
        Wfq {
            queues: Queues::new(classifier),
            weights,
            tags: vec![VecDeque::new(); n],
            last: vec![0.0; n],
            virtual_time: 0.0,
        }
    }
}

impl Scheduler for Wfq {
    fn enqueue(&mut self, _now: Time, pkt: Packet) {
        let size = pkt.wire_bytes as f64;
        let (k, _) = self.queues.push(pkt);
        let tag = self.virtual_time.max(self.last[k]) + size / self.weights[k];
        self.last[k] = tag;
        self.tags[k].push_back(tag);
    }
    fn dequeue(&mut self, _now: Time) -> Option<Packet> {
        let mut best: Option<(f64, usize)> = None;
        for (k, t) in self.tags.iter().enumerate() {
            if let Some(&tag) = t.front() {
                if best.is_none_or(|(b, _)| tag < b) {
                    best = Some((tag, k));
                }
            }
        }
        let (tag, k) = best?;
        self.tags[k].pop_front();
        self.virtual_time = tag;
        Some(self.queues.pop(k))
    }
    queue_accessors!();
}
