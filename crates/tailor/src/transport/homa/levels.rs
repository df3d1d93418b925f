//! Priority levels (§3.4): how many go to unscheduled packets, the size cutoffs between
//! them, and the level of every packet.
//!
//! Levels are numbered as every port numbers them: 0 is served first. Homa's eight
//! levels are *logical*; `physical` collapses adjacent ones onto fewer switch levels
//! (the §5.1 "HomaPx" runs), so a plan is always made for eight and mapped at the end.
//!
//! - Control packets (GRANT, RESEND, BUSY) use level 0 (Figure 3).
//! - Unscheduled packets use levels `0..u`: the receiver's plan gives each of them an
//!   equal share of the unscheduled bytes, shorter messages higher. Like the authors'
//!   simulator (`STATIC_CBF_GRADUATED`, docs/homa.md), the share is counted in bytes on
//!   the wire and keyed by the bytes a message has left before each packet, grants (at
//!   level 0) and the boosted tails of scheduled messages included; so a later packet of
//!   a message may go higher than its first.
//! - Scheduled packets use levels `u..u + s`, the one the receiver names in each grant:
//!   among the `m` messages it grants to, the one with the fewest ungranted bytes goes
//!   highest, and with fewer messages than levels the lowest levels are used (§3.4,
//!   preemption lag, Figure 5).
//!
//! The number of unscheduled levels, when the scenario does not give it, is the share of
//! the workload's bytes on the wire that are unscheduled times the levels, at least one
//! and leaving at least one for scheduled packets (§3.4). The authors' simulator instead
//! took the split from its configuration (W2 5/3, W3 4/4, where this rule gives 6/2 and
//! 2/6): the paper's scenarios say `unscheduled_levels` (docs/homa.md, "Levels").

use super::wire::{Layout, Wire};
use crate::net::packet::Priority;
use std::collections::BTreeMap;

/// Homa's logical levels.
pub const LEVELS: u8 = 8;

/// What a scenario asks for; the rest comes from the workload.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub unscheduled: Option<u8>,
    pub scheduled: Option<u8>,
    /// Remaining-size cutoffs between the unscheduled levels (`unscheduled - 1` of them).
    pub cutoffs: Option<Vec<u64>>,
    /// Switch levels the logical ones are collapsed onto.
    pub physical: u8,
}

/// A resolved plan.
#[derive(Clone, Debug, PartialEq)]
pub struct Levels {
    pub unscheduled: u8,
    pub scheduled: u8,
    /// Ascending: a packet whose message has at most `cutoffs[i]` bytes left goes to
    /// level i (the last level takes the rest).
    pub cutoffs: Vec<u64>,
    pub physical: u8,
    /// The share of the workload's data bytes on the wire that is unscheduled (for the
    /// summary; what the default split is computed from).
    pub unscheduled_share: f64,
}

impl Levels {
    /// The level of an unscheduled packet of a message with `remaining` bytes left.
    pub fn unscheduled_level(&self, remaining: u64) -> Priority {
        self.cutoffs.iter().position(|&c| remaining <= c).unwrap_or(self.unscheduled as usize - 1) as Priority
    }

    /// The level granted to the message ranked `rank` (0: fewest ungranted bytes) of
    /// `active` messages granted to: the lowest levels first, one per message, and the
    /// lowest shared beyond the scheduled levels (an unlimited overcommitment).
    pub fn scheduled_level(&self, rank: usize, active: usize) -> Priority {
        let s = self.scheduled as usize;
        let m = active.min(s);
        (self.unscheduled as usize + (s - m) + rank.min(m - 1)) as Priority
    }

    /// The switch levels the scheduled logical levels land on: the scheduled levels a
    /// receiver really has once levels are collapsed (HomaP1: 1; W4's 7 on 4 switch
    /// levels: 4; W3's 4 on 4: 2).
    pub fn switch_scheduled(&self) -> u8 {
        let u = self.unscheduled as u32;
        let s = self.scheduled as u32;
        let first = self.physical(u as Priority);
        let last = self.physical((u + s - 1) as Priority);
        last - first + 1
    }

    /// The switch level of a logical level.
    pub fn physical(&self, logical: Priority) -> Priority {
        ((logical as u32 * self.physical as u32) / LEVELS as u32) as Priority
    }
}

/// Bytes on the wire of one message's data packets, and which of them the plan counts.
struct Packets {
    /// (bytes left before the packet, its wire bytes, unscheduled)
    counted: Vec<(u64, u64, bool)>,
    data_wire: u64,
    unscheduled_wire: u64,
    grants: u64,
}

/// The packets of a message of `size` bytes that the plan counts: its unscheduled ones
/// and the scheduled ones in its last `boost` wire bytes.
fn packets(wire: &Wire, size: u64, limit: u64, boost: u64) -> Packets {
    let l = Layout::new(wire, size, limit);
    let n = l.packets();
    let nu = l.unscheduled_packets();
    let bytes_of = |i: u32| {
        let (_, len) = l.chunk(i);
        let h = if l.is_scheduled(i) { wire.scheduled_header } else { wire.unscheduled_header };
        wire.bytes(h, len) as u64
    };
    let mut counted = Vec::new();
    let mut unscheduled_wire = 0;
    for i in 0..nu {
        let b = bytes_of(i);
        unscheduled_wire += b;
        counted.push((size - l.chunk(i).0, b, true));
    }
    // Full scheduled packets all have the same size, so the data's wire bytes are a
    // product plus the last packet's.
    let scheduled = (n - nu) as u64;
    let data_wire = if scheduled == 0 {
        unscheduled_wire
    } else {
        unscheduled_wire + (scheduled - 1) * wire.full() as u64 + bytes_of(n - 1)
    };
    let mut tail = 0;
    let mut i = n;
    // The packets wholly within the last `boost` bytes on the wire.
    while i > nu && tail + bytes_of(i - 1) <= boost {
        i -= 1;
        let b = bytes_of(i);
        tail += b;
        counted.push((size - l.chunk(i).0, b, false));
    }
    Packets { counted, data_wire, unscheduled_wire, grants: scheduled * wire.control() as u64 }
}

/// The plan for a workload given as point masses (size, probability).
pub fn plan(req: &Request, atoms: &[(u64, f64)], wire: &Wire, limit: u64, boost: u64) -> Result<Levels, String> {
    let mut hist: BTreeMap<u64, f64> = BTreeMap::new();
    let (mut all, mut unscheduled) = (0.0, 0.0);
    for &(size, p) in atoms {
        let pk = packets(wire, size, limit, boost);
        all += p * pk.data_wire as f64;
        unscheduled += p * pk.unscheduled_wire as f64;
        *hist.entry(0).or_default() += p * pk.grants as f64;
        for (left, b, _) in pk.counted {
            *hist.entry(left).or_default() += p * b as f64;
        }
    }
    let share = if all > 0.0 { unscheduled / all } else { 1.0 };
    let scheduled_min = req.scheduled.unwrap_or(1);
    let u = match req.unscheduled {
        Some(u) => u,
        None => ((share * LEVELS as f64).round() as u8).clamp(1, LEVELS - scheduled_min),
    };
    let s = req.scheduled.unwrap_or(LEVELS - u);
    if u as u32 + s as u32 > LEVELS as u32 {
        return Err(format!("{u} unscheduled and {s} scheduled levels are more than Homa's {LEVELS}; accepted: unscheduled_levels + scheduled_levels <= {LEVELS}"));
    }
    let cutoffs = match &req.cutoffs {
        Some(c) if c.len() + 1 != u as usize => {
            return Err(format!("unscheduled_cutoffs has {} sizes for {u} unscheduled levels; accepted: {} sizes (one between each two levels)", c.len(), u - 1));
        }
        Some(c) => c.clone(),
        None => balanced_cutoffs(&hist, u),
    };
    Ok(Levels { unscheduled: u, scheduled: s, cutoffs, physical: req.physical, unscheduled_share: share })
}

/// Cutoffs that give each of `u` levels an equal share of the counted bytes: for
/// k = 1..u the first size at which the cumulative share reaches k/u (each once).
fn balanced_cutoffs(hist: &BTreeMap<u64, f64>, u: u8) -> Vec<u64> {
    let total: f64 = hist.values().sum();
    let mut out: Vec<u64> = Vec::new();
    let mut cum = 0.0;
    let mut k = 1;
    for (&left, &b) in hist {
        cum += b;
        while k < u && cum >= total * k as f64 / u as f64 - 1e-12 {
            if out.last() != Some(&left) {
                out.push(left);
            }
            k += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{load_builtin, SizeDist};

    fn workload(name: &str) -> Vec<(u64, f64)> {
        SizeDist::Cdf(load_builtin(name, None).unwrap()).atoms()
    }

    fn req(u: Option<u8>) -> Request {
        Request { unscheduled: u, scheduled: None, cutoffs: None, physical: LEVELS }
    }

    /// §3.4's rule on the five workloads, and the split the authors configured.
    #[test]
    fn the_default_split_follows_the_unscheduled_share() {
        let w = Wire::PAPER;
        let got: Vec<(u8, u8)> = ["w1", "w2", "w3", "w4", "w5"]
            .iter()
            .map(|n| plan(&req(None), &workload(n), &w, 9_328, 0).map(|l| (l.unscheduled, l.scheduled)).unwrap())
            .collect();
        assert_eq!(got, vec![(7, 1), (6, 2), (2, 6), (1, 7), (1, 7)]);
    }

    /// The authors' simulator's cutoffs (docs/homa.md, "Levels"): its algorithm with their
    /// configured splits and a 10,000-byte tail boost.
    #[test]
    fn cutoffs_match_the_authors_simulator() {
        let w = Wire::PAPER;
        let c = |n: &str, u: u8| plan(&req(Some(u)), &workload(n), &w, 9_328, 10_000).unwrap().cutoffs;
        assert_eq!(c("w2", 5), vec![269, 366, 512, 1463]);
        assert_eq!(c("w3", 4), vec![433, 2339, 6756]);
        assert_eq!(c("w3", 2), vec![2339]);
        assert!(c("w4", 1).is_empty());
    }

    #[test]
    fn levels_map_as_the_paper_says() {
        let l = Levels {
            unscheduled: 4,
            scheduled: 4,
            cutoffs: vec![433, 2339, 6756],
            physical: 8,
            unscheduled_share: 0.3,
        };
        assert_eq!([1, 433, 434, 6756, 6757, 1 << 30].map(|r| l.unscheduled_level(r)), [0, 0, 1, 2, 3, 3]);
        // One message: the lowest level; four: all four, the best highest.
        assert_eq!(l.scheduled_level(0, 1), 7);
        assert_eq!((0..4).map(|r| l.scheduled_level(r, 4)).collect::<Vec<_>>(), vec![4, 5, 6, 7]);
        assert_eq!((0..2).map(|r| l.scheduled_level(r, 2)).collect::<Vec<_>>(), vec![6, 7]);
        // More messages than levels share the lowest.
        assert_eq!(l.scheduled_level(9, 12), 7);
        let p2 = Levels { physical: 2, ..l.clone() };
        assert_eq!((0..8).map(|x| p2.physical(x)).collect::<Vec<_>>(), vec![0, 0, 0, 0, 1, 1, 1, 1]);
        let p1 = Levels { physical: 1, ..l };
        assert!((0..8).all(|x| p1.physical(x) == 0));
    }
}
