//! The discrete-event core: integer time, the event queue, random streams.

pub mod queue;
pub mod rng;
pub mod time;

pub use queue::EventQueue;
pub use time::{Rate, Time};
