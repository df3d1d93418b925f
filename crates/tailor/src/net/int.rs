//! In-band network telemetry (INT) for HPCC (Li et al., SIGCOMM 2019, §3.1 and §4.1).
//!
//! A data packet of an HPCC connection collects one [`Hop`] record at every egress
//! port it leaves — the sender's NIC first, then each switch port — holding what that
//! port knows at the moment the packet starts on the wire: the bytes still queued
//! behind it, the bytes the port had sent before it, the time, and the link rate (as
//! HPCC's ns-3 model stamps at dequeue). The receiver echoes the whole stack in its ACK;
//! the sender differences two stacks of the same path to get each link's transmit rate.
//!
//! A stack is a few hundred bytes, so packets do not carry it by value: a [`Pool`] in
//! the network holds the stacks of packets in flight and a packet names its stack by a
//! small [`Slot`]. The pool reuses freed slots, so nothing is allocated per packet once
//! it has grown to the number of HPCC packets in flight. The engine frees a slot when
//! the packet reaches its host or is dropped. Whether the INT header costs wire bytes is
//! the transport's choice (`int_header` in docs/scenario.md), not the network's.

use super::ids::PortId;
use super::marker::{Backlog, Departure, Marker};
use super::packet::{Flags, Packet};
use crate::sim::{Rate, Time};
use std::num::NonZeroU32;

/// The most hops a stack records. tailor's longest path (fat-tree, across pods) crosses
/// six egress ports including the sender's NIC.
pub const MAX_HOPS: usize = 8;

/// What one egress port reports about itself.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Hop {
    /// The port (so that a sender can tell when a flow's path changed).
    pub port: PortId,
    /// Bytes waiting in the port's queues once this packet was taken out.
    pub qlen: u64,
    /// Bytes the port had put on its link before this packet.
    pub tx_bytes: u64,
    /// When the packet started on the link.
    pub ts: Time,
    /// The link's rate.
    pub rate: Rate,
}

const BLANK: Hop = Hop { port: PortId::MAX, qlen: 0, tx_bytes: 0, ts: Time::ZERO, rate: Rate::from_bps(1) };

/// The records of the hops a packet crossed, in path order.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Stack {
    hops: [Hop; MAX_HOPS],
    len: u8,
}

impl Default for Stack {
    fn default() -> Self {
        Stack { hops: [BLANK; MAX_HOPS], len: 0 }
    }
}

impl Stack {
    /// A stack holding `hops` (for scripted tests).
    pub fn of(hops: &[Hop]) -> Stack {
        let mut s = Stack::default();
        for h in hops {
            s.push(*h);
        }
        s
    }

    pub fn hops(&self) -> &[Hop] {
        &self.hops[..self.len as usize]
    }

    pub fn push(&mut self, hop: Hop) {
        let n = self.len as usize;
        assert!(n < MAX_HOPS, "an INT stack holds at most {MAX_HOPS} hops");
        self.hops[n] = hop;
        self.len += 1;
    }
}

/// A stack's place in the [`Pool`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Slot(NonZeroU32);

impl Slot {
    fn index(self) -> usize {
        self.0.get() as usize - 1
    }
}

/// The stacks of the packets in flight.
#[derive(Default)]
pub struct Pool {
    stacks: Vec<Stack>,
    free: Vec<Slot>,
}

impl Pool {
    pub fn insert(&mut self, stack: Stack) -> Slot {
        if let Some(s) = self.free.pop() {
            self.stacks[s.index()] = stack;
            return s;
        }
        self.stacks.push(stack);
        let n = u32::try_from(self.stacks.len()).expect("fewer than 2^32 stacks in flight");
        Slot(NonZeroU32::new(n).expect("length after a push is positive"))
    }

    /// Appends a hop record to the stack in `slot`.
    pub fn push(&mut self, slot: Slot, hop: Hop) {
        self.stacks[slot.index()].push(hop);
    }

    /// Takes the stack out of the pool and frees its slot.
    pub fn take(&mut self, slot: Slot) -> Stack {
        self.free.push(slot);
        self.stacks[slot.index()]
    }

    /// Stacks currently held (packets in flight that carry one).
    pub fn in_use(&self) -> usize {
        self.stacks.len() - self.free.len()
    }
}

/// The departure stage that stamps INT: a packet flagged to collect telemetry gets one
/// [`Hop`] as it starts on the link. Installed on every port when a transport of the run
/// collects telemetry (`Transport::collects_telemetry`).
pub struct IntStamp;

impl Marker for IntStamp {
    fn on_enqueue(&mut self, _now: Time, _backlog: Backlog, _pkt: &mut Packet) -> bool {
        false
    }
    fn on_dequeue(&mut self, now: Time, dep: &mut Departure, pkt: &mut Packet) -> bool {
        if let (Some(slot), true) = (pkt.int, pkt.flags.contains(Flags::COLLECT_INT)) {
            let hop = Hop { port: dep.port, qlen: dep.queues.bytes(), tx_bytes: dep.tx_bytes, ts: now, rate: dep.rate };
            dep.int.push(slot, hop);
        }
        false
    }
    fn sees_departures(&self) -> bool {
        true
    }
}

/// The registry's entry (`net::mechanism`): every egress port stamps [`IntStamp`] when a
/// transport of the run reads telemetry (no scenario key of its own: HPCC asks for it).
pub const MECHANISM: super::mechanism::Mechanism = super::mechanism::Mechanism {
    name: "int",
    about: "in-band network telemetry stamped at every egress port (HPCC)",
    used: |_| None,
    model_refuses: None,
    install: Some(|_, into| {
        if into.collects_telemetry() {
            for port in &mut into.network().ports {
                port.push_marker(Box::new(IntStamp));
            }
        }
    }),
    oracle_refuses: None,
    decomposed_refuses: Some("INT stamps every hop of a path and the sender acts on the whole stack (HPCC), and the decomposition simulates each link alone; accepted: --engine packet, or no INT"),
    keys: &[],
    link_keys: None,
    marks_at: None,
    report: None,
};

#[cfg(test)]
mod tests {
    use super::*;

    fn hop(i: usize) -> Hop {
        Hop {
            port: PortId::new(i),
            qlen: i as u64,
            tx_bytes: 10 * i as u64,
            ts: Time::from_ns(i as u64),
            rate: Rate::from_gbps(10),
        }
    }

    #[test]
    fn pool_reuses_freed_slots_and_keeps_hops_in_order() {
        let mut pool = Pool::default();
        let a = pool.insert(Stack::default());
        let b = pool.insert(Stack::of(&[hop(7)]));
        pool.push(a, hop(1));
        pool.push(a, hop(2));
        assert_eq!(pool.take(a).hops(), &[hop(1), hop(2)]);
        assert_eq!(pool.in_use(), 1);
        let c = pool.insert(Stack::default());
        assert_eq!(c, a, "the freed slot is reused");
        assert!(pool.take(c).hops().is_empty(), "a reused slot starts from the new stack");
        assert_eq!(pool.take(b).hops(), &[hop(7)]);
        assert_eq!(pool.in_use(), 0);
    }
}
