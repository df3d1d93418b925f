//! A receiver's record of one message (§3): which packets arrived, the tokens it
//! numbered, and whether it may send another now.
//!
//! Tokens are numbered per message, the free ones first (0..F, counted as issued when the
//! message is announced, one packet time apart), and every DATA packet says which token it
//! was sent on, so the receiver knows how many of its tokens the sender has not answered.
//! Rules (the pHost simulator's, docs/phost.md):
//!
//! - **Window.** At most `token_window` tokens unanswered: a message with that many waits
//!   for a DATA packet, and the receiver gives its tokens to other messages meanwhile
//!   (§3, downgrading an unresponsive source). If none comes for `downgrade_timeout`
//!   after its last token, the receiver writes the unanswered tokens off and sends one
//!   more, and again after each further timeout, until the sender answers.
//! - **Passes.** The first pass names every packet once; when a pass is done the message
//!   waits `resend_timeout` after its last token, then a new pass names each packet still
//!   missing (lost, or its token expired at a busy sender), in turn (§3).

use super::wire::Wire;
use crate::net::ids::{ClassId, ConnId, HostId};
use crate::sim::Time;
use crate::transport::Message;

/// Why a message may not have a token now, and until when at the latest.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Wait {
    /// Its pass is done: until `resend_timeout` after its last token.
    Pass(Time),
    /// `token_window` tokens unanswered: until a DATA packet, or `downgrade_timeout`
    /// after its last token.
    Window(Time),
}

impl Wait {
    pub fn until(self) -> Time {
        match self {
            Wait::Pass(t) | Wait::Window(t) => t,
        }
    }
}

/// The timing rules a record is checked against (from `super::Config`).
#[derive(Copy, Clone, Debug)]
pub struct Rules {
    pub window: u32,
    pub downgrade: Time,
    pub resend: Time,
}

pub struct Inbound {
    pub conn: ConnId,
    pub src: HostId,
    pub class: ClassId,
    pub size: u64,
    packets: u32,
    /// One bit per packet that arrived.
    got: Vec<u64>,
    count: u32,
    /// Message bytes arrived (each packet once).
    pub received: u64,
    /// Tokens numbered so far, free ones included.
    issued: u32,
    /// One past the highest token number a DATA packet was sent on.
    answered: u32,
    /// The pass ends when `issued` reaches it.
    goal: u32,
    /// Where the next token's packet is looked for.
    cursor: u32,
    /// When its last token went (free ones: when they are due).
    pub last_token: Time,
    /// Its arrival order (the scheduler's tie-break: older first).
    pub seq: u64,
    /// It sits out in the receiver's parked set, waiting for this.
    pub parked: Option<Wait>,
    /// Times the receiver wrote its unanswered tokens off (downgrade timeouts).
    pub downgrades: u32,
}

impl Inbound {
    /// The record of `msg`, announced at `now` with `free` free tokens (at most one per
    /// packet), due one packet time (`packet`) apart.
    pub fn new(wire: &Wire, msg: &Message, free: u32, seq: u64, now: Time, packet: Time) -> Inbound {
        let packets = wire.packets(msg.size);
        let free = free.min(packets);
        Inbound {
            conn: msg.conn,
            src: msg.src,
            class: msg.class,
            size: msg.size,
            packets,
            got: vec![0; packets.div_ceil(64) as usize],
            count: 0,
            received: 0,
            issued: free,
            answered: 0,
            goal: packets,
            cursor: free % packets,
            last_token: now + Time::from_ps(packet.ps() * free.saturating_sub(1) as u64),
            seq,
            parked: None,
            downgrades: 0,
        }
    }

    pub fn has(&self, i: u32) -> bool {
        self.got[(i / 64) as usize] >> (i % 64) & 1 == 1
    }

    /// Packet `index` arrived, sent on token `token`; false if it had already (or is not
    /// a packet of the message).
    pub fn arrive(&mut self, wire: &Wire, index: u32, token: u32) -> bool {
        self.answered = self.answered.max(token.saturating_add(1).min(self.issued));
        if index >= self.packets || self.has(index) {
            return false;
        }
        self.got[(index / 64) as usize] |= 1 << (index % 64);
        self.count += 1;
        self.received += wire.chunk(self.size, index).1 as u64;
        true
    }

    pub fn complete(&self) -> bool {
        self.count == self.packets
    }

    /// Bytes not yet arrived: the receiver's SRPT key (§3).
    pub fn remaining(&self) -> u64 {
        self.size - self.received
    }

    /// Tokens the sender has not answered.
    pub fn unanswered(&self) -> u32 {
        self.issued - self.answered
    }

    /// Whether it may have a token at `now`; a pass that waited out its timeout starts
    /// the next, a window that did writes its tokens off (counted in `downgrades`).
    pub fn check(&mut self, now: Time, r: Rules) -> Result<(), Wait> {
        if self.issued >= self.goal {
            let at = self.last_token + r.resend;
            if now < at {
                return Err(Wait::Pass(at));
            }
            self.goal = self.issued + (self.packets - self.count);
        }
        if self.unanswered() >= r.window {
            let at = self.last_token + r.downgrade;
            if now < at {
                return Err(Wait::Window(at));
            }
            self.answered = self.issued + 1 - r.window;
            self.downgrades += 1;
        }
        Ok(())
    }

    /// Numbers the next token at `now`: (token number, the packet it names).
    pub fn issue(&mut self, now: Time) -> (u32, u32) {
        let index = self.next_missing(self.cursor);
        self.cursor = (index + 1) % self.packets;
        let token = self.issued;
        self.issued += 1;
        self.last_token = now;
        (token, index)
    }

    /// The first packet that has not arrived at or after `from`, wrapping around.
    fn next_missing(&self, from: u32) -> u32 {
        let scan = |lo: u32, hi: u32| -> Option<u32> {
            let mut i = lo;
            while i < hi {
                let word = !self.got[(i / 64) as usize] >> (i % 64);
                if word != 0 {
                    let j = i + word.trailing_zeros();
                    return (j < hi).then_some(j);
                }
                i = (i / 64 + 1) * 64;
            }
            None
        };
        scan(from, self.packets).or_else(|| scan(0, from)).expect("an incomplete message has a missing packet")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::ids::{ClassId, ConnId, HostId};

    fn msg(size: u64) -> Message {
        Message {
            conn: ConnId { slot: 0, gen: 0 },
            class: ClassId::new(0),
            src: HostId::new(0),
            dst: HostId::new(1),
            size,
            start: Time::ZERO,
            rpc: Default::default(),
            channel: None,
        }
    }

    const P: Time = Time::from_ps(1_230_400);

    fn rules() -> Rules {
        Rules { window: 3, downgrade: Time::from_ps(25 * P.ps()), resend: Time::from_ps(9 * P.ps()) }
    }

    #[test]
    fn free_tokens_count_as_issued_and_fill_the_window() {
        let w = Wire::PAPER;
        let mut m = Inbound::new(&w, &msg(10 * 1460), 3, 0, Time::ZERO, P);
        assert_eq!(m.unanswered(), 3);
        // Due one packet time apart: the last at 2 P; the window waits until 27 P.
        assert_eq!(m.check(Time::ZERO, rules()), Err(Wait::Window(Time::from_ps(27 * P.ps()))));
        assert!(m.arrive(&w, 0, 0));
        assert_eq!(m.check(P, rules()), Ok(()));
        assert_eq!(m.issue(P), (3, 3), "token 3 names packet 3, the first not free");
        assert_eq!(m.unanswered(), 3);
    }

    #[test]
    fn an_unanswered_window_is_written_off_after_the_downgrade_timeout() {
        let w = Wire::PAPER;
        let mut m = Inbound::new(&w, &msg(10 * 1460), 3, 0, Time::ZERO, P);
        let at = Time::from_ps(27 * P.ps());
        assert!(m.check(at - Time::from_ps(1), rules()).is_err());
        assert_eq!(m.check(at, rules()), Ok(()));
        assert_eq!((m.unanswered(), m.downgrades), (2, 1));
        m.issue(at);
        assert_eq!(m.check(at, rules()), Err(Wait::Window(at + Time::from_ps(25 * P.ps()))));
    }

    #[test]
    fn a_finished_pass_waits_then_names_the_missing_packets() {
        let w = Wire::PAPER;
        let mut m = Inbound::new(&w, &msg(4 * 1460), 8, 0, Time::ZERO, P);
        // Every packet was free: the pass is done; packets 1 and 3 never come.
        assert!(m.arrive(&w, 0, 0) && m.arrive(&w, 2, 2));
        let end = Time::from_ps(3 * P.ps() + 9 * P.ps());
        assert_eq!(m.check(end - Time::from_ps(1), rules()), Err(Wait::Pass(end)));
        let r = Rules { window: 8, ..rules() };
        assert_eq!(m.check(end, r), Ok(()));
        assert_eq!(m.issue(end), (4, 1));
        assert_eq!(m.check(end, r), Ok(()));
        assert_eq!(m.issue(end), (5, 3));
        assert_eq!(m.check(end, r), Err(Wait::Pass(end + Time::from_ps(9 * P.ps()))));
        assert!(!m.arrive(&w, 2, 5), "a duplicate");
        assert!(m.arrive(&w, 1, 4) && m.arrive(&w, 3, 5) && m.complete());
    }
}
