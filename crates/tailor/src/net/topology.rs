//! Topologies built from a spec: star, dumbbell, two-tier leaf-spine, three-tier fat-tree,
//! and a graph read from a file (`net::graph`).
//!
//! Every cable is two one-way links, each fed by the egress port at its near end. Hosts
//! are numbered first (rack by rack), then switches tier by tier. The fat-tree is the
//! k-ary fat-tree of Al-Fares et al. (SIGCOMM 2008) generalised as in HULL §6.3: `pods`
//! pods of `tors` ToRs and `aggs` aggregation switches, every ToR wired to every
//! aggregation switch of its pod, aggregation switch j of every pod wired to the
//! `cores / aggs` core switches of group j. Oversubscription at the ToR comes from
//! giving each ToR more host ports than up-links.

use super::graph::{End, Graph};
use super::ids::{HostId, LinkId, Node, PortId, SwitchId};
use super::port::{Admission, Port, PortRole, SharedBuffer};
use super::routing::{PathChoice, Routes};
use super::sched::classes::{Classifier, Drr, RoundRobin, StrictPriority, Wfq};
use super::sched::hier::Hierarchical;
use super::sched::priority::PriorityQueues;
use super::sched::rank::RankQueue;
use super::sched::{Fifo, FlowRoundRobin, Scheduler};
use super::{Host, HostStats, Link, Network, Switch};
use crate::sim::{Rate, Time};
use std::collections::VecDeque;
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq)]
pub struct LinkSpec {
    pub rate: Rate,
    pub delay: Time,
    /// The mechanisms its table sets for the switch ports that feed links of this kind
    /// (`net::mechanism::LinkKeys`: a phantom queue of its own, or none).
    pub mechanisms: Vec<super::mechanism::Setting>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// `hosts` hosts on one switch.
    Star { hosts: usize, link: LinkSpec },
    /// `left` hosts on switch 0, `right` hosts on switch 1, one trunk between them.
    Dumbbell { left: usize, right: usize, host_link: LinkSpec, trunk: LinkSpec },
    /// `racks` ToRs of `hosts_per_rack` hosts, each ToR wired to every spine.
    LeafSpine { racks: usize, hosts_per_rack: usize, spines: usize, host_link: LinkSpec, fabric_link: LinkSpec },
    /// Three tiers; see the module doc.
    FatTree {
        pods: usize,
        tors: usize,
        aggs: usize,
        hosts_per_tor: usize,
        cores: usize,
        host_link: LinkSpec,
        fabric_link: LinkSpec,
    },
    /// Hosts, switches and cables as a file lists them (`net::graph`).
    Graph(Arc<Graph>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum BufferSpec {
    Unlimited,
    PerPort { bytes: u64 },
    Shared { bytes: u64, alpha: f64 },
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NicQueue {
    Fifo,
    FlowRoundRobin,
    /// By packet priority, this many levels.
    Priority(usize),
    /// By packet level and rank, a message's packets in order (pFabric §4.2).
    Rank,
}

/// How switch ports treat traffic classes (SWP §4.3).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Discipline {
    Fifo,
    StrictPriority,
    RoundRobin,
    Drr,
    Wfq,
    Hierarchical,
    /// By packet priority (not class): `ClassPolicy::levels` levels, strict priority.
    Priority,
    /// By packet level, then rank (pFabric §4.2: `sched::rank::RankQueue`).
    Rank,
}

/// The class scheduling of every switch port; vectors are indexed by class.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassPolicy {
    pub discipline: Discipline,
    /// Queue of each class (its priority level under strict priority).
    pub queue_of: Vec<usize>,
    pub weights: Vec<f64>,
    /// DRR quantum of the lightest class and per-flow quantum (bytes).
    pub quantum: u64,
    /// Per-class ECN threshold on the class's queue.
    pub ecn: Vec<Option<u64>>,
    /// Per-class limit on the class's queue.
    pub limits: Vec<Option<u64>>,
    /// Priority levels of `Discipline::Priority`.
    pub levels: usize,
}

impl Default for ClassPolicy {
    fn default() -> Self {
        ClassPolicy {
            discipline: Discipline::Fifo,
            queue_of: Vec::new(),
            weights: Vec::new(),
            quantum: 1502,
            ecn: Vec::new(),
            limits: Vec::new(),
            levels: super::sched::priority::DEFAULT_LEVELS,
        }
    }
}

impl ClassPolicy {
    pub fn scheduler(&self) -> Box<dyn Scheduler> {
        let c = Classifier::new(self.queue_of.clone());
        match self.discipline {
            Discipline::Fifo => Box::new(Fifo::default()),
            Discipline::StrictPriority => Box::new(StrictPriority::new(c)),
            Discipline::RoundRobin => Box::new(RoundRobin::new(c)),
            Discipline::Drr => Box::new(Drr::new(c, &self.weights, self.quantum)),
            Discipline::Wfq => Box::new(Wfq::new(c, &self.weights)),
            Discipline::Hierarchical => Box::new(Hierarchical::new(c, &self.weights, self.quantum)),
            Discipline::Priority => Box::new(PriorityQueues::new(self.levels)),
            Discipline::Rank => Box::new(RankQueue::default()),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct NetSpec {
    pub shape: Shape,
    pub switch_delay: Time,
    pub buffer: BufferSpec,
    pub host_tx_delay: Time,
    pub host_rx_delay: Time,
    /// A fixed delay after a host's NIC serializes a packet, before it reaches the first
    /// switch (the Homa authors' "NIC send think time"): folded into the host's uplink.
    pub host_nic_delay: Time,
    pub nic: NicQueue,
    /// Packets a host's NIC holds (queued or in its transmit stages) before it stops
    /// pulling from the transports; 0: it asks for a packet only when its link is idle
    /// (nothing queued, nothing on the wire); None: it takes everything at once.
    pub nic_depth: Option<u32>,
    /// Drop-tail bytes at hosts' NICs (None: unbounded, a transport's packets always fit):
    /// ns-2's host link is a queue like a switch port's, 250 packets in HULL §6.3's runs.
    pub nic_buffer: Option<u64>,
    /// The mechanisms turned on by keys they own (`net::mechanism`), in registry order.
    pub mechanisms: Vec<super::mechanism::Setting>,
    pub paths: PathChoice,
    /// Class scheduling at switch ports.
    pub classes: ClassPolicy,
    pub seed: u64,
}

impl NetSpec {
    /// The settings of the mechanism whose settings are a `T` (`net::mechanism`), if the
    /// scenario turned it on: how the rest of the tree reads a mechanism's keys without
    /// a field of its own here.
    pub fn setting<T: super::mechanism::Configured>(&self) -> Option<&T> {
        self.mechanisms.iter().find_map(|s| (s.spec.as_ref() as &dyn std::any::Any).downcast_ref())
    }
}

impl Shape {
    /// The edge switch (ToR) `host` hangs from, numbered from 0 in the order racks are
    /// (hosts are numbered rack by rack: the module doc).
    pub fn rack_of(&self, host: usize) -> usize {
        match *self {
            Shape::Star { .. } => 0,
            Shape::Dumbbell { left, .. } => usize::from(host >= left),
            Shape::LeafSpine { hosts_per_rack, .. } => host / hosts_per_rack,
            Shape::FatTree { hosts_per_tor, .. } => host / hosts_per_tor,
            Shape::Graph(ref g) => g.racks[host] as usize,
        }
    }

    pub fn host_count(&self) -> usize {
        match *self {
            Shape::Star { hosts, .. } => hosts,
            Shape::Dumbbell { left, right, .. } => left + right,
            Shape::LeafSpine { racks, hosts_per_rack, .. } => racks * hosts_per_rack,
            Shape::FatTree { pods, tors, hosts_per_tor, .. } => pods * tors * hosts_per_tor,
            Shape::Graph(ref g) => g.hosts,
        }
    }

    /// How many egress ports `build` makes: two per cable (ids 0 to this minus one), so
    /// a scenario can check port ids without building the network.
    pub fn port_count(&self) -> usize {
        let cables = match *self {
            Shape::Star { hosts, .. } => hosts,
            Shape::Dumbbell { left, right, .. } => left + right + 1,
            Shape::LeafSpine { racks, hosts_per_rack, spines, .. } => racks * hosts_per_rack + racks * spines,
            Shape::FatTree { pods, tors, aggs, hosts_per_tor, cores, .. } => {
                pods * tors * hosts_per_tor + pods * tors * aggs + pods * aggs * (cores / aggs)
            }
            Shape::Graph(ref g) => g.cables.len(),
        };
        2 * cables
    }

    /// Its link kinds, named as `[topology]` names them. A graph's cables are named by
    /// the key of the file they come from, one of each rate (they carry no mechanisms of
    /// their own: the switch's apply to them).
    pub fn links(&self) -> Vec<(&'static str, &LinkSpec)> {
        match self {
            Shape::Graph(g) => {
                let mut out: Vec<(&'static str, &LinkSpec)> = Vec::new();
                for c in &g.cables {
                    if !out.iter().any(|(_, l)| l.rate == c.link.rate) {
                        out.push(("file", &c.link));
                    }
                }
                out
            }
            Shape::Star { link, .. } => vec![("link", link)],
            Shape::Dumbbell { host_link, trunk, .. } => vec![("host_link", host_link), ("trunk", trunk)],
            Shape::LeafSpine { host_link, fabric_link, .. } | Shape::FatTree { host_link, fabric_link, .. } => {
                vec![("host_link", host_link), ("fabric_link", fabric_link)]
            }
        }
    }

    /// The link kind a switch port of `role` feeds: its key in `links` and its spec (None
    /// for a host's NIC, or a role this shape has no ports of).
    pub fn link_fed_by(&self, role: PortRole) -> Option<(&'static str, &LinkSpec)> {
        if let Shape::Graph(g) = self {
            // Its cables have no settings of their own, so any one stands for them all.
            return self.has_role(role).then(|| ("file", &g.cables[0].link));
        }
        let feeds = |key: &str| match key {
            "trunk" => role == PortRole::Trunk,
            "fabric_link" => matches!(role, PortRole::Up | PortRole::Down),
            _ => role == PortRole::ToHost,
        };
        self.links().into_iter().find(|(key, _)| feeds(key))
    }

    /// Whether `build` makes ports of this role.
    pub fn has_role(&self, role: PortRole) -> bool {
        match role {
            PortRole::HostNic | PortRole::ToHost => true,
            PortRole::Trunk | PortRole::Up | PortRole::Down if matches!(self, Shape::Graph(_)) => {
                let Shape::Graph(g) = self else { unreachable!() };
                g.cables.iter().any(|c| match (c.a, c.b) {
                    (End::Switch(a), End::Switch(b)) => {
                        let (ta, tb) = (g.tiers[a as usize], g.tiers[b as usize]);
                        (ta == tb) == (role == PortRole::Trunk)
                    }
                    _ => false,
                })
            }
            PortRole::Trunk => matches!(self, Shape::Dumbbell { .. }),
            PortRole::Up | PortRole::Down => matches!(self, Shape::LeafSpine { .. } | Shape::FatTree { .. }),
        }
    }

    /// The name of the shape as `[topology] kind` spells it.
    pub fn kind(&self) -> &'static str {
        match self {
            Shape::Star { .. } => "star",
            Shape::Dumbbell { .. } => "dumbbell",
            Shape::LeafSpine { .. } => "leaf_spine",
            Shape::FatTree { .. } => "fat_tree",
            Shape::Graph(_) => "graph",
        }
    }
}

/// The rate of the hosts' links (every shape's hosts share one).
pub fn host_rate(shape: &Shape) -> Rate {
    match shape {
        Shape::Star { link, .. } => link.rate,
        Shape::Dumbbell { host_link, .. } | Shape::LeafSpine { host_link, .. } | Shape::FatTree { host_link, .. } => {
            host_link.rate
        }
        Shape::Graph(g) => g.host_rate(),
    }
}

impl NetSpec {
    /// About how many bytes the built network takes (hosts, ports, links, queues, routing)
    /// with `classes` traffic classes, before a packet is sent, so a scenario too large
    /// for the machine is refused before it is built. Per port (each with its link):
    /// `PORT_BYTES`, and per switch port and class the queue its class scheduler keeps.
    /// These are the heap bytes `build` allocates (`tests/topology_memory.rs` checks the
    /// estimate lies between them and twice them) with the allocator's overhead on top: a
    /// 1,048,576-host star with one class measured 1.36 GB peak RSS against 1.50 GB
    /// estimated (docs/scenario.md, "Topology size"), before issue 26 added 16 bytes a port
    /// (the queue counted with the frame on the wire, as the Homa authors count it) and
    /// issue 28 36 more (a port's FIFO, first marker and first two classes held in the port
    /// rather than in allocations of their own: docs/performance.md, "A thousand hosts").
    pub fn memory_bytes(&self, classes: usize) -> u64 {
        let classes = classes.max(1) as u64;
        let per_class = match self.classes.discipline {
            Discipline::Fifo => 32,
            Discipline::StrictPriority | Discipline::RoundRobin | Discipline::Drr | Discipline::Wfq => 128,
            Discipline::Hierarchical => 256,
            Discipline::Priority => 32 * self.classes.levels as u64 / classes,
            // One queue for every class; its packets' indexes grow with what is queued.
            Discipline::Rank => std::mem::size_of::<RankQueue>() as u64 / classes,
        };
        let ports = self.shape.port_count() as u64;
        let switch_ports = ports - self.shape.host_count() as u64;
        let table = match &self.shape {
            Shape::Graph(g) => {
                let racks = g.racks.iter().max().map_or(0, |&r| r as u64 + 1);
                let inner = switch_ports - self.shape.host_count() as u64;
                super::routing::Table::bytes(g.switches as u64, racks, inner)
            }
            _ => 0,
        };
        ports
            .saturating_mul(PORT_BYTES)
            .saturating_add(switch_ports.saturating_mul(per_class * classes))
            .saturating_add(table)
    }
}

/// Bytes of one port, its link and its routing entries, without per-class queues (808
/// until issue 29 gave a port its queue of control frames and PFC's pause bits).
const PORT_BYTES: u64 = 840;

struct Builder<'a> {
    spec: &'a NetSpec,
    net: Network,
    /// Told (ports built, ports in all) every `PROGRESS_EVERY` ports; false stops the build.
    progress: &'a mut dyn FnMut(u64, u64) -> bool,
    /// Ports the shape has.
    total: u64,
    /// The caller asked to stop: the remaining cables are skipped.
    stopped: bool,
}

/// Ports built between two progress reports.
const PROGRESS_EVERY: usize = 1 << 16;

impl Builder<'_> {
    fn switch(&mut self, tier: u8) -> SwitchId {
        let shared = match self.spec.buffer {
            BufferSpec::Shared { bytes, .. } => Some(SharedBuffer { capacity: bytes, used: 0 }),
            _ => None,
        };
        self.net.switches.push(Switch {
            shared,
            received: (0, 0),
            consumed: (0, 0),
            emitted: (0, 0),
            dropped: (0, 0),
            tier,
            ports: Vec::new(),
        });
        SwitchId::new(self.net.switches.len() - 1)
    }

    /// One direction of a cable: the port at `from` and the link it feeds.
    fn half(&mut self, from: Node, to: Node, spec: &LinkSpec, role: PortRole) -> PortId {
        let port_id = PortId::new(self.net.ports.len());
        let link_id = LinkId::new(self.net.links.len());
        let extra = match to {
            Node::Switch(_) => self.spec.switch_delay,
            Node::Host(_) => self.spec.host_rx_delay,
        } + match from {
            Node::Host(_) => self.spec.host_nic_delay,
            Node::Switch(_) => Time::ZERO,
        };
        self.net.links.push(Link::new(port_id, to, spec.delay + extra, spec.delay));
        let port = match from {
            Node::Host(_) => {
                let sched: Box<dyn Scheduler> = match self.spec.nic {
                    NicQueue::Fifo => Box::new(Fifo::default()),
                    NicQueue::FlowRoundRobin => Box::new(FlowRoundRobin::default()),
                    NicQueue::Priority(levels) => Box::new(PriorityQueues::new(levels)),
                    NicQueue::Rank => Box::new(RankQueue::default()),
                };
                let admission = self.spec.nic_buffer.map_or(Admission::Unlimited, Admission::PortLimit);
                Port::new(from, link_id, spec.rate, role, admission, Vec::new(), sched)
            }
            Node::Switch(s) => {
                let admission = match self.spec.buffer {
                    BufferSpec::Unlimited => Admission::Unlimited,
                    BufferSpec::PerPort { bytes } => Admission::PortLimit(bytes),
                    BufferSpec::Shared { alpha, .. } => Admission::Shared { alpha },
                };
                let classes = &self.spec.classes;
                self.net.switches[s.index()].ports.push(port_id);
                Port::new(from, link_id, spec.rate, role, admission, Vec::new(), classes.scheduler())
                    .with_queue_limits(classes.limits.clone())
            }
        };
        self.net.ports.push(port);
        if self.net.ports.len().is_multiple_of(PROGRESS_EVERY) && !self.stopped {
            self.stopped = !(self.progress)(self.net.ports.len() as u64, self.total);
        }
        port_id
    }

    fn cable(&mut self, a: Node, b: Node, spec: &LinkSpec, a_role: PortRole, b_role: PortRole) {
        if self.stopped {
            return;
        }
        let pa = self.half(a, b, spec, a_role);
        if let Node::Host(h) = a {
            self.net.hosts[h.index()].nic = pa;
        }
        let pb = self.half(b, a, spec, b_role);
        if let Node::Host(h) = b {
            self.net.hosts[h.index()].nic = pb;
        }
    }

    fn host_on(&mut self, h: usize, sw: SwitchId, spec: &LinkSpec) {
        self.cable(Node::Host(HostId::new(h)), Node::Switch(sw), spec, PortRole::HostNic, PortRole::ToHost);
    }
}

/// Builds the network of `spec`.
pub fn build(spec: &NetSpec) -> Network {
    build_reporting(spec, &mut |_, _| true).expect("a build that is never stopped completes")
}

/// Builds the network of `spec`, telling `progress` (ports built, ports in all) as it
/// goes; None when `progress` answered false (the caller stopped the build).
pub fn build_reporting(spec: &NetSpec, progress: &mut dyn FnMut(u64, u64) -> bool) -> Option<Network> {
    let n_hosts = spec.shape.host_count();
    let total = spec.shape.port_count() as u64;
    let mut b = Builder {
        spec,
        net: Network {
            hosts: (0..n_hosts)
                .map(|_| Host {
                    nic: PortId::new(0),
                    tx_delay: spec.host_tx_delay,
                    nic_depth: spec.nic_depth,
                    tx_stages: if spec.host_tx_delay > Time::ZERO {
                        vec![Box::new(super::nic::SoftwareDelay(spec.host_tx_delay)) as Box<dyn super::nic::NicStage>]
                    } else {
                        Vec::new()
                    },
                    tx_pipe: VecDeque::new(),
                    rx_stages: Vec::new(),
                    rx_pipe: VecDeque::new(),
                    watches_arrivals: false,
                    stats: HostStats::default(),
                })
                .collect(),
            switches: Vec::new(),
            ports: Vec::with_capacity(total as usize),
            links: Vec::with_capacity(total as usize),
            routes: Routes::empty(spec.paths, spec.seed),
            int: Default::default(),
            wire: Default::default(),
            memory: None,
        },
        progress,
        total,
        stopped: false,
    };
    wire(&mut b, &spec.shape);
    if b.stopped {
        return None;
    }
    let net = &b.net;
    let rules = match spec.shape {
        Shape::Graph(_) => super::routing::Rules::Table,
        _ => super::routing::Rules::Tiers,
    };
    let routes = Routes::build(n_hosts, (&net.switches, &net.ports, &net.links), spec.paths, spec.seed, rules);
    b.net.routes = routes;
    (b.progress)(total, total).then_some(b.net)
}

fn wire(b: &mut Builder, shape: &Shape) {
    match shape {
        Shape::Graph(g) => wire_graph(b, g),
        Shape::Star { hosts, link } => {
            let sw = b.switch(0);
            for h in 0..*hosts {
                b.host_on(h, sw, link);
            }
        }
        Shape::Dumbbell { left, right, host_link, trunk } => {
            let l = b.switch(0);
            let r = b.switch(0);
            for h in 0..*left {
                b.host_on(h, l, host_link);
            }
            for h in *left..left + right {
                b.host_on(h, r, host_link);
            }
            b.cable(Node::Switch(l), Node::Switch(r), trunk, PortRole::Trunk, PortRole::Trunk);
        }
        Shape::LeafSpine { racks, hosts_per_rack, spines, host_link, fabric_link } => {
            let tors: Vec<SwitchId> = (0..*racks).map(|_| b.switch(0)).collect();
            let sp: Vec<SwitchId> = (0..*spines).map(|_| b.switch(1)).collect();
            for (r, &tor) in tors.iter().enumerate() {
                for i in 0..*hosts_per_rack {
                    b.host_on(r * hosts_per_rack + i, tor, host_link);
                }
                for &s in &sp {
                    b.cable(Node::Switch(tor), Node::Switch(s), fabric_link, PortRole::Up, PortRole::Down);
                }
            }
        }
        Shape::FatTree { pods, tors, aggs, hosts_per_tor, cores, host_link, fabric_link } => {
            let core_ids: Vec<SwitchId> = (0..*cores).map(|_| b.switch(2)).collect();
            let per_agg = cores / aggs;
            for p in 0..*pods {
                let tor_ids: Vec<SwitchId> = (0..*tors).map(|_| b.switch(0)).collect();
                let agg_ids: Vec<SwitchId> = (0..*aggs).map(|_| b.switch(1)).collect();
                for (t, &tor) in tor_ids.iter().enumerate() {
                    for i in 0..*hosts_per_tor {
                        b.host_on((p * tors + t) * hosts_per_tor + i, tor, host_link);
                    }
                    for &a in &agg_ids {
                        b.cable(Node::Switch(tor), Node::Switch(a), fabric_link, PortRole::Up, PortRole::Down);
                    }
                }
                for (j, &a) in agg_ids.iter().enumerate() {
                    for &c in &core_ids[j * per_agg..(j + 1) * per_agg] {
                        b.cable(Node::Switch(a), Node::Switch(c), fabric_link, PortRole::Up, PortRole::Down);
                    }
                }
            }
        }
    }
}

/// A graph's switches in their numbers' order, then its cables in the file's order.
fn wire_graph(b: &mut Builder, g: &Graph) {
    for &tier in &g.tiers {
        b.switch(tier);
    }
    let node = |e: End| match e {
        End::Host(h) => Node::Host(HostId::new(h as usize)),
        End::Switch(s) => Node::Switch(SwitchId::new(s as usize)),
    };
    for c in &g.cables {
        let (ra, rb) = match (c.a, c.b) {
            (End::Host(_), _) => (PortRole::HostNic, PortRole::ToHost),
            (_, End::Host(_)) => (PortRole::ToHost, PortRole::HostNic),
            (End::Switch(a), End::Switch(b)) => {
                use std::cmp::Ordering::*;
                match g.tiers[a as usize].cmp(&g.tiers[b as usize]) {
                    Less => (PortRole::Up, PortRole::Down),
                    Greater => (PortRole::Down, PortRole::Up),
                    Equal => (PortRole::Trunk, PortRole::Trunk),
                }
            }
        };
        b.cable(node(c.a), node(c.b), &c.link, ra, rb);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn link(gbps: u64) -> LinkSpec {
        LinkSpec { rate: Rate::from_gbps(gbps), delay: Time::from_us(1), mechanisms: Vec::new() }
    }

    /// A network of `shape` with no delays, buffers or marking: for tests of its structure.
    pub(crate) fn spec(shape: Shape) -> NetSpec {
        NetSpec {
            shape,
            switch_delay: Time::ZERO,
            buffer: BufferSpec::Unlimited,
            host_tx_delay: Time::ZERO,
            host_rx_delay: Time::ZERO,
            host_nic_delay: Time::ZERO,
            nic: NicQueue::Fifo,
            nic_depth: None,
            nic_buffer: None,
            mechanisms: Vec::new(),
            paths: PathChoice::Ecmp,
            classes: ClassPolicy::default(),
            seed: 1,
        }
    }

    #[test]
    fn port_count_and_roles_match_the_built_network() {
        let shapes = [
            Shape::Star { hosts: 5, link: link(10) },
            Shape::Dumbbell { left: 3, right: 2, host_link: link(10), trunk: link(10) },
            Shape::LeafSpine { racks: 3, hosts_per_rack: 4, spines: 2, host_link: link(10), fabric_link: link(40) },
            Shape::FatTree {
                pods: 4,
                tors: 2,
                aggs: 2,
                hosts_per_tor: 3,
                cores: 4,
                host_link: link(10),
                fabric_link: link(10),
            },
        ];
        let roles = [PortRole::HostNic, PortRole::ToHost, PortRole::Up, PortRole::Down, PortRole::Trunk];
        for shape in shapes {
            let net = build(&spec(shape.clone()));
            assert_eq!(shape.port_count(), net.ports.len(), "{}", shape.kind());
            for r in roles {
                assert_eq!(shape.has_role(r), net.ports.iter().any(|p| p.role == r), "{} {}", shape.kind(), r.name());
            }
        }
    }

    /// The routing state of each shape at `n` and `2n` hosts (the shape's own growth
    /// dimension doubled): an all-pairs table grows fourfold, per-port state twofold.
    #[test]
    fn routing_state_grows_linearly_in_hosts() {
        let l = || link(10);
        let shapes = |n: usize| {
            [
                Shape::Star { hosts: 64 * n, link: l() },
                Shape::Dumbbell { left: 32 * n, right: 32 * n, host_link: l(), trunk: l() },
                Shape::LeafSpine { racks: 8 * n, hosts_per_rack: 8, spines: 4, host_link: l(), fabric_link: l() },
                Shape::FatTree {
                    pods: 4 * n,
                    tors: 4,
                    aggs: 4,
                    hosts_per_tor: 4,
                    cores: 16,
                    host_link: l(),
                    fabric_link: l(),
                },
            ]
        };
        for (small, large) in shapes(4).into_iter().zip(shapes(8)) {
            let (a, b) = (build(&spec(small.clone())), build(&spec(large)));
            assert_eq!(2 * a.hosts.len(), b.hosts.len());
            let (ea, eb) = (a.routes.entries(), b.routes.entries());
            assert!(eb <= 2 * ea + 8, "{}: {ea} entries at {} hosts, {eb} at twice that", small.kind(), a.hosts.len());
        }
    }

    #[test]
    fn leaf_spine_paths_have_two_or_four_hops() {
        let net = build(&spec(Shape::LeafSpine {
            racks: 4,
            hosts_per_rack: 8,
            spines: 2,
            host_link: link(10),
            fabric_link: link(40),
        }));
        assert_eq!(net.hosts.len(), 32);
        assert_eq!(net.switches.len(), 6);
        assert_eq!(net.path(HostId::new(0), HostId::new(7), 1).len(), 2);
        assert_eq!(net.path(HostId::new(0), HostId::new(8), 1).len(), 4);
        // ECMP spreads flows over both spines.
        let spines: std::collections::HashSet<_> =
            (0..64).map(|k| net.path(HostId::new(0), HostId::new(31), k)[1]).collect();
        assert_eq!(spines.len(), 2);
    }

    #[test]
    fn fat_tree_k4_has_the_textbook_shape() {
        let net = build(&spec(Shape::FatTree {
            pods: 4,
            tors: 2,
            aggs: 2,
            hosts_per_tor: 2,
            cores: 4,
            host_link: link(10),
            fabric_link: link(10),
        }));
        assert_eq!(net.hosts.len(), 16);
        assert_eq!(net.switches.len(), 20);
        // same ToR: 2 hops; same pod: 4; other pod: 6.
        assert_eq!(net.path(HostId::new(0), HostId::new(1), 0).len(), 2);
        assert_eq!(net.path(HostId::new(0), HostId::new(2), 0).len(), 4);
        assert_eq!(net.path(HostId::new(0), HostId::new(15), 0).len(), 6);
        let cores: std::collections::HashSet<_> =
            (0..256).map(|k| net.path(HostId::new(0), HostId::new(15), k)[2]).collect();
        assert_eq!(cores.len(), 4, "inter-pod flows use all four cores");
    }
}
