//! What a message takes alone beyond its ideal: the rounds its window needs before it
//! fills the pipe (slow start), which the ideal (DESIGN.md, "Ideal latency and slowdown")
//! does not count.
//!
//! A link's simulation measures a message's latency there; its delay on the link is what
//! the others cost it, so the part it would take alone on the same dumbbell is taken off,
//! and the estimate adds back, once, what it takes alone on its own path. Taking off only
//! the ideal (the first version) counted a window-limited message's rounds once per link:
//! measured at 2 % load (128 hosts, websearch, 20 ms), the estimate's p50 slowdown of
//! 20–30 KB messages was 5.43 against the packet engine's 1.79 (docs/decomposed.md,
//! "Alone on the link").
//!
//! The part alone is simulated by the packet engine, one message on a dumbbell of one
//! sender and one receiver built as the link's simulation is (`linksim::config`), and kept
//! per (dumbbell, class, packets). Packets are counted exactly up to [`EXACT`], then on a
//! grid of 16 steps an octave (a size rounded up by less than 6.25 %), up to the size from
//! which the part stops growing on that dumbbell (found by doubling, `Solo::cap`).

use super::linksim::{config, Collect};
use super::plan::{LinkLoad, Msg, Plan};
use super::Template;
use crate::engine::{Progress, RunError, Simulation};
use crate::ids::{ClassId, PortRole};
use crate::net::ids::{HostId, PortId};
use crate::sim::{Rate, Time};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Packet counts simulated exactly; above, a grid.
const EXACT: u64 = 64;
/// The first size (packets) at which the part alone is tested for having stopped
/// growing, and the last.
const FIRST_CAP: u64 = 1024;
const LAST_CAP: u64 = 1 << 16;
/// The one-way delays of dumbbells are rounded to this (ps) to be shared: 100 ns, a few
/// percent of a fabric's round trip.
const DELAY_GRAIN: u64 = 100_000;

/// A dumbbell a message can run alone on: the link under study's kind, rate and
/// propagation, the edge links' speed-up, and the one-way fixed delay.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Bench {
    pub role: PortRole,
    pub rate: Rate,
    pub propagation: Time,
    pub speedup: u64,
    pub delay: Time,
}

impl Bench {
    /// The dumbbell of `link`'s simulation (edges `speedup` times a host link), its delay
    /// the mean of its messages' paths, as `linksim::config` sets it.
    pub fn of(link: &LinkLoad, speedup: u64, mean_delay: f64) -> Bench {
        let delay = rounded(mean_delay);
        Bench { role: link.role, rate: link.rate, propagation: link.propagation, speedup, delay }
    }

    /// A message's own path in the fabric, as a dumbbell of host links (the host's rate
    /// bounds a message alone) with the path's fixed delay.
    pub fn path(tpl: &Template, delay: Time) -> Bench {
        let host = super::linksim::host_link(&tpl.net.shape);
        let delay = rounded(delay.ps() as f64);
        Bench { role: PortRole::HostNic, rate: host.rate, propagation: host.delay, speedup: 1, delay }
    }
}

/// A delay (ps) rounded to [`DELAY_GRAIN`], so that dumbbells of nearly equal delays share
/// their parts alone.
fn rounded(ps: f64) -> Time {
    let grain = DELAY_GRAIN as f64;
    Time::from_ps(((ps / grain).round() * grain) as u64)
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
struct Key {
    bench: Bench,
    class: ClassId,
    packets: u64,
}

/// A part alone: the time, the events its simulation took, and whether a Ray task's
/// results have carried those events to the driver yet (`Solo::untold`).
#[derive(Copy, Clone, Debug)]
struct Part {
    time: Time,
    events: u64,
    told: bool,
}

/// The part alone of every (dumbbell, class, packets) asked for so far, shared by the link
/// simulations of a run (they run on several threads: a part computed twice is the same,
/// the simulation being deterministic).
#[derive(Clone, Default)]
pub struct Solo(Arc<Mutex<HashMap<Key, Part>>>);

impl Solo {
    /// What a message of `size` bytes of class `class` takes alone on `bench` beyond its
    /// ideal there: simulated on the grid up to the bench's cap ([`cap`]), the cap's
    /// beyond.
    pub fn extra(&self, tpl: &Template, bench: Bench, class: ClassId, size: u64) -> Result<Time, RunError> {
        let seg = tpl.transports[tpl.classes[class.index()].transport].segment_payload().max(1);
        let packets = grid(size.div_ceil(seg).max(1));
        let mut at = |n: u64| self.at(tpl, Key { bench, class, packets: n }, seg);
        if packets <= FIRST_CAP {
            return at(packets);
        }
        let cap = cap(&mut at)?;
        at(packets.min(cap))
    }

    /// The part alone of `key.packets` full segments, simulated once.
    fn at(&self, tpl: &Template, key: Key, seg: u64) -> Result<Time, RunError> {
        if let Some(part) = self.0.lock().expect("no link simulation panicked").get(&key) {
            return Ok(part.time);
        }
        let (time, events) = alone(tpl, key.bench, key.class, key.packets * seg)?;
        self.0.lock().expect("no link simulation panicked").insert(key, Part { time, events, told: false });
        Ok(time)
    }

    /// The events of the simulations alone run here and those run elsewhere (`elsewhere`:
    /// what Ray tasks' results told, `untold`), each part once: the same for every order
    /// and every place the link simulations asked for them in.
    pub fn events_with(&self, elsewhere: &[Told]) -> u64 {
        let parts = self.0.lock().expect("no link simulation panicked");
        let mut all: HashMap<u64, u64> = parts.iter().map(|(k, p)| (fingerprint(k), p.events)).collect();
        all.extend(elsewhere.iter().map(|t| (t.part, t.events)));
        all.values().sum()
    }

    /// The simulations alone run here that no call has told yet, marked told: a Ray
    /// task's results carry them to the driver, which counts each part once however many
    /// workers ran it (a worker keeps its parts for its next tasks, so a part is told by
    /// the first task that ran it). In fingerprint order, so a task's text is the same
    /// from run to run.
    pub fn untold(&self) -> Vec<Told> {
        let mut parts = self.0.lock().expect("no link simulation panicked");
        let mut told: Vec<Told> = parts
            .iter_mut()
            .filter(|(_, p)| !p.told)
            .map(|(k, p)| {
                p.told = true;
                Told { part: fingerprint(k), events: p.events }
            })
            .collect();
        told.sort_by_key(|t| t.part);
        told
    }

    /// The packet engine's part alone for exactly `size` bytes (no grid, nothing kept).
    pub fn simulate(tpl: &Template, bench: Bench, class: ClassId, size: u64) -> Result<Time, RunError> {
        Ok(alone(tpl, bench, class, size)?.0)
    }
}

/// The packets from which the part alone stops growing (`at` gives the part of a number
/// of packets): the first of 1,024, 2,048, 4,096 … whose part is within 1 % (or 100 ns)
/// of twice as many's. A window doubling from a few packets fills the pipe within a few
/// round trips, but on the link simulations' fast edges a lone DCTCP message's first cuts
/// leave it below the link's rate for longer: on a core link's dumbbell of the k = 8
/// fat-tree (6 us one way) its part is 36 us at 1,024 packets, 77 us at 2,762 and 79.6 us
/// from 4,096 on, so a cap at 1,024 put a lone 4 MB message across two pods at 684 us
/// against the packet engine's 377 (`tests/decomposed_solo.rs`).
fn cap(at: &mut impl FnMut(u64) -> Result<Time, RunError>) -> Result<u64, RunError> {
    let mut n = FIRST_CAP;
    loop {
        let (a, b) = (at(n)?, at(2 * n)?);
        if a.ps().abs_diff(b.ps()) <= (b.ps() / 100).max(100_000) || n >= LAST_CAP {
            return Ok(n);
        }
        n *= 2;
    }
}

/// A part alone simulated in another process: its key's fingerprint and its events.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Told {
    pub part: u64,
    pub events: u64,
}

/// A key's fingerprint, the same in every process of one build (std's hasher with its
/// fixed keys; the driver and the Ray workers load the same library). 64 bits: two of a
/// run's few thousand keys collide with odds below 1e-12.
fn fingerprint(key: &Key) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    key.hash(&mut h);
    h.finish()
}

/// `n` packets rounded up to the grid: exact up to [`EXACT`], then 16 steps an octave.
fn grid(n: u64) -> u64 {
    if n <= EXACT {
        return n;
    }
    let step = 1u64 << (63 - n.leading_zeros() - 4);
    n.div_ceil(step) * step
}

/// The packet engine's latency of one message of `size` bytes alone on `bench`, beyond
/// its ideal there, and the events it took.
fn alone(tpl: &Template, bench: Bench, class: ClassId, size: u64) -> Result<(Time, u64), RunError> {
    let msg = Msg {
        id: 0,
        class,
        src: HostId::new(0),
        dst: HostId::new(1),
        size,
        start: Time::ZERO,
        ideal: Time::ZERO,
        hops: Vec::new(),
        delay: bench.delay,
    };
    let plan = Plan { msgs: vec![msg], links: Vec::new(), ports: 0, transports: Vec::new() };
    let link = LinkLoad {
        port: PortId::new(0),
        role: bench.role,
        rate: bench.rate,
        propagation: bench.propagation,
        msgs: vec![0],
    };
    let (cfg, _, _) = config(&plan, tpl, &link, bench.speedup);
    let got = Arc::new(Mutex::new(vec![None; 1]));
    let mut sim = Simulation::new(cfg, Box::new(Collect(got.clone())))?;
    sim.run(&mut |_: &Progress| true)?;
    let events = sim.events();
    drop(sim);
    let d = got.lock().expect("no link simulation panicked")[0];
    let d = d.ok_or_else(|| RunError::Io(std::io::Error::other("a message alone on a dumbbell did not finish")))?;
    Ok((d.total, events))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_is_exact_then_sixteen_steps_an_octave() {
        assert_eq!((1..=64).map(grid).collect::<Vec<_>>(), (1..=64).collect::<Vec<_>>());
        assert_eq!([65, 68, 69, 127, 128, 129, 1000].map(grid), [68, 68, 72, 128, 128, 136, 1024]);
        // Rounded up by less than a sixteenth.
        assert!((65..5000).all(|n| grid(n) >= n && (grid(n) - n) * 16 < n));
    }
}
