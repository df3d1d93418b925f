//! The greedy SRPT matching of messages to host links, kept up to date event by event.
//!
//! Every host has one link out (its uplink, used by the messages it sends) and one in
//! (its downlink, used by the messages it receives). At every instant the messages that
//! hold links are the greedy matching in [`Key`] order: take the messages by fewest bytes
//! left, and give each its sender's uplink and its receiver's downlink if neither is
//! taken yet (the authors' `scheduleTransmission`). A message that holds its links sends
//! its packets back to back at its link's rate; one that loses them (preemption) resumes
//! where it stopped, mid-packet.
//!
//! The authors recompute the matching from scratch at every arrival and every end of a
//! message's transmission. It changes at no other instant: while nothing arrives or ends,
//! only the keys of the messages that hold links change, and they only fall, which keeps
//! every waiting message behind the one that blocks it. The matching is also unique: a
//! message holds its links exactly when no message that holds one of them comes first.
//! So instead of recomputing it, [`Schedule`] repairs it after each event: it walks the
//! waiting messages of each link that was freed (its holder ended or was preempted), in
//! key order, until one takes the link or the link's holder comes before the rest —
//! passing over those whose other link is held by a message that comes first, which are
//! looked at again when that link is freed — and admits a newly arrived message if it
//! comes before both links' holders. Candidates are
//! taken in key order across links, so a message is admitted only after every message
//! before it has settled: the result is the matching the authors' full recomputation
//! gives (`oracle::tests` checks it against that recomputation after every event).

use super::message::{Key, Msg, Sent};
use crate::measure::MessageRecord;
use crate::sim::Time;
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};
use std::ops::Bound;

/// Why a candidate is looked at: it arrived, or it waits on a link that is being rescanned.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Via {
    Arrival,
    Up(u32),
    Down(u32),
}

/// What the schedule counted.
#[derive(Clone, Debug, Default)]
pub struct Counts {
    /// What the messages that ended sent.
    pub sent: Sent,
    /// Times a message lost its links to one that came first.
    pub preemptions: u64,
}

/// The messages that arrived and have not ended, and the links they hold.
pub struct Schedule {
    msgs: Vec<Option<Msg>>,
    free: Vec<u32>,
    /// The message holding each host's uplink, and each host's downlink.
    up: Vec<Option<u32>>,
    down: Vec<Option<u32>>,
    /// The waiting messages of each sender, and of each receiver, in key order (a
    /// waiting message's key does not change).
    from: Vec<BTreeSet<(Key, u32)>>,
    to: Vec<BTreeSet<(Key, u32)>>,
    /// When each holder's last packet leaves: (time, slot), one entry per holder (at
    /// most one per host, so that finding the next is cheap however many messages wait).
    ends: BTreeSet<(Time, u32)>,
    /// The repair's candidates, first key first (empty between events).
    work: BinaryHeap<Reverse<(Key, u32, Via)>>,
    /// Time each host's uplink and downlink was held, in picoseconds.
    busy: Vec<[u64; 2]>,
    pub counts: Counts,
}

impl Schedule {
    pub fn new(hosts: usize) -> Schedule {
        Schedule {
            msgs: Vec::new(),
            free: Vec::new(),
            up: vec![None; hosts],
            down: vec![None; hosts],
            from: vec![BTreeSet::new(); hosts],
            to: vec![BTreeSet::new(); hosts],
            ends: BTreeSet::new(),
            work: BinaryHeap::new(),
            busy: vec![[0, 0]; hosts],
            counts: Counts::default(),
        }
    }

    /// Messages that arrived and have not ended.
    pub fn active(&self) -> usize {
        self.msgs.len() - self.free.len()
    }

    /// Their records (finish time unset).
    pub fn active_records(&self) -> impl Iterator<Item = &MessageRecord> {
        self.msgs.iter().flatten().map(|m| &m.rec)
    }

    /// The largest share of `span` any host link was held.
    pub fn utilization(&self, span: Time) -> f64 {
        let most = self.busy.iter().flat_map(|b| b.iter().copied()).max().unwrap_or(0);
        most as f64 / span.ps().max(1) as f64
    }

    /// A message reaches its sender's link at `now`.
    pub fn arrive(&mut self, now: Time, msg: Msg) {
        let slot = match self.free.pop() {
            Some(s) => s,
            None => {
                self.msgs.push(None);
                (self.msgs.len() - 1) as u32
            }
        };
        let (key, s, r) = (msg.key(), msg.rec.src.index(), msg.rec.dst.index());
        self.msgs[slot as usize] = Some(msg);
        self.from[s].insert((key, slot));
        self.to[r].insert((key, slot));
        self.work.push(Reverse((key, slot, Via::Arrival)));
        self.settle(now);
    }

    /// When the next holder's last packet leaves its link.
    pub fn next_end(&self) -> Option<Time> {
        self.ends.first().map(|&(t, _)| t)
    }

    /// The next holder's last packet leaves its link at `now` (= `next_end()`): its
    /// record, and the links it frees go to the messages waiting for them.
    pub fn end(&mut self, now: Time) -> MessageRecord {
        let (at, slot) = self.ends.pop_first().expect("an end is due");
        debug_assert_eq!(at, now);
        self.bring(slot, now);
        let m = self.msgs[slot as usize].take().expect("a due end is live");
        self.free.push(slot);
        let (s, r) = (m.rec.src.index(), m.rec.dst.index());
        self.up[s] = None;
        self.down[r] = None;
        let (rec, sent) = m.complete(now);
        self.counts.sent += sent;
        self.rescan(Via::Up(s as u32), Bound::Unbounded, now);
        self.rescan(Via::Down(r as u32), Bound::Unbounded, now);
        self.settle(now);
        rec
    }

    /// Brings holder `slot` up to `now` (its packets sent by then, its link time counted).
    fn bring(&mut self, slot: u32, now: Time) {
        let m = self.msgs[slot as usize].as_mut().expect("a holder is live");
        if let Some(t) = m.since {
            let held = (now - t).ps();
            self.busy[m.rec.src.index()][0] += held;
            self.busy[m.rec.dst.index()][1] += held;
        }
        m.advance(now);
    }

    /// Whether `holder` (if any) comes before `key` at `now`.
    fn blocks(&mut self, holder: Option<u32>, key: Key, now: Time) -> bool {
        let Some(h) = holder else { return false };
        self.bring(h, now);
        self.msgs[h as usize].as_ref().expect("a holder is live").key() < key
    }

    /// Looks at the candidates in key order until the matching is the greedy one again.
    fn settle(&mut self, now: Time) {
        while let Some(Reverse((_, slot, via))) = self.work.pop() {
            let Some(m) = self.msgs[slot as usize].as_ref() else { continue };
            if m.since.is_some() {
                continue;
            }
            let (key, s, r) = (m.key(), m.rec.src.index(), m.rec.dst.index());
            let by_up = self.blocks(self.up[s], key, now);
            let by_down = self.blocks(self.down[r], key, now);
            match (by_up, by_down, via) {
                (false, false, _) => self.admit(slot, now),
                // Blocked at its other end since it was found: the link scan goes on.
                (false, true, Via::Up(_)) | (true, false, Via::Down(_)) => {
                    self.rescan(via, Bound::Excluded((key, slot)), now)
                }
                // Blocked by the link being scanned: everything after it is too.
                _ => {}
            }
        }
    }

    /// The first waiting message of link `via` after `after` whose other end does not
    /// block it becomes a candidate. Those it passes stay blocked until their other end
    /// is freed, which rescans that end; none after one that the link's own holder
    /// blocks can have it.
    fn rescan(&mut self, via: Via, mut after: Bound<(Key, u32)>, now: Time) {
        let (up, host) = match via {
            Via::Up(h) => (true, h as usize),
            Via::Down(h) => (false, h as usize),
            Via::Arrival => unreachable!("a scan is of a link"),
        };
        let holder = if up { self.up[host] } else { self.down[host] };
        loop {
            let waiting = if up { &self.from[host] } else { &self.to[host] };
            let Some(&(key, slot)) = waiting.range((after, Bound::Unbounded)).next() else { return };
            if self.blocks(holder, key, now) {
                return;
            }
            let m = self.msgs[slot as usize].as_ref().expect("a waiting message is live");
            let other = if up { self.down[m.rec.dst.index()] } else { self.up[m.rec.src.index()] };
            if !self.blocks(other, key, now) {
                self.work.push(Reverse((key, slot, via)));
                return;
            }
            after = Bound::Excluded((key, slot));
        }
    }

    /// `slot` takes its links at `now`, preempting their holders (which come after it);
    /// the holders' other links are rescanned.
    fn admit(&mut self, slot: u32, now: Time) {
        let m = self.msgs[slot as usize].as_ref().expect("a candidate is live");
        let (key, s, r) = (m.key(), m.rec.src.index(), m.rec.dst.index());
        let mut freed = Vec::new();
        for holder in [self.up[s], self.down[r]].into_iter().flatten() {
            if self.msgs[holder as usize].as_ref().is_some_and(|h| h.since.is_some()) {
                freed.push(self.preempt(holder, now));
            }
        }
        self.from[s].remove(&(key, slot));
        self.to[r].remove(&(key, slot));
        let m = self.msgs[slot as usize].as_mut().expect("a candidate is live");
        m.since = Some(now);
        m.end = now + m.to_send();
        self.ends.insert((m.end, slot));
        self.up[s] = Some(slot);
        self.down[r] = Some(slot);
        for (hs, hr) in freed {
            if hs != s {
                self.rescan(Via::Up(hs as u32), Bound::Unbounded, now);
            }
            if hr != r {
                self.rescan(Via::Down(hr as u32), Bound::Unbounded, now);
            }
        }
    }

    /// Holder `slot` loses its links at `now` and waits again; returns its (sender,
    /// receiver), both links now free.
    fn preempt(&mut self, slot: u32, now: Time) -> (usize, usize) {
        self.bring(slot, now);
        self.counts.preemptions += 1;
        let m = self.msgs[slot as usize].as_mut().expect("a holder is live");
        m.since = None;
        self.ends.remove(&(m.end, slot));
        let (key, s, r) = (m.key(), m.rec.src.index(), m.rec.dst.index());
        self.up[s] = None;
        self.down[r] = None;
        self.from[s].insert((key, slot));
        self.to[r].insert((key, slot));
        (s, r)
    }

    /// Link time held so far, over every uplink and over every downlink (picoseconds).
    #[cfg(test)]
    pub fn busy_total(&self) -> [u64; 2] {
        self.busy.iter().fold([0, 0], |a, b| [a[0] + b[0], a[1] + b[1]])
    }

    /// Every active message as (key, sender, receiver, holds its links), after bringing
    /// the holders up to `now`: for checking the matching against a recomputation.
    #[cfg(test)]
    pub fn snapshot(&mut self, now: Time) -> Vec<(Key, usize, usize, bool)> {
        let slots: Vec<u32> = (0..self.msgs.len() as u32).filter(|&s| self.msgs[s as usize].is_some()).collect();
        for &s in &slots {
            self.bring(s, now);
        }
        let mut out: Vec<(Key, usize, usize, bool)> = slots
            .iter()
            .map(|&s| {
                let m = self.msgs[s as usize].as_ref().expect("listed");
                (m.key(), m.rec.src.index(), m.rec.dst.index(), m.since.is_some())
            })
            .collect();
        out.sort();
        out
    }
}
