//! A receiver's record of one message (§3.3, §3.7): which packets arrived, what it has
//! granted, and what it still waits for.

use super::wire::Layout;
use super::Config;
use crate::net::ids::{ClassId, ConnId, HostId};
use crate::net::packet::Priority;
use crate::sim::Time;
use crate::transport::Message;

pub struct Incoming {
    pub conn: ConnId,
    pub src: HostId,
    pub class: ClassId,
    pub layout: Layout,
    /// One bit per packet that arrived.
    got: Vec<u64>,
    /// Message bytes arrived (each packet once).
    pub received: u64,
    /// Message bytes the sender may send: the unscheduled part, then each grant's offset.
    pub granted: u64,
    /// Wire bytes granted (unscheduled part included) and arrived, of the granted packets.
    granted_wire: u64,
    received_wire: u64,
    /// The level of its latest grant.
    pub prio: Priority,
    /// Its arrival order at this receiver (the scheduler's last tie-break).
    pub seq: u64,
    /// When a packet of it last arrived, or it last asked for one.
    pub last_heard: Time,
    /// Its next grant waits for this (one packet's time after the last).
    pub next_grant_at: Time,
    /// The highest packet index that arrived (PL2's RDS reads a gap below a new one as
    /// loss: its packets come in order, on one level).
    highest: Option<u32>,
}

impl Incoming {
    /// The record of `msg`, whose first packet to arrive said the sender sends
    /// `unscheduled` bytes blindly.
    pub fn new(cfg: &Config, msg: &Message, unscheduled: u64, seq: u64, now: Time) -> Incoming {
        let (conn, src, class) = (msg.conn, msg.src, msg.class);
        let layout = super::wire::Layout::new(&cfg.wire, msg.size, unscheduled);
        let n = layout.packets();
        let granted_wire = (0..layout.unscheduled_packets()).map(|i| cfg.packet_bytes(&layout, i) as u64).sum();
        Incoming {
            conn,
            src,
            class,
            layout,
            got: vec![0; n.div_ceil(64) as usize],
            received: 0,
            granted: layout.unscheduled,
            granted_wire,
            received_wire: 0,
            prio: 0,
            seq,
            last_heard: now,
            next_grant_at: Time::ZERO,
            highest: None,
        }
    }

    /// Packet `i` just arrived: the run of packets between the highest that had arrived
    /// and it that are still missing, (offset, bytes), if any (out of order: lost).
    pub fn gap_below(&mut self, i: u32) -> Option<(u64, u32)> {
        let first = self.highest.map_or(0, |h| h + 1);
        self.highest = Some(self.highest.map_or(i, |h| h.max(i)));
        if i <= first {
            return None;
        }
        let missing = (first..i).find(|&j| !self.has(j))?;
        let (off, _) = self.layout.chunk(missing);
        let (end_off, _) = self.layout.chunk(i);
        Some((off, (end_off - off) as u32))
    }

    pub fn size(&self) -> u64 {
        self.layout.size
    }

    pub fn has(&self, i: u32) -> bool {
        self.got[(i / 64) as usize] >> (i % 64) & 1 == 1
    }

    /// Packet `i` arrived; false if it had already.
    pub fn arrive(&mut self, cfg: &Config, i: u32, now: Time) -> bool {
        self.last_heard = now;
        if i >= self.layout.packets() || self.has(i) {
            return false;
        }
        self.got[(i / 64) as usize] |= 1 << (i % 64);
        self.received += self.layout.chunk(i).1 as u64;
        if self.layout.chunk(i).0 < self.granted {
            self.received_wire += cfg.packet_bytes(&self.layout, i) as u64;
        }
        true
    }

    pub fn complete(&self) -> bool {
        self.received == self.size()
    }

    /// Bytes not yet granted: the scheduler's key (fewest first, §3.4).
    pub fn ungranted(&self) -> u64 {
        self.size() - self.granted
    }

    /// Wire bytes of the packets not yet granted.
    pub fn ungranted_wire(&self, cfg: &Config) -> u64 {
        let first = self.layout.index_of(self.granted.min(self.size()));
        if self.granted >= self.size() {
            return 0;
        }
        let n = self.layout.packets();
        let last = cfg.packet_bytes(&self.layout, n - 1) as u64;
        (n - first - 1) as u64 * cfg.wire.full() as u64 + last
    }

    /// Wire bytes of unscheduled packets not yet arrived.
    pub fn unscheduled_outstanding(&self, cfg: &Config) -> u64 {
        (0..self.layout.unscheduled_packets())
            .filter(|&i| !self.has(i))
            .map(|i| cfg.packet_bytes(&self.layout, i) as u64)
            .sum()
    }

    /// Granted wire bytes not yet arrived.
    pub fn outstanding(&self) -> u64 {
        self.granted_wire - self.received_wire
    }

    /// Whether another packet could be granted now: some are left and fewer than
    /// `rtt_bytes` are outstanding.
    pub fn has_room(&self, cfg: &Config) -> bool {
        self.granted < self.size() && self.outstanding() < cfg.rtt_bytes
    }

    /// Whether a grant of `n` packets fits now: the window has room for all `n` (as
    /// `grant_one` would take them one by one), or fewer than `n` are left to grant.
    pub fn has_room_for(&self, cfg: &Config, n: u32) -> bool {
        if self.granted >= self.size() {
            return false;
        }
        let left = self.layout.packets() - self.layout.index_of(self.granted);
        let full = cfg.wire.full() as u64;
        left <= n || self.outstanding() + (n as u64 - 1) * full < cfg.rtt_bytes
    }

    /// Grants one more packet if fewer than `rtt_bytes` are outstanding and some are
    /// left; true if it did.
    pub fn grant_one(&mut self, cfg: &Config) -> bool {
        if self.granted >= self.size() || self.outstanding() >= cfg.rtt_bytes {
            return false;
        }
        let i = self.layout.index_of(self.granted);
        let (off, len) = self.layout.chunk(i);
        self.granted = off + len as u64;
        self.granted_wire += cfg.packet_bytes(&self.layout, i) as u64;
        if self.has(i) {
            // It came before its grant (a sender answering a RESEND beyond the grant).
            self.received_wire += cfg.packet_bytes(&self.layout, i) as u64;
        }
        true
    }

    /// It expects bytes: some granted packet has not arrived.
    pub fn expecting(&self) -> bool {
        self.received_wire < self.granted_wire || (self.received < self.granted.min(self.size()) && !self.complete())
    }

    /// The first run of granted packets that has not arrived: (offset, bytes).
    pub fn first_missing(&self) -> Option<(u64, u32)> {
        let n = self.layout.packets();
        let first = (0..n).find(|&i| !self.has(i))?;
        let (off, _) = self.layout.chunk(first);
        if off >= self.granted {
            return None;
        }
        let mut end = first;
        while end < n && !self.has(end) && self.layout.chunk(end).0 < self.granted {
            end += 1;
        }
        let (last_off, last_len) = self.layout.chunk(end - 1);
        Some((off, (last_off + last_len as u64 - off) as u32))
    }
}
