//! Congestion control as a [`Controller`]: the window (and pacing) policy of a TCP sender,
//! apart from the loss recovery it runs over.
//!
//! The sender (`super::sender`) owns the mechanics every variant shares: sequence numbers,
//! cumulative ACKs, fast retransmit and NewReno fast recovery (RFC 6582), D-SACK, the
//! RTO and its backoff, PRR during an ECN reduction (RFC 6937), Nagle's rule, TSO
//! deferral. At each event it hands the controller a [`Window`] (cwnd and ssthresh, with
//! what it may read: MSS, flight, the `max_cwnd` ceiling) to change:
//!
//! - an ACK that advanced `snd_una` in the open state, with cwnd the limit (`on_ack`:
//!   growth), and every ACK outside fast recovery with its ECN-Echo (`on_ecn`: DCTCP's α);
//! - an INT stack an ACK echoes (`on_int`: HPCC's U and W);
//! - an ECN-Echo that starts a reduction (`ecn_ssthresh`: RFC 3168 §6.1.2, RFC 8257 §3.3);
//! - a fast retransmit (`on_loss`), a duplicate or partial ACK within recovery
//!   (`on_recovery_dupack`, `on_partial_ack`), the full ACK that ends it
//!   (`on_recovery_exit`), a timeout (`on_rto`), an idle restart (`on_idle_restart`).
//!
//! Out come the window and, for a rate-based controller, a pacing gap per packet
//! (`pacing_gap`) or a window it sets outright (`owned_window`). The defaults are RFC
//! 5681 / RFC 6582's arithmetic, so a controller overrides only what it changes. The
//! shape follows quinn-proto's `congestion::Controller` (events in, window out), with
//! the events a datacenter sender also sees (ECN-Echo per ACK, INT).
//!
//! [`controller`] is the registry: one line per controller, from the configured
//! [`Flavor`]. docs/transport.md ("Adding a congestion controller") says what a new one
//! takes.

pub mod cubic;
pub mod dctcp;
pub mod hpcc;
pub mod newreno;
pub mod off;
mod prr;
pub mod reno;

pub use prr::{Prr, PrrVariant};

use super::Flavor;
use crate::net::int::Stack;
use crate::sim::Time;
use std::any::Any;

/// The registry: the controller a configured flavor runs.
pub fn controller(flavor: Flavor, mss: u64) -> Box<dyn Controller> {
    match flavor {
        Flavor::Plain(p) => (p.make)(mss),
        Flavor::NewReno => Box::new(newreno::NewReno::new(mss)),
        Flavor::Dctcp { g, initial_alpha } => Box::new(dctcp::Dctcp::new(mss, g, initial_alpha)),
        Flavor::Cubic(p) => Box::new(cubic::CubicWindow::new(mss, p)),
        Flavor::Hpcc(p) => Box::new(hpcc::Control::new(p)),
        Flavor::Off => Box::new(off::Off),
    }
}

/// The registry of controllers with no scenario keys of their own: one line each, chosen
/// by `congestion_control = "<name>"` under `kind = "tcp"` (besides `"newreno"` and
/// `"off"`), e.g. `Plain { name: "scalable", make: |mss| Box::new(scalable::Scalable::new(mss)) }`.
pub const PLAIN: &[Plain] = &[];

/// An entry of [`PLAIN`]: its name and how to make one for a connection of a given MSS.
#[derive(Copy, Clone)]
pub struct Plain {
    pub name: &'static str,
    pub make: fn(mss: u64) -> Box<dyn Controller>,
}

impl PartialEq for Plain {
    fn eq(&self, other: &Plain) -> bool {
        self.name == other.name
    }
}

impl std::fmt::Debug for Plain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// The sender's window as a controller sees it at an event: cwnd and ssthresh to change,
/// the rest to read (bytes).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Window {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub mss: u64,
    /// Bytes in flight (`snd_nxt - snd_una`) when the event happened.
    pub in_flight: u64,
    /// `max_cwnd` in bytes (u64::MAX without one).
    pub ceiling: u64,
}

impl Window {
    /// `cwnd` held to the `max_cwnd` ceiling.
    pub fn clamp(&self, cwnd: u64) -> u64 {
        cwnd.min(self.ceiling)
    }
}

/// An ACK that advanced `snd_una`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Ack {
    pub now: Time,
    /// The new `snd_una`.
    pub ack: u64,
    /// Bytes it newly acknowledged, and the whole segments among them.
    pub newly: u64,
    pub segs: u64,
    /// It carried ECN-Echo.
    pub ece: bool,
    /// `snd_nxt` before this ACK (and anything it lets out).
    pub snd_nxt: u64,
    /// The smoothed RTT (the minimum RTO before the first sample).
    pub rtt: Time,
}

/// A congestion controller: events in, window (and pacing) out. Every method but
/// `on_ack` has a default: RFC 5681 / 6582's reaction, or nothing.
pub trait Controller: Any + Send {
    /// The window before the first ACK, from `init` (`init_cwnd` segments) and the
    /// `max_cwnd` ceiling if there is one.
    fn initial_window(&self, init: u64, _ceiling: Option<u64>) -> u64 {
        init
    }

    /// Growth: an ACK advanced `snd_una` in the open state and cwnd limited the sender.
    fn on_ack(&mut self, w: &mut Window, a: &Ack);

    /// Every ACK that advanced `snd_una` outside fast recovery, after a reduction it
    /// starts: its ECN-Echo as feedback (DCTCP's α).
    fn on_ecn(&mut self, _a: &Ack) {}

    /// An ACK (not the last) echoed the in-band telemetry `int`; `snd_nxt` is the next
    /// byte the sender would send.
    fn on_int(&mut self, _ack: u64, _snd_nxt: u64, _int: &Stack) {}

    /// The controller runs ECN of its own (DCTCP's): every packet ECT(0), and an
    /// ECN-Echo reduces the window whatever `ecn` says.
    fn ecn(&self) -> bool {
        false
    }

    /// The ssthresh an ECN-Echo reduces to (RFC 3168 §6.1.2: as for a loss, on cwnd).
    /// PRR then brings cwnd down to it.
    fn ecn_ssthresh(&mut self, w: &Window) -> u64 {
        (w.cwnd / 2).max(2 * w.mss)
    }

    /// A fast retransmit (RFC 6582 §3.2 steps 2-3): ssthresh half the flight (RFC 5681
    /// eq. 4), cwnd inflated by the three duplicate ACKs.
    fn on_loss(&mut self, w: &mut Window) {
        w.ssthresh = (w.in_flight / 2).max(2 * w.mss);
        w.cwnd = w.ssthresh + 3 * w.mss;
    }

    /// A duplicate ACK within fast recovery: one more segment left the network.
    fn on_recovery_dupack(&mut self, w: &mut Window) {
        w.cwnd += w.mss;
    }

    /// A partial ACK within fast recovery: deflate by what it acknowledged, plus one.
    fn on_partial_ack(&mut self, w: &mut Window, newly: u64) {
        w.cwnd = w.cwnd.saturating_sub(newly) + w.mss;
    }

    /// The full ACK that ends fast recovery (RFC 6582 §3.2 step 3).
    fn on_recovery_exit(&mut self, w: &mut Window) {
        w.cwnd = w.ssthresh;
    }

    /// A retransmission timeout (RFC 5681 §3.1 eq. 4): one segment.
    fn on_rto(&mut self, w: &mut Window) {
        w.ssthresh = (w.in_flight / 2).max(2 * w.mss);
        w.cwnd = w.mss;
    }

    /// A connection idle for longer than its RTO sends again (RFC 2861 §3): back to the
    /// initial window `init`.
    fn on_idle_restart(&mut self, w: &mut Window, init: u64) {
        w.ssthresh = w.ssthresh.max(w.cwnd * 3 / 4);
        w.cwnd = w.cwnd.min(init);
    }

    /// A window the controller sets outright: the sender's cwnd in the open state after
    /// every ACK (HPCC's W). None: the sender keeps the window the events left.
    fn owned_window(&self) -> Option<u64> {
        None
    }

    /// The controller paces: no data packet leaves before the previous one's
    /// `pacing_gap`, and one may enter an empty pipe whatever the window (a window below
    /// a segment still sends, at the pacing rate).
    fn paces(&self) -> bool {
        false
    }

    /// With `paces`: how long after a packet of `bytes` on the wire the next may leave.
    fn pacing_gap(&self, _bytes: u64) -> Time {
        Time::ZERO
    }

    /// Data packets collect in-band telemetry (INT) for `on_int`.
    fn telemetry(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sender's code (comments aside) names no flavor and no controller: a new
    /// controller never edits it.
    #[test]
    fn the_sender_names_no_congestion_controller() {
        let code: String = include_str!("../sender.rs")
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n")
            .to_lowercase();
        for name in ["flavor::", "reno", "dctcp", "cubic", "hpcc", "off::", "alpha", "growth"] {
            assert!(!code.contains(name), "sender.rs names `{name}` outside a comment");
        }
    }

    /// The registry gives each flavor its controller.
    #[test]
    fn the_registry_gives_each_flavor_its_controller() {
        let is = |f: Flavor, t: std::any::TypeId| (controller(f, 1000).as_ref() as &dyn Any).type_id() == t;
        assert!(is(Flavor::NewReno, std::any::TypeId::of::<newreno::NewReno>()));
        assert!(is(Flavor::Dctcp { g: 0.0625, initial_alpha: 1.0 }, std::any::TypeId::of::<dctcp::Dctcp>()));
        assert!(is(Flavor::Cubic(cubic::Params::default()), std::any::TypeId::of::<cubic::CubicWindow>()));
        assert!(is(Flavor::Off, std::any::TypeId::of::<off::Off>()));
    }

    /// A controller of its own, given to the sender through a registry entry and nothing
    /// else: 4 segments to start, one more per ACK that advances, a quarter off on a loss.
    struct Steady;
    impl Controller for Steady {
        fn initial_window(&self, _init: u64, _ceiling: Option<u64>) -> u64 {
            4_000
        }
        fn on_ack(&mut self, w: &mut Window, a: &Ack) {
            w.cwnd += a.segs.min(1) * w.mss;
        }
        fn on_loss(&mut self, w: &mut Window) {
            w.ssthresh = w.cwnd * 3 / 4;
            w.cwnd = w.ssthresh;
        }
    }
    static STEADY: Plain = Plain { name: "steady", make: |_| Box::new(Steady) };

    #[test]
    fn a_registered_controller_drives_the_sender() {
        use super::super::{tests::cfg, Segment, Sender};
        let ack = |ack| Segment::Ack { ack, ece: false, ts_echo: Time::ZERO, wnd: 0, tsval: 0, dsack: false };
        let mut s = Sender::new(cfg(Flavor::Plain(&STEADY)), 100_000);
        assert!(s.controller::<Steady>().is_some());
        let sent = std::iter::from_fn(|| s.poll_transmit(Time::ZERO)).count();
        assert_eq!((sent, s.cwnd()), (4, 4_000), "its initial window, not init_cwnd's 10 segments");
        s.handle_packet(Time::from_us(10), &ack(2_000), None);
        assert_eq!(s.cwnd(), 5_000, "one segment per advancing ACK (two acknowledged)");
        for _ in 0..3 {
            s.handle_packet(Time::from_us(11), &ack(2_000), None);
        }
        assert_eq!((s.ssthresh(), s.cwnd()), (3_750, 3_750), "its loss reaction at the third duplicate");
    }

    /// The defaults are RFC 5681 / 6582's arithmetic; no congestion control keeps its
    /// window through every event.
    #[test]
    fn loss_events_follow_rfc_5681_and_off_keeps_its_window() {
        let w0 = Window { cwnd: 20_000, ssthresh: u64::MAX, mss: 1000, in_flight: 16_000, ceiling: u64::MAX };
        let mut reno = controller(Flavor::NewReno, 1000);
        let mut w = w0;
        reno.on_loss(&mut w);
        assert_eq!((w.ssthresh, w.cwnd), (8_000, 11_000), "half the flight, inflated by three dupacks");
        reno.on_recovery_dupack(&mut w);
        reno.on_partial_ack(&mut w, 3_000);
        assert_eq!(w.cwnd, 10_000);
        reno.on_recovery_exit(&mut w);
        assert_eq!(w.cwnd, 8_000);
        reno.on_rto(&mut w);
        assert_eq!(w.cwnd, 1_000);
        assert_eq!(reno.ecn_ssthresh(&w0), 10_000, "RFC 3168: half of cwnd");
        let mut off = controller(Flavor::Off, 1000);
        let mut w = w0;
        off.on_loss(&mut w);
        off.on_recovery_dupack(&mut w);
        off.on_partial_ack(&mut w, 3_000);
        off.on_recovery_exit(&mut w);
        off.on_rto(&mut w);
        off.on_idle_restart(&mut w, 10_000);
        assert_eq!(w, w0);
        assert_eq!(off.initial_window(10_000, None), u64::MAX / 4);
    }
}
