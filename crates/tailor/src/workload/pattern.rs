//! Who sends to whom: the communication pattern of a traffic class.
//!
//! - **AllToAll**: the sender is uniform over `senders`, the receiver uniform over the
//!   `receivers` other than the sender (Homa §5 and HPCC's `traffic_gen`: random pairs).
//! - **NToOne**: the sender is uniform over `senders`, the receiver always `receiver` (the
//!   ns-3 anchor's incast-to-one bottleneck, SWP's single-bottleneck model).
//! - **Permutation**: a derangement of `hosts` is drawn once, uniformly among all
//!   derangements, at construction; each message picks its sender uniformly and goes to
//!   that sender's partner (the permutation traffic of pFabric/NDP-style evaluations).
//!
//! Invariants: a pattern never yields src == dst; lists hold no duplicate host (a
//! duplicate would silently weight a host, so it is rejected); each message costs one draw
//! (two for AllToAll) from the endpoints stream, so sizes and gaps are unaffected by the
//! pattern.

use rand::seq::SliceRandom;
use rand::Rng;

use super::WorkloadError;
use crate::ids::HostId;
use crate::sim::rng::Stream;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    AllToAll { senders: Vec<HostId>, receivers: Vec<HostId> },
    NToOne { senders: Vec<HostId>, receiver: HostId },
    Permutation { hosts: Vec<HostId> },
}

/// Draws (src, dst) pairs for a pattern.
#[derive(Clone, Debug)]
pub struct Endpoints {
    kind: Kind,
    rng: Stream,
}

#[derive(Clone, Debug)]
enum Kind {
    AllToAll { senders: Vec<HostId>, receivers: Vec<HostId>, pos: Vec<Option<usize>> },
    NToOne { senders: Vec<HostId>, receiver: HostId },
    Permutation { hosts: Vec<HostId>, partner: Vec<HostId> },
}

/// Why a pattern is invalid: the key of the host list at fault (`senders`,
/// `receivers`, `hosts`) and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternError {
    pub key: &'static str,
    pub msg: String,
}

fn check_list(key: &'static str, hosts: &[HostId]) -> Result<(), PatternError> {
    let err = |msg: String| PatternError { key, msg };
    if hosts.is_empty() {
        return Err(err("lists no host; accepted: one host or more".into()));
    }
    let mut sorted = hosts.to_vec();
    sorted.sort();
    match sorted.windows(2).find(|w| w[0] == w[1]) {
        Some(w) => Err(err(format!("host {} is listed twice; accepted: distinct hosts", w[0].index()))),
        None => Ok(()),
    }
}

impl Pattern {
    /// Checks the host lists: no list empty, no host listed twice (a duplicate would
    /// silently weight a host), no message forced from a host to itself. The scenario
    /// reader and [`Endpoints::new`] both call it, so the two cannot disagree.
    pub fn validate(&self) -> Result<(), PatternError> {
        match self {
            Pattern::AllToAll { senders, receivers } => {
                check_list("senders", senders)?;
                check_list("receivers", receivers)?;
                match receivers.as_slice() {
                    [only] if senders.contains(only) => Err(PatternError {
                        key: "receivers",
                        msg: format!(
                            "host {} is the only receiver and also a sender: it has nobody to send to; accepted: another receiver or more than one",
                            only.index()
                        ),
                    }),
                    _ => Ok(()),
                }
            }
            Pattern::NToOne { senders, receiver } => {
                check_list("senders", senders)?;
                if senders.contains(receiver) {
                    return Err(PatternError {
                        key: "senders",
                        msg: format!(
                            "includes the receiver (host {}); accepted: hosts other than the receiver",
                            receiver.index()
                        ),
                    });
                }
                Ok(())
            }
            Pattern::Permutation { hosts } => {
                check_list("hosts", hosts)?;
                if hosts.len() < 2 {
                    return Err(PatternError {
                        key: "hosts",
                        msg: "a permutation needs at least 2 hosts; accepted: two hosts or more".into(),
                    });
                }
                Ok(())
            }
        }
    }
}

impl Endpoints {
    pub fn new(p: Pattern, mut rng: Stream) -> Result<Self, WorkloadError> {
        p.validate().map_err(|e| WorkloadError::Spec { key: format!("pattern.{}", e.key), msg: e.msg })?;
        let kind = match p {
            Pattern::AllToAll { senders, receivers } => all_to_all(senders, receivers),
            Pattern::NToOne { senders, receiver } => Kind::NToOne { senders, receiver },
            Pattern::Permutation { hosts } => {
                let partner = derangement(&hosts, &mut rng);
                Kind::Permutation { hosts, partner }
            }
        };
        Ok(Endpoints { kind, rng })
    }

    /// The next (src, dst); src != dst always. (Not an `Iterator`: it never ends.)
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> (HostId, HostId) {
        match &self.kind {
            Kind::AllToAll { senders, receivers, pos } => {
                let src = senders[self.rng.random_range(0..senders.len())];
                let dst = pick_other(receivers, pos[src.index()], &mut self.rng);
                (src, dst)
            }
            Kind::NToOne { senders, receiver } => (senders[self.rng.random_range(0..senders.len())], *receiver),
            Kind::Permutation { hosts, partner } => {
                let i = self.rng.random_range(0..hosts.len());
                (hosts[i], partner[i])
            }
        }
    }

    /// The hosts that send: every host a message may come from.
    pub fn senders(&self) -> Vec<HostId> {
        match &self.kind {
            Kind::AllToAll { senders, .. } | Kind::NToOne { senders, .. } => senders.clone(),
            Kind::Permutation { hosts, .. } => hosts.clone(),
        }
    }

    /// A receiver for a message from `src` (one of `senders`): the one receiver, one of
    /// the others drawn uniformly, or `src`'s partner (closed-loop clients,
    /// `workload::closed`).
    pub fn peer_of(&mut self, src: HostId) -> HostId {
        match &self.kind {
            Kind::AllToAll { receivers, pos, .. } => {
                pick_other(receivers, pos.get(src.index()).copied().flatten(), &mut self.rng)
            }
            Kind::NToOne { receiver, .. } => *receiver,
            Kind::Permutation { hosts, partner } => {
                let i = hosts.iter().position(|&h| h == src).expect("a permutation's host");
                partner[i]
            }
        }
    }

    /// The fixed partner of each host of a permutation pattern, as (src, dst) pairs.
    pub fn permutation(&self) -> Option<Vec<(HostId, HostId)>> {
        match &self.kind {
            Kind::Permutation { hosts, partner } => Some(hosts.iter().copied().zip(partner.iter().copied()).collect()),
            _ => None,
        }
    }
}

/// The sampler of a validated all-to-all pattern.
fn all_to_all(senders: Vec<HostId>, receivers: Vec<HostId>) -> Kind {
    // Position of each host in `receivers`, indexed by host id, to skip the sender in O(1).
    let top = senders.iter().map(|h| h.index()).max().unwrap_or(0);
    let mut pos = vec![None; top + 1];
    for (i, r) in receivers.iter().enumerate() {
        if r.index() <= top {
            pos[r.index()] = Some(i);
        }
    }
    Kind::AllToAll { senders, receivers, pos }
}

/// Uniform over `receivers` minus the one at `skip`: one draw, no rejection loop.
fn pick_other(receivers: &[HostId], skip: Option<usize>, rng: &mut Stream) -> HostId {
    match skip {
        None => receivers[rng.random_range(0..receivers.len())],
        Some(s) => {
            let k = rng.random_range(0..receivers.len() - 1);
            receivers[if k >= s { k + 1 } else { k }]
        }
    }
}

/// A derangement uniform over all derangements: shuffle until no host maps to itself
/// (e ≈ 2.72 shuffles expected). Sattolo's algorithm would be loop-free but only yields
/// single cycles.
fn derangement(hosts: &[HostId], rng: &mut Stream) -> Vec<HostId> {
    let mut partner = hosts.to_vec();
    loop {
        partner.shuffle(rng);
        if hosts.iter().zip(&partner).all(|(a, b)| a != b) {
            return partner;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng::stream;

    fn hosts(ids: &[usize]) -> Vec<HostId> {
        ids.iter().map(|&i| HostId::new(i)).collect()
    }

    #[test]
    fn all_to_all_never_sends_to_itself_and_covers_all_pairs() {
        let h = hosts(&[0, 1, 2, 3]);
        let mut e = Endpoints::new(Pattern::AllToAll { senders: h.clone(), receivers: h }, stream(1, "t")).unwrap();
        let mut seen = [[0u32; 4]; 4];
        for _ in 0..12_000 {
            let (s, d) = e.next();
            assert_ne!(s, d);
            seen[s.index()][d.index()] += 1;
        }
        for (s, row) in seen.iter().enumerate() {
            for (d, &n) in row.iter().enumerate() {
                assert!(s == d || (800..1200).contains(&n), "{s}->{d}: {n}");
            }
        }
    }

    #[test]
    fn all_to_all_disjoint_lists() {
        let mut e =
            Endpoints::new(Pattern::AllToAll { senders: hosts(&[5, 6]), receivers: hosts(&[0]) }, stream(1, "t"))
                .unwrap();
        for _ in 0..100 {
            assert_eq!(e.next().1, HostId::new(0));
        }
    }

    #[test]
    fn impossible_patterns_are_rejected() {
        let one = Pattern::AllToAll { senders: hosts(&[0, 1]), receivers: hosts(&[1]) };
        let e = Endpoints::new(one, stream(1, "t")).unwrap_err();
        assert!(e.to_string().contains("pattern.receivers"), "{e}");
        assert!(Endpoints::new(Pattern::AllToAll { senders: vec![], receivers: hosts(&[1]) }, stream(1, "t")).is_err());
        assert!(Endpoints::new(Pattern::NToOne { senders: hosts(&[0, 1]), receiver: HostId::new(1) }, stream(1, "t"))
            .is_err());
        assert!(Endpoints::new(Pattern::Permutation { hosts: hosts(&[3]) }, stream(1, "t")).is_err());
        assert!(Endpoints::new(Pattern::Permutation { hosts: hosts(&[3, 4, 3]) }, stream(1, "t")).is_err());
    }

    #[test]
    fn permutation_is_a_fixed_derangement() {
        for seed in 0..50 {
            let h = hosts(&(0..16).collect::<Vec<_>>());
            let mut e = Endpoints::new(Pattern::Permutation { hosts: h.clone() }, stream(seed, "t")).unwrap();
            let pairs = e.permutation().unwrap();
            let mut dsts: Vec<_> = pairs.iter().map(|p| p.1).collect();
            dsts.sort();
            assert_eq!(dsts, h, "a permutation");
            assert!(pairs.iter().all(|(s, d)| s != d), "no fixed point");
            for _ in 0..100 {
                let (s, d) = e.next();
                assert_eq!(pairs[s.index()].1, d);
            }
        }
    }

    #[test]
    fn n_to_one() {
        let mut e =
            Endpoints::new(Pattern::NToOne { senders: hosts(&[1, 2, 3]), receiver: HostId::new(0) }, stream(1, "t"))
                .unwrap();
        for _ in 0..100 {
            let (s, d) = e.next();
            assert_eq!(d, HostId::new(0));
            assert!((1..4).contains(&s.index()));
        }
    }
}
