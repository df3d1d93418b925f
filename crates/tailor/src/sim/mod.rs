//! The discrete-event core: integer time, the event queue, random streams.

pub mod queue;
pub mod rng;
pub mod time;

pub use queue::EventQueue;
pub use time::{Rate, Time};

/// A timer of a component that arms its own (a transport endpoint, a switch agent),
/// named by that component: it decides what the bits mean (say a slot and a generation,
/// so that a stale firing is recognised; timers are data, DESIGN.md).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct TimerKey(pub u64);
