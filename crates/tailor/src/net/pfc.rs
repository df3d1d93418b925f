//! PFC, priority flow control (IEEE 802.1Qbb), with the switch memory of the HPCC authors'
//! ns-3 programs (docs/pfc.md): `[switch] pfc = { ... }`.
//!
//! A switch counts the bytes of each lossless priority that arrived through each of its
//! ports (its *ingress*) until they leave by their egress port. The buffer is shared: each
//! (ingress, priority) has a small reserve of its own, then takes from the shared pool up
//! to a dynamic threshold, α times the pool that is still free (Choudhury and Hahne's
//! rule); bytes beyond it go to the ingress port's headroom, and PFC pauses the sender on
//! the other end of that port's link. The headroom absorbs what is already on the way
//! while the PAUSE travels; only a packet that finds both the threshold and the headroom
//! full is dropped, which a well-sized headroom never lets happen. When the ingress's
//! headroom is empty and its shared bytes are back below the threshold by a resume
//! offset, a RESUME (a PAUSE of zero quanta) lets the sender go again.
//!
//! These are the rules of the fork's `SwitchMmu` (`CheckIngressAdmission`,
//! `UpdateIngressAdmission`, `CheckShouldPause`, `CheckShouldResume`, `GetPfcThreshold`)
//! and its configuration in `third.cc`: a reserve of 4 KB, a resume offset of 3 KB, a
//! headroom of three times the link's bandwidth-delay product, α = 1/8 at the hosts' rate,
//! doubled for each doubling of a faster port's rate; and as there, a PAUSE holds until a
//! RESUME comes, a PFC frame is sent ahead of every queued packet once the frame on the
//! wire is out, and priority 0 (control) is neither counted nor paused.

use super::ids::PortId;
use super::mechanism::{own_table, Configured, Context, Fields, Installer, Keys, Mechanism, Parsed, Ran, Section};
use super::memory::{Memory, Released, Stuck};
use super::packet::{Flags, Packet};
use super::port::PortRole;
use super::sched::pfc_priority;
use super::topology::{BufferSpec, Discipline, NetSpec, NicQueue, Shape};
use super::Network;
use crate::input::Table;
use crate::sim::{Rate, Time};
use rustc_hash::FxHashMap;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// A PFC frame's bytes on the wire (a MAC control frame, the minimum Ethernet frame).
pub const FRAME_BYTES: u32 = 64;

/// How much headroom each switch port keeps for what arrives after it sent a PAUSE.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Headroom {
    /// This many times the bandwidth-delay product of the port's link, one way (the
    /// fork: 3).
    Bdps(f64),
    Bytes(u64),
}

/// `[switch] pfc`'s settings.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PfcSpec {
    /// The lossless PFC priorities, a bit each (default: 1 to 7).
    pub priorities: u8,
    /// The dynamic threshold's fraction of the free shared pool at ports of the hosts'
    /// rate (faster ports: doubled for each doubling of their rate, up to 1).
    pub alpha: f64,
    pub headroom: Headroom,
    /// Bytes each (ingress, priority) holds before it takes from the shared pool.
    pub reserve: u64,
    /// How far below the threshold an ingress's shared bytes must be to resume.
    pub resume_offset: u64,
}

impl Default for PfcSpec {
    fn default() -> PfcSpec {
        PfcSpec { priorities: 0xfe, alpha: 0.125, headroom: Headroom::Bdps(3.0), reserve: 4_000, resume_offset: 3_000 }
    }
}

impl PfcSpec {
    /// The headroom of a port of `rate` whose link's propagation is `delay`.
    pub fn headroom_of(&self, rate: Rate, delay: Time) -> u64 {
        match self.headroom {
            Headroom::Bytes(b) => b,
            Headroom::Bdps(k) => (rate.bytes_in(delay) as f64 * k).floor() as u64,
        }
    }

    /// α of a port of `rate` when the hosts' rate is `host`.
    pub fn alpha_of(&self, rate: Rate, host: Rate) -> f64 {
        let (mut alpha, mut r) = (self.alpha, rate.bps());
        while r > host.bps() && alpha < 1.0 {
            alpha = (alpha * 2.0).min(1.0);
            r /= 2;
        }
        alpha
    }
}

/// A frame of PFC: which priority, and PAUSE or RESUME (its words in the header).
pub fn frame(priority: u8, pause: bool) -> Packet {
    let conn = crate::ids::ConnId { slot: u32::MAX, gen: u32::MAX };
    let hdr = super::packet::Header([priority as u64, pause as u64, 0]);
    let mut p = Packet::scripted(conn, crate::ids::ClassId::new(0), FRAME_BYTES, hdr);
    p.flags.insert(Flags::CONTROL);
    p
}

/// The priority and PAUSE (true) or RESUME of a PFC frame.
pub fn read_frame(p: &Packet) -> (u8, bool) {
    (p.hdr.0[0] as u8, p.hdr.0[1] != 0)
}

/// One switch port as an ingress: its bytes per priority, in the shared pool and reserve
/// (`bytes`) and in its headroom.
#[derive(Clone, Debug, Default)]
struct Ingress {
    bytes: [u64; 8],
    hdrm: [u64; 8],
    /// The priorities it has paused its link's sender for.
    xoff: u8,
    headroom: u64,
    alpha: f64,
    switch: u32,
}

/// What a port did and had done to it, for `pfc.csv` and the report.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PortCounts {
    /// PAUSE and RESUME frames it sent (as an ingress), per priority.
    pub pauses: [u64; 8],
    pub resumes: [u64; 8],
    /// Packets (and bytes) dropped at it as an ingress, per priority: headroom full.
    pub drops: [u64; 8],
    pub drop_bytes: [u64; 8],
    /// Time it was kept from sending, per priority (ps), and since when it is now.
    pub paused_ps: [u64; 8],
    since: [Option<Time>; 8],
}

/// What a departure left at the packet's ingress.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Left {
    pub ingress: PortId,
    /// It must RESUME its link's sender.
    pub resume: bool,
    /// The egress port holds none of its bytes of that priority any more.
    pub emptied: bool,
}

/// The switches' memory under PFC, and its counters.
pub struct Mmu {
    lossless: u8,
    resume_offset: u64,
    reserve: u64,
    /// Per switch: the pool (buffer less every port's headroom and reserve) and what of
    /// it the ingresses use.
    pool: Vec<(u64, u64)>,
    /// Per port (a host's NIC has a default, unused one).
    ingress: Vec<Ingress>,
    /// Per egress port and scheduler queue: the ingress of each queued lossless packet,
    /// in the queue's order (FIFO within a queue: `check` keeps schedulers that are).
    origins: Vec<Vec<VecDeque<u32>>>,
    /// Bytes per (ingress, egress, priority) held in the switch. Looked up twice per
    /// lossless packet, so with Fx's hash rather than SipHash (which took 17 % of an RDMA
    /// fat-tree run's instructions, docs/performance.md).
    held: FxHashMap<(u32, u32, u8), u64>,
    pub counts: Vec<PortCounts>,
    pub deadlock: Option<Stuck>,
}

impl Mmu {
    /// The memory of every switch of `net`, each `buffer` bytes, its hosts' links of
    /// rate `host`.
    pub fn new(spec: &PfcSpec, net: &Network, host: Rate, buffer: u64) -> Mmu {
        let mut ingress = vec![Ingress::default(); net.ports.len()];
        let mut pool = Vec::with_capacity(net.switches.len());
        for (s, sw) in net.switches.iter().enumerate() {
            let mut fixed = 0u64;
            for &p in &sw.ports {
                let port = &net.ports[p.index()];
                let headroom = spec.headroom_of(port.rate, net.links[port.link.index()].propagation);
                let alpha = spec.alpha_of(port.rate, host);
                ingress[p.index()] = Ingress { headroom, alpha, switch: s as u32, ..Ingress::default() };
                fixed += headroom + spec.reserve;
            }
            pool.push((buffer.saturating_sub(fixed), 0));
        }
        Mmu {
            lossless: spec.priorities,
            resume_offset: spec.resume_offset,
            reserve: spec.reserve,
            pool,
            ingress,
            origins: vec![Vec::new(); net.ports.len()],
            held: FxHashMap::default(),
            counts: vec![PortCounts::default(); net.ports.len()],
            deadlock: None,
        }
    }

    /// Whether `pkt` is counted and paused for: a lossless priority's, not a PFC frame.
    pub fn lossless(&self, pkt: &Packet) -> bool {
        self.lossless & (1 << pfc_priority(pkt)) != 0 && !pkt.flags.contains(Flags::CONTROL)
    }

    /// The dynamic threshold of ingress `i`: α of the pool still free.
    fn threshold(&self, i: usize) -> u64 {
        let g = &self.ingress[i];
        let (free, used) = self.pool[g.switch as usize];
        (free.saturating_sub(used) as f64 * g.alpha).floor() as u64
    }

    /// The bytes of ingress `i` and priority `q` in the shared pool.
    fn shared(&self, i: usize, q: usize) -> u64 {
        self.ingress[i].bytes[q].saturating_sub(self.reserve)
    }

    /// Whether switch port `ingress` takes `pkt` (lossless): not if both its headroom
    /// and the threshold are full (the fork's `CheckIngressAdmission`); a refusal is
    /// counted as a drop there.
    pub fn admit(&mut self, ingress: PortId, pkt: &Packet) -> bool {
        let (i, q, size) = (ingress.index(), pfc_priority(pkt) as usize, pkt.wire_bytes as u64);
        let g = &self.ingress[i];
        let full = size + g.hdrm[q] > g.headroom && size + self.shared(i, q) > self.threshold(i);
        if full {
            self.counts[i].drops[q] += 1;
            self.counts[i].drop_bytes[q] += size;
        }
        !full
    }

    /// A lossless packet that came in through `ingress` joined queue `queue` of
    /// `egress`: counted; true when `ingress` must now PAUSE its link's sender for its
    /// priority (`CheckShouldPause`).
    pub fn enqueued(&mut self, ingress: PortId, egress: PortId, queue: usize, pkt: &Packet) -> bool {
        let (i, q, size) = (ingress.index(), pfc_priority(pkt) as usize, pkt.wire_bytes as u64);
        let new = self.ingress[i].bytes[q] + size;
        if new <= self.reserve {
            self.ingress[i].bytes[q] = new;
        } else if new - self.reserve > self.threshold(i) {
            self.ingress[i].hdrm[q] += size;
        } else {
            self.ingress[i].bytes[q] = new;
            self.pool[self.ingress[i].switch as usize].1 += size.min(new - self.reserve);
        }
        let origins = &mut self.origins[egress.index()];
        if origins.len() <= queue {
            origins.resize(queue + 1, VecDeque::new());
        }
        origins[queue].push_back(i as u32);
        *self.held.entry((i as u32, egress.index() as u32, q as u8)).or_default() += size;
        let g = &self.ingress[i];
        let pause = g.xoff & (1 << q) == 0 && (g.hdrm[q] > 0 || self.shared(i, q) >= self.threshold(i));
        if pause {
            self.ingress[i].xoff |= 1 << q;
            self.counts[i].pauses[q] += 1;
        }
        pause
    }

    /// A lossless packet left queue `queue` of `egress`: its ingress's bytes released
    /// (`RemoveFromIngressAdmission`), and whether that ingress must now RESUME its link's
    /// sender (`CheckShouldResume`).
    pub fn dequeued(&mut self, egress: PortId, queue: usize, pkt: &Packet) -> Left {
        let (q, size) = (pfc_priority(pkt) as usize, pkt.wire_bytes as u64);
        let i = self.origins[egress.index()][queue].pop_front().expect("a counted packet has its ingress") as usize;
        let from_hdrm = self.ingress[i].hdrm[q].min(size);
        let from_shared = (size - from_hdrm).min(self.shared(i, q));
        self.ingress[i].hdrm[q] -= from_hdrm;
        self.ingress[i].bytes[q] -= size - from_hdrm;
        self.pool[self.ingress[i].switch as usize].1 -= from_shared;
        let key = (i as u32, egress.index() as u32, q as u8);
        let left = self.held.get_mut(&key).map(|b| {
            *b -= size;
            *b
        });
        if left == Some(0) {
            self.held.remove(&key);
        }
        let g = &self.ingress[i];
        let shared = self.shared(i, q);
        let resume = g.xoff & (1 << q) != 0
            && g.hdrm[q] == 0
            && (shared == 0 || shared + self.resume_offset <= self.threshold(i));
        if resume {
            self.ingress[i].xoff &= !(1 << q);
            self.counts[i].resumes[q] += 1;
        }
        Left { ingress: PortId::new(i), resume, emptied: left == Some(0) }
    }

    /// Port `port` was paused (true) or resumed for `priority` at `now`: its paused time.
    pub fn held_back(&mut self, now: Time, port: PortId, priority: u8, paused: bool) {
        let c = &mut self.counts[port.index()];
        let since = &mut c.since[priority as usize];
        match (paused, *since) {
            (true, None) => *since = Some(now),
            (false, Some(t)) => {
                c.paused_ps[priority as usize] += (now - t).ps();
                *since = None;
            }
            _ => {}
        }
    }

    /// Closes the paused spells still open at the end of the run.
    pub fn settle(&mut self, now: Time) {
        for c in &mut self.counts {
            for (q, since) in c.since.iter_mut().enumerate() {
                if let Some(t) = since.take() {
                    c.paused_ps[q] += (now - t).ps();
                    *since = Some(now);
                }
            }
        }
    }

    /// Whether ingress `ingress` still holds `priority` paused (its sender waits on it).
    pub fn holds(&self, ingress: PortId, priority: u8) -> bool {
        self.ingress[ingress.index()].xoff & (1 << priority) != 0
    }
}

impl Mmu {
    /// A deadlock that holds port `from`, paused for `priority`, if there is one: every
    /// port it waits on, transitively, is paused, and waits on ports that are. A port
    /// paused by the ingress across its link waits on the egress ports of that ingress's
    /// switch that hold its bytes; if one of them may send, or that ingress is about to
    /// resume, bytes will move and nothing is stuck. Found: the cycle such ports close
    /// (docs/pfc.md, "Deadlock").
    pub fn deadlock_from(&self, net: &Network, from: PortId, priority: u8) -> Option<Vec<PortId>> {
        let bit = 1u8 << priority;
        let waits_on = |x: PortId| -> Option<Vec<PortId>> {
            if net.ports[x.index()].paused() & bit == 0 {
                return None;
            }
            let i = net.reverse(x);
            let super::ids::Node::Switch(m) = net.ports[i.index()].owner else { return None };
            if !self.holds(i, priority) {
                return None;
            }
            let held = |e: &&PortId| self.held.contains_key(&(i.index() as u32, e.index() as u32, priority));
            let out: Vec<PortId> = net.switches[m.index()].ports.iter().filter(held).copied().collect();
            (!out.is_empty()).then_some(out)
        };
        let mut next: HashMap<PortId, PortId> = HashMap::new();
        let mut todo = vec![from];
        while let Some(x) = todo.pop() {
            if next.contains_key(&x) {
                continue;
            }
            let out = waits_on(x)?;
            next.insert(x, out[0]);
            todo.extend(out);
        }
        // Every port reached is stuck and waits on another: following the first from
        // `from` must come back to a port already passed.
        let mut path = vec![from];
        loop {
            let n = next[path.last().expect("a path has a port")];
            if let Some(k) = path.iter().position(|&p| p == n) {
                return Some(path.split_off(k));
            }
            path.push(n);
        }
    }

    /// The counters of the run, summed over the network (summary.json's `network.pfc`).
    fn counters(&self) -> Fields {
        let sum = |f: fn(&PortCounts) -> &[u64; 8]| self.counts.iter().map(|c| f(c).iter().sum::<u64>()).sum::<u64>();
        let paused = sum(|c| &c.paused_ps);
        let mut fields: Fields = vec![
            ("pause_frames", sum(|c| &c.pauses).into()),
            ("resume_frames", sum(|c| &c.resumes).into()),
            ("headroom_drops", sum(|c| &c.drops).into()),
            ("headroom_drop_bytes", sum(|c| &c.drop_bytes).into()),
            ("paused_port_us", serde_json::json!(paused as f64 / 1e6)),
            ("paused_ports", self.counts.iter().filter(|c| c.paused_ps.iter().any(|&t| t > 0)).count().into()),
        ];
        if let Some(d) = &self.deadlock {
            let ports: Vec<usize> = d.ports.iter().map(|p| p.index()).collect();
            fields.push((
                "deadlock",
                serde_json::json!({"at_ns": d.at.ps() as f64 / 1e3, "priority": d.priority, "ports": ports}),
            ));
        }
        fields
    }
}

impl PfcSpec {
    /// The most headroom and reserve one switch of `shape` keeps (bytes), and its ports:
    /// what its buffer must exceed for a shared pool to be left.
    pub fn fixed_bytes(&self, shape: &Shape) -> (u64, usize) {
        let per = |l: &super::topology::LinkSpec| self.headroom_of(l.rate, l.delay) + self.reserve;
        let of = |parts: &[(usize, &super::topology::LinkSpec)]| {
            (parts.iter().map(|(n, l)| *n as u64 * per(l)).sum::<u64>(), parts.iter().map(|(n, _)| n).sum::<usize>())
        };
        let switches: Vec<(u64, usize)> = match shape {
            Shape::Star { hosts, link } => vec![of(&[(*hosts, link)])],
            Shape::Dumbbell { left, right, host_link, trunk } => vec![of(&[(*left.max(right), host_link), (1, trunk)])],
            Shape::LeafSpine { racks, hosts_per_rack, spines, host_link, fabric_link } => {
                vec![of(&[(*hosts_per_rack, host_link), (*spines, fabric_link)]), of(&[(*racks, fabric_link)])]
            }
            Shape::FatTree { pods, tors, aggs, hosts_per_tor, cores, host_link, fabric_link } => vec![
                of(&[(*hosts_per_tor, host_link), (*aggs, fabric_link)]),
                of(&[(tors + cores / aggs, fabric_link)]),
                of(&[(*pods, fabric_link)]),
            ],
            Shape::Graph(g) => {
                let mut each = vec![(0u64, 0usize); g.switches];
                for c in &g.cables {
                    for e in [c.a, c.b] {
                        if let super::graph::End::Switch(s) = e {
                            each[s as usize].0 += per(&c.link);
                            each[s as usize].1 += 1;
                        }
                    }
                }
                each
            }
        };
        switches.into_iter().max().unwrap_or((0, 0))
    }
}

/// What the engine sees of it (`net::memory`).
impl Memory for Mmu {
    fn counts(&self, pkt: &Packet) -> bool {
        self.lossless(pkt)
    }
    fn admit(&mut self, ingress: PortId, pkt: &Packet) -> bool {
        Mmu::admit(self, ingress, pkt)
    }
    fn enqueued(&mut self, ingress: PortId, egress: PortId, queue: usize, pkt: &Packet) -> Option<Packet> {
        Mmu::enqueued(self, ingress, egress, queue, pkt).then(|| frame(pfc_priority(pkt), true))
    }
    fn dequeued(&mut self, egress: PortId, queue: usize, pkt: &Packet) -> Released {
        let q = pfc_priority(pkt);
        let left = Mmu::dequeued(self, egress, queue, pkt);
        Released {
            ingress: left.ingress,
            frame: left.resume.then(|| frame(q, false)),
            recheck: !left.resume && left.emptied && self.holds(left.ingress, q),
        }
    }
    fn landed(&mut self, now: Time, port: PortId, frame: &Packet) -> (u8, bool) {
        let (q, pause) = read_frame(frame);
        self.held_back(now, port, q, pause);
        (q, pause)
    }
    fn stuck(&self, net: &Network, port: PortId, priority: u8) -> Option<Vec<PortId>> {
        if self.deadlock.is_some() {
            return None;
        }
        self.deadlock_from(net, port, priority)
    }
    fn record(&mut self, stuck: Stuck) {
        self.deadlock = Some(stuck);
    }
    fn settle(&mut self, now: Time) {
        Mmu::settle(self, now)
    }
    fn report(&self) -> Fields {
        self.counters()
    }
    fn table(&self) -> super::memory::Table {
        let rows = self
            .counts
            .iter()
            .map(|c| {
                (0..8)
                    .filter(|q| self.lossless & (1 << q) != 0)
                    .map(|q| {
                        let us = c.paused_ps[q] as f64 / 1e6;
                        format!("{q},{},{},{},{},{us:.3}", c.pauses[q], c.resumes[q], c.drops[q], c.drop_bytes[q])
                    })
                    .collect()
            })
            .collect();
        super::memory::Table {
            file: "pfc.csv",
            header: "priority,pause_frames,resume_frames,headroom_drops,headroom_drop_bytes,paused_us",
            rows,
        }
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Switch ports admit by the memory (`Mmu`), not by their own buffer policy.
impl Configured for PfcSpec {
    fn install(&self, net: &NetSpec, into: &mut dyn Installer) {
        let BufferSpec::Shared { bytes, .. } = net.buffer else { return };
        let host = super::topology::host_rate(&net.shape);
        let network = into.network();
        for port in network.ports.iter_mut().filter(|p| p.role != PortRole::HostNic) {
            port.set_admission(super::port::Admission::Unlimited);
        }
        network.memory = Some(Box::new(Mmu::new(self, network, host, bytes)));
    }

    fn check(&self, with: &Context) -> Result<(), (String, String)> {
        let net = with.net;
        if !matches!(net.classes.discipline, Discipline::Fifo | Discipline::Priority) {
            let m = "pauses a port's priorities, which its queues must keep apart or in arrival order; accepted: \
                     [switch] scheduler = \"fifo\" or \"priority\" with pfc";
            return Err(("switch.pfc".into(), m.into()));
        }
        if !matches!(net.nic, NicQueue::Fifo | NicQueue::Priority(_)) {
            let m = "pauses the hosts' NICs, whose queues must keep priorities apart or in arrival order; accepted: \
                     [host] nic = \"fifo\" or \"priority\" with pfc";
            return Err(("switch.pfc".into(), m.into()));
        }
        if let BufferSpec::Shared { bytes, .. } = net.buffer {
            let (need, ports) = self.fixed_bytes(&net.shape);
            if need >= bytes {
                let m = format!(
                    "{bytes} B leave no shared pool: the switch with the most headroom keeps {need} B of headroom and \
                     reserve for its {ports} ports (pfc.headroom and pfc.reserve each); accepted: a buffer_size above \
                     {need} B, or less pfc.headroom or pfc.reserve"
                );
                return Err(("switch.buffer_size".into(), m));
            }
        }
        if let Some(s) = net.mechanisms.iter().find(|s| s.name == "overflow") {
            let m = "drops, trims or evicts what the memory took in, which PFC's counts of each ingress would then \
                     miss; accepted: no overflow setting with pfc (the memory drops only what its headroom cannot hold)";
            return Err((s.key.clone(), m.into()));
        }
        Ok(())
    }
}

fn parse(section: &mut Table, _shape: &Shape) -> Parsed {
    if section.peek("buffer").and_then(|v| v.as_str()) != Some("shared") {
        let m = "needs the switches' shared memory, which PFC accounts per ingress; accepted: [switch] buffer = \
                 \"shared\" and buffer_size with pfc";
        return Err(section.error("pfc", m));
    }
    if section.peek("alpha").is_some() {
        let m = "is the egress threshold of a shared buffer without PFC; with pfc the switches admit by ingress, \
                 at pfc.alpha; accepted: no alpha with pfc";
        return Err(section.error("alpha", m));
    }
    let mut own = own_table(section, "pfc")?;
    let t = &mut own;
    let d = PfcSpec::default();
    let priorities = match t.get("priorities", priorities)? {
        Some(p) => p,
        None => d.priorities,
    };
    let alpha = t.float("alpha", 1.0 / 1024.0, 1.0)?.unwrap_or(d.alpha);
    let headroom = match t.peek("headroom") {
        None => d.headroom,
        Some(v) if v.is_str() => Headroom::Bytes(t.size("headroom")?.expect("present")),
        Some(_) => Headroom::Bdps(t.float("headroom", 0.0, 1000.0)?.expect("present")),
    };
    let reserve = t.size("reserve")?.unwrap_or(d.reserve);
    let resume_offset = t.size("resume_offset")?.unwrap_or(d.resume_offset);
    own.finish()?;
    Ok(Arc::new(PfcSpec { priorities, alpha, headroom, reserve, resume_offset }))
}

/// `priorities = [3]`: PFC priorities 0 to 7, a bit each.
fn priorities(v: &toml::Value) -> Result<u8, String> {
    let accepted = "accepted: a list of PFC priorities from 0 to 7 such as [3]";
    let items = v.as_array().ok_or_else(|| format!("is {}; {accepted}", crate::input::reader::type_name(v)))?;
    if items.is_empty() {
        return Err(format!("is empty; {accepted} (leave pfc out for no lossless priority)"));
    }
    items.iter().try_fold(0u8, |bits, it| match it.as_integer() {
        Some(p @ 0..=7) => Ok(bits | 1 << p),
        _ => Err(format!("{it} is not a PFC priority; {accepted}")),
    })
}

/// The registry's entry (`net::mechanism`).
pub const MECHANISM: Mechanism = Mechanism {
    name: "pfc",
    about: "PFC (IEEE 802.1Qbb) with the HPCC ns-3 programs' shared switch memory: lossless priorities",
    used: |_| None,
    model_refuses: Some("the model has no PFC (its queues drop nothing and pause no one); accepted: --engine packet, or no pfc"),
    oracle_refuses: Some("the oracle's fabric never queues, so never pauses; accepted: --engine packet, or no pfc"),
    decomposed_refuses: Some("a link's simulation cannot see the pauses that spread from the links after it; accepted: --engine packet, or no pfc"),
    install: None,
    keys: &[Keys { section: Section::Switch, keys: &["pfc"], parse }],
    link_keys: None,
    marks_at: None,
    report: Some(|ran: &Ran| ran.network.memory.as_ref().map(|m| m.report())),
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::ids::{ClassId, ConnId};
    use crate::net::packet::Header;
    use crate::net::topology::tests::{link, spec};
    use crate::net::topology::{build, LinkSpec};

    /// A star of five hosts at 100 Gbps, 1 us links, and its switch's memory of 1 MB with
    /// the fork's settings: per port a headroom of 3 x 12,500 B = 37,500 B and a reserve of
    /// 4,000 B, so the pool is 1,000,000 - 5 x 41,500 = 792,500 B; alpha 1/8.
    fn star() -> (Network, Mmu) {
        let net = build(&spec(Shape::Star {
            hosts: 5,
            link: LinkSpec { rate: Rate::from_gbps(100), delay: Time::from_us(1), ..link(100) },
        }));
        let mmu = Mmu::new(&PfcSpec { priorities: 0xff, ..PfcSpec::default() }, &net, Rate::from_gbps(100), 1_000_000);
        (net, mmu)
    }

    fn pkt() -> Packet {
        Packet::scripted(ConnId { slot: 1, gen: 0 }, ClassId::new(0), 1_000, Header::default())
    }

    #[test]
    fn pause_resume_and_drop_come_where_the_fork_s_arithmetic_puts_them() {
        let (net, mut m) = star();
        assert_eq!(m.pool, vec![(792_500, 0)]);
        // Host 0's cable is ports 0 (its NIC) and 1 (the switch's): ingress 1. Host 4's
        // switch port, 9, is the egress.
        let (ingress, egress) = (net.reverse(net.hosts[0].nic), net.reverse(net.hosts[4].nic));
        assert_eq!((ingress.index(), egress.index()), (1, 9));
        // Packet n brings the ingress to 1,000 n B: the first 4 fill the reserve; then the
        // pool, while the bytes beyond the reserve stay within floor((792,500 - used) / 8).
        // After 92 packets 88,000 B are shared and the threshold is 88,062; the 93rd would
        // make 89,000: it goes to the headroom, and the headroom's bytes pause the sender.
        let first_pause = (1..200).find(|_| m.enqueued(ingress, egress, 0, &pkt())).unwrap();
        assert_eq!(first_pause, 93);
        assert_eq!((m.shared(1, 0), m.ingress[1].hdrm[0], m.threshold(1)), (88_000, 1_000, 88_062));
        // The headroom takes 37,500 B: 37 packets of 1,000 B; the next is refused.
        let mut more = 0;
        while m.admit(ingress, &pkt()) {
            assert!(!m.enqueued(ingress, egress, 0, &pkt()), "paused once");
            more += 1;
        }
        assert_eq!((more, m.ingress[1].hdrm[0]), (36, 37_000), "36 more packets fit beside the first");
        assert_eq!((m.counts[1].drops[0], m.counts[1].drop_bytes[0], m.counts[1].pauses[0]), (1, 1_000, 1));
        // Departures take the headroom's bytes first (37 packets); then the shared bytes
        // fall by 1,000 a packet while the threshold rises by 125: the sender resumes when
        // shared + 3,000 <= threshold: 87,000 + 3,000 > 88,187 and 86,000 + 3,000 > 88,312,
        // then 85,000 + 3,000 <= 88,437, at the third departure from the pool.
        let resumed = (1..100).find(|_| m.dequeued(egress, 0, &pkt()).resume).unwrap();
        assert_eq!(resumed, 37 + 3);
        assert_eq!((m.shared(1, 0), m.threshold(1), m.counts[1].resumes[0]), (85_000, 88_437, 1));
    }

    #[test]
    fn faster_ports_take_a_larger_share_and_control_is_never_counted() {
        let s = PfcSpec::default();
        let host = Rate::from_gbps(100);
        let alphas: Vec<f64> = [100, 200, 400, 1_600].map(|g| s.alpha_of(Rate::from_gbps(g), host)).to_vec();
        assert_eq!(alphas, [0.125, 0.25, 0.5, 1.0]);
        assert_eq!(s.headroom_of(Rate::from_gbps(100), Time::from_us(2)), 75_000);
        let (_, m) = star();
        let mut control = pkt();
        control.prio = 0;
        let only_data = Mmu { lossless: PfcSpec::default().priorities, ..m };
        assert!(!only_data.lossless(&control));
        control.prio = 3;
        assert!(only_data.lossless(&control) && !only_data.lossless(&frame(3, true)));
        assert_eq!(read_frame(&frame(5, false)), (5, false));
    }
}
