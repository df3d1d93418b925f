//! The discrete-event core: integer time, the event queue, random streams.

mod calendar;
pub mod prefetch;
pub mod queue;
pub mod rng;
pub mod time;

pub use queue::{EventQueue, Slot};
pub use time::{Rate, Time};

/// A timer of a component that arms its own (a transport endpoint, a switch agent),
/// named by that component: it decides what the 64 bits mean (say a slot and a
/// generation, so that a stale firing is recognised; timers are data, DESIGN.md).
///
/// Held as two 32-bit halves so that an event carrying one stays 4-byte aligned: the
/// engine's events are then 16 bytes and a heap entry 32, where a `u64` made them 24 and
/// 48 and the heap's sifting 20 % slower.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct TimerKey([u32; 2]);

impl TimerKey {
    pub const fn new(v: u64) -> TimerKey {
        TimerKey([(v >> 32) as u32, v as u32])
    }
    pub const fn get(self) -> u64 {
        (self.0[0] as u64) << 32 | self.0[1] as u64
    }
}
