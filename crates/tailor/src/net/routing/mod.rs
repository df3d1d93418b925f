//! Shortest-path routing by tiers, with per-flow ECMP or per-packet spraying; for a
//! graph topology, by a table of every switch's next hops towards every rack (`table`).
//!
//! Every topology tailor builds is a tree of tiers (a dumbbell is two trees joined by a
//! trunk), and hosts are numbered rack by rack, so the hosts below any port that leads
//! down — a ToR's port to a host, an aggregation switch's port to a ToR, a spine's or
//! core's port towards a rack or pod, a dumbbell switch's trunk to the other side — are
//! a contiguous range of host ids. A switch forwards a packet for host h down the one
//! port whose range holds h, and otherwise up over every up-link: in these topologies
//! each of them lies on a shortest path (Al-Fares et al.'s two-level tables, SIGCOMM
//! 2008, state the same rule as prefixes and suffixes). The unit tests check this, for
//! every switch and host, against a breadth-first search over the link graph.
//!
//! The state is one entry per host and per port between switches, linear in the size of
//! the network (an all-pairs table is hosts × switches: 2.7 GB for the 65,536-host k = 64
//! fat-tree), and building it is one pass over the ports. The candidates of a switch are its ports in id order,
//! so an ECMP hash or a spraying draw picks the same port as it would from a table.
//! Per-flow ECMP picks one candidate by a seeded hash of the connection and the switch,
//! so a flow keeps its path and different switches decorrelate; spraying draws a port
//! per packet from the network's "routing/spray" stream.

use super::ids::{HostId, Node, PortId, SwitchId};
use super::port::{Port, PortRole};
use super::{Link, Switch};
use crate::sim::rng::splitmix64;

mod table;
pub use table::Table;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PathChoice {
    /// Per-flow ECMP: hash of (seed, connection, switch).
    Ecmp,
    /// Per-packet spraying: a random shortest-path port for every packet.
    Spray,
}

/// A built network's switches, ports and links, which its rules are made from.
pub type Wiring<'a> = (&'a [Switch], &'a [Port], &'a [Link]);

/// How a network's rules are built.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Rules {
    /// By tiers: the four parameterised shapes (trees of tiers, `hosts_below`).
    Tiers,
    /// By a table of next hops towards each rack: any graph (`Table`).
    Table,
}

/// The hosts `first..end` lie below `port`.
#[derive(Copy, Clone, Debug)]
struct Down {
    first: u32,
    end: u32,
    port: PortId,
}

/// The forwarding rules of every switch.
pub struct Routes {
    /// Per host: the switch it hangs off and that switch's port to it.
    edge: Vec<(SwitchId, PortId)>,
    /// Switch s's down-ranges are `down[down_at[s]..down_at[s + 1]]`, sorted and disjoint.
    down_at: Vec<u32>,
    down: Vec<Down>,
    /// Switch s's up-ports are `up[up_at[s]..up_at[s + 1]]`, in id order.
    up_at: Vec<u32>,
    up: Vec<PortId>,
    /// A graph's rules (then the tiers' above are empty).
    table: Option<Box<Table>>,
    pub choice: PathChoice,
    pub seed: u64,
}

/// Hosts below a switch: the range `first..end` and how many (equal to its length when
/// the range is contiguous, which `hosts_below` checks).
#[derive(Copy, Clone, Default)]
struct Below {
    first: u32,
    end: u32,
    count: u32,
}

impl Below {
    fn add(&mut self, o: Below) {
        if o.count == 0 {
            return;
        }
        if self.count == 0 {
            *self = o;
            return;
        }
        self.first = self.first.min(o.first);
        self.end = self.end.max(o.end);
        self.count += o.count;
    }
}

impl Routes {
    /// Rules for a network without switches (a placeholder until `build`).
    pub fn empty(choice: PathChoice, seed: u64) -> Routes {
        Routes {
            edge: Vec::new(),
            down_at: vec![0],
            down: Vec::new(),
            up_at: vec![0],
            up: Vec::new(),
            table: None,
            choice,
            seed,
        }
    }

    /// The rules of the network whose switches, ports and links are given; `hosts` hosts:
    /// by tiers for the shapes that are trees of tiers, by a table for a graph.
    pub fn build(hosts: usize, net: Wiring, choice: PathChoice, seed: u64, rules: Rules) -> Routes {
        match rules {
            Rules::Tiers => Routes::tiers(hosts, net, choice, seed),
            Rules::Table => Routes::table(hosts, net, choice, seed),
        }
    }

    fn tiers(hosts: usize, net: Wiring, choice: PathChoice, seed: u64) -> Routes {
        let (switches, ports, links) = net;
        let far = |p: PortId| links[ports[p.index()].link.index()].to;
        let mut edge = vec![(SwitchId::MAX, PortId::MAX); hosts];
        let below = hosts_below(switches, ports, &far, &mut edge);
        let mut r = Routes { edge, ..Routes::empty(choice, seed) };
        for sw in switches {
            let first_down = r.down.len();
            for &p in &sw.ports {
                match (ports[p.index()].role, far(p)) {
                    (PortRole::Down | PortRole::Trunk, Node::Switch(c)) if below[c.index()].count > 0 => {
                        let b = below[c.index()];
                        r.down.push(Down { first: b.first, end: b.end, port: p });
                    }
                    (PortRole::Up, _) => r.up.push(p),
                    _ => {}
                }
            }
            r.down[first_down..].sort_by_key(|d| d.first);
            assert!(r.down[first_down..].windows(2).all(|w| w[0].end <= w[1].first), "down-ranges of a switch overlap");
            r.up[r.up_at[r.up_at.len() - 1] as usize..].sort();
            r.down_at.push(index(r.down.len()));
            r.up_at.push(index(r.up.len()));
        }
        r
    }

    /// The rules of a network of any shape (a graph topology): a breadth-first search a
    /// rack (`Table`).
    fn table(hosts: usize, net: Wiring, choice: PathChoice, seed: u64) -> Routes {
        let (switches, ports, links) = net;
        let mut edge = vec![(SwitchId::MAX, PortId::MAX); hosts];
        for (s, sw) in switches.iter().enumerate() {
            for &p in &sw.ports {
                if let Node::Host(h) = links[ports[p.index()].link.index()].to {
                    edge[h.index()] = (SwitchId::new(s), p);
                }
            }
        }
        let edges: Vec<SwitchId> = edge.iter().map(|e| e.0).collect();
        let table = Table::build(switches, ports, links, &edges);
        Routes { edge, table: Some(Box::new(table)), ..Routes::empty(choice, seed) }
    }

    /// The shortest-path egress ports of `switch` towards `dst`.
    pub fn candidates(&self, switch: SwitchId, dst: HostId) -> &[PortId] {
        let (sw, port) = &self.edge[dst.index()];
        if *sw == switch {
            return std::slice::from_ref(port);
        }
        if let Some(t) = &self.table {
            return t.towards(switch, *sw);
        }
        let s = switch.index();
        let downs = &self.down[self.down_at[s] as usize..self.down_at[s + 1] as usize];
        let h = dst.index() as u32;
        let i = downs.partition_point(|d| d.end <= h);
        match downs.get(i) {
            Some(d) if d.first <= h => std::slice::from_ref(&d.port),
            _ => &self.up[self.up_at[s] as usize..self.up_at[s + 1] as usize],
        }
    }

    /// How many entries the rules store (their size, for tests of how they scale).
    pub fn entries(&self) -> usize {
        let table = self.table.as_ref().map_or(0, |t| t.entries());
        self.edge.len() + self.down.len() + self.up.len() + self.down_at.len() + self.up_at.len() + table
    }

    /// The per-flow ECMP choice among `n` candidates.
    pub fn ecmp_index(&self, flow_key: u64, switch: SwitchId, n: usize) -> usize {
        let h = splitmix64(self.seed ^ splitmix64(flow_key ^ ((switch.index() as u64) << 40)));
        (h % n as u64) as usize
    }
}

fn index(n: usize) -> u32 {
    u32::try_from(n).expect("port counts fit in u32")
}

/// The hosts below each switch, filling in `edge` (each host's switch and port to it).
/// Ports towards hosts come first; then each switch adds what lies below its down-ports,
/// tier by tier from the bottom, so a child is complete before its parent reads it.
fn hosts_below(
    switches: &[Switch],
    ports: &[Port],
    far: &impl Fn(PortId) -> Node,
    edge: &mut [(SwitchId, PortId)],
) -> Vec<Below> {
    let mut below = vec![Below::default(); switches.len()];
    for (s, sw) in switches.iter().enumerate() {
        for &p in &sw.ports {
            if let (PortRole::ToHost, Node::Host(h)) = (ports[p.index()].role, far(p)) {
                edge[h.index()] = (SwitchId::new(s), p);
                let i = h.index() as u32;
                below[s].add(Below { first: i, end: i + 1, count: 1 });
            }
        }
    }
    let top = switches.iter().map(|s| s.tier).max().unwrap_or(0);
    for tier in 1..=top {
        for (s, sw) in switches.iter().enumerate().filter(|(_, sw)| sw.tier == tier) {
            for &p in &sw.ports {
                if let (PortRole::Down, Node::Switch(c)) = (ports[p.index()].role, far(p)) {
                    let b = below[c.index()];
                    below[s].add(b);
                }
            }
        }
    }
    for b in &below {
        assert_eq!(b.end - b.first, b.count, "the hosts below a switch are numbered contiguously");
    }
    below
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::topology::tests::spec;
    use crate::net::topology::{build, LinkSpec, Shape};
    use crate::net::Network;
    use crate::sim::{Rate, Time};
    use std::collections::{HashMap, VecDeque};

    /// The reference: breadth-first search from every host over the link graph (hosts do
    /// not forward); a switch's candidates towards h are its ports to neighbours one hop
    /// closer to h, in id order.
    fn bfs_candidates(net: &Network, h: HostId) -> HashMap<SwitchId, Vec<PortId>> {
        let far = |p: PortId| net.links[net.ports[p.index()].link.index()].to;
        let mut dist: HashMap<Node, u32> = HashMap::from([(Node::Host(h), 0)]);
        let first = net.links[net.ports[net.hosts[h.index()].nic.index()].link.index()].to;
        dist.insert(first, 1);
        let mut q = VecDeque::from([first]);
        while let Some(Node::Switch(s)) = q.pop_front() {
            let d = dist[&Node::Switch(s)];
            for &p in &net.switches[s.index()].ports {
                let m = far(p);
                if let std::collections::hash_map::Entry::Vacant(e) = dist.entry(m) {
                    e.insert(d + 1);
                    if let Node::Switch(_) = m {
                        q.push_back(m);
                    }
                }
            }
        }
        let mut out = HashMap::new();
        for (s, sw) in net.switches.iter().enumerate() {
            let Some(&d) = dist.get(&Node::Switch(SwitchId::new(s))) else { continue };
            let mut c: Vec<PortId> =
                sw.ports.iter().copied().filter(|&p| dist.get(&far(p)).is_some_and(|&dn| dn + 1 == d)).collect();
            c.sort();
            out.insert(SwitchId::new(s), c);
        }
        out
    }

    #[test]
    fn rules_give_the_shortest_path_ports_of_a_breadth_first_search() {
        let l = || LinkSpec { rate: Rate::from_gbps(10), delay: Time::from_us(1), mechanisms: Vec::new() };
        let shapes = [
            Shape::Star { hosts: 7, link: l() },
            Shape::Dumbbell { left: 3, right: 5, host_link: l(), trunk: l() },
            Shape::Dumbbell { left: 1, right: 1, host_link: l(), trunk: l() },
            Shape::LeafSpine { racks: 5, hosts_per_rack: 3, spines: 4, host_link: l(), fabric_link: l() },
            Shape::LeafSpine { racks: 1, hosts_per_rack: 4, spines: 2, host_link: l(), fabric_link: l() },
            Shape::LeafSpine { racks: 3, hosts_per_rack: 1, spines: 1, host_link: l(), fabric_link: l() },
            Shape::FatTree { pods: 4, tors: 2, aggs: 2, hosts_per_tor: 2, cores: 4, host_link: l(), fabric_link: l() },
            Shape::FatTree { pods: 3, tors: 3, aggs: 2, hosts_per_tor: 5, cores: 6, host_link: l(), fabric_link: l() },
            Shape::FatTree { pods: 1, tors: 2, aggs: 3, hosts_per_tor: 2, cores: 3, host_link: l(), fabric_link: l() },
            Shape::FatTree { pods: 2, tors: 1, aggs: 1, hosts_per_tor: 3, cores: 1, host_link: l(), fabric_link: l() },
        ];
        for shape in shapes {
            let net = build(&spec(shape.clone()));
            // The table a graph is routed by gives the tiers' rules on every tree.
            let wiring = (&net.switches[..], &net.ports[..], &net.links[..]);
            let table = Routes::build(net.hosts.len(), wiring, PathChoice::Ecmp, 1, Rules::Table);
            for h in 0..net.hosts.len() {
                let h = HostId::new(h);
                for (s, want) in bfs_candidates(&net, h) {
                    assert_eq!(net.routes.candidates(s, h), &want[..], "{shape:?}: switch {s:?} towards {h:?}");
                    assert_eq!(table.candidates(s, h), &want[..], "{shape:?} by table: switch {s:?} towards {h:?}");
                }
            }
        }
    }

    /// Graphs no tiers describe: a ring, a 3 x 3 torus with parallel cables, and random
    /// connected graphs with switches that have no hosts.
    #[test]
    fn graph_tables_give_the_shortest_path_ports_of_a_breadth_first_search() {
        use rand::{Rng, SeedableRng};
        let mut texts = Vec::new();
        let ring: String =
            (0..5).map(|s| format!("h{s} s{s} 10Gbps 1us\ns{s} s{} 10Gbps 1us\n", (s + 1) % 5)).collect();
        texts.push(ring);
        let mut torus = String::new();
        for s in 0..9 {
            torus += &format!("h{} s{s} 10Gbps 1us\nh{} s{s} 10Gbps 1us\n", 2 * s, 2 * s + 1);
            let (r, c) = (s / 3, s % 3);
            torus += &format!("s{s} s{} 40Gbps 1us\ns{s} s{} 40Gbps 2us\n", r * 3 + (c + 1) % 3, ((r + 1) % 3) * 3 + c);
        }
        torus += "s0 s1 40Gbps 1us\n";
        texts.push(torus);
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for _ in 0..20 {
            let n = rng.random_range(3..12);
            let mut g: String = (1..n).map(|s| format!("s{s} s{} 10Gbps 1us\n", rng.random_range(0..s))).collect();
            for _ in 0..rng.random_range(0..2 * n) {
                let (a, b) = (rng.random_range(0..n), rng.random_range(0..n));
                if a != b {
                    g += &format!("s{a} s{b} 10Gbps 1us\n");
                }
            }
            let hosts = rng.random_range(2..3 * n);
            g += &(0..hosts).map(|h| format!("h{h} s{} 10Gbps 1us\n", rng.random_range(0..n))).collect::<String>();
            texts.push(g);
        }
        for text in texts {
            let g = crate::net::graph::Graph::parse(&text, "t.graph").unwrap_or_else(|e| panic!("{e}\n{text}"));
            let net = build(&spec(Shape::Graph(std::sync::Arc::new(g))));
            for h in 0..net.hosts.len() {
                let h = HostId::new(h);
                for (s, want) in bfs_candidates(&net, h) {
                    assert_eq!(net.routes.candidates(s, h), &want[..], "switch {s:?} towards {h:?} in\n{text}");
                }
            }
        }
    }
}
