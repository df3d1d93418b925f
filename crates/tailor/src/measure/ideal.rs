//! Ideal latency: the same message alone in the empty network, on its own path
//! (DESIGN.md, "Ideal latency and slowdown"; formulas in `docs/ideal-latency.md`).
//!
//! A message of n packets — n − 1 full ones and a last one, possibly shorter — crosses
//! hops j = 1..h of rates r_j store-and-forward. Its last bit arrives at
//!
//!   T = max over b1 ≤ b2 of  Σ_{j ≤ b2} ser_j(full) + (n − 2)·ser_{b1}(full)
//!                            + Σ_{j ≥ b2} ser_j(last)                + Σ_j d_j
//!
//! (for n = 1: Σ_j ser_j(last) + Σ_j d_j). This is the longest path through the
//! max-plus tandem recursion F(i, j) = max(F(i−1, j), F(i, j−1)) + ser_j(p_i): the
//! middle packets all cross the slowest hop the path visits, and the last packet joins
//! at some hop b2 ≥ b1. It is exact, not an approximation, for any rates; for the ns-3
//! anchors' paths it reduces to their READMEs' formulas.

use crate::sim::{Rate, Time};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Hop {
    pub rate: Rate,
    /// Propagation plus the fixed delays of the node at the far end.
    pub delay: Time,
}

/// The shape of a message on the wire.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Train {
    pub packets: u64,
    /// Wire bytes of each packet but the last.
    pub full: u64,
    /// Wire bytes of the last packet.
    pub last: u64,
}

impl Train {
    /// `size` payload bytes in segments of `mss`, each with `header` bytes.
    pub fn of(size: u64, mss: u64, header: u64) -> Train {
        let packets = size.div_ceil(mss).max(1);
        let last = size - (packets - 1) * mss;
        Train { packets, full: mss + header, last: last + header }
    }
}

/// Time from the first bit of `train` leaving the sender to the last bit of the
/// acknowledgement of its last packet arriving back, when the receiver acknowledges
/// every `ack_every`-th packet and the last one at once (`ack` wire bytes each, sent
/// `ack_delay` after the data arrives).
///
/// The ACKs form a train of their own on the reverse path: on a path whose slowest hop
/// is in the middle, a short last segment arrives right behind the one before it and
/// its ACK waits behind that one's ACK at the slow hop. Data packet k < n of the train
/// arrives at Σ_j ser_j(full) + (k − 1)·max_j ser_j(full) + Σ_j d_j (identical packets
/// through a tandem); an ACK train of equal packets leaves the reverse path at
/// max over its members m of (release_m + Σ_j a_j + (members after m)·max_j a_j), and
/// only the last earlier ACK can matter because data is spaced by at least one ACK's
/// time at the slowest hop.
pub fn last_ack(fwd: &[Hop], rev: &[Hop], train: Train, ack: u64, ack_every: u64, ack_delay: Time) -> Time {
    let back = pipeline(rev, Train { packets: 1, full: ack, last: ack }) + ack_delay;
    let last = pipeline(fwd, train) + back;
    if train.packets < 2 {
        return last;
    }
    // The last earlier packet the receiver acknowledged (every `ack_every`-th).
    let k = (train.packets - 1) / ack_every * ack_every;
    if k == 0 {
        return last;
    }
    let delays = fwd.iter().fold(Time::ZERO, |a, h| a + h.delay);
    let s_max = fwd.iter().map(|h| h.rate.ser(train.full)).max().expect("a path has hops");
    let arrive_k = fwd.iter().fold(delays, |a, h| a + h.rate.ser(train.full)) + Time::from_ps(s_max.ps() * (k - 1));
    let a_max = rev.iter().map(|h| h.rate.ser(ack)).max().expect("a path has hops");
    last.max(arrive_k + back + a_max)
}

/// Time from the first bit leaving the first hop's queue to the last bit arriving.
pub fn pipeline(hops: &[Hop], train: Train) -> Time {
    let delays = hops.iter().fold(Time::ZERO, |a, h| a + h.delay);
    let ser = |j: usize, b: u64| hops[j].rate.ser(b);
    if train.packets == 1 {
        return (0..hops.len()).fold(delays, |a, j| a + ser(j, train.last));
    }
    let mut best = Time::ZERO;
    for b2 in 0..hops.len() {
        let head = (0..=b2).fold(Time::ZERO, |a, j| a + ser(j, train.full));
        let tail = (b2..hops.len()).fold(Time::ZERO, |a, j| a + ser(j, train.last));
        for b1 in 0..=b2 {
            let middle = Time::from_ps(ser(b1, train.full).ps() * (train.packets - 2));
            best = best.max(head + middle + tail);
        }
    }
    best + delays
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hop(gbps: u64, delay_ns: u64) -> Hop {
        Hop { rate: Rate::from_gbps(gbps), delay: Time::from_ns(delay_ns) }
    }

    /// The brute-force tandem recursion, for checking the closed form.
    fn recursion(hops: &[Hop], t: Train) -> Time {
        let sizes: Vec<u64> = (0..t.packets).map(|i| if i + 1 == t.packets { t.last } else { t.full }).collect();
        let mut f = vec![Time::ZERO; hops.len()];
        for &s in &sizes {
            let mut prev = Time::ZERO;
            for (j, h) in hops.iter().enumerate() {
                f[j] = f[j].max(prev) + h.rate.ser(s);
                prev = f[j];
            }
        }
        f[hops.len() - 1] + hops.iter().fold(Time::ZERO, |a, h| a + h.delay)
    }

    #[test]
    fn closed_form_equals_the_tandem_recursion() {
        let paths = [
            vec![hop(100, 2500), hop(100, 2500)],
            vec![hop(10, 1000), hop(40, 1000), hop(40, 1000), hop(10, 1000)],
            vec![hop(40, 0), hop(10, 0), hop(100, 0), hop(25, 0), hop(10, 0)],
            vec![hop(100, 0), hop(10, 5), hop(100, 0)],
        ];
        for p in &paths {
            for size in [1u64, 100, 1447, 1448, 1449, 2896, 5000, 100_000, 1_000_003] {
                let t = Train::of(size, 1448, 54);
                assert_eq!(pipeline(p, t), recursion(p, t), "size {size} on {p:?}");
            }
        }
    }

    /// Brute force: data train forward, then the ACK train (every packet acknowledged)
    /// backward, each through the tandem recursion with release times.
    fn ack_recursion(fwd: &[Hop], rev: &[Hop], t: Train, ack: u64) -> Time {
        let sizes: Vec<u64> = (0..t.packets).map(|i| if i + 1 == t.packets { t.last } else { t.full }).collect();
        let run = |hops: &[Hop], rel: &[Time], sizes: &[u64]| -> Vec<Time> {
            let mut f = vec![Time::ZERO; hops.len()];
            let mut out = Vec::new();
            for (i, &s) in sizes.iter().enumerate() {
                let mut prev = rel[i];
                for (j, h) in hops.iter().enumerate() {
                    f[j] = f[j].max(prev) + h.rate.ser(s);
                    prev = f[j] + h.delay;
                }
                out.push(prev);
            }
            out
        };
        let arrivals = run(fwd, &vec![Time::ZERO; sizes.len()], &sizes);
        *run(rev, &arrivals, &vec![ack; sizes.len()]).last().unwrap()
    }

    #[test]
    fn last_ack_equals_the_two_train_recursion() {
        let paths = [
            vec![hop(100, 1000), hop(40, 3000), hop(100, 1000)],
            vec![hop(10, 1000), hop(40, 1000), hop(40, 1000), hop(10, 1000)],
            vec![hop(100, 0), hop(10, 0), hop(25, 5), hop(100, 0)],
        ];
        for p in &paths {
            let rev: Vec<Hop> = p.iter().rev().copied().collect();
            for size in [1u64, 1448, 1449, 2897, 4000, 100_001, 1_000_000] {
                let t = Train::of(size, 1448, 54);
                assert_eq!(last_ack(p, &rev, t, 54, 1, Time::ZERO), ack_recursion(p, &rev, t, 54), "size {size} on {p:?}");
            }
        }
    }

    #[test]
    fn matches_the_ns3_single_bottleneck_formula() {
        // ns-3 anchor README: 1 B -> 10,017.44 ns; 1448 B -> 10,248.96 ns;
        // 125,000 B -> 20,504.64 ns; 1 MB -> 93,113.92 ns (data + ACK + 10 us).
        let fwd = [hop(100, 2500), hop(100, 2500)];
        let ack = pipeline(&fwd, Train::of(0, 1448, 54));
        for (size, ns) in [(1u64, 10_017.44), (1448, 10_248.96), (125_000, 20_504.64), (1_000_000, 93_113.92)] {
            let t = pipeline(&fwd, Train::of(size, 1448, 54)) + ack;
            assert!((t.as_ns_f64() - ns).abs() < 1e-6, "{size}: {} vs {ns}", t.as_ns_f64());
        }
    }
}
