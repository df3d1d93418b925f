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

use super::packet::Packet;
use crate::sim::Time;

/// A transmit or receive stage of a host's NIC.
pub trait NicStage: Send {
    /// The earliest time `pkt`, handed to this stage at `at`, may go on (at least `at`).
    fn release(&mut self, at: Time, pkt: &Packet) -> Time;
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
/// ahead of it in the line (`last`).
pub fn release(stages: &mut [Box<dyn NicStage>], now: Time, last: Option<Time>, pkt: &Packet) -> Time {
    let mut at = now;
    for s in stages.iter_mut() {
        at = s.release(at, pkt).max(at);
    }
    last.map_or(at, |l| at.max(l))
}
