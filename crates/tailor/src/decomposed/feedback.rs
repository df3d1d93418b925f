//! Feedback between links: the marks a message gets downstream bound its windows at its
//! sender's NIC (docs/decomposed.md, "Method", point 5).
//!
//! Parsimon (§3.2, §6) simulates each link alone; a link's simulation gives its messages
//! only that link's marks. In the fabric a host's NIC does not mark, and its queue —
//! where small messages wait behind the windows of the host's large DCTCP messages — is
//! made of windows bounded by the marks of the links after it. tailor therefore runs two
//! passes:
//!
//! 1. every link's simulation counts, per message, its data packets and those the link
//!    under study marked CE ([`Tally`], at the dumbbell's far switch, which every data
//!    packet reaches after the trunk's port);
//! 2. each message's downstream mark probability is p = 1 − Π(1 − f_l) over the links
//!    of its path after its sender's NIC (f_l its marked fraction on link l), and the
//!    host uplinks are simulated again with host-rate edge links (the queue forms,
//!    unmarked, in the sender's NIC, as in the fabric) while the far switch marks each
//!    message's data packets CE with its p, standing for the marks downstream.
//!
//! The agent tells messages apart by their packets' connection: the n-th connection
//! seen from a (sender, receiver) pair is the n-th message of that pair in start order
//! (a sender's first packets leave its FIFO NIC in the order its messages start). It
//! changes nothing but ECN bits in the second pass and nothing at all in the first.

use super::linksim::LinkResult;
use super::plan::Plan;
use crate::net::agent::{Ingress, SwitchAgent};
use crate::net::ids::SwitchId;
use crate::net::packet::{Ecn, Packet};
use crate::net::port::PortRole;
use crate::sim::{Time, TimerKey};
use rand::Rng;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

/// A message's data packets on a link and how many of them arrived there marked CE.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Marks {
    pub data: u32,
    pub ce: u32,
    /// Of `ce`, those that arrived within a round trip of another message's data packet:
    /// marks of a queue shared with others, not one a message's own window made alone.
    pub shared: u32,
}

impl Marks {
    /// The fraction marked (0 without data packets).
    pub fn fraction(self) -> f64 {
        if self.data == 0 {
            0.0
        } else if SHARED {
            self.shared as f64 / self.data as f64
        } else {
            self.ce as f64 / self.data as f64
        }
    }
}

pub const SHARED: bool = option_env!("NICFB_SHARED").is_some();

/// What stands for the links after the sender's NIC in the second pass, per message (in
/// the link's order).
pub enum Downstream {
    /// Each data packet marked CE with the message's probability.
    Probability(Vec<f64>),
    /// A queue of the message's own, drained at its rate downstream (bytes per ps),
    /// marking above the fabric's K.
    Rate(Vec<f64>),
}

/// The far switch's marking in the second pass.
pub enum Emulate {
    Random { p: Vec<f64>, rng: crate::sim::rng::Stream, keep: bool },
    Virtual { rate: Vec<f64>, k: f64, queue: Vec<(f64, Time)> },
}

impl Emulate {
    fn mark(&mut self, now: Time, m: usize, pkt: &mut Packet) {
        match self {
            Emulate::Random { p, rng, keep: true } => {
                if pkt.ecn() == Ecn::Ce && rng.random::<f64>() >= p[m] {
                    pkt.set_ecn(Ecn::Ect);
                }
            }
            Emulate::Random { p, rng, keep: false } => {
                if pkt.ecn() == Ecn::Ect && rng.random::<f64>() < p[m] {
                    pkt.set_ecn(Ecn::Ce);
                }
            }
            Emulate::Virtual { rate, k, queue } => {
                let (q, last) = &mut queue[m];
                *q = (*q - rate[m] * (now - *last).ps() as f64).max(0.0) + pkt.wire_bytes as f64;
                *last = now;
                if *q > *k && pkt.ecn() == Ecn::Ect {
                    pkt.set_ecn(Ecn::Ce);
                }
            }
        }
    }
}

/// The dumbbell's far switch (`Shape::Dumbbell` builds the near switch first).
pub fn far_switch() -> SwitchId {
    SwitchId::new(1)
}

/// The far switch's agent: counts each message's data packets and CE marks, and in the
/// second pass first marks each with its message's downstream probability.
pub struct Tally {
    /// Hosts below this index are the dumbbell's senders.
    left: usize,
    /// How recent another message's data packet must be for a mark to count as shared.
    rtt: Time,
    /// The latest data packet's (arrival, message), and the latest of another message.
    latest: Option<(Time, usize)>,
    before: Option<(Time, usize)>,
    /// Per (sender, receiver): its messages (positions in the link's list) not yet seen.
    pending: HashMap<(usize, usize), VecDeque<usize>>,
    /// Connection key to message position.
    conns: HashMap<u64, usize>,
    counts: Vec<Marks>,
    /// The second pass: how the far switch marks for the links downstream.
    marking: Option<Emulate>,
    out: Arc<Mutex<Vec<Marks>>>,
}

impl Tally {
    /// `pairs[k]`: message k's (sender, receiver) in the dumbbell, messages in start order.
    pub fn new(
        left: usize,
        rtt: Time,
        pairs: &[(usize, usize)],
        marking: Option<Emulate>,
        out: Arc<Mutex<Vec<Marks>>>,
    ) -> Tally {
        let mut pending: HashMap<(usize, usize), VecDeque<usize>> = HashMap::new();
        for (k, &pair) in pairs.iter().enumerate() {
            pending.entry(pair).or_default().push_back(k);
        }
        Tally { left, rtt, latest: None, before: None, pending, conns: HashMap::new(), counts: vec![Marks::default(); pairs.len()], marking, out }
    }

    fn message(&mut self, pkt: &Packet) -> Option<usize> {
        let key = pkt.conn.key();
        if let Some(&k) = self.conns.get(&key) {
            return Some(k);
        }
        let k = self.pending.get_mut(&(pkt.src.index(), pkt.dst.index()))?.pop_front()?;
        self.conns.insert(key, k);
        Some(k)
    }
}

impl SwitchAgent for Tally {
    fn on_arrival(&mut self, now: Time, _: SwitchId, pkt: &mut Packet) -> Ingress {
        if pkt.src.index() >= self.left || pkt.payload() == 0 {
            return Ingress::Forward;
        }
        let Some(k) = self.message(pkt) else { return Ingress::Forward };
        if let Some(m) = self.marking.as_mut() {
            m.mark(now, k, pkt);
        }
        let other = match self.latest {
            Some((_, j)) if j == k => self.before,
            l => l,
        };
        let shared = other.is_some_and(|(t, _)| t + self.rtt >= now);
        match self.latest {
            Some((_, j)) if j == k => self.latest = Some((now, k)),
            l => {
                self.before = l;
                self.latest = Some((now, k));
            }
        }
        let c = &mut self.counts[k];
        let ce = pkt.ecn() == Ecn::Ce;
        c.data += 1;
        c.ce += u32::from(ce);
        c.shared += u32::from(ce && shared);
        Ingress::Forward
    }
    fn on_timer(&mut self, _: Time, _: TimerKey) {}
    fn poll_emit(&mut self) -> Option<Packet> {
        None
    }
    fn poll_timer(&mut self) -> Option<(TimerKey, Time)> {
        None
    }
}

/// The counts leave with the agent, when the link's simulation is dropped.
impl Drop for Tally {
    fn drop(&mut self) {
        if let Ok(mut out) = self.out.lock() {
            *out = std::mem::take(&mut self.counts);
        }
    }
}

/// Each message's downstream mark probability: 1 − Π(1 − f) over its marked fractions on
/// the links of its path other than host uplinks (`results`: every link's, in
/// `plan.links` order).
pub fn downstream(plan: &Plan, results: &[LinkResult]) -> Vec<f64> {
    let mut clear = vec![1.0f64; plan.msgs.len()];
    for (link, r) in plan.links.iter().zip(results) {
        if link.role == PortRole::HostNic {
            continue;
        }
        for (&i, d) in link.msgs.iter().zip(&r.delays) {
            clear[i as usize] *= 1.0 - d.marks.fraction();
        }
    }
    clear.into_iter().map(|c| 1.0 - c).collect()
}

/// Each message's largest delay on the links after its sender's NIC, and its first hop's
/// rate in bytes per ps (`results`: every link's, in `plan.links` order).
pub fn worst_downstream(plan: &Plan, results: &[LinkResult]) -> Vec<(Time, f64)> {
    let mut out = vec![(Time::ZERO, 0.0f64); plan.msgs.len()];
    for (link, r) in plan.links.iter().zip(results) {
        for (&i, d) in link.msgs.iter().zip(&r.delays) {
            let o = &mut out[i as usize];
            if link.role == PortRole::HostNic {
                o.1 = link.rate.bps() as f64 / 8.0 * 1e-12;
            } else {
                o.0 = o.0.max(d.total);
            }
        }
    }
    out
}

/// Each message's rate on the tightest link after its sender's NIC (bytes per ps): its
/// transmission time at its first hop's rate T over T plus its largest delay there, times
/// that rate (the first hop's rate if it crosses no other link).
pub fn downstream_rate(plan: &Plan, results: &[LinkResult]) -> Vec<f64> {
    plan.msgs
        .iter()
        .zip(worst_downstream(plan, results))
        .map(|(m, (d, c))| {
            let t = m.size as f64 / c;
            c * t / (t + d.ps() as f64)
        })
        .collect()
}
