//! A sender's record of one message (§3): its free tokens, the tokens its
//! receiver sent, and which packet goes next.
//!
//! A token is the right to send one packet. The sender spends the one that expires first
//! (§3: tokens expire `token_expiry` after they arrive; free tokens do not, see below)
//! and sends its packets in order: a token spent before the free tokens are used up sends
//! the next unsent packet, not the one it names, so a lone message goes out in order
//! whatever its path. A token that names a packet already sent is the receiver asking
//! for it again (§3): that packet goes again. The number of packets sent never exceeds
//! the free tokens plus the tokens received (the invariant, `tests`).
//!
//! Free tokens do not expire. The pHost simulator gives them a lifetime of their own
//! packets' time plus `token_expiry`; here a message on a path shorter than the one the
//! BDP was sized for receives its first tokens while free packets are still waiting, and
//! spending those tokens first leaves free ones for the end of the message, which would
//! expire and cost a resend timeout (docs/phost.md, "Differences").

use super::wire::Wire;
use crate::sim::Time;
use crate::transport::Message;
use std::collections::VecDeque;

/// A token from the receiver, not yet spent.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Held {
    token: u32,
    index: u32,
    expires: Time,
}

/// What a spent token sends.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Send {
    pub index: u32,
    pub token: u32,
    pub free: bool,
    /// The packet was sent before (the token named it again).
    pub again: bool,
}

pub struct Outbound {
    pub msg: Message,
    packets: u32,
    /// Message bytes in a full packet.
    mss: u32,
    /// The next packet not yet sent once.
    next: u32,
    /// Message bytes sent once.
    sent: u64,
    /// Free tokens (numbered 0..free) and how many are spent.
    free: u32,
    free_spent: u32,
    /// The receiver's tokens not yet spent, in arrival order (which is expiry order).
    tokens: VecDeque<Held>,
    /// A token came for it: its receiver knows it.
    pub heard: bool,
    /// When its RTS last went.
    pub rts_at: Time,
    /// Tokens received, and packets sent on them (`spend`).
    pub tokens_received: u64,
    pub scheduled_sent: u64,
}

impl Outbound {
    /// A message with `free` free tokens (at most one per packet).
    pub fn new(wire: &Wire, msg: Message, free: u32, now: Time) -> Outbound {
        let packets = wire.packets(msg.size);
        Outbound {
            msg,
            packets,
            mss: wire.payload(),
            next: 0,
            sent: 0,
            free: free.min(packets),
            free_spent: 0,
            tokens: VecDeque::new(),
            heard: false,
            rts_at: now,
            tokens_received: 0,
            scheduled_sent: 0,
        }
    }

    /// Bytes not yet sent once: the sender's SRPT key (§3).
    pub fn remaining(&self) -> u64 {
        self.msg.size - self.sent
    }

    /// A token arrived; it may be spent until `expires`.
    pub fn receive(&mut self, token: u32, index: u32, expires: Time) {
        self.heard = true;
        self.tokens_received += 1;
        self.tokens.push_back(Held { token, index, expires });
    }

    /// Drops the tokens that expired before `now`; how many.
    pub fn expire(&mut self, now: Time) -> u64 {
        let before = self.tokens.len();
        while self.tokens.front().is_some_and(|h| h.expires < now) {
            self.tokens.pop_front();
        }
        (before - self.tokens.len()) as u64
    }

    /// Tokens not spent (a message that completes leaves them).
    pub fn unspent(&self) -> u64 {
        self.tokens.len() as u64
    }

    /// It holds a token it can spend (expired ones not yet dropped count).
    pub fn ready(&self) -> bool {
        !self.tokens.is_empty() || (self.free_spent < self.free && self.next < self.packets)
    }

    /// It has nothing to send: every free token spent or useless, no token held.
    pub fn idle(&self) -> bool {
        !self.ready()
    }

    /// Spends the token that expires first (the receiver's before the free ones, which
    /// do not expire) and says which packet it sends; None if it holds none.
    pub fn spend(&mut self) -> Option<Send> {
        if let Some(h) = self.tokens.pop_front() {
            self.scheduled_sent += 1;
            if h.index < self.next {
                return Some(Send { index: h.index, token: h.token, free: false, again: true });
            }
            return Some(Send { index: self.first_send(), token: h.token, free: false, again: false });
        }
        if self.free_spent < self.free && self.next < self.packets {
            let token = self.free_spent;
            self.free_spent += 1;
            return Some(Send { index: self.first_send(), token, free: true, again: false });
        }
        None
    }

    /// Sends packet `next` for the first time.
    fn first_send(&mut self) -> u32 {
        let i = self.next;
        self.next += 1;
        self.sent = self.msg.size.min(self.sent + self.mss as u64);
        i
    }
}
