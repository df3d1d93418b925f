//! TCP: NewReno (RFC 5681, RFC 6582), CUBIC (RFC 9438; `cubic`), DCTCP (RFC 8257) and
//! HPCC (SIGCOMM 2019, Algorithm 1; `hpcc`) over one connection per message or persistent
//! connections (byte streams whose messages share segments: Nagle's rule, `Config::coalesce`),
//! or with its congestion control off (a fixed window: TCP over PL2, PL2 §D.5).
//!
//! The sender and the receiver are separate sans-IO state machines. Behaviour follows
//! the RFCs where they decide and ns-3 3.37 (the reference the anchors were run with)
//! where they leave room; each choice is written down in `docs/transport.md`:
//! only whole segments are sent except the message's tail; growth counts segments
//! (Linux `tcp_cong_avoid_ai`); an ECN cut is applied through PRR and happens at most
//! once per window; a DCTCP receiver echoes ECE on exactly the ACKs of CE segments.
//! NewReno and CUBIC may run RFC 3168's ECN (`Config::rfc3168`, `ecn = "rfc3168"`; the
//! TCP-ECN of HULL §3.1, Fig. 2): the receiver echoes ECE on every ACK from a CE segment
//! until a segment with CWR arrives, and the sender cuts as for a loss, without
//! retransmitting, at most once per window, then sets CWR on its next new segment.
//! An HPCC sender sets its window from the INT stack each ACK echoes and paces at W / T.

pub mod cc;
pub mod endpoint;
pub mod receiver;
pub mod rtt;
pub mod segment;
pub mod sender;
pub mod table;

#[cfg(test)]
mod coalesce_tests;
#[cfg(test)]
mod delivery_tests;
#[cfg(test)]
mod dsack_tests;
#[cfg(test)]
mod ecn_tests;
#[cfg(test)]
mod hpcc_tests;
#[cfg(test)]
mod rwnd_tests;
#[cfg(test)]
mod tests;

pub use cc::{cubic, hpcc};
pub use endpoint::TcpEndpoint;
pub use receiver::Receiver;
pub use segment::Segment;
pub use sender::Sender;

use crate::measure::ideal::{last_ack, pipeline, Train};
use crate::net::ids::HostId;
use crate::net::topology::NetSpec;
use crate::sim::{Rate, Time};
use crate::transport::path::{base_rtt, Path};
use crate::transport::registry::Entry;
use crate::transport::{Endpoint, ModelFamily, Transport, TransportConfig};
use std::sync::Arc;

/// What the family needs of the network: one path per connection. A segment that overtakes
/// another (per-packet spraying) reads as a loss: duplicate ACKs, a spurious fast retransmit.
const IN_ORDER: &str = r#"routing = { paths = "ecmp" }"#;

/// The registry entries of the family (`transport::registry`).
pub const NEWRENO: Entry = Entry {
    name: "tcp",
    about: "TCP NewReno (RFC 5681, RFC 6582), or no congestion control; one connection per message",
    keys: &TCP_KEYS,
    needs: IN_ORDER,
    parse: table::newreno,
};
pub const CUBIC: Entry = Entry {
    name: "cubic",
    about: "TCP CUBIC (RFC 9438): a cubic window curve around the last loss",
    keys: &CUBIC_KEYS,
    needs: IN_ORDER,
    parse: table::cubic,
};
pub const DCTCP: Entry = Entry {
    name: "dctcp",
    about: "DCTCP (RFC 8257): ECN-marked fraction cuts the window",
    keys: &DCTCP_KEYS,
    needs: IN_ORDER,
    parse: table::dctcp,
};
pub const HPCC: Entry = Entry {
    name: "hpcc",
    about: "HPCC (SIGCOMM 2019): window and pacing from in-band telemetry",
    keys: &HPCC_KEYS,
    needs: IN_ORDER,
    parse: table::hpcc,
};

/// The keys of the window family after its first ones (`prr` to `restart_after_idle`),
/// and its last ones.
const WINDOW_KEYS: [&str; 12] = [
    "prr",
    "init_cwnd",
    "max_cwnd",
    "delayed_ack",
    "delayed_ack_timeout",
    "min_rto",
    "initial_rto",
    "clock_granularity",
    "handshake",
    "dupack_threshold",
    "lso",
    "restart_after_idle",
];
const LAST_KEYS: [&str; 4] = ["coalesce", "rwnd", "dsack", "completion"];
const TCP_KEYS: [&str; 21] =
    keys(&[&["kind", "mss", "header", "ecn"], &WINDOW_KEYS, &["congestion_control"], &LAST_KEYS]);
const CUBIC_KEYS: [&str; 23] = keys(&[
    &["kind", "mss", "header", "ecn"],
    &WINDOW_KEYS,
    &["cubic_c", "cubic_beta", "fast_convergence"],
    &LAST_KEYS,
]);
/// DCTCP's keys (PIAS's table accepts them too: `transport::pias`).
pub const DCTCP_KEYS: [&str; 21] =
    keys(&[&["kind", "mss", "header", "dctcp_g", "dctcp_initial_alpha"], &WINDOW_KEYS, &LAST_KEYS]);

/// The key lists `parts` one after the other, in order (N must be their total: a build
/// error otherwise), so tables that share keys list them once.
pub const fn keys<const N: usize>(parts: &[&[&'static str]]) -> [&'static str; N] {
    let mut out = [""; N];
    let (mut n, mut p) = (0, 0);
    while p < parts.len() {
        let mut i = 0;
        while i < parts[p].len() {
            assert!(n < N, "more keys than the list holds");
            out[n] = parts[p][i];
            n += 1;
            i += 1;
        }
        p += 1;
    }
    assert!(n == N, "fewer keys than the list holds");
    out
}
const HPCC_KEYS: [&str; 18] = [
    "kind",
    "mss",
    "header",
    "int_header",
    "init_cwnd",
    "w_ai",
    "eta",
    "max_stage",
    "delayed_ack",
    "delayed_ack_timeout",
    "min_rto",
    "initial_rto",
    "clock_granularity",
    "handshake",
    "dupack_threshold",
    "coalesce",
    "dsack",
    "completion",
];

/// Which congestion controller the sender runs.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Flavor {
    /// NewReno; packets are not ECN-capable unless `Config::rfc3168`.
    NewReno,
    /// DCTCP with EWMA gain `g` and initial alpha; packets (data and ACKs) are ECT(0).
    Dctcp { g: f64, initial_alpha: f64 },
    /// HPCC: the window follows in-band telemetry, the sender paces at W / T; packets
    /// are not ECN-capable; data packets collect INT and ACKs echo it.
    Hpcc(hpcc::Params),
    /// CUBIC (RFC 9438); packets are not ECN-capable unless `Config::rfc3168`.
    Cubic(cubic::Params),
    /// No congestion control: the window stays at `max_cwnd` (unbounded without one);
    /// losses are still recovered (`kind = "tcp"`, `congestion_control = "off"`).
    Off,
    /// A controller of the registry `cc::PLAIN` (`kind = "tcp"`, `congestion_control =
    /// "<name>"`); packets are not ECN-capable unless `Config::rfc3168`.
    Plain(&'static cc::Plain),
}

#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Config {
    pub flavor: Flavor,
    /// RFC 3168 ECN for NewReno and CUBIC (`ecn = "rfc3168"`; off by default): new data
    /// is ECT(0), the receiver echoes ECE until CWR, a mark cuts the window as a loss
    /// would, without a retransmission. DCTCP runs its own ECN whatever this says.
    pub rfc3168: bool,
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
    /// Duplicate ACKs that start a fast retransmit (RFC 5681's dupthresh, 3); None: never
    /// (loss is recovered by the RTO alone, as PIAS's and pFabric's ns-2 runs over
    /// per-packet spraying do, where reordering would fake losses).
    pub dupack_threshold: Option<u32>,
    /// Segmentation offload (HULL §2.3, §4.1): the stack hands the NIC sends of up to
    /// this many bytes, which the NIC cuts into back-to-back segments, and defers a send
    /// too small to be worth one as Linux's TSO does (`sender`'s `lso_defers`). None:
    /// segments leave one by one as the window opens.
    pub lso: Option<u64>,
    /// A persistent connection idle for longer than its RTO restarts from the initial
    /// window (RFC 2861, Linux's default `tcp_slow_start_after_idle = 1`); off: it keeps
    /// its window.
    pub restart_after_idle: bool,
    /// A persistent connection is a byte stream (`coalesce = "nagle"`, the default):
    /// segments cross message boundaries, and a short segment of new data waits while an
    /// earlier short one is unacknowledged and data is in flight (Nagle's algorithm with
    /// Minshall's variant, Linux's `tcp_nagle_check`). Off: every message's bytes are
    /// cut into segments of their own and nothing waits. A connection of one message
    /// sends the same either way (its only short segment is its tail).
    pub coalesce: bool,
    /// The receive window the receiver advertises (`rwnd`; None: unlimited, as before).
    pub rwnd: Option<receiver::RcvWindow>,
    /// `dsack = true`: an ACK answering a segment all of whose bytes had already arrived
    /// says so (RFC 2883's D-SACK), and the sender does not count it as a duplicate ACK,
    /// as a SACK sender's scoreboard gains nothing from it (Linux's default
    /// `tcp_sack = 1`, `tcp_dsack = 1`). Off (ns-3's NewReno, no SACK): a duplicated
    /// segment draws a duplicate ACK like any out-of-order one, and three of them a fast
    /// retransmit (PL2's duplicated unsolicited bursts, §D.4: docs/transport.md).
    pub dsack: bool,
    /// When a message completes (`completion`).
    pub completion: Completion,
}

/// When a TCP message completes (`completion`, docs/transport.md "Completion").
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Completion {
    /// Its sender has the ACK of its last byte: ns-3's flow completion time, what the
    /// anchors and every scenario before the key measure (`"ack"`, the default).
    Ack,
    /// Its receiver has its last byte in order, the stream's bytes before it too: one-way
    /// delivery to the receiving application (`"delivery"`; PL2 §F.1 measures "the time
    /// when the message is delivered at the receiving thread"). The connection's state is
    /// unchanged: its sender still forgets the message at the last ACK.
    Delivery,
}

impl Config {
    /// Whether the connection negotiates ECN (DCTCP, or `rfc3168`).
    pub fn ecn_capable(&self) -> bool {
        self.dctcp_ecn() || self.rfc3168
    }

    /// DCTCP's ECN: every packet ECT(0), ECE on exactly the ACKs of CE segments.
    pub fn dctcp_ecn(&self) -> bool {
        matches!(self.flavor, Flavor::Dctcp { .. })
    }
}

impl Transport for Config {
    fn name(&self) -> &'static str {
        match self.flavor {
            Flavor::NewReno | Flavor::Off | Flavor::Plain(_) => NEWRENO.name,
            Flavor::Cubic(_) => CUBIC.name,
            Flavor::Dctcp { .. } => DCTCP.name,
            Flavor::Hpcc(_) => HPCC.name,
        }
    }

    fn endpoint(&self, host: HostId) -> Box<dyn Endpoint> {
        Box::new(TcpEndpoint::new(*self, host))
    }

    /// The last ACK of the message (ns-3's FCT), or with `completion = "delivery"` the
    /// arrival of its last byte, after the handshake's round trip if there is one
    /// (docs/ideal-latency.md).
    fn ideal(&self, p: &Path, size: u64) -> Time {
        let (mss, hdr) = (self.mss as u64, self.header as u64);
        let every = if self.delayed_ack { 2 } else { 1 };
        let train = Train::of(size, mss, hdr);
        let mut t = p.src_tx_delay
            + match self.completion {
                Completion::Ack => last_ack(&p.fwd, &p.rev, train, hdr, every, p.dst_tx_delay),
                Completion::Delivery => pipeline(&p.fwd, train),
            };
        if self.handshake {
            t += p.src_tx_delay + last_ack(&p.fwd, &p.rev, Train::of(0, mss, hdr), hdr, 1, p.dst_tx_delay);
        }
        t
    }

    fn collects_telemetry(&self) -> bool {
        matches!(self.flavor, Flavor::Hpcc(_))
    }
    fn persistent_connections(&self) -> bool {
        true
    }
    fn full_packet(&self) -> u64 {
        self.mss as u64 + self.header as u64
    }
    fn segment_payload(&self) -> u64 {
        self.mss as u64
    }
    fn segmentation_offload(&self) -> Option<u64> {
        self.lso
    }

    /// Windows given in segments (and HPCC's window, additive step and line rate) scale
    /// with the link, so a window of one BDP stays one BDP; HPCC's T is recomputed on
    /// the scaled network.
    fn scaled(&self, factor: f64, net: &NetSpec) -> TransportConfig {
        let mut c = *self;
        let times = |x: u64| ((x as f64 * factor).ceil() as u64).max(1);
        c.init_cwnd = times(c.init_cwnd as u64) as u32;
        c.max_cwnd = c.max_cwnd.map(|m| times(m as u64) as u32);
        if let Flavor::Hpcc(h) = &mut c.flavor {
            h.line_rate = Rate::from_bps((h.line_rate.bps() as f64 * factor).round() as u64);
            h.w_init = times(h.w_init);
            h.w_ai = times(h.w_ai);
            h.base_rtt = base_rtt(net, c.mss as u64, c.header as u64);
        }
        Arc::new(c)
    }

    fn model_family(&self) -> Option<ModelFamily> {
        match self.flavor {
            Flavor::NewReno | Flavor::Cubic(_) | Flavor::Off | Flavor::Plain(_) => None,
            Flavor::Dctcp { .. } => Some(ModelFamily::Dctcp { mss: self.mss }),
            Flavor::Hpcc(h) => Some(ModelFamily::Hpcc { eta: h.eta }),
        }
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
