//! Shortest-path routing with per-flow ECMP or per-packet spraying.
//!
//! For every switch and destination host the table holds the egress ports that lie on
//! a shortest path (breadth-first search from each host over the symmetric link graph).
//! Per-flow ECMP picks one of them by a seeded hash of the connection and the switch,
//! so a flow keeps its path and different switches decorrelate; spraying draws a port
//! per packet from the network's "routing/spray" stream.

use super::ids::{HostId, Node, PortId, SwitchId};
use crate::sim::rng::splitmix64;
use std::collections::{HashMap, VecDeque};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PathChoice {
    /// Per-flow ECMP: hash of (seed, connection, switch).
    Ecmp,
    /// Per-packet spraying: a random shortest-path port for every packet.
    Spray,
}

/// The forwarding table of every switch.
pub struct Routes {
    hosts: usize,
    /// (first, count) into `lists`, indexed by `switch * hosts + host`.
    table: Vec<(u32, u16)>,
    lists: Vec<PortId>,
    pub choice: PathChoice,
    pub seed: u64,
}

/// The link graph, seen from each node: (egress port, neighbour).
pub type Adjacency = HashMap<Node, Vec<(PortId, Node)>>;

impl Routes {
    pub fn build(adj: &Adjacency, hosts: usize, switches: usize, choice: PathChoice, seed: u64) -> Routes {
        let mut table = vec![(0u32, 0u16); hosts * switches];
        let mut lists = Vec::new();
        let mut interned: HashMap<Vec<PortId>, (u32, u16)> = HashMap::new();
        for h in 0..hosts {
            let dist = bfs(adj, Node::Host(HostId::new(h)));
            for s in 0..switches {
                let me = Node::Switch(SwitchId::new(s));
                let Some(&d) = dist.get(&me) else { continue };
                let mut cands: Vec<PortId> = adj[&me]
                    .iter()
                    .filter(|(_, n)| dist.get(n).is_some_and(|&dn| dn + 1 == d))
                    .map(|(p, _)| *p)
                    .collect();
                cands.sort();
                let entry = *interned.entry(cands.clone()).or_insert_with(|| {
                    let start = lists.len() as u32;
                    lists.extend_from_slice(&cands);
                    (start, cands.len() as u16)
                });
                table[s * hosts + h] = entry;
            }
        }
        Routes { hosts, table, lists, choice, seed }
    }

    /// The shortest-path egress ports of `switch` towards `dst`.
    pub fn candidates(&self, switch: SwitchId, dst: HostId) -> &[PortId] {
        let (start, n) = self.table[switch.index() * self.hosts + dst.index()];
        &self.lists[start as usize..start as usize + n as usize]
    }

    /// The per-flow ECMP choice among `n` candidates.
    pub fn ecmp_index(&self, flow_key: u64, switch: SwitchId, n: usize) -> usize {
        let h = splitmix64(self.seed ^ splitmix64(flow_key ^ ((switch.index() as u64) << 40)));
        (h % n as u64) as usize
    }
}

fn bfs(adj: &Adjacency, from: Node) -> HashMap<Node, u32> {
    let mut dist = HashMap::new();
    dist.insert(from, 0u32);
    let mut q = VecDeque::from([from]);
    while let Some(n) = q.pop_front() {
        let d = dist[&n];
        for (_, m) in &adj[&n] {
            // Hosts do not forward: a path never passes through a host.
            if dist.contains_key(m) || matches!(n, Node::Host(_)) && n != from {
                continue;
            }
            dist.insert(*m, d + 1);
            if matches!(m, Node::Switch(_)) {
                q.push_back(*m);
            }
        }
    }
    dist
}
