//! A sender's record of one message (§3.2): what it has sent, what it may send, and at
//! which level; and the sender's choice among its messages (SRPT, fewest bytes left).

use super::wire::{Kind, Layout};
use super::Config;
use crate::net::packet::Priority;
use crate::sim::Time;
use crate::transport::Message;
use std::collections::VecDeque;

pub struct Outgoing {
    pub msg: Message,
    pub layout: Layout,
    /// The next packet not yet sent once.
    next: u32,
    /// Bytes the sender may send: the unscheduled part, then what grants allow.
    granted: u64,
    /// The level of its scheduled packets, from the latest grant.
    prio: Priority,
    /// Packets to send again (RESEND), in order, each at its level.
    resend: VecDeque<(u32, Priority)>,
    /// Message bytes handed to the NIC for the first time.
    sent: u64,
    /// The receiver spoke of it (GRANT, RESEND or BUSY): it knows the message.
    pub heard: bool,
    /// When it last sent a packet of it.
    pub last_sent: Time,
    /// A request sent while its client had many RPCs outstanding (§3.6).
    pub incast: bool,
}

impl Outgoing {
    /// A message whose first `limit` bytes go unscheduled.
    pub fn new(cfg: &Config, msg: Message, limit: u64, now: Time) -> Outgoing {
        let layout = super::wire::Layout::new(&cfg.wire, msg.size, limit);
        Outgoing {
            msg,
            layout,
            next: 0,
            granted: layout.unscheduled,
            prio: 0,
            resend: VecDeque::new(),
            sent: 0,
            heard: false,
            last_sent: now,
            incast: false,
        }
    }

    /// Bytes not yet handed to the NIC, ungranted ones included: the sender's SRPT key.
    pub fn remaining(&self) -> u64 {
        self.msg.size - self.sent
    }

    /// It has a packet the sender may send now.
    pub fn ready(&self) -> bool {
        !self.resend.is_empty() || (self.next < self.layout.packets() && self.layout.chunk(self.next).0 < self.granted)
    }

    /// Every packet it may send is sent, and nothing waits to be sent again.
    pub fn idle(&self) -> bool {
        !self.ready()
    }

    /// A grant up to `offset` at level `prio`; whether it allowed something new.
    pub fn grant(&mut self, offset: u64, prio: Priority) -> bool {
        self.heard = true;
        self.prio = prio;
        if offset > self.granted {
            self.granted = offset.min(self.msg.size);
            return true;
        }
        false
    }

    /// A RESEND of `[offset, offset + len)` at `prio`: those packets go again (bytes
    /// beyond the grant count as granted: the grant may have been lost).
    pub fn resend(&mut self, offset: u64, len: u32, prio: Priority) {
        self.heard = true;
        let end = (offset + len as u64).min(self.msg.size);
        self.granted = self.granted.max(end);
        let mut i = self.layout.index_of(offset.min(self.msg.size.saturating_sub(1)));
        while i < self.layout.packets() && self.layout.chunk(i).0 < end {
            if i < self.next && !self.resend.iter().any(|&(j, _)| j == i) {
                self.resend.push_back((i, prio));
            }
            i += 1;
        }
    }

    /// Queues the first packet again: a probe for a receiver that never spoke of it.
    pub fn probe(&mut self) {
        if self.resend.is_empty() {
            self.resend.push_back((0, 0));
        }
    }

    /// Its next packet: (header, wire bytes, payload, logical level). `unscheduled_level`
    /// gives the level of an unscheduled packet by the bytes its message has left.
    pub fn next_packet(&mut self, cfg: &Config, now: Time) -> Option<(Kind, u32, u32, Priority)> {
        let l = self.layout;
        let (i, prio, retransmit) = if let Some((i, p)) = self.resend.pop_front() {
            let prio = if l.is_scheduled(i) { p } else { cfg.levels().unscheduled_level(self.msg.size - l.chunk(i).0) };
            (i, prio, true)
        } else if self.ready() {
            let i = self.next;
            self.next += 1;
            self.sent += l.chunk(i).1 as u64;
            let prio = if l.is_scheduled(i) {
                self.prio
            } else {
                cfg.levels().unscheduled_level(self.msg.size - l.chunk(i).0)
            };
            (i, prio, false)
        } else {
            return None;
        };
        self.last_sent = now;
        let (offset, len) = l.chunk(i);
        let kind = Kind::Data { offset, len, unscheduled: l.unscheduled, retransmit, incast: self.incast };
        Some((kind, cfg.packet_bytes(&l, i), len, prio))
    }
}
