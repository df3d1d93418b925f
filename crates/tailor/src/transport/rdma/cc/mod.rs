//! Rate-based congestion control of the RDMA NIC (`super`): one [`RateControl`] per
//! queue pair, fed each ACK or NACK after loss recovery has run, read for the rate the
//! NIC paces the queue pair at.
//!
//! These are the controllers as the HPCC authors' ns-3 programs run them (their
//! `rdma-hw.cc`, `CC_MODE` 1, 3, 7 and 8): rates in whole bits per second, truncated where
//! their rate arithmetic truncates, every queue pair starting at line rate, and no
//! separate CNP packets: the receiver echoes a CE mark in the ACK of the marked packet.
//! Each module cites the paper section its law comes from and says where the programs
//! differ from the paper (docs/rdma.md gathers them).

pub mod dcqcn;
pub mod dctcp;
pub mod hpcc;
pub mod timely;

use crate::net::int::Stack;
use crate::sim::Time;

/// What an ACK or NACK tells the sender's controller.
#[derive(Copy, Clone, Debug)]
pub struct Feedback<'a> {
    pub now: Time,
    /// The cumulative sequence it carries (the receiver's next expected byte).
    pub ack: u64,
    /// It echoes a CE mark on the data packet it answers (the programs' CNP flag).
    pub ecn: bool,
    /// The data packet's round trip: now minus the send time it echoes.
    pub rtt: Time,
    /// The data packet's INT stack, as the ACK echoes it (HPCC).
    pub int: Option<&'a Stack>,
    /// The next byte the queue pair would send.
    pub snd_nxt: u64,
}

/// A queue pair's rate law: events in, rate out.
pub trait RateControl: Send {
    /// The rate the queue pair sends at, in bits per second.
    fn rate(&self) -> u64;
    /// An ACK or NACK reached the sender (after it acknowledged and recovered).
    fn on_feedback(&mut self, fb: &Feedback);
    /// A change of rate re-times the packet already scheduled (HPCC's `ChangeRate`):
    /// otherwise it takes effect from the next packet.
    fn retimes(&self) -> bool {
        false
    }
    /// A data packet of `bytes` wire bytes left the NIC (DCQCN's byte counter).
    fn on_sent(&mut self, bytes: u64) {
        let _ = bytes;
    }
    /// The time of its next timer, if one is running (DCQCN's).
    fn next_timer(&self) -> Option<Time> {
        None
    }
    /// Its timers due at `now` fire.
    fn on_timer(&mut self, now: Time) {
        let _ = now;
    }
}

/// What every controller shares: the NIC's line rate and the floor (`MIN_RATE`), bit/s.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub line: u64,
    pub min: u64,
}

impl Bounds {
    pub fn clamp(&self, r: u64) -> u64 {
        r.clamp(self.min.min(self.line), self.line)
    }
}

/// `rate × factor` truncated to whole bits per second (ns-3's `DataRate * double`).
pub fn scale(rate: u64, factor: f64) -> u64 {
    (rate as f64 * factor) as u64
}

/// No reaction: every queue pair at line rate (a window may still hold it).
pub struct Fixed(pub u64);

impl RateControl for Fixed {
    fn rate(&self) -> u64 {
        self.0
    }
    fn on_feedback(&mut self, _fb: &Feedback) {}
}
