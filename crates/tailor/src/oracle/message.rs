//! One message as the oracle holds it: its packets (its transport's frames), how far its
//! sender has got through them, and their crossing of the rest of its path.

use crate::measure::ideal::Hop;
use crate::measure::MessageRecord;
use crate::sim::Time;
use crate::transport::Frames;

/// The most hops of a path tailor builds (a fat-tree's, across pods).
pub const MAX_HOPS: usize = 6;

/// The order in which messages take links: fewest message bytes left to send, then the
/// smaller message, the earlier start, the earlier arrival — the authors' order
/// (`Mesg.__lt__` in GreedySRPTOracleScheduler.py, with their sender and receiver
/// addresses left out: the arrival number already breaks every tie).
pub type Key = (u64, u64, Time, u64);

/// The store-and-forward crossing of one message's packets: each enters the second hop
/// when its last bit has left the sender's link, then crosses every hop behind the
/// message's own earlier packets and nothing else (the fabric carries what the host
/// links schedule without queueing: the authors' `pktsRecvTime`).
#[derive(Clone, Debug)]
pub struct Pipe {
    hops: [Hop; MAX_HOPS],
    len: usize,
    /// When the message's latest packet left each hop.
    left: [Time; MAX_HOPS],
}

impl Pipe {
    /// The pipe of `path` (at most [`MAX_HOPS`] hops, the first the sender's link).
    pub fn new(path: &[Hop]) -> Pipe {
        assert!(!path.is_empty() && path.len() <= MAX_HOPS, "a path of {} hops", path.len());
        let mut hops = [path[0]; MAX_HOPS];
        hops[..path.len()].copy_from_slice(path);
        Pipe { hops, len: path.len(), left: [Time::ZERO; MAX_HOPS] }
    }

    /// The sender's link (the first hop).
    pub fn link(&self) -> Hop {
        self.hops[0]
    }

    /// A packet of `wire` bytes whose last bit left the sender's link at `at`.
    fn depart(&mut self, at: Time, wire: u64) {
        self.left[0] = at;
        for j in 1..self.len {
            let ready = self.left[j - 1] + self.hops[j - 1].delay;
            self.left[j] = self.left[j].max(ready) + self.hops[j].rate.ser(wire);
        }
    }

    /// When the last bit of the latest packet reaches the receiver's transport.
    fn arrival(&self) -> Time {
        self.left[self.len - 1] + self.hops[self.len - 1].delay
    }
}

/// What a message has put on its link.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Sent {
    pub packets: u64,
    /// Message bytes.
    pub bytes: u64,
    pub wire_bytes: u64,
}

impl std::ops::AddAssign for Sent {
    fn add_assign(&mut self, o: Sent) {
        self.packets += o.packets;
        self.bytes += o.bytes;
        self.wire_bytes += o.wire_bytes;
    }
}

/// A message between its arrival at its sender's link and its last packet's departure.
#[derive(Clone, Debug)]
pub struct Msg {
    /// Its record, `finish` not yet known.
    pub rec: MessageRecord,
    /// Its arrival number (the last tie-break of [`Key`]).
    pub seq: u64,
    frames: Vec<Frames>,
    /// The packet on (or next for) the link: number `index` of run `run`.
    run: usize,
    index: u64,
    /// Serialization time of that packet still to go.
    left: Time,
    /// Message bytes of the packets not yet sent whole.
    remaining: u64,
    /// Since when it has held its links (None: waiting); `left` counts from then.
    pub since: Option<Time>,
    /// While it holds them: when its last packet leaves.
    pub end: Time,
    pipe: Pipe,
    pub sent: Sent,
}

impl Msg {
    /// A message of `rec.size` bytes sent as `frames` (non-empty runs whose payloads add up
    /// to the size: `Transport::frames`) along `pipe`.
    pub fn new(rec: MessageRecord, seq: u64, frames: Vec<Frames>, pipe: Pipe) -> Msg {
        let frames: Vec<Frames> = frames.into_iter().filter(|f| f.count > 0).collect();
        debug_assert_eq!(
            frames.iter().map(|f| f.count * f.payload as u64).sum::<u64>(),
            rec.size,
            "frames carry the message"
        );
        let left = pipe.link().rate.ser(frames[0].wire as u64);
        Msg {
            rec,
            seq,
            frames,
            run: 0,
            index: 0,
            left,
            remaining: rec.size,
            since: None,
            end: Time::ZERO,
            pipe,
            sent: Sent::default(),
        }
    }

    pub fn key(&self) -> Key {
        (self.remaining, self.rec.size, self.rec.start, self.seq)
    }

    fn ser(&self, f: &Frames) -> Time {
        self.pipe.link().rate.ser(f.wire as u64)
    }

    fn is_last(&self) -> bool {
        self.run + 1 == self.frames.len() && self.index + 1 == self.frames[self.run].count
    }

    /// The link time it still needs: the rest of its current packet and every later one.
    pub fn to_send(&self) -> Time {
        let mut ps = self.left.ps();
        for (r, f) in self.frames.iter().enumerate().skip(self.run) {
            let later = if r == self.run { f.count - self.index - 1 } else { f.count };
            ps += later * self.ser(f).ps();
        }
        Time::from_ps(ps)
    }

    /// Brings a message that holds its links up to `now`: the packets whose last bit has
    /// left by then depart, all but its last (its end in the schedule sends that one).
    pub fn advance(&mut self, now: Time) {
        let Some(mut t) = self.since else { return };
        while !self.is_last() && t + self.left <= now {
            t += self.left;
            self.depart(t);
        }
        self.left = self.left.saturating_sub(now - t);
        self.since = Some(now);
    }

    /// Its current packet leaves the link at `at`; the next one becomes current.
    fn depart(&mut self, at: Time) {
        let f = self.frames[self.run];
        self.pipe.depart(at, f.wire as u64);
        self.remaining -= f.payload as u64;
        self.sent += Sent { packets: 1, bytes: f.payload as u64, wire_bytes: f.wire as u64 };
        self.index += 1;
        if self.index == f.count {
            if self.run + 1 == self.frames.len() {
                return;
            }
            self.run += 1;
            self.index = 0;
        }
        self.left = self.ser(&self.frames[self.run]);
    }

    /// Its last packet leaves the link at `now` (its end): the record, finished when that
    /// packet's last bit reaches the receiver's transport; and all it sent.
    pub fn complete(mut self, now: Time) -> (MessageRecord, Sent) {
        self.advance(now);
        debug_assert!(self.is_last() && self.left == Time::ZERO, "{:?} ends at {now}", self.rec);
        self.depart(now);
        (MessageRecord { finish: self.pipe.arrival(), ..self.rec }, self.sent)
    }
}
