//! The TCP receiver: reassembly, cumulative ACKs, delayed ACKs and the ECN echo.
//!
//! ACK policy (RFC 5681 §4.2, RFC 1122): an out-of-order segment, one that fills a hole,
//! and the message's last byte are acknowledged at once; otherwise with delayed ACKs
//! every second segment, or when the timer fires. ECN echo: under DCTCP the ECE bit of
//! each ACK is the CE state of the segments it covers, and a change of CE state first
//! flushes an ACK for the segments received before it with the old state (RFC 8257
//! §3.2), so the sender sees exactly which bytes were marked. Under RFC 3168
//! (`Config::rfc3168`) a CE segment latches ECE on every ACK until a segment with CWR
//! arrives (CWR is read before the segment's own CE), and the segment that sets the latch
//! is acknowledged at once (Linux's quick ACK on CE: the sender may have a small window);
//! its ACKs are not ECT. INT (HPCC): each ACK
//! echoes the INT stack of the latest data segment received, as HPCC's receiver does.
//!
//! GRO: segments handed up together (a batch of receive interrupt coalescing,
//! `net::nic::Coalescing`) are merged into one large segment by Linux's generic receive
//! offload before TCP sees them, so a batch of in-order data is acknowledged by one ACK.
//! Here an in-order ACK queued at the same instant as the ACK before it, with the same
//! ECE, replaces it, up to 64 KB acknowledged by one ACK (GRO's largest segment). This
//! is what makes HULL's Table 2 ACK ratio grow with `rx-frames`. ACKs queued at
//! different instants, duplicate ACKs, and ACKs across a hole are never merged.
//!
//! Receive window (`Config::rwnd`, docs/transport.md "Receive window"): every ACK
//! advertises a window, which with `autotune` grows as Linux's receive-buffer
//! auto-tuning ("dynamic right-sizing", `tcp_rcv_space_adjust`, Linux 2.6.7 onwards)
//! grows it. The application reads every byte as it arrives in order, so the bytes read
//! are `rcv_nxt`. Once per receiver RTT estimate the receiver takes the bytes read in
//! that interval; twice that, if above the window, becomes the window, up to 3/4 of the
//! buffer's ceiling `max` (`tcp_rmem[2]`; `tcp_adv_win_scale = 2` leaves 1/4 of the buffer
//! to overhead). The window only grows. The receiver's RTT estimate is Linux's with
//! timestamps (`tcp_rcv_rtt_measure_ts`): each full segment's age of the TSval it echoes,
//! counted in ticks of a coarse clock (`RcvWindow::clock`, Linux's jiffy: TSval counts
//! jiffies), at least one tick, smoothed with gain 1/8.

use super::segment::{Out, Segment, TS_MASK};
use super::Config;
use crate::net::int::Stack;
use crate::net::packet::Ecn;
use crate::sim::Time;
use std::collections::VecDeque;

/// The most bytes one merged ACK acknowledges (GRO's largest segment, 64 KB).
const GRO_MAX: u64 = 65_536;

/// When the sender counts as limited by cwnd, the only time cwnd grows (Linux's
/// `tcp_is_cwnd_limited`; `rwnd`'s `cwnd_limited`, docs/transport.md "Receive window").
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CwndLimited {
    /// The flight is within three segments of cwnd (`tcp_max_burst`): Linux's rule for a
    /// socket without segmentation offload.
    Burst,
    /// The unsent part of cwnd is below a third of it (`tcp_tso_win_divisor` = 3): Linux
    /// 2.6.26's rule for a socket with segmentation offload, the inverse of its TSO
    /// deferral.
    Tso,
}

impl CwndLimited {
    /// Whether a sender with `flight` bytes out (before the ACK) is limited by `cwnd`.
    pub fn holds(self, flight: u64, cwnd: u64, mss: u64) -> bool {
        match self {
            CwndLimited::Burst => flight + 3 * mss >= cwnd,
            CwndLimited::Tso => flight >= cwnd || 3 * (cwnd - flight) < cwnd,
        }
    }
}

/// The receive window a receiver advertises (`rwnd = { autotune, initial, max, clock,
/// cwnd_limited }`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RcvWindow {
    /// Grow the window per RTT as Linux's auto-tuning does; otherwise it stays `initial`.
    pub autotune: bool,
    /// The window first advertised, bytes.
    pub initial: u64,
    /// The receive buffer's ceiling, bytes; the window reaches at most 3/4 of it.
    pub max: u64,
    /// The timestamps' tick (Linux's jiffy: 1 ms at HZ = 1000, 4 ms at HZ = 250).
    pub clock: Time,
    /// The sender's rule for when cwnd may grow (it grows only while cwnd limits it).
    pub cwnd_limited: CwndLimited,
}

/// Auto-tuning's state (`RcvWindow`): Linux's `rcv_rtt_est` and `rcvq_space`.
#[derive(Clone, Debug)]
struct Tuning {
    /// The window advertised now, bytes.
    wnd: u64,
    /// The ceiling: 3/4 of `RcvWindow::max`, or `initial` without auto-tuning.
    ceiling: u64,
    clock: Time,
    /// The smoothed RTT estimate, in ticks (None before the first sample).
    rtt: Option<f64>,
    /// Bytes read at the start of the current interval, and when it began.
    space_seq: u64,
    space_from: Time,
}

impl Tuning {
    fn new(w: RcvWindow) -> Tuning {
        Tuning {
            wnd: w.initial,
            ceiling: if w.autotune { (w.max / 4 * 3).max(w.initial) } else { w.initial },
            clock: w.clock,
            rtt: None,
            space_seq: 0,
            space_from: Time::ZERO,
        }
    }

    /// The coarse clock at `now` plus one tick, as the 24 bits an ACK carries (so that
    /// 0 stays "no timestamp", as Linux's `rcv_tsecr` test has it).
    fn tsval(&self, now: Time) -> u32 {
        ((now.ps() / self.clock.ps() + 1) & TS_MASK) as u32
    }

    /// A full segment echoing `tsecr` arrived at `now`: one RTT sample.
    fn on_echo(&mut self, now: Time, tsecr: u32) {
        let ticks = ((now.ps() / self.clock.ps() + 1).wrapping_sub(tsecr as u64) & TS_MASK).max(1) as f64;
        self.rtt = Some(match self.rtt {
            Some(est) => est + (ticks - est) / 8.0,
            None => ticks,
        });
    }

    /// `rcv_nxt` advanced to `read` at `now` (every byte in order is read at once).
    fn on_read(&mut self, now: Time, read: u64) {
        let Some(rtt) = self.rtt else { return };
        if ((now - self.space_from).ps() as f64) < rtt * self.clock.ps() as f64 {
            return;
        }
        let space = 2 * (read - self.space_seq);
        if space > self.wnd {
            self.wnd = space.min(self.ceiling);
        }
        self.space_seq = read;
        self.space_from = now;
    }
}

pub struct Receiver {
    cfg: Config,
    /// The advertised window's state (`Config::rwnd`; None: no window is advertised).
    tuning: Option<Tuning>,
    size: u64,
    rcv_nxt: u64,
    /// Received ranges above `rcv_nxt`, sorted and disjoint.
    above: Vec<(u64, u64)>,
    out: VecDeque<Out>,
    /// In-order segments received and not yet acknowledged (delayed ACKs).
    unacked: u32,
    ce_state: bool,
    ts_echo: Time,
    /// The INT stack of the latest data segment, echoed by the next ACK.
    int_echo: Option<Stack>,
    delack_at: Option<Time>,
    /// The ACK number the queued tail ACK started from, and when it was queued (GRO).
    tail_from: u64,
    tail_at: Time,
    /// The ACK number of the latest ACK queued.
    last_ack: u64,
    /// The time of the latest input (what `push_ack` compares `tail_at` with).
    now: Time,
    /// When the last byte of the message arrived.
    pub completed_at: Option<Time>,
    /// The next ACK answers a segment whose bytes had all arrived (`Config::dsack`).
    dsack: bool,
}

impl Receiver {
    pub fn new(cfg: Config, size: u64) -> Receiver {
        Receiver {
            cfg,
            tuning: cfg.rwnd.map(Tuning::new),
            size,
            rcv_nxt: 0,
            above: Vec::new(),
            out: VecDeque::new(),
            unacked: 0,
            ce_state: false,
            ts_echo: Time::ZERO,
            int_echo: None,
            delack_at: None,
            tail_from: 0,
            tail_at: Time::MAX,
            last_ack: 0,
            now: Time::ZERO,
            completed_at: None,
            dsack: false,
        }
    }

    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    /// The window the next ACK advertises, bytes (0: none is modelled).
    pub fn window(&self) -> u64 {
        self.tuning.as_ref().map_or(0, |t| t.wnd)
    }

    /// A packet for this receiver arrived, with its INT stack if it collected one.
    pub fn handle_packet(&mut self, now: Time, seg: &Segment, ecn: Ecn, int: Option<&Stack>) {
        match *seg {
            Segment::Syn { ts } => {
                let t = Out {
                    seg: Segment::SynAck { ts_echo: ts },
                    wire_bytes: self.cfg.header,
                    ecn: self.ack_ecn(),
                    int: None,
                };
                self.out.push_back(t);
            }
            Segment::Data { seq, len, ts, tsecr, cwr } => {
                if int.is_some() {
                    self.int_echo = int.copied();
                }
                if let (Some(t), true) = (self.tuning.as_mut(), tsecr != 0 && len >= self.cfg.mss) {
                    t.on_echo(now, tsecr);
                }
                if self.cfg.rfc3168 && cwr {
                    self.ce_state = false;
                }
                self.on_data(now, seq, len as u64, ts, ecn == Ecn::Ce)
            }
            _ => {}
        }
    }

    fn on_data(&mut self, now: Time, seq: u64, len: u64, ts: Time, ce: bool) {
        self.now = now;
        let dctcp = self.cfg.dctcp_ecn();
        if dctcp && ce != self.ce_state && self.unacked > 0 {
            self.push_ack(self.ce_state);
        }
        if dctcp {
            self.ce_state = ce;
        }
        // RFC 3168 §6.1.3: the echo holds from a CE segment until CWR (above) clears it.
        let latched = self.cfg.rfc3168 && ce && !self.ce_state;
        if latched {
            self.ce_state = true;
        }
        self.ts_echo = ts;
        let in_order = seq == self.rcv_nxt;
        let had_holes = !self.above.is_empty();
        let before = self.rcv_nxt;
        self.dsack = self.cfg.dsack && len > 0 && seq + len <= before;
        self.insert(seq, seq + len);
        if let (Some(t), true) = (self.tuning.as_mut(), self.rcv_nxt > before) {
            t.on_read(now, self.rcv_nxt);
        }
        if self.rcv_nxt >= self.size && self.completed_at.is_none() {
            self.completed_at = Some(now);
        }
        let immediate = !in_order || had_holes || self.rcv_nxt >= self.size || latched;
        if immediate || !self.cfg.delayed_ack {
            self.push_ack(self.ce_state);
            return;
        }
        self.unacked += 1;
        if self.unacked >= 2 {
            self.push_ack(self.ce_state);
        } else if self.delack_at.is_none() {
            self.delack_at = Some(now + self.cfg.delack_timeout);
        }
    }

    /// Records `[start, end)` and advances `rcv_nxt` over contiguous data.
    fn insert(&mut self, start: u64, end: u64) {
        if end <= self.rcv_nxt {
            return;
        }
        if start <= self.rcv_nxt && self.above.first().is_none_or(|r| r.0 > end) {
            // In order and touching nothing buffered: the common case.
            self.rcv_nxt = end;
            return;
        }
        let start = start.max(self.rcv_nxt);
        let i = self.above.partition_point(|r| r.1 < start);
        let mut s = start;
        let mut e = end;
        let mut j = i;
        while j < self.above.len() && self.above[j].0 <= e {
            s = s.min(self.above[j].0);
            e = e.max(self.above[j].1);
            j += 1;
        }
        self.above.splice(i..j, std::iter::once((s, e)));
        if self.above[0].0 <= self.rcv_nxt {
            self.rcv_nxt = self.above.remove(0).1;
        }
    }

    fn ack_ecn(&self) -> Ecn {
        if self.cfg.dctcp_ecn() {
            Ecn::Ect
        } else {
            Ecn::NotEct
        }
    }

    fn push_ack(&mut self, ece: bool) {
        let tsval = self.tuning.as_ref().map_or(0, |t| t.tsval(self.now));
        let dsack = std::mem::take(&mut self.dsack);
        let seg = Segment::Ack { ack: self.rcv_nxt, ece, ts_echo: self.ts_echo, wnd: self.window(), tsval, dsack };
        let out = Out { seg, wire_bytes: self.cfg.header, ecn: self.ack_ecn(), int: self.int_echo.map(Box::new) };
        self.unacked = 0;
        self.delack_at = None;
        if self.merges_into_tail(ece) {
            *self.out.back_mut().expect("a tail to merge into") = out;
        } else {
            self.tail_from = self.last_ack;
            self.tail_at = self.now;
            self.out.push_back(out);
        }
        self.last_ack = self.rcv_nxt;
    }

    /// Whether a new ACK replaces the queued tail ACK (GRO; see the module doc).
    fn merges_into_tail(&self, ece: bool) -> bool {
        let Some(Out { seg: Segment::Ack { ack, ece: tail_ece, .. }, .. }) = self.out.back() else { return false };
        self.tail_at == self.now
            && *tail_ece == ece
            && *ack > self.tail_from
            && self.rcv_nxt > *ack
            && self.above.is_empty()
            && self.rcv_nxt - self.tail_from <= GRO_MAX
    }

    pub fn poll_transmit(&mut self) -> Option<Out> {
        self.out.pop_front()
    }

    pub fn poll_timeout(&self) -> Option<Time> {
        self.delack_at
    }

    pub fn handle_timeout(&mut self, now: Time) {
        self.now = now;
        if self.delack_at.is_some_and(|t| t <= now) {
            self.push_ack(self.ce_state);
        }
    }
}
