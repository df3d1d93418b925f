//! A host's NIC pipeline (DESIGN.md's host, HULL §4–5):
//!
//! transmit: endpoint(s) -> transmit stages -> NIC queues -> link
//! receive:  link -> receive stages -> endpoint
//!
//! The NIC pulls from its host's endpoints only while it holds fewer than `nic_depth`
//! packets (queued or inside the transmit stages), so a transport decides what goes next
//! at the last moment (Homa's SRPT, pHost's pulls, a PL2 host waiting for its slot);
//! without a depth it takes everything at once. Its queues are a scheduler like a switch
//! port's (FIFO, per-connection round robin, or by packet priority).
//!
//! A stage is a release rule: handed a packet at time `at`, it says when the packet may
//! go on (`at` for a stage that only looks). The software transmit delay is such a stage
//! ([`SoftwareDelay`]); a pacer (a slot every so often) and LSO (a large send cut into
//! line-rate bursts) are others, and so is interrupt coalescing on receive. Packets keep
//! their order through the stages: one delay line per direction holds them with the time
//! each is released, so only its head has an event pending. The fixed receive delay of
//! a host stays folded into its links' delay (`net` module doc): it is a pure delay in
//! series and commutes with every FIFO.

use super::mechanism::{Configured, Installer, Keys, Mechanism, Parsed, Section};
use super::packet::Packet;
use super::topology::{NetSpec, Shape};
use crate::input::Table;
use crate::sim::Time;
use std::sync::Arc;

/// A transmit or receive stage of a host's NIC.
pub trait NicStage: Send {
    /// The earliest time `pkt`, handed to this stage at `at`, may go on (at least `at`).
    fn release(&mut self, at: Time, pkt: &Packet) -> Time;
    /// Whether the packet just released closed a batch: the packets this stage still
    /// holds (those behind it in the line with a later release time) go on with it
    /// (interrupt coalescing: the n-th frame raises the interrupt for the whole batch).
    fn closes_batch(&mut self) -> bool {
        false
    }
}

/// A packet's way through a host's stages: when it may go on, and whether it closed a
/// batch (the held packets ahead of it then go on at the same time).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Released {
    pub at: Time,
    pub flush: bool,
}

/// The software transmit delay: between the transport emitting a packet and the NIC
/// queue (`[host] tx_delay`).
pub struct SoftwareDelay(pub Time);

impl NicStage for SoftwareDelay {
    fn release(&mut self, at: Time, _pkt: &Packet) -> Time {
        at + self.0
    }
}

/// Runs `pkt` through `stages` from `now`: its release time, never before the packet
/// ahead of it in the line (`last`) unless it closed a batch.
pub fn release(stages: &mut [Box<dyn NicStage>], now: Time, last: Option<Time>, pkt: &Packet) -> Released {
    let mut at = now;
    let mut flush = false;
    for s in stages.iter_mut() {
        at = s.release(at, pkt).max(at);
        flush |= s.closes_batch();
    }
    if flush {
        return Released { at, flush };
    }
    Released { at: last.map_or(at, |l| at.max(l)), flush }
}

/// Puts a released packet in a stage line (a host's `tx_pipe` or `rx_pipe`); a packet
/// that closed a batch brings the held packets ahead of it forward to its own time.
/// Returns the time the line's head event must be pending at, if it changed.
pub fn enter(pipe: &mut std::collections::VecDeque<(Time, Packet)>, r: Released, pkt: Packet) -> Option<Time> {
    let head_before = pipe.front().map(|e| e.0);
    if r.flush {
        for e in pipe.iter_mut().rev() {
            if e.0 <= r.at {
                break;
            }
            e.0 = r.at;
        }
    }
    pipe.push_back((r.at, pkt));
    let head = pipe.front().map(|e| e.0).expect("just pushed");
    (head_before != Some(head)).then_some(head)
}

/// Receive interrupt coalescing (HULL §2.3, §4.1, Table 2; ethtool's `rx-frames` and
/// `rx-usecs`): packets are handed to the stack in batches, when `frames` have arrived
/// or `timeout` after the first of the batch, whichever comes first. The stack then
/// processes the whole batch before it transmits anything (a softirq), so the ACKs of a
/// batch leave together, and TCP acknowledges a batch of in-order data with one ACK
/// (GRO: `transport::tcp`'s receiver), which is what raises Table 2's ACK ratio.
pub struct Coalescing {
    frames: u32,
    timeout: Time,
    held: u32,
    /// The interrupt time of the open batch.
    deadline: Option<Time>,
    closed: bool,
}

impl Coalescing {
    pub fn new(frames: u32, timeout: Time) -> Coalescing {
        Coalescing { frames: frames.max(1), timeout, held: 0, deadline: None, closed: false }
    }
}

impl NicStage for Coalescing {
    fn release(&mut self, at: Time, _pkt: &Packet) -> Time {
        if self.deadline.is_some_and(|d| at >= d) {
            // The open batch's interrupt has fired: this packet starts a new batch.
            self.held = 0;
            self.deadline = None;
        }
        self.held += 1;
        if self.held >= self.frames {
            self.held = 0;
            self.deadline = None;
            self.closed = true;
            return at;
        }
        *self.deadline.get_or_insert(at + self.timeout)
    }
    fn closes_batch(&mut self) -> bool {
        std::mem::take(&mut self.closed)
    }
}

/// Receive coalescing's settings (`[host] rx_frames` and `rx_usecs`): frames per interrupt
/// and the timeout after a batch's first frame. Installed after the build as every host's
/// receive stage.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct CoalescingSpec {
    pub frames: u32,
    pub timeout: Time,
}

impl Configured for CoalescingSpec {
    fn install(&self, _net: &NetSpec, into: &mut dyn Installer) {
        for host in &mut into.network().hosts {
            host.rx_stages.push(Box::new(Coalescing::new(self.frames, self.timeout)));
        }
    }
}

/// `[host] rx_frames` and `rx_usecs`, both or neither (ethtool's names).
fn parse(host: &mut Table, _shape: &Shape) -> Parsed {
    let frames = host.int("rx_frames", 1, 1 << 16)?;
    let usecs = host.time("rx_usecs")?;
    match (frames, usecs) {
        (Some(f), Some(u)) => Ok(Arc::new(CoalescingSpec { frames: f as u32, timeout: u })),
        (_, None) => Err(host.error("rx_usecs", "missing; rx_frames needs the interrupt's timeout; accepted: a time such as \"100us\" (ethtool's rx-usecs)")),
        (None, Some(_)) => Err(host.error("rx_frames", "missing; rx_usecs needs the frames per interrupt; accepted: an integer from 1 to 65536 (ethtool's rx-frames; 1: an interrupt per frame)")),
    }
}

/// The registry's entry (`net::mechanism`) for receive coalescing: `[host] rx_frames` and
/// `rx_usecs` turn it on; its setting adds the stage.
pub const COALESCING: Mechanism = Mechanism {
    name: "coalescing",
    about: "receive interrupt coalescing at every host",
    used: |_| None,
    model_refuses: Some("the model has no packets to batch (interrupt coalescing); accepted: --engine packet, or no rx_frames / rx_usecs"),
    install: None,
    oracle_refuses: None,
    decomposed_refuses: Some("interrupt coalescing batches a host's receive path across every flow it receives, and the decomposition's host links carry only one link's flows; accepted: --engine packet, or no rx_frames / rx_usecs"),
    keys: &[Keys { section: Section::Host, keys: &["rx_frames", "rx_usecs"], parse }],
    link_keys: None,
    marks_at: None,
    report: None,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::ids::{ClassId, ConnId};
    use crate::net::packet::Header;
    use std::collections::VecDeque;

    fn pkt() -> Packet {
        Packet::scripted(ConnId { slot: 0, gen: 0 }, ClassId::new(0), 1_500, Header::default())
    }

    /// Arrivals every 1 µs into rx-frames = 3, rx-usecs = 10 µs: batches of three leave
    /// at their third packet's arrival; a lone tail leaves 10 µs after it came.
    #[test]
    fn coalescing_hands_packets_up_in_batches_of_frames_or_at_the_timeout() {
        let mut stages: Vec<Box<dyn NicStage>> = vec![Box::new(Coalescing::new(3, Time::from_us(10)))];
        let mut pipe = VecDeque::new();
        for k in 0..7u64 {
            let now = Time::from_us(k);
            let r = release(&mut stages, now, pipe.back().map(|e: &(Time, Packet)| e.0), &pkt());
            enter(&mut pipe, r, pkt());
        }
        let times: Vec<u64> = pipe.iter().map(|e| e.0.ps() / 1_000_000).collect();
        assert_eq!(times, vec![2, 2, 2, 5, 5, 5, 16]);
    }

    #[test]
    fn one_frame_per_interrupt_holds_nothing() {
        let mut c = Coalescing::new(1, Time::from_us(10));
        for k in 0..3 {
            assert_eq!(c.release(Time::from_us(k), &pkt()), Time::from_us(k));
            assert!(c.closes_batch());
        }
    }
}
