//! HULL's hardware pacer (Alizadeh et al. NSDI 2012, §2.3, §4.2, Fig. 4, eq. 4; §5.1).
//!
//! The pacer sits at the host's NIC after segmentation: it is the scheduler of the NIC
//! port, in front of the link. Each outgoing packet is looked up in the *flow association
//! table*; a packet of an associated flow joins the token bucket's FIFO, every other
//! packet bypasses it into the NIC's own queue (FIFO, round robin, by priority: whatever
//! `[host] nic` says). Both feed the one link; a bypassing packet is sent before a paced
//! one that is ready at the same moment, since bypassing is the pass-through path.
//!
//! - **Association** (§4.2, "Which flows need pacing?"): each packet reaching the host
//!   with TCP's ECN-Echo bit (`Flags::ECHO`) associates its flow with probability `p_a`;
//!   an association ends after `T_i` without a packet of the flow through the pacer. The
//!   table holds at most `table` flows (64 on the NetFPGA); when it is full a new flow is
//!   not associated.
//! - **Rate** (eq. 4): every `T_r` the bucket's rate becomes
//!   `R ← (1 − η)·R + η·M_r/T_r + β·Q_tb`, where `Q_tb` is the bucket's backlog in bytes
//!   and R is in bytes per second (so β is per second). `M_r` is what §4.2 says: "the
//!   number of bytes it receives from the host", every packet the host sends, paced or
//!   bypassing, since the estimate is of "each host's aggregate transmission rate". Bytes
//!   are received no faster than the line rate (the testbed's pacer sat behind the
//!   server's 1 Gbps NIC, §5.2): an LSO burst handed over at one instant is counted over
//!   the intervals the line takes to carry it. Fed whole in one interval, a 64 KB burst
//!   would read 8 Gbps, the clamp below would cut it, and the filter would settle below the
//!   host's rate with a backlog growing until β·Q made up the difference (issue 26:
//!   paced 10 MB flows up to 51 % slower than unpaced ones). R is clamped to
//!   [0, line rate] and starts at the line rate.
//! - **Token bucket**: tokens accrue at R up to the bucket depth (3 KB on the NetFPGA);
//!   the head packet leaves when the tokens cover it. The NetFPGA adds tokens every 16 µs
//!   in 0.5 Mbps steps; this is the continuous form of the same bucket.
//!
//! Nothing here is periodic: the rate's updates between two calls are applied when the
//! next call comes (the backlog is constant between calls, the bucket's arrivals are all
//! at calls, and bytes are received at the line rate in between), in closed form across a
//! long quiet period (nothing arriving or still being received). While packets wait in the bucket
//! the port is woken when the tokens will cover the head or at the next update, whichever
//! comes first, so a run with no associated flow costs no event at all.

use super::ids::ConnId;
use super::mechanism::{own_table, Configured, Context, Installer, Keys, Mechanism, Parsed, Reorders, Section};
use super::packet::{Flags, Packet};
use super::sched::Scheduler;
use super::topology::{NetSpec, Shape};
use crate::input::Table;
use crate::sim::rng::{self, Stream};
use crate::sim::{Rate, Time};
use rand::Rng;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;
use std::sync::Arc;

/// The pacer's settings (`[host] pacer`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PacerSpec {
    /// Rate update interval T_r.
    pub interval: Time,
    /// Low-pass gain η.
    pub eta: f64,
    /// Backlog gain β, per second.
    pub beta: f64,
    /// Probability p_a that an ECN-Echo packet associates its flow.
    pub p_assoc: f64,
    /// Idle time T_i after which an association ends.
    pub idle: Time,
    /// Bucket depth (the most tokens it holds), bytes.
    pub bucket: u64,
    /// Flows the association table holds.
    pub table: usize,
}

impl PacerSpec {
    /// The testbed's pacer (Table 3 and §5.1): 1 Gbps NICs.
    pub const TESTBED: PacerSpec = PacerSpec {
        interval: Time::from_us(64),
        eta: 0.125,
        beta: 16.0,
        p_assoc: 0.125,
        idle: Time::from_ms(10),
        bucket: 3_000,
        table: 64,
    };
    /// The ns-2 simulations' pacer (§6.3): 10 Gbps. The paper gives no bucket depth or
    /// table size there; the testbed's are kept.
    pub const NS2: PacerSpec =
        PacerSpec { interval: Time::from_ns(7_200), beta: 375.0, idle: Time::from_ms(1), ..PacerSpec::TESTBED };
}

/// The rate estimator of eq. 4, advanced lazily (see the module doc). The host's bytes
/// are received as a fluid at the line rate, so a sample M_r/T_r never exceeds it.
#[derive(Clone, Debug)]
pub(crate) struct RateEstimator {
    spec: PacerSpec,
    /// Line rate, bytes per second: R's ceiling and the rate bytes are received at.
    line: f64,
    /// R_tb, bytes per second.
    pub(crate) rate: f64,
    /// Bytes received since the last update (M_r).
    arrived: f64,
    /// Bytes handed over by the host and not yet received, as of `received_at`.
    incoming: f64,
    received_at: Time,
    /// When the next update falls due.
    next: Time,
}

impl RateEstimator {
    pub(crate) fn new(spec: PacerSpec, line: Rate) -> RateEstimator {
        let line = line.bps() as f64 / 8.0;
        RateEstimator {
            spec,
            line,
            rate: line,
            arrived: 0.0,
            incoming: 0.0,
            received_at: Time::ZERO,
            next: spec.interval,
        }
    }

    /// One update of eq. 4 with `m` bytes measured and backlog `q`.
    fn step(&mut self, m: f64, q: u64) {
        let (eta, tr) = (self.spec.eta, self.spec.interval.as_secs_f64());
        let r = (1.0 - eta) * self.rate + eta * m / tr + self.spec.beta * q as f64;
        self.rate = r.clamp(0.0, self.line);
    }

    /// `k` updates with nothing measured and backlog `q`, in closed form: the sequence is
    /// monotone towards β·q/η, so clamping at the end equals clamping at every step.
    fn idle_steps(&mut self, k: u64, q: u64) {
        let eta = self.spec.eta;
        let decay = (1.0 - eta).powf(k as f64);
        let fixed = self.spec.beta * q as f64 / eta;
        self.rate = (fixed + (self.rate - fixed) * decay).clamp(0.0, self.line);
    }

    /// Receives the incoming bytes at the line rate up to `to`, into M_r.
    fn receive(&mut self, to: Time) {
        if to <= self.received_at {
            return;
        }
        let got = self.incoming.min(self.line * (to - self.received_at).as_secs_f64());
        self.incoming -= got;
        self.arrived += got;
        self.received_at = to;
        // Rounding must not leave a sliver that keeps the stretch from being quiet.
        if self.incoming < 1e-6 {
            self.incoming = 0.0;
        }
    }

    /// The host hands the pacer `bytes` now: received from now on, after what came before.
    pub(crate) fn arrive(&mut self, now: Time, bytes: u64) {
        self.receive(now);
        self.incoming += bytes as f64;
    }

    /// Nothing is being received (the closed form applies).
    fn quiet(&self) -> bool {
        self.incoming == 0.0 && self.arrived == 0.0
    }

    pub(crate) fn next_update(&self) -> Time {
        self.next
    }
}

/// The token bucket: tokens accrue at the estimator's rate up to the depth.
#[derive(Clone, Debug)]
struct Bucket {
    depth: f64,
    tokens: f64,
    at: Time,
}

impl Bucket {
    fn fill(&mut self, to: Time, rate: f64) {
        let dt = to.saturating_sub(self.at).as_secs_f64();
        self.tokens = (self.tokens + rate * dt).min(self.depth);
        self.at = self.at.max(to);
    }
}

/// The flow association table.
#[derive(Clone, Debug)]
struct Associations {
    /// Flow -> when a packet of it last went through the pacer (or it was associated).
    flows: FxHashMap<ConnId, Time>,
    capacity: usize,
    idle: Time,
}

impl Associations {
    /// Whether `conn` is associated at `now` (an expired entry is dropped); a packet of
    /// an associated flow refreshes it.
    fn paces(&mut self, now: Time, conn: ConnId) -> bool {
        match self.flows.get_mut(&conn) {
            Some(last) if now.saturating_sub(*last) <= self.idle => {
                *last = now;
                true
            }
            Some(_) => {
                self.flows.remove(&conn);
                false
            }
            None => false,
        }
    }

    fn associate(&mut self, now: Time, conn: ConnId) -> bool {
        if self.flows.contains_key(&conn) {
            return false;
        }
        if self.flows.len() >= self.capacity {
            let idle = self.idle;
            self.flows.retain(|_, last| now.saturating_sub(*last) <= idle);
            if self.flows.len() >= self.capacity {
                return false;
            }
        }
        self.flows.insert(conn, now);
        true
    }
}

/// Counters of one host's pacer (summed into `summary.json`'s network section).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PacerStats {
    pub associations: u64,
    pub paced_packets: u64,
    pub paced_bytes: u64,
    pub bypass_packets: u64,
    /// The sum of the time paced packets waited in the bucket, picoseconds.
    pub paced_wait_ps: u128,
}

/// The pacer as the scheduler of a host's NIC port.
pub struct Pacer {
    bypass: Box<dyn Scheduler>,
    paced: VecDeque<(Time, Packet)>,
    paced_bytes: u64,
    est: RateEstimator,
    bucket: Bucket,
    table: Associations,
    coin: Stream,
    p_assoc: f64,
    pub stats: PacerStats,
}

impl Pacer {
    /// A pacer on a NIC of rate `line` in front of the NIC's own queue `bypass`; `coin`
    /// draws the association samples.
    pub fn new(spec: PacerSpec, line: Rate, bypass: Box<dyn Scheduler>, coin: Stream) -> Pacer {
        Pacer {
            bypass,
            paced: VecDeque::new(),
            paced_bytes: 0,
            est: RateEstimator::new(spec, line),
            bucket: Bucket { depth: spec.bucket as f64, tokens: spec.bucket as f64, at: Time::ZERO },
            table: Associations { flows: FxHashMap::default(), capacity: spec.table, idle: spec.idle },
            coin,
            p_assoc: spec.p_assoc,
            stats: PacerStats::default(),
        }
    }

    /// The bucket's rate now, bits per second (for tests and reports).
    pub fn rate_bps(&self) -> f64 {
        self.est.rate * 8.0
    }

    /// Brings the rate and the tokens up to `now`: every update that fell due, with the
    /// tokens accrued at the rate in force before each.
    fn advance(&mut self, now: Time) {
        let tr = self.est.spec.interval;
        let mut steps = 0u32;
        while self.est.next <= now {
            let tick = self.est.next;
            self.bucket.fill(tick, self.est.rate);
            self.est.receive(tick);
            let m = std::mem::take(&mut self.est.arrived);
            self.est.step(m, self.paced_bytes);
            self.est.next = tick + tr;
            steps += 1;
            if steps >= 64 && self.est.next <= now && self.est.quiet() {
                // A long quiet stretch: nothing arrives, the backlog is constant.
                self.skip_to(now);
            }
        }
        self.bucket.fill(now, self.est.rate);
    }

    /// Applies the remaining updates up to `now` in closed form (nothing measured).
    fn skip_to(&mut self, now: Time) {
        let tr = self.est.spec.interval.ps();
        let k = (now.ps() - self.est.next.ps()) / tr;
        if k == 0 {
            return;
        }
        // Tokens: the bucket is full unless the rate has decayed near zero; fill it at
        // the smaller of the rates at both ends (a lower bound, exact when it fills).
        let before = self.est.rate;
        self.est.idle_steps(k, self.paced_bytes);
        let until = Time::from_ps(self.est.next.ps() + k * tr);
        self.bucket.fill(until, before.min(self.est.rate));
        self.est.next = until;
    }

    /// A packet reaches the host this NIC belongs to: an ECN-Echo one associates its flow
    /// with probability p_a.
    pub fn observe(&mut self, now: Time, pkt: &Packet) {
        if !pkt.flags.contains(Flags::ECHO) || self.table.flows.contains_key(&pkt.conn) {
            return;
        }
        if self.coin.random::<f64>() < self.p_assoc && self.table.associate(now, pkt.conn) {
            self.stats.associations += 1;
        }
    }

    /// When the bucket's head will be covered by tokens at the current rate.
    fn head_ready_at(&self, now: Time) -> Option<Time> {
        let &(_, head) = self.paced.front()?;
        let need = head.wire_bytes as f64 - self.bucket.tokens;
        if need <= 0.0 {
            return Some(now);
        }
        // A rate decayed near zero (a long idle stretch) covers nothing before the next
        // update raises it: no time is computed that would overflow.
        let ps = need / self.est.rate * 1e12;
        // Infinite or NaN (a rate of zero) as well as merely too far: no time to compute.
        if ps.partial_cmp(&1e15) != Some(std::cmp::Ordering::Less) {
            return None;
        }
        Some(now + Time::from_ps((ps.ceil() as u64).max(1)))
    }
}

impl Scheduler for Pacer {
    fn enqueue(&mut self, now: Time, pkt: Packet) {
        self.advance(now);
        self.est.arrive(now, pkt.wire_bytes as u64);
        if !self.table.paces(now, pkt.conn) {
            self.stats.bypass_packets += 1;
            self.bypass.enqueue(now, pkt);
            return;
        }
        self.paced_bytes += pkt.wire_bytes as u64;
        self.paced.push_back((now, pkt));
    }

    fn dequeue(&mut self, now: Time) -> Option<Packet> {
        if let Some(p) = self.bypass.dequeue(now) {
            return Some(p);
        }
        if self.paced.is_empty() {
            return None;
        }
        self.advance(now);
        if self.head_ready_at(now) != Some(now) {
            return None;
        }
        let (at, pkt) = self.paced.pop_front().expect("a head was ready");
        let size = pkt.wire_bytes as u64;
        self.bucket.tokens -= size as f64;
        self.paced_bytes -= size;
        self.stats.paced_packets += 1;
        self.stats.paced_bytes += size;
        self.stats.paced_wait_ps += (now - at).ps() as u128;
        Some(pkt)
    }

    fn bytes(&self) -> u64 {
        self.bypass.bytes() + self.paced_bytes
    }

    fn len(&self) -> usize {
        self.bypass.len() + self.paced.len()
    }

    fn wake_at(&self, now: Time) -> Option<Time> {
        if !self.bypass.is_empty() {
            return self.bypass.wake_at(now);
        }
        if self.paced.is_empty() {
            return None;
        }
        // A rate of zero covers nothing before the next update raises it.
        let ready = self.head_ready_at(now).unwrap_or(Time::MAX);
        // Never `now`: dequeue has just found the head not ready at `now`.
        Some(ready.min(self.est.next_update()).max(now + Time::from_ps(1)))
    }

    fn observe_arrival(&mut self, now: Time, pkt: &Packet) {
        self.observe(now, pkt);
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}

/// Installed after the build: every host's NIC queue becomes the pacer's bypass, the host
/// link's rate its line rate, and its association coin the run's stream `pacer/host<i>`.
impl Configured for PacerSpec {
    fn install(&self, net: &NetSpec, into: &mut dyn Installer) {
        let network = into.network();
        for (i, host) in network.hosts.iter_mut().enumerate() {
            let port = &mut network.ports[host.nic.index()];
            let coin = rng::stream(net.seed, &format!("pacer/host{i}"));
            let line = port.rate;
            port.wrap_scheduler(|bypass| Box::new(Pacer::new(*self, line, bypass, coin)));
            host.watches_arrivals = true;
        }
    }

    /// Its bucket must hold the largest packet, or that packet never leaves.
    fn check(&self, with: &Context) -> Result<(), (String, String)> {
        let (full, words) = &with.full_packet;
        if self.bucket >= *full {
            return Ok(());
        }
        let msg = format!("\"{}B\" is below one full packet ({words}), which the bucket could never release; accepted: at least \"{full}B\"", self.bucket);
        Err(("host.pacer.bucket".into(), msg))
    }

    fn reorders(&self) -> Option<Reorders> {
        Some(Reorders {
            at_switches: false,
            at_nics: true,
            why: "a pacer lets bypassing packets pass paced ones (it reports its own waits in summary.json's network.pacer)",
            accepted: "no [host] pacer",
        })
    }
}

pub const PRESETS: &[&str] = &["testbed", "ns2"];

fn preset(name: &str) -> PacerSpec {
    if name == "ns2" {
        PacerSpec::NS2
    } else {
        PacerSpec::TESTBED
    }
}

/// `[host] pacer`: a preset's name, or a table of `preset` and keys overriding it
/// (HULL §4.2, Table 3, §6.3).
fn parse(host: &mut Table, _shape: &Shape) -> Parsed {
    if let Some(toml::Value::String(_)) = host.peek("pacer") {
        let name = host.choice("pacer", PRESETS)?;
        return Ok(Arc::new(preset(name.as_deref().unwrap_or("testbed"))));
    }
    let mut p = own_table(host, "pacer")?;
    let mut s = preset(p.choice("preset", PRESETS)?.as_deref().unwrap_or("testbed"));
    s.interval = p.time("interval")?.unwrap_or(s.interval);
    // A rate update is an event on every paced host: the floor every re-arming timer
    // has (Homa's, NDP's, RDS's resend timers) keeps a typo from costing hours.
    if s.interval < Time::from_us(1) {
        return Err(p.error(
            "interval",
            "is below 1us; accepted: at least \"1us\" (T_r: the testbed's is \"64us\", ns-2's \"7200ns\")",
        ));
    }
    s.eta = p.float("eta", 0.0, 1.0)?.unwrap_or(s.eta);
    s.beta = p.float("beta", 0.0, 1e9)?.unwrap_or(s.beta);
    s.p_assoc = p.float("p_assoc", 0.0, 1.0)?.unwrap_or(s.p_assoc);
    s.idle = p.time("idle")?.unwrap_or(s.idle);
    s.bucket = p.size("bucket")?.unwrap_or(s.bucket);
    if s.bucket < 64 {
        return Err(
            p.error("bucket", "is below 64B; accepted: at least one packet (\"1500B\"; the NetFPGA's is \"3KB\")")
        );
    }
    s.table = p.int("table", 1, 1 << 20)?.map_or(s.table, |n| n as usize);
    p.finish()?;
    Ok(Arc::new(s))
}

/// The registry's entry (`net::mechanism`): `[host] pacer` turns it on; its setting puts
/// the pacer in front of every NIC queue.
pub const MECHANISM: Mechanism = Mechanism {
    name: "pacer",
    about: "HULL's hardware pacer at every host NIC",
    used: |_| None,
    model_refuses: Some(
        "the model has no packets to pace (its senders are fluid rates); accepted: --engine packet, or no pacer",
    ),
    install: None,
    oracle_refuses: None,
    decomposed_refuses: Some("a host's pacer holds state across every flow the host sends, and the decomposition's host links carry only one link's flows; accepted: --engine packet, or no pacer"),
    keys: &[Keys { section: Section::Host, keys: &["pacer"], parse }],
    link_keys: None,
    marks_at: None,
    report: Some(report),
};

/// The hosts' pacers' counters, summed (summary.json's `network.pacer`; None without one).
fn report(ran: &super::mechanism::Ran) -> Option<super::mechanism::Fields> {
    let net = ran.network;
    let mut all: Option<PacerStats> = None;
    for h in &net.hosts {
        let any = net.ports[h.nic.index()].scheduler().as_any();
        let Some(p) = any.and_then(|a| a.downcast_ref::<Pacer>()) else { continue };
        let (a, s) = (all.get_or_insert_with(Default::default), p.stats);
        a.associations += s.associations;
        a.paced_packets += s.paced_packets;
        a.paced_bytes += s.paced_bytes;
        a.bypass_packets += s.bypass_packets;
        a.paced_wait_ps += s.paced_wait_ps;
    }
    let a = all?;
    Some(vec![
        // Flows associated with a pacer (an ECN-Echo ACK sampled with probability p_a).
        ("associations", a.associations.into()),
        ("paced_packets", a.paced_packets.into()),
        ("paced_bytes", a.paced_bytes.into()),
        ("bypass_packets", a.bypass_packets.into()),
        // The mean time a paced packet waited in its token bucket, µs.
        ("mean_paced_wait_us", (a.paced_wait_ps as f64 / a.paced_packets.max(1) as f64 / 1e6).into()),
    ])
}

#[cfg(test)]
#[path = "pacer_tests.rs"]
mod tests;
