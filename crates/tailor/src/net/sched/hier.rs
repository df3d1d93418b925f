//! Hierarchical scheduling: weights across classes, fair queueing among the flows inside
//! each class (SWP §2.1 and §4.3: the calendar-queue variant of Sharma et al., NSDI 2020,
//! approximating per-flow fair queueing inside a class).
//!
//! The outer level is deficit round robin over classes with quanta proportional to their
//! weights; inside a class, deficit round robin over connections with a one-packet
//! quantum — the O(1) fair-queueing approximation that calendar queues also implement —
//! so a short message never waits behind a long one of its own class. The inner level
//! picks its next packet before the outer level decides (`Inner::select`), and keeps
//! that choice until it is sent, so the outer level sees the true size of what it will
//! send.

use super::classes::{quanta, Classifier, Turns};
use super::{ConnQueues, Scheduler};
use crate::net::ids::{ClassId, ConnId};
use crate::net::packet::Packet;
use crate::sim::Time;
use std::collections::VecDeque;

/// Per-connection deficit round robin inside one class.
struct Inner {
    conns: ConnQueues,
    active: VecDeque<ConnId>,
    current: Option<ConnId>,
    quantum: u64,
}

impl Inner {
    fn new(quantum: u64) -> Self {
        Inner { conns: ConnQueues::default(), active: VecDeque::new(), current: None, quantum }
    }

    fn push(&mut self, pkt: Packet) {
        let c = pkt.conn;
        if self.conns.push(pkt) {
            self.active.push_back(c);
        }
    }

    /// The connection whose head packet goes next from this class, and that packet's size.
    fn select(&mut self) -> Option<(ConnId, u64)> {
        loop {
            let c = match self.current {
                Some(c) => c,
                None => {
                    let c = self.active.pop_front()?;
                    *self.conns.deficit(c) += self.quantum;
                    self.current = Some(c);
                    c
                }
            };
            let size = self.conns.head_bytes(c).expect("a flow in the schedule has packets");
            if size <= *self.conns.deficit(c) {
                return Some((c, size));
            }
            self.active.push_back(c);
            self.current = None;
        }
    }

    fn pop(&mut self) -> Packet {
        let (c, size) = self.select().expect("popping a backlogged class");
        *self.conns.deficit(c) -= size;
        let (pkt, empty) = self.conns.pop(c);
        if empty {
            self.current = None;
        }
        pkt
    }
}

/// Class weights (outer DRR) over per-flow fair queueing (inner DRR).
pub struct Hierarchical {
    classifier: Classifier,
    classes: Vec<Inner>,
    turns: Turns,
    bytes: u64,
    len: usize,
}

impl Hierarchical {
    /// `base` is the smallest class quantum and the per-flow quantum (at least one full
    /// packet).
    pub fn new(classifier: Classifier, weights: &[f64], base: u64) -> Self {
        let n = classifier.queues();
        Hierarchical {
            turns: Turns::new(quanta(weights, n, base)),
            classes: (0..n).map(|_| Inner::new(base)).collect(),
            classifier,
            bytes: 0,
            len: 0,
        }
    }
}

impl Scheduler for Hierarchical {
    fn enqueue(&mut self, _now: Time, pkt: Packet) {
        let k = self.classifier.queue(pkt.class);
        self.bytes += pkt.wire_bytes as u64;
        self.len += 1;
        let was_empty = self.classes[k].conns.len() == 0;
        self.classes[k].push(pkt);
        if was_empty {
            self.turns.activate(k);
        }
    }

    fn dequeue(&mut self, _now: Time) -> Option<Packet> {
        let classes = &mut self.classes;
        let k = self.turns.next(|k| classes[k].select().map(|(_, size)| size))?;
        let pkt = self.classes[k].pop();
        self.turns.popped(k, self.classes[k].conns.len() == 0);
        self.bytes -= pkt.wire_bytes as u64;
        self.len -= 1;
        Some(pkt)
    }

    fn bytes(&self) -> u64 {
        self.bytes
    }
    fn len(&self) -> usize {
        self.len
    }
    fn queue_bytes(&self, class: ClassId) -> u64 {
        self.classes[self.classifier.queue(class)].conns.bytes()
    }
    fn queues(&self) -> usize {
        self.classes.len()
    }
    fn queue_of(&self, pkt: &Packet) -> usize {
        self.classifier.queue(pkt.class)
    }
    fn bytes_in(&self, queue: usize) -> u64 {
        self.classes.get(queue).map_or(0, |c| c.conns.bytes())
    }
}
