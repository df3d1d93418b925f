//! The receiver's side of one host's Homa that decides grants (§3.3–§3.5): which
//! messages of which senders are granted, at which scheduled level, paced how, and the
//! count of senders waiting for grants (the waiting-sender histogram, Figure 16's
//! oversubscription) that goes with it.

use super::super::incoming::Incoming;
use super::super::wire::Kind;
use super::super::Config;
use super::stats::WAITING_BINS;
use super::{HomaEndpoint, SchedKey, GRANT};
use crate::net::ids::HostId;
use crate::net::packet::Priority;
use crate::sim::Time;
use crate::transport::EndpointEvent;

impl HomaEndpoint {
    pub(super) fn sched_key(m: &Incoming, slot: u32) -> SchedKey {
        (m.ungranted(), m.size(), m.seq, slot)
    }

    /// Counts a sender in or out of the waiting senders.
    pub(super) fn sender_waits(&mut self, src: HostId, delta: i32) {
        let n = self.per_sender.entry(src).or_insert(0);
        let before = *n;
        *n = (*n as i32 + delta) as u32;
        let bin = self.waiting.min(WAITING_BINS - 1);
        self.stats.waiting_ps[bin] += (self.now - self.waiting_since).ps();
        self.waiting_since = self.now;
        match (before, *n) {
            (0, 1..) => self.waiting += 1,
            (1.., 0) => {
                self.waiting -= 1;
                self.per_sender.remove(&src);
            }
            _ => {}
        }
    }

    pub(super) fn unschedule(&mut self, slot: u32) {
        let m = self.inc.get(slot);
        let key = Self::sched_key(m, slot);
        let src = m.src;
        if self.sched.remove(&key) {
            self.sender_waits(src, -1);
        }
    }

    /// Grants `m` up to `grant_packets` more packets; the wire time they take (zero when
    /// nothing more could be granted) paces its next grant.
    fn grant_burst(cfg: &Config, m: &mut Incoming) -> Time {
        let mut pace = Time::ZERO;
        for _ in 0..cfg.grant_packets {
            let before = m.granted;
            if !m.grant_one(cfg) {
                break;
            }
            let (off, len) = m.layout.chunk(m.layout.index_of(before));
            debug_assert_eq!(off + len as u64, m.granted);
            pace += cfg.line_rate.ser(cfg.wire.bytes(cfg.wire.scheduled_header, len) as u64);
        }
        pace
    }

    /// Grants to the best message of each of the first `degree` senders (§3.3–§3.5): one
    /// packet each, if its window has room and its last grant is one packet's time old
    /// (the authors' simulator paces grants so; a message is granted whole only over the
    /// time its packets take, so it holds its place among the `degree` that long). A
    /// message left with room is granted again by the grant timer.
    ///
    /// With `grant_on_arrival` (RAMCloud's clock) it grants one packet per DATA packet
    /// that arrived (`grant_credit`), to the first of those messages with room, unpaced,
    /// and only from `on_data`.
    pub(super) fn regrant(&mut self) {
        let now = self.now;
        let clocked = self.cfg.grant_on_arrival;
        if clocked && self.grant_credit == 0 {
            return;
        }
        let degree = self.cfg.degree();
        // The receiver's budget (a key, off by default): `degree` messages of RTTbytes
        // each, the messages already granted whole and the unscheduled bytes in flight
        // included. The paper bounds each message's window only (§3.3).
        let budget =
            if self.cfg.receiver_budget { (degree as u64).saturating_mul(self.cfg.rtt_bytes) } else { u64::MAX };
        let (chosen, senders) = self.granted_set(degree);
        let active = chosen.len();
        let head = if self.cfg.sticky_slots { Some(self.sticky_head(&senders)) } else { None };
        for (rank, slot) in chosen.into_iter().enumerate() {
            let levels = self.cfg.levels();
            let m = self.inc.items[slot as usize].as_mut().expect("live");
            let mut prio: Priority = match head {
                Some(h) => levels.unscheduled + (h + rank).min(levels.scheduled as usize - 1) as Priority,
                None => levels.scheduled_level(rank, active),
            };
            if self.cfg.tail_boost > 0 && m.ungranted_wire(&self.cfg) < self.cfg.tail_boost {
                prio = prio.min(levels.unscheduled_level(m.ungranted()));
            }
            if self.outstanding >= budget {
                // Arrivals free the budget and bring the next regrant.
                break;
            }
            if clocked && !m.has_room(&self.cfg) {
                continue;
            }
            if !clocked && m.next_grant_at > now {
                self.grant_timer = Some(self.grant_timer.map_or(m.next_grant_at, |t| t.min(m.next_grant_at)));
                continue;
            }
            // One grant schedules `grant_packets` packets (RDS: 4) once the window has room
            // for them all (or the message has fewer left), paced by their time.
            if self.cfg.grant_packets > 1 && !m.has_room_for(&self.cfg, self.cfg.grant_packets) {
                continue;
            }
            let old = Self::sched_key(m, slot);
            let was = m.outstanding();
            let pace = Self::grant_burst(&self.cfg, m);
            if pace == Time::ZERO {
                continue;
            }
            self.outstanding = self.outstanding + m.outstanding() - was;
            m.next_grant_at = now + pace;
            if !clocked && m.has_room(&self.cfg) {
                self.grant_timer = Some(self.grant_timer.map_or(m.next_grant_at, |t| t.min(m.next_grant_at)));
            }
            m.prio = prio;
            let (conn, src, class, offset) = (m.conn, m.src, m.class, m.granted);
            let done = m.granted >= m.size();
            let new = Self::sched_key(m, slot);
            self.sched.remove(&old);
            if done {
                self.sender_waits(src, -1);
            } else {
                self.sched.insert(new);
            }
            self.stats.grants += 1;
            self.control(conn, src, class, Kind::Grant { offset, prio });
            if clocked {
                self.grant_credit -= 1;
                if self.grant_credit == 0 {
                    break;
                }
            }
        }
        self.grant_credit = 0;
        self.arm_grant_timer(now);
    }

    /// The best message of each of the first `degree` senders, best first, and those
    /// senders (§3.5: one message per sender, as RAMCloud's active list).
    fn granted_set(&self, degree: usize) -> (Vec<u32>, Vec<HostId>) {
        let mut chosen: Vec<u32> = Vec::with_capacity(degree.min(8));
        let mut senders: Vec<HostId> = Vec::with_capacity(degree.min(8));
        for &(_, _, _, slot) in &self.sched {
            let src = self.inc.items[slot as usize].as_ref().expect("scheduled messages are live").src;
            if senders.contains(&src) {
                continue;
            }
            chosen.push(slot);
            senders.push(src);
            if chosen.len() == degree {
                break;
            }
        }
        (chosen, senders)
    }

    /// Arms the grant timer for the earliest paced grant `regrant` found, unless an
    /// earlier one is pending.
    fn arm_grant_timer(&mut self, now: Time) {
        if let Some(at) = self.grant_timer.take() {
            if self.grant_timer_armed.is_none_or(|a| at < a || a <= now) {
                self.grant_timer_armed = Some(at);
                self.events.push_back(EndpointEvent::Timer(GRANT, at));
            }
        }
    }

    /// The slot of the first of `senders` (the senders granted to, best first) under the
    /// authors' sticky slots (HomaSimulation `SchedSenders`): the first sender to wait
    /// takes the lowest level; when the next sender becomes the best (the best left or
    /// fell behind it), it keeps its level (the slot moves down by one); a new best
    /// sender above one still waiting takes the level above it (the slot moves up, if
    /// there is room); otherwise senders keep their slots, and the slot moves up only as
    /// far as needed to give every granted sender a level of its own. With as many
    /// senders granted as levels this is §3.4's "lowest levels"; the two part when fewer
    /// senders are granted than there are levels (an `overcommitment` below them).
    fn sticky_head(&mut self, senders: &[HostId]) -> usize {
        let s = self.cfg.levels().scheduled as usize;
        let Some(&top) = senders.first() else {
            self.sticky = None;
            return s;
        };
        // The sender after the best among all that wait, granted to or not.
        let second = senders.get(1).copied().or_else(|| {
            self.sched
                .iter()
                .map(|&(_, _, _, slot)| self.inc.items[slot as usize].as_ref().expect("live").src)
                .find(|&h| h != top)
        });
        let head = match self.sticky {
            None => s,
            Some((h, prev, _)) if prev == top => h,
            Some((h, prev, next)) => {
                let prev_waits = self.per_sender.contains_key(&prev);
                match (next == Some(top), prev_waits) {
                    // The next moved up (the best left, or fell behind it): it keeps its
                    // level, and the slot above it stays free.
                    (true, _) => h + 1,
                    // A new best above one still waiting: the level above, if any.
                    (false, true) => h.saturating_sub(1),
                    // The best left and another took its place at once.
                    (false, false) => h,
                }
            }
        };
        let head = head.min(s - senders.len().min(s));
        self.sticky = Some((head, top, second));
        head
    }

    /// Opens or closes an oversubscription period (Figure 16), counting `bytes` that
    /// arrived in an open one.
    pub(super) fn track_oversubscription(&mut self, now: Time, bytes: u64) {
        let over = self.waiting > self.cfg.degree();
        match (self.oversubscribed_since, over) {
            (Some(_), true) => self.stats.oversubscribed_bytes += bytes,
            (Some(since), false) => {
                self.stats.oversubscribed_ps += (now - since).ps();
                self.stats.oversubscribed_bytes += bytes;
                self.oversubscribed_since = None;
            }
            (None, true) => self.oversubscribed_since = Some(now),
            (None, false) => {}
        }
    }
}
