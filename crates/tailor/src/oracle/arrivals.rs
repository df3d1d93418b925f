//! The classes' messages in the order the packet engine starts them, numbered as it
//! numbers them: so that an oracle run and a packet run of one scenario and seed hold
//! the same messages under the same ids.
//!
//! The engine keeps one pending arrival per class in its event queue, ordered by (time,
//! insertion), and inserts a class's next arrival when its current one is taken
//! (`engine::Simulation::arrival`); a message's id is its trace's own, else its number in
//! that order (`start_message`). Arrivals keep the same relative order in a queue of
//! their own, so this one reproduces it.

use crate::sim::Time;
use crate::workload::{MessageSpec, Source, WorkloadError};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub struct Arrivals<'s> {
    sources: Vec<Box<dyn Source + Send + 's>>,
    next: Vec<Option<MessageSpec>>,
    /// (time, insertion number, class) of each class's pending arrival.
    queue: BinaryHeap<Reverse<(Time, u64, usize)>>,
    inserted: u64,
    /// Messages taken so far.
    pub started: u64,
}

impl<'s> Arrivals<'s> {
    pub fn new(sources: Vec<Box<dyn Source + Send + 's>>) -> Result<Arrivals<'s>, WorkloadError> {
        let mut a = Arrivals { next: Vec::new(), sources, queue: BinaryHeap::new(), inserted: 0, started: 0 };
        for i in 0..a.sources.len() {
            let m = a.sources[i].next_message()?;
            a.next.push(m);
            if let Some(m) = m {
                a.insert(m.start, i);
            }
        }
        Ok(a)
    }

    fn insert(&mut self, at: Time, class: usize) {
        self.queue.push(Reverse((at, self.inserted, class)));
        self.inserted += 1;
    }

    /// When the next message starts.
    pub fn peek(&self) -> Option<Time> {
        self.queue.peek().map(|Reverse((t, _, _))| *t)
    }

    /// The next message and its id.
    pub fn pop(&mut self) -> Result<Option<(u64, MessageSpec)>, WorkloadError> {
        let Some(Reverse((now, _, class))) = self.queue.pop() else { return Ok(None) };
        let m = self.next[class].take().expect("a pending arrival has its message");
        self.next[class] = self.sources[class].next_message()?;
        if let Some(n) = self.next[class] {
            self.insert(n.start.max(now), class);
        }
        let id = m.id.unwrap_or(self.started);
        self.started += 1;
        Ok(Some((id, m)))
    }
}
