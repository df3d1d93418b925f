//! The connection table: one entry per active message, both endpoints' state machines,
//! and the one timer entry the engine keeps for them.

use crate::measure::MessageRecord;
use crate::net::ids::{ConnId, HostId};
use crate::net::int::Stack;
use crate::net::packet::{Ecn, Header};
use crate::sim::Time;
use crate::transport::{raw, tcp, Transmit};

/// The transport every message of a run uses.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum TransportConfig {
    Tcp(tcp::Config),
    Raw(raw::Config),
}

pub enum Ends {
    Tcp { tx: tcp::Sender, rx: tcp::Receiver },
    Raw { tx: raw::Sender, rx: raw::Receiver },
}

pub struct Conn {
    /// The message's record, complete but for its finish time.
    pub msg: MessageRecord,
    pub ends: Ends,
    /// Generation of the pending timer entry; older entries are stale.
    pub timer_gen: u32,
    /// When the pending timer entry fires, if there is one.
    pub timer_at: Option<Time>,
}

impl Conn {
    /// Feeds a packet that reached one of the endpoints, with its INT stack if any.
    pub fn on_packet(&mut self, now: Time, hdr: &Header, ecn: Ecn, int: Option<&Stack>) {
        match &mut self.ends {
            Ends::Tcp { tx, rx } => {
                if hdr.is_forward() {
                    rx.handle_packet(now, hdr, ecn, int)
                } else {
                    tx.handle_packet(now, hdr, int)
                }
            }
            Ends::Raw { rx, .. } => rx.handle_packet(now, hdr),
        }
    }

    pub fn on_timeout(&mut self, now: Time) {
        if let Ends::Tcp { tx, rx } = &mut self.ends {
            tx.handle_timeout(now);
            rx.handle_timeout(now);
        }
    }

    /// Packets both endpoints want to send now, with the host that sends each.
    pub fn drain(&mut self, now: Time, out: &mut Vec<(HostId, Transmit)>) {
        match &mut self.ends {
            Ends::Tcp { tx, rx } => {
                while let Some(t) = tx.poll_transmit(now) {
                    out.push((self.msg.src, t));
                }
                while let Some(t) = rx.poll_transmit() {
                    out.push((self.msg.dst, t));
                }
            }
            Ends::Raw { tx, .. } => {
                while let Some(t) = tx.poll_transmit() {
                    out.push((self.msg.src, t));
                }
            }
        }
    }

    pub fn deadline(&self) -> Option<Time> {
        match &self.ends {
            Ends::Tcp { tx, rx } => match (tx.poll_timeout(), rx.poll_timeout()) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            Ends::Raw { .. } => None,
        }
    }

    /// True when the message is complete: the sender has the last ACK (TCP, as ns-3
    /// measures FCT) or the receiver has the last byte (raw).
    pub fn is_complete(&self) -> bool {
        match &self.ends {
            Ends::Tcp { tx, .. } => tx.is_complete(),
            Ends::Raw { rx, .. } => rx.completed_at.is_some(),
        }
    }

    pub fn sender_stats(&self) -> Option<tcp::sender::SenderStats> {
        match &self.ends {
            Ends::Tcp { tx, .. } => Some(tx.stats),
            Ends::Raw { .. } => None,
        }
    }
}

/// Slots of connections with a generation per slot; freed slots are reused.
#[derive(Default)]
pub struct ConnTable {
    slots: Vec<Option<Conn>>,
    gens: Vec<u32>,
    free: Vec<u32>,
    active: usize,
}

impl ConnTable {
    pub fn insert(&mut self, conn: Conn) -> ConnId {
        self.active += 1;
        if let Some(slot) = self.free.pop() {
            self.slots[slot as usize] = Some(conn);
            return ConnId { slot, gen: self.gens[slot as usize] };
        }
        self.slots.push(Some(conn));
        self.gens.push(0);
        ConnId { slot: (self.slots.len() - 1) as u32, gen: 0 }
    }

    pub fn get_mut(&mut self, id: ConnId) -> Option<&mut Conn> {
        if self.gens.get(id.slot as usize) != Some(&id.gen) {
            return None;
        }
        self.slots[id.slot as usize].as_mut()
    }

    pub fn remove(&mut self, id: ConnId) -> Option<Conn> {
        if self.gens.get(id.slot as usize) != Some(&id.gen) {
            return None;
        }
        let c = self.slots[id.slot as usize].take()?;
        self.gens[id.slot as usize] = self.gens[id.slot as usize].wrapping_add(1);
        self.free.push(id.slot);
        self.active -= 1;
        Some(c)
    }

    pub fn active(&self) -> usize {
        self.active
    }
}
