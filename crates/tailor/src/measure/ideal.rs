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

/// A run of equal packets in a message's train.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub count: u64,
    /// Wire bytes of each.
    pub bytes: u64,
}

/// [`pipeline`] for a train of several runs of equal packets (Homa's unscheduled packets,
/// a shorter last unscheduled one, then scheduled ones): the same max-plus tandem, one
/// run at a time. After a run, G(j) is the time its last packet leaves hop j; the last
/// packet of the next run of k packets of per-hop times s leaves hop j at
///
///   max over b ≤ j of  G(b) + Σ_{b ≤ c ≤ j} s_c + (k − 1)·max_{b ≤ c ≤ j} s_c + Σ_{b ≤ c < j} d_c
///
/// (the longest path entering the run's grid at column b), with G = 0 at the first hop
/// and −∞ elsewhere before the first run. Exact; O(runs × hops²).
pub fn pipeline_blocks(hops: &[Hop], blocks: &[Block]) -> Time {
    let h = hops.len();
    let mut g: Vec<Option<u64>> = vec![None; h];
    g[0] = Some(0);
    for blk in blocks.iter().filter(|b| b.count > 0) {
        let s: Vec<u64> = hops.iter().map(|x| x.rate.ser(blk.bytes).ps()).collect();
        let mut next = vec![None; h];
        for (j, slot) in next.iter_mut().enumerate() {
            let mut best: Option<u64> = None;
            for b in 0..=j {
                let Some(start) = g[b] else { continue };
                let sum: u64 = s[b..=j].iter().sum();
                let max = *s[b..=j].iter().max().expect("non-empty");
                let delays: u64 = hops[b..j].iter().map(|x| x.delay.ps()).sum();
                let v = start + sum + (blk.count - 1) * max + delays;
                best = Some(best.map_or(v, |x: u64| x.max(v)));
            }
            *slot = best;
        }
        g = next;
    }
    let last = g[h - 1].expect("a train has packets");
    Time::from_ps(last + hops[h - 1].delay.ps())
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

    /// The tandem recursion for any list of packet sizes.
    fn recursion_of(hops: &[Hop], sizes: &[u64]) -> Time {
        let mut f = vec![Time::ZERO; hops.len()];
        for &s in sizes {
            let mut prev = Time::ZERO;
            for (j, h) in hops.iter().enumerate() {
                let ready = if j == 0 { prev } else { prev + hops[j - 1].delay };
                f[j] = f[j].max(ready) + h.rate.ser(s);
                prev = f[j];
            }
        }
        f[hops.len() - 1] + hops[hops.len() - 1].delay
    }

    #[test]
    fn blocks_equal_the_tandem_recursion() {
        let paths = [
            vec![hop(10, 1000), hop(40, 250), hop(40, 250), hop(10, 500)],
            vec![hop(10, 1500), hop(10, 750)],
            vec![hop(40, 0), hop(10, 3), hop(100, 7)],
        ];
        let trains: [&[(u64, u64)]; 5] = [
            &[(1, 97)],
            &[(6, 1538), (1, 772), (3, 1538), (1, 300)],
            &[(1, 1538), (1, 84), (5, 1538)],
            &[(4, 200), (2, 1538), (1, 1000)],
            &[(3, 1538)],
        ];
        for p in &paths {
            for t in trains {
                let blocks: Vec<Block> = t.iter().map(|&(count, bytes)| Block { count, bytes }).collect();
                let sizes: Vec<u64> = t.iter().flat_map(|&(c, b)| std::iter::repeat_n(b, c as usize)).collect();
                assert_eq!(pipeline_blocks(p, &blocks), recursion_of(p, &sizes), "{p:?} {t:?}");
            }
        }
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
                assert_eq!(
                    last_ack(p, &rev, t, 54, 1, Time::ZERO),
                    ack_recursion(p, &rev, t, 54),
                    "size {size} on {p:?}"
                );
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
