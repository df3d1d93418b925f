//! TCP: NewReno (RFC 5681, RFC 6582), DCTCP (RFC 8257) and HPCC (SIGCOMM 2019,
//! Algorithm 1; `hpcc`) over one connection per message.
//!
//! The sender and the receiver are separate sans-IO state machines. Behaviour follows
//! the RFCs where they decide and ns-3 3.37 (the reference the anchors were run with)
//! where they leave room; each choice is written down in `docs/transport.md`:
//! only whole segments are sent except the message's tail; growth counts segments
//! (Linux `tcp_cong_avoid_ai`); an ECN cut is applied through PRR and happens at most
//! once per window; a DCTCP receiver echoes ECE on exactly the ACKs of CE segments.
//! An HPCC sender sets its window from the INT stack each ACK echoes and paces at W / T.

pub mod cc;
pub mod hpcc;
pub mod receiver;
pub mod rtt;
pub mod sender;

#[cfg(test)]
mod hpcc_tests;
#[cfg(test)]
mod tests;

pub use receiver::Receiver;
pub use sender::Sender;

use crate::sim::Time;

/// Which congestion controller the sender runs.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Flavor {
    /// NewReno; packets are not ECN-capable.
    NewReno,
    /// DCTCP with EWMA gain `g` and initial alpha; packets (data and ACKs) are ECT(0).
    Dctcp { g: f64, initial_alpha: f64 },
    /// HPCC: the window follows in-band telemetry, the sender paces at W / T; packets
    /// are not ECN-capable; data packets collect INT and ACKs echo it.
    Hpcc(hpcc::Params),
}

#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Config {
    pub flavor: Flavor,
    /// Payload bytes per full segment.
    pub mss: u32,
    /// Header bytes added to every packet on the wire (a pure ACK is this size).
    pub header: u32,
    /// Initial window in segments.
    pub init_cwnd: u32,
    /// Ceiling on cwnd in segments (None: unbounded).
    pub max_cwnd: Option<u32>,
    /// Delayed ACKs (ACK every second segment or after `delack_timeout`).
    pub delayed_ack: bool,
    pub delack_timeout: Time,
    pub min_rto: Time,
    /// RTO before the first RTT sample.
    pub initial_rto: Time,
    /// Clock granularity G of RFC 6298.
    pub rto_granularity: Time,
    /// Open the connection with SYN / SYN-ACK before sending data (counted in the
    /// latency); otherwise the connection is already established.
    pub handshake: bool,
    /// How an ECN window reduction is paced.
    pub prr: cc::PrrVariant,
}

impl Config {
    pub fn ecn_capable(&self) -> bool {
        matches!(self.flavor, Flavor::Dctcp { .. })
    }
}
