//! Shortest-path rules for a network of any shape (a graph topology, `net::graph`): for
//! every switch and every rack (a switch with hosts), the switch's ports to neighbours
//! one hop closer to the rack, in port order. A packet for host h at a switch other than
//! h's takes one of the candidates towards h's rack; at h's switch, the port to h.
//!
//! One breadth-first search a rack over the switches builds it. The state is switches ×
//! racks offsets plus the candidates: for a k = 16 fat-tree written as a graph, 320 × 128
//! entries; `Table::bytes` bounds it before it is built (`NetSpec::memory_bytes`).

use crate::net::ids::{Node, PortId, SwitchId};
use crate::net::port::Port;
use crate::net::{Link, Switch};
use std::collections::VecDeque;

pub struct Table {
    switches: usize,
    /// Per switch: its rack's number, or u32::MAX for a switch without hosts.
    rack_of_switch: Vec<u32>,
    /// Switch s's candidates towards rack r are `ports[at[r * switches + s]..at[r * switches + s + 1]]`.
    at: Vec<u32>,
    ports: Vec<PortId>,
}

impl Table {
    /// The rules of the network whose switches, ports and links are given; `edge`: each
    /// host's switch.
    pub fn build(switches: &[Switch], ports: &[Port], links: &[Link], edge: &[SwitchId]) -> Table {
        let far = |p: PortId| links[ports[p.index()].link.index()].to;
        let mut rack_of_switch = vec![u32::MAX; switches.len()];
        for s in edge {
            rack_of_switch[s.index()] = 0;
        }
        let mut racks = 0;
        for r in rack_of_switch.iter_mut().filter(|r| **r == 0) {
            *r = racks;
            racks += 1;
        }
        let rack_switches: Vec<usize> = (0..switches.len()).filter(|&s| rack_of_switch[s] != u32::MAX).collect();
        let mut at = Vec::with_capacity(switches.len() * racks as usize + 1);
        let mut out = Vec::new();
        at.push(0);
        for &r in &rack_switches {
            let dist = hops_to(switches, &far, r);
            for (s, sw) in switches.iter().enumerate() {
                let closer = |p: &&PortId| match far(**p) {
                    Node::Switch(n) => s != r && dist[n.index()].wrapping_add(1) == dist[s],
                    Node::Host(_) => false,
                };
                out.extend(sw.ports.iter().filter(closer));
                at.push(u32::try_from(out.len()).expect("candidate counts fit in u32"));
            }
        }
        Table { switches: switches.len(), rack_of_switch, at, ports: out }
    }

    /// The candidates of `switch` towards the rack of switch `edge` (which is not `switch`).
    pub fn towards(&self, switch: SwitchId, edge: SwitchId) -> &[PortId] {
        let r = self.rack_of_switch[edge.index()] as usize;
        let i = r * self.switches + switch.index();
        &self.ports[self.at[i] as usize..self.at[i + 1] as usize]
    }

    pub fn entries(&self) -> usize {
        self.rack_of_switch.len() + self.at.len() + self.ports.len()
    }

    /// At most how many bytes the rules of `switches` switches, `racks` racks and
    /// `switch_ports` ports between switches take: an offset per (switch, rack), and per
    /// rack at most every such port as a candidate.
    pub fn bytes(switches: u64, racks: u64, switch_ports: u64) -> u64 {
        let offsets = switches.saturating_mul(racks).saturating_add(switches);
        offsets.saturating_add(racks.saturating_mul(switch_ports)).saturating_mul(4)
    }
}

/// Hops from every switch to switch `to` (u32::MAX: unreached), over cables between
/// switches (each cable is a link both ways, so hops to and from are the same).
fn hops_to(switches: &[Switch], far: &impl Fn(PortId) -> Node, to: usize) -> Vec<u32> {
    let mut dist = vec![u32::MAX; switches.len()];
    dist[to] = 0;
    let mut q = VecDeque::from([to]);
    while let Some(s) = q.pop_front() {
        for &p in &switches[s].ports {
            if let Node::Switch(n) = far(p) {
                if dist[n.index()] == u32::MAX {
                    dist[n.index()] = dist[s] + 1;
                    q.push_back(n.index());
                }
            }
        }
    }
    dist
}
