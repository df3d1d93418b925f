//! The TCP sender: send path, ACK processing, loss recovery and the RTO.
//!
//! States: Open (growth), Cwr (an ECN reduction through PRR, RFC 3168 §6.1.2 + RFC 6937)
//! and Recovery (NewReno fast recovery, RFC 6582, with cwnd inflation). Under RFC 3168's
//! ECN (`Config::rfc3168`) the Cwr state takes the controller's ssthresh (as for a loss),
//! and every reduction — a mark, a fast retransmit, a timeout — sets CWR
//! on the next new data segment (Linux's `tcp_ecn_queue_cwr` and `tcp_ecn_send`), which
//! alone is ECT(0): retransmissions, SYNs and ACKs are not (RFC 3168 §6.1.4-6.1.5). Every byte range
//! is `[seq, seq + len)` in message bytes; `high_tx` is one past the highest byte sent.
//!
//! The window and pacing policy is the congestion controller's (`cc::Controller`, one
//! per `Config::flavor` from the registry `cc::controller`): the sender tells it of each
//! event and keeps the window it leaves, and names no controller. A controller that sets
//! its window outright (HPCC's W, from the INT stack of every ACK) has it in the open
//! state; one that paces has data packets — new and resent — leave no earlier than a
//! deadline of their own (`next_send_at`).

use super::cc::{self, Ack, Controller, Prr, Window};
use super::rtt::RttEstimator;
use super::segment::{Out, Segment};
use super::Config;
use crate::net::int::Stack;
use crate::net::packet::Ecn;
use crate::sim::Time;

#[derive(Copy, Clone, Debug, PartialEq)]
enum State {
    /// A SYN is to be sent or is out; data waits.
    Connecting {
        syn_due: bool,
    },
    Open,
    /// ECN window reduction until an ACK passes `recover`.
    Cwr {
        recover: u64,
        prr: Prr,
    },
    /// NewReno fast recovery until an ACK covers `recover`.
    Recovery {
        recover: u64,
    },
    Done,
}

/// What the sender counted, for the run summary.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SenderStats {
    pub data_packets: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_recoveries: u64,
    pub ecn_cuts: u64,
    /// ACKs received and the bytes they newly acknowledged (their ratio is HULL's
    /// Table 2 "ACK ratio").
    pub acks: u64,
    pub acked_bytes: u64,
    /// Duplicate ACKs that reported a duplicated segment (D-SACK, `Config::dsack`) and
    /// so were not counted towards a fast retransmit.
    pub dsack_acks: u64,
}

pub struct Sender {
    cfg: Config,
    size: u64,
    state: State,
    snd_una: u64,
    snd_nxt: u64,
    high_tx: u64,
    cwnd: u64,
    ssthresh: u64,
    /// The congestion controller: the window and pacing policy.
    cc: Box<dyn Controller>,
    /// What it is, read once (the send path asks on every poll): `Controller::ecn`,
    /// `paces`, `telemetry`.
    own_ecn: bool,
    paced: bool,
    telemetry: bool,
    /// Pacing (`Controller::paces`): no data packet leaves before this time.
    next_send_at: Time,
    dupacks: u32,
    retransmit_due: bool,
    /// Segments left in the current send (segmentation offload: `Config::lso`).
    send_left: u64,
    /// When an ACK last advanced the window (how long a persistent connection has idled).
    last_ack_at: Time,
    rtt: RttEstimator,
    rto_at: Option<Time>,
    backoff: u32,
    completed: bool,
    /// The ends of the messages not yet acknowledged, ascending (one for a sender of one
    /// message; more on a persistent connection): a segment crosses one only when the
    /// connection coalesces (`Config::coalesce`).
    ends: std::collections::VecDeque<u64>,
    /// One past the last short segment of new data sent (Linux's `snd_sml`, Minshall's
    /// refinement of Nagle's rule).
    snd_sml: u64,
    /// The receiver's advertised window, bytes (unlimited until an ACK advertises one).
    rwnd: u64,
    /// The latest TSval the receiver sent (echoed by data; 0: none).
    ts_recent: u32,
    /// RFC 3168: the next new data segment carries CWR (a reduction happened since).
    cwr_due: bool,
    pub stats: SenderStats,
}

impl Sender {
    /// A sender with `size` bytes to deliver, all available from the start.
    pub fn new(cfg: Config, size: u64) -> Sender {
        let mss = cfg.mss as u64;
        let cc = cc::controller(cfg.flavor, mss);
        let cwnd = cc.initial_window(cfg.init_cwnd as u64 * mss, cfg.max_cwnd.map(|m| m as u64 * mss));
        let mut s = Sender {
            cfg,
            size,
            state: if cfg.handshake { State::Connecting { syn_due: true } } else { State::Open },
            snd_una: 0,
            snd_nxt: 0,
            high_tx: 0,
            cwnd,
            ssthresh: u64::MAX,
            own_ecn: cc.ecn(),
            paced: cc.paces(),
            telemetry: cc.telemetry(),
            cc,
            next_send_at: Time::ZERO,
            dupacks: 0,
            retransmit_due: false,
            send_left: 0,
            last_ack_at: Time::ZERO,
            rtt: RttEstimator::new(cfg.initial_rto, cfg.min_rto, cfg.rto_granularity),
            rto_at: None,
            backoff: 0,
            completed: false,
            ends: std::collections::VecDeque::from([size]),
            snd_sml: 0,
            rwnd: cfg.rwnd.map_or(u64::MAX, |w| w.initial),
            ts_recent: 0,
            cwr_due: false,
            stats: SenderStats::default(),
        };
        s.cwnd = s.clamp(s.cwnd);
        s
    }

    pub fn cwnd(&self) -> u64 {
        self.cwnd
    }
    pub fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
    /// The congestion controller, if it is a `C`.
    pub fn controller<C: Controller>(&self) -> Option<&C> {
        (self.cc.as_ref() as &dyn std::any::Any).downcast_ref()
    }
    /// Bytes appended and not yet acknowledged.
    pub fn unacknowledged(&self) -> u64 {
        self.size - self.snd_una
    }

    /// Bytes acknowledged so far.
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }

    /// A persistent connection's next message at `now`: `bytes` more to send after what
    /// it has, with the congestion state it has (a connection that had sent everything
    /// opens again). With `Config::restart_after_idle`, a connection idle for longer than
    /// its RTO first shrinks its window to the initial one (RFC 2861 §3, Linux's
    /// `tcp_slow_start_after_idle`). Returns the stream offset where the message ends.
    pub fn append(&mut self, now: Time, bytes: u64) -> u64 {
        self.size += bytes;
        self.ends.push_back(self.size);
        if self.completed {
            self.completed = false;
            self.state = State::Open;
            if self.cfg.restart_after_idle && now.saturating_sub(self.last_ack_at) > self.rtt.rto() {
                let init = self.cfg.init_cwnd as u64 * self.mss();
                self.with_window(|cc, w| cc.on_idle_restart(w, init));
            }
        }
        self.size
    }

    /// The length of the segment starting at `seq`: a full one, or up to the end of its
    /// message (a coalescing connection: up to the end of the bytes it has).
    fn seg_len(&self, seq: u64) -> u64 {
        if self.cfg.coalesce {
            return self.mss().min(self.size - seq);
        }
        let i = self.ends.partition_point(|&e| e <= seq);
        let end = self.ends.get(i).copied().unwrap_or(self.size);
        self.mss().min(end - seq)
    }

    /// True while bytes wait to be sent for the first time, other than a short segment
    /// Nagle's rule holds (what a blocking send call would wait for).
    pub fn has_unsent(&self) -> bool {
        self.snd_nxt < self.size && !self.nagle_holds(self.seg_len(self.snd_nxt))
    }

    pub fn in_flight(&self) -> u64 {
        self.snd_nxt - self.snd_una
    }
    /// True once the last byte has been acknowledged (the message is complete).
    pub fn is_complete(&self) -> bool {
        self.completed
    }

    fn mss(&self) -> u64 {
        self.cfg.mss as u64
    }
    /// What may be in flight: the congestion window, bounded by the advertised window.
    fn send_window(&self) -> u64 {
        self.cwnd.min(self.rwnd)
    }
    /// Whether the congestion window limits the sender (Linux's `tcp_is_cwnd_limited`,
    /// in the form `RcvWindow::cwnd_limited` names): only then does cwnd grow. Without a
    /// receive window (`Config::rwnd`) it always grows, as before.
    fn cwnd_limited(&self, flight: u64) -> bool {
        self.cfg.rwnd.is_none_or(|w| w.cwnd_limited.holds(flight, self.cwnd, self.mss()))
    }
    fn clamp(&self, cwnd: u64) -> u64 {
        match self.cfg.max_cwnd {
            Some(m) => cwnd.min(m as u64 * self.mss()),
            None => cwnd,
        }
    }
    /// The window as the controller sees it now.
    fn window(&self) -> Window {
        let ceiling = self.cfg.max_cwnd.map_or(u64::MAX, |m| m as u64 * self.mss());
        Window { cwnd: self.cwnd, ssthresh: self.ssthresh, mss: self.mss(), in_flight: self.in_flight(), ceiling }
    }
    /// Tells the controller of an event through `f` and keeps the window it leaves.
    fn with_window(&mut self, f: impl FnOnce(&mut dyn Controller, &mut Window)) {
        let mut w = self.window();
        f(self.cc.as_mut(), &mut w);
        self.cwnd = w.cwnd;
        self.ssthresh = w.ssthresh;
    }
    /// The codepoint of a packet: a controller with ECN of its own (DCTCP) marks all
    /// ECT(0); RFC 3168 new data only.
    fn ecn(&self, new_data: bool) -> Ecn {
        if self.own_ecn || (self.cfg.rfc3168 && new_data) {
            Ecn::Ect
        } else {
            Ecn::NotEct
        }
    }

    /// The next packet to put on the wire, if the window allows one.
    pub fn poll_transmit(&mut self, now: Time) -> Option<Out> {
        if let State::Connecting { syn_due: true } = self.state {
            self.state = State::Connecting { syn_due: false };
            self.arm_rto(now);
            return Some(self.packet(Segment::Syn { ts: now }, 0, false));
        }
        if matches!(self.state, State::Connecting { .. } | State::Done) {
            return None;
        }
        if self.paced && now < self.next_send_at {
            return None;
        }
        if self.retransmit_due {
            self.retransmit_due = false;
            self.stats.retransmits += 1;
            return Some(self.segment(now, self.snd_una));
        }
        if self.snd_nxt >= self.size {
            return None;
        }
        let len = self.seg_len(self.snd_nxt);
        if !self.window_allows(len) || self.nagle_holds(len) {
            return None;
        }
        if let Some(lso) = self.cfg.lso {
            if self.send_left == 0 {
                if self.lso_defers(lso) {
                    return None;
                }
                // A send of whole segments (a 64 KB send carries 45 of 1,448 B), at least one.
                self.send_left = (self.send_window().saturating_sub(self.in_flight()).min(lso) / self.mss()).max(1);
            }
            self.send_left -= 1;
        }
        let t = self.segment(now, self.snd_nxt);
        if len < self.mss() && self.snd_nxt >= self.high_tx {
            self.snd_sml = self.snd_nxt + len;
        }
        self.snd_nxt += len;
        self.high_tx = self.high_tx.max(self.snd_nxt);
        if let State::Cwr { ref mut prr, .. } = self.state {
            prr.on_sent(len);
        }
        if self.rto_at.is_none() {
            self.arm_rto(now);
        }
        Some(t)
    }

    /// Linux's TSO deferral (`tcp_tso_should_defer`): with data in flight and the window
    /// open by less than a full send, less than the data left, and less than a third of
    /// the window (`tcp_tso_win_divisor` = 3), wait for more ACKs rather than send a small
    /// burst. Only in the open state, as Linux defers only there; an ACK always comes,
    /// since data is in flight, so no timer is needed.
    fn lso_defers(&self, lso: u64) -> bool {
        let limit = self.send_window().saturating_sub(self.in_flight());
        matches!(self.state, State::Open)
            && self.in_flight() > 0
            && limit < lso
            && limit < self.size - self.snd_nxt
            && limit < self.send_window() / 3
    }

    /// Nagle's rule as Linux applies it (`tcp_nagle_check` with `tcp_minshall_check`): a
    /// short segment of new data waits while data is in flight and an earlier short
    /// segment is unacknowledged; the bytes appended meanwhile join it, and an ACK or a
    /// full segment's worth of bytes releases it. Retransmissions never wait. A
    /// connection of one message has one short segment, its tail, which never waits.
    fn nagle_holds(&self, len: u64) -> bool {
        self.cfg.coalesce
            && len < self.mss()
            && self.snd_nxt >= self.high_tx
            && self.in_flight() > 0
            && self.snd_sml > self.snd_una
    }

    /// Whole segments only, unless this is the message's tail (ns-3 / Linux SWS rule).
    /// A pacing controller may send one packet into an empty pipe whatever its window
    /// (HPCC's W can fall below a segment when many flows share a link; the pacing rate
    /// still holds).
    fn window_allows(&self, len: u64) -> bool {
        self.in_flight() + len <= self.send_window() || (self.paced && self.in_flight() == 0)
    }

    fn segment(&mut self, now: Time, seq: u64) -> Out {
        let len = self.seg_len(seq) as u32;
        self.stats.data_packets += 1;
        let new_data = seq >= self.high_tx;
        // CWR rides on new data only (a retransmission may be lost again: Linux's rule).
        let cwr = self.cwr_due && new_data;
        self.cwr_due &= !cwr;
        let mut t = self.packet(Segment::Data { seq, len, ts: now, tsecr: self.ts_recent, cwr }, len, new_data);
        if self.telemetry {
            t.int = Some(Box::default());
        }
        if self.paced {
            self.next_send_at = now + self.cc.pacing_gap(t.wire_bytes as u64);
        }
        t
    }

    fn packet(&self, seg: Segment, payload: u32, new_data: bool) -> Out {
        Out { seg, wire_bytes: payload + self.cfg.header, ecn: self.ecn(new_data), int: None }
    }

    /// The time at which `handle_timeout` wants to be called: the RTO, or for a pacing
    /// controller the pacing deadline when a packet is waiting for it.
    pub fn poll_timeout(&self) -> Option<Time> {
        let pacing = (self.paced && self.has_data_to_send()).then_some(self.next_send_at);
        match (self.rto_at, pacing) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// True if a data packet would be sent but for the pacing.
    fn has_data_to_send(&self) -> bool {
        if matches!(self.state, State::Connecting { .. } | State::Done) {
            return false;
        }
        if self.retransmit_due {
            return true;
        }
        if self.snd_nxt >= self.size {
            return false;
        }
        self.window_allows(self.mss().min(self.size - self.snd_nxt)) && !self.nagle_holds(self.seg_len(self.snd_nxt))
    }

    fn arm_rto(&mut self, now: Time) {
        let rto = self.rtt.rto();
        self.rto_at = Some(now + Time::from_ps(rto.ps().saturating_mul(1 << self.backoff.min(16))));
    }

    /// A packet for this sender arrived (an ACK or a SYN-ACK), with the INT stack it
    /// echoes if it carries one.
    pub fn handle_packet(&mut self, now: Time, seg: &Segment, int: Option<&Stack>) {
        match *seg {
            Segment::SynAck { ts_echo } => self.on_syn_ack(now, ts_echo),
            Segment::Ack { ack, ece, ts_echo, wnd, tsval, dsack } => {
                self.stats.acks += 1;
                if wnd > 0 && self.cfg.rwnd.is_some() {
                    self.rwnd = wnd;
                    self.ts_recent = tsval;
                }
                if dsack && self.cfg.dsack && ack <= self.snd_una {
                    // The receiver had these bytes already (RFC 2883): nothing is missing,
                    // and a SACK sender's scoreboard gains nothing to count.
                    self.stats.dsack_acks += 1;
                    return;
                }
                if let (Some(int), false) = (int, self.completed) {
                    self.cc.on_int(ack, self.snd_nxt, int);
                }
                self.on_ack(now, ack, ece, ts_echo);
                self.follow_owned_window();
            }
            _ => {}
        }
    }

    /// In the open state a controller that sets its window outright (HPCC's W) has it.
    fn follow_owned_window(&mut self) {
        if let (Some(w), State::Open) = (self.cc.owned_window(), self.state) {
            self.cwnd = w;
        }
    }

    fn on_syn_ack(&mut self, now: Time, ts_echo: Time) {
        if let State::Connecting { .. } = self.state {
            self.rtt.sample(now - ts_echo);
            self.state = State::Open;
            self.backoff = 0;
            self.rto_at = None;
        }
    }

    fn on_ack(&mut self, now: Time, ack: u64, ece: bool, ts_echo: Time) {
        if matches!(self.state, State::Connecting { .. } | State::Done) {
            return;
        }
        if ack <= self.snd_una {
            self.on_duplicate(ack);
            return;
        }
        self.rtt.sample(now - ts_echo);
        self.last_ack_at = now;
        let newly = ack - self.snd_una;
        self.stats.acked_bytes += newly;
        let segs = newly / self.mss();
        let snd_nxt_before = self.snd_nxt;
        self.snd_una = ack;
        // After a go-back-N timeout the receiver may acknowledge data we have not resent.
        self.snd_nxt = self.snd_nxt.max(ack);
        self.dupacks = 0;
        self.backoff = 0;
        match self.state {
            State::Recovery { recover } => self.on_recovery_ack(ack, recover, newly),
            _ => self.on_open_or_cwr_ack(now, ack, ece, newly, segs, snd_nxt_before),
        }
        self.rto_at = None;
        while self.ends.len() > 1 && self.ends[0] <= self.snd_una {
            self.ends.pop_front();
        }
        if self.snd_una >= self.size {
            self.completed = true;
            self.state = State::Done;
        } else if self.snd_una < self.snd_nxt {
            self.arm_rto(now);
        }
    }

    fn on_open_or_cwr_ack(&mut self, now: Time, ack: u64, ece: bool, newly: u64, segs: u64, snd_nxt: u64) {
        if let State::Cwr { recover, .. } = self.state {
            if ack > recover {
                self.cwnd = self.ssthresh;
                self.state = State::Open;
            }
        }
        let enter_cwr = ece && self.state == State::Open && (self.own_ecn || self.cfg.rfc3168);
        if enter_cwr {
            self.enter_cwr();
        }
        let rtt = self.rtt.srtt().unwrap_or(self.cfg.min_rto);
        let a = Ack { now, ack, newly, segs, ece, snd_nxt, rtt };
        self.cc.on_ecn(&a);
        match self.state {
            State::Cwr { recover, mut prr } => {
                if enter_cwr {
                    self.cwnd = prr.on_entry(newly, self.in_flight(), self.ssthresh, self.mss());
                } else if segs > 0 {
                    self.cwnd = prr.on_ack(newly, self.in_flight(), self.ssthresh, self.mss());
                }
                self.state = State::Cwr { recover, prr };
            }
            _ if !self.cwnd_limited(snd_nxt - (ack - newly)) => {}
            _ => self.with_window(|cc, w| cc.on_ack(w, &a)),
        }
    }

    /// RFC 8257 §3.3 / RFC 3168 §6.1.2: one reduction per window of data, to the
    /// controller's ssthresh (`Controller::ecn_ssthresh`: DCTCP cuts by α/2, RFC 3168 as
    /// for a loss), through PRR; queues CWR.
    fn enter_cwr(&mut self) {
        let w = self.window();
        self.ssthresh = self.cc.ecn_ssthresh(&w);
        self.cwr_due = self.cfg.rfc3168;
        self.stats.ecn_cuts += 1;
        self.state = State::Cwr { recover: self.high_tx, prr: Prr::new(self.high_tx - self.snd_una, self.cfg.prr) };
    }

    fn on_recovery_ack(&mut self, ack: u64, recover: u64, newly: u64) {
        if ack >= recover {
            // Full acknowledgement (RFC 6582 §3.2 step 3).
            self.with_window(|cc, w| cc.on_recovery_exit(w));
            self.state = State::Open;
        } else {
            // Partial acknowledgement: retransmit the next hole, deflate the window.
            self.retransmit_due = true;
            self.with_window(|cc, w| cc.on_partial_ack(w, newly));
        }
    }

    fn on_duplicate(&mut self, ack: u64) {
        if ack != self.snd_una || self.in_flight() == 0 {
            return;
        }
        self.dupacks += 1;
        match self.state {
            State::Recovery { .. } => self.with_window(|cc, w| cc.on_recovery_dupack(w)),
            _ if Some(self.dupacks) == self.cfg.dupack_threshold => self.enter_recovery(),
            _ => {}
        }
    }

    /// RFC 6582 §3.2 steps 2-3: the controller's reduction (`Controller::on_loss`:
    /// halve and inflate by the three dupacks; CUBIC × β; none without congestion
    /// control), and the retransmission.
    fn enter_recovery(&mut self) {
        self.with_window(|cc, w| cc.on_loss(w));
        self.retransmit_due = true;
        self.cwr_due = self.cfg.rfc3168;
        self.stats.fast_recoveries += 1;
        self.state = State::Recovery { recover: self.high_tx };
    }

    /// The retransmission timer fired (or the engine calls early: then nothing happens).
    pub fn handle_timeout(&mut self, now: Time) {
        match self.rto_at {
            Some(t) if t <= now => {}
            _ => return,
        }
        self.stats.timeouts += 1;
        self.backoff += 1;
        if let State::Connecting { .. } = self.state {
            self.state = State::Connecting { syn_due: true };
            self.rto_at = None;
            return;
        }
        // The controller's reduction (`Controller::on_rto`: RFC 5681 §3.1 eq. 4, CUBIC
        // RFC 9438 §4.8), then go-back-N from the first unacknowledged byte.
        self.with_window(|cc, w| cc.on_rto(w));
        self.snd_nxt = self.snd_una;
        self.dupacks = 0;
        self.cwr_due = self.cfg.rfc3168;
        self.state = State::Open;
        self.arm_rto(now);
    }
}
