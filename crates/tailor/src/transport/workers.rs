//! A pool of workers (`Channel::Available`): the persistent connections of one (sender,
//! receiver, class), each a worker thread's, and the messages waiting for one to be
//! available (PL2 §F.3: the generator hands each message to an available worker thread).
//! Which connection is available is the sending endpoint's to say (TCP's, or PL2's over
//! it); the pool keeps the waiting messages in arrival order and the round robin.

use super::Message;
use std::collections::VecDeque;

pub struct Workers {
    n: u32,
    /// Where the next search starts: just after the worker given the last message.
    next: u32,
    /// Messages waiting for a worker, in arrival order.
    pub queue: VecDeque<Message>,
}

impl Workers {
    pub fn new(n: u32) -> Workers {
        Workers { n, next: 0, queue: VecDeque::new() }
    }

    /// The available worker to hand the next message to: the first after the last one
    /// given a message, in round robin, so no worker is favoured (§F.1: the generator
    /// "does not prioritize messages from one thread over the other"), which also spreads
    /// light load over the connections as idle threads taking turns would.
    pub fn pick(&self, available: impl Fn(u32) -> bool) -> Option<u32> {
        (0..self.n).map(|i| (self.next + i) % self.n).find(|&k| available(k))
    }

    /// Worker `k` was given the message at the head of the queue.
    pub fn given(&mut self, k: u32) -> Message {
        self.next = (k + 1) % self.n;
        self.queue.pop_front().expect("a waiting message")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::ids::{ClassId, ConnId, HostId};

    #[test]
    fn workers_take_turns_and_busy_ones_are_skipped() {
        let mut w = Workers::new(3);
        let m = Message {
            conn: ConnId { slot: 0, gen: 0 },
            class: ClassId::new(0),
            src: HostId::new(0),
            dst: HostId::new(1),
            size: 1,
            start: crate::sim::Time::ZERO,
            rpc: Default::default(),
            channel: None,
        };
        let mut order = Vec::new();
        for _ in 0..4 {
            w.queue.push_back(m);
            let k = w.pick(|_| true).unwrap();
            w.given(k);
            order.push(k);
        }
        assert_eq!(order, [0, 1, 2, 0], "round robin over free workers");
        assert_eq!(w.pick(|k| k == 0), Some(0));
        assert_eq!(w.pick(|k| k == 2), Some(2));
        assert_eq!(w.pick(|_| false), None, "none available: the message waits");
    }
}
