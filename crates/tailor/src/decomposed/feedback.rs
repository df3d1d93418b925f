//! Feedback between links: the links after a sender's NIC bound the windows that fill
//! its NIC queue (docs/decomposed.md, "Method", point 5).
//!
//! Parsimon (§3.2) simulates each link alone. A host uplink's simulation then gets its
//! queue wrong either way: at fast edge links (`linksim::EDGE_SPEEDUP`) the queue of a
//! host's messages forms at a switch port that marks, so their DCTCP windows stay near
//! the marking threshold and the NIC queue small messages wait in is a sixth of the
//! fabric's; at host-rate edges the NIC, which does not mark, holds the queue, and the
//! windows grow without bound. In the fabric the windows grow in the unmarked NIC until
//! the links after it, where a host's messages meet others', mark them.
//!
//! So a second pass: once every link has been simulated, each message's rate on the
//! tightest link after its NIC is known from its delays there (`downstream_rate`); the
//! host uplinks are simulated again with host-rate edges (the queue forms, unmarked, in
//! the sender's NIC), and the dumbbell's far switch keeps for each message a virtual
//! queue drained at that rate, marking its data packets CE when the virtual queue is
//! above the fabric's switch threshold ([`Tally`]): a message sending faster than the
//! fabric after its NIC would carry it is marked as a port there would mark it. That
//! cap makes a message's delay on its uplink include its downstream delay, which the
//! combination counts on the downstream links already; [`discount`] takes it off.
//!
//! The agent tells messages apart by their packets' connection: the n-th connection
//! seen from a (sender, receiver) pair is the n-th message of that pair in start order
//! (a sender's first packets leave its FIFO NIC in the order its messages start).

use super::linksim::LinkResult;
use super::plan::{LinkLoad, Plan};
use crate::net::agent::{Ingress, SwitchAgent};
use crate::net::ids::SwitchId;
use crate::net::packet::{Ecn, Packet};
use crate::net::port::PortRole;
use crate::sim::{Time, TimerKey};
use std::collections::{HashMap, VecDeque};

/// The dumbbell's far switch (`Shape::Dumbbell` builds the near switch first).
pub fn far_switch() -> SwitchId {
    SwitchId::new(1)
}

/// The far switch's agent in the second pass: each message's virtual queue downstream.
pub struct Tally {
    /// Hosts below this index are the dumbbell's senders.
    left: usize,
    /// Per (sender, receiver): its messages (positions in the link's list) not yet seen.
    pending: HashMap<(usize, usize), VecDeque<usize>>,
    /// Connection key to message position.
    conns: HashMap<u64, usize>,
    /// Each message's downstream rate (bytes per ps), its virtual queue (bytes) and when
    /// it was last drained.
    rate: Vec<f64>,
    queue: Vec<(f64, Time)>,
    /// The fabric's switch marking threshold (bytes).
    k: f64,
    /// Each message's data bytes that reached the far switch, and the data packets no
    /// message was left for (`check`).
    bytes: Vec<u64>,
    stray: u64,
}

impl Tally {
    /// `pairs[k]`: message k's (sender, receiver) in the dumbbell, messages in start order;
    /// `rate[k]` its downstream rate; `k` the threshold.
    pub fn new(left: usize, pairs: &[(usize, usize)], rate: Vec<f64>, k: f64) -> Tally {
        let mut pending: HashMap<(usize, usize), VecDeque<usize>> = HashMap::new();
        for (m, &pair) in pairs.iter().enumerate() {
            pending.entry(pair).or_default().push_back(m);
        }
        let queue = vec![(0.0, Time::ZERO); rate.len()];
        let bytes = vec![0; rate.len()];
        Tally { left, pending, conns: HashMap::new(), rate, queue, k, bytes, stray: 0 }
    }

    /// Whether packets were matched to messages as `new` assumed (the n-th connection of a
    /// sender-receiver pair its n-th message): every data packet to a message, and each
    /// message's data bytes at least its size (`sizes`, in the link's order; more if some
    /// were sent again). A wrong match would charge one message's marks to another.
    pub fn check(&self, sizes: impl Iterator<Item = u64>) -> Result<(), String> {
        if self.stray > 0 {
            return Err(format!("{} data packets matched no message", self.stray));
        }
        match sizes.zip(&self.bytes).position(|(size, &got)| got < size) {
            Some(m) => Err(format!("message {m} delivered {} data bytes through the link", self.bytes[m])),
            None => Ok(()),
        }
    }

    fn message(&mut self, pkt: &Packet) -> Option<usize> {
        let key = pkt.conn.key();
        if let Some(&m) = self.conns.get(&key) {
            return Some(m);
        }
        let m = self.pending.get_mut(&(pkt.src.index(), pkt.dst.index()))?.pop_front()?;
        self.conns.insert(key, m);
        Some(m)
    }
}

impl SwitchAgent for Tally {
    fn on_arrival(&mut self, now: Time, _: SwitchId, pkt: &mut Packet) -> Ingress {
        if pkt.src.index() >= self.left || pkt.payload() == 0 {
            return Ingress::Forward;
        }
        let Some(m) = self.message(pkt) else {
            self.stray += 1;
            return Ingress::Forward;
        };
        self.bytes[m] += u64::from(pkt.payload());
        let (q, last) = &mut self.queue[m];
        *q = (*q - self.rate[m] * (now - *last).ps() as f64).max(0.0) + pkt.wire_bytes as f64;
        *last = now;
        if *q > self.k && pkt.ecn() == Ecn::Ect {
            pkt.set_ecn(Ecn::Ce);
        }
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
/// first hop's rate C times T / (T + d), T its size over C and d its largest delay
/// after the NIC (C if it crosses no other link).
pub fn downstream_rate(plan: &Plan, worst: &[(Time, f64)]) -> Vec<f64> {
    plan.msgs
        .iter()
        .zip(worst)
        .map(|(m, &(d, c))| {
            let t = m.size as f64 / c;
            c * t / (t + d.ps() as f64)
        })
        .collect()
}

/// Takes off a host uplink's second-pass delays what the virtual queue's cap made: the
/// part of a message beyond the link's bandwidth-delay product B (what is sent within
/// about a round trip, before any mark can act) runs at its downstream rate, slower by
/// its largest downstream delay in proportion (`worst`), which the combination counts
/// on that downstream link already.
/// `worst` holds the link's messages' largest downstream delays, in `link.msgs` order.
pub fn discount(plan: &Plan, link: &LinkLoad, r: &mut LinkResult, worst: &[Time]) {
    let one_way =
        link.msgs.iter().map(|&i| plan.msgs[i as usize].delay.ps() as f64).sum::<f64>() / link.msgs.len() as f64;
    let b = link.rate.bps() as f64 / 8.0 * 2.0 * one_way * 1e-12;
    for ((&i, d), w) in link.msgs.iter().zip(r.delays.iter_mut()).zip(worst) {
        let size = plan.msgs[i as usize].size as f64;
        let share = ((size - b) / size).max(0.0);
        let excess = Time::from_ps((w.ps() as f64 * share).round() as u64);
        d.total = d.total.saturating_sub(excess);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::ids::{ClassId, ConnId};
    use crate::net::packet::Header;

    /// A data packet of connection `slot` from host 0 to host 1 with `data` bytes.
    fn data(slot: u32, data: u32) -> Packet {
        let mut p = Packet::scripted(ConnId { slot, gen: 0 }, ClassId::new(0), data + 40, Header::default());
        p.header_bytes = 40;
        p
    }

    /// Two messages from host 0 to host 1 (dumbbell: one sender), 3,000 then 1,000 bytes.
    fn tally() -> Tally {
        Tally::new(1, &[(0, 1), (0, 1)], vec![1.0, 1.0], f64::INFINITY)
    }

    fn feed(t: &mut Tally, pkts: &[Packet]) {
        for p in pkts {
            let mut p = *p;
            assert_eq!(t.on_arrival(Time::ZERO, far_switch(), &mut p), Ingress::Forward);
        }
    }

    #[test]
    fn the_check_passes_matches_in_start_order_and_catches_a_swap_or_a_stray() {
        let sizes = || [3000u64, 1000].into_iter();
        let mut t = tally();
        feed(&mut t, &[data(7, 1500), data(9, 1000), data(7, 1500)]);
        assert_eq!(t.check(sizes()), Ok(()));
        // The second message's connection seen first: matched to the first message, which
        // then has a third of its bytes.
        let mut t = tally();
        feed(&mut t, &[data(9, 1000), data(7, 1500), data(7, 1500)]);
        assert_eq!(t.check(sizes()), Err("message 0 delivered 1000 data bytes through the link".into()));
        // A third connection: no message left for it.
        let mut t = tally();
        feed(&mut t, &[data(7, 3000), data(9, 1000), data(4, 10)]);
        assert_eq!(t.check(sizes()), Err("1 data packets matched no message".into()));
    }
}
