//! Transports as sans-IO state machines (quinn-proto style).
//!
//! An endpoint is fed inputs — the message to send, a packet that arrived, a timer that
//! fired — with the current time, and is polled for outputs: packets to transmit, its
//! next deadline, whether the message completed. It never sees the event queue or the
//! network, so tests drive it with scripted exchanges (see `tcp::tests`).

pub mod raw;
pub mod tcp;

use crate::net::packet::{Ecn, Header};

/// A packet an endpoint wants sent; the engine adds addresses and the class.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Transmit {
    pub hdr: Header,
    pub wire_bytes: u32,
    pub ecn: Ecn,
    /// The INT stack the packet starts with: an empty one on HPCC data (the ports fill
    /// it), the echoed one on HPCC ACKs; None for packets without telemetry.
    pub int: Option<crate::net::int::Stack>,
}
