//! A topology given as a graph (docs/scenario.md, "Graph topologies"): hosts, switches
//! and the cables between them, each cable with its own rate and delay, read from an
//! edge list. It is for fabrics no parameterised shape describes (a torus, a Jellyfish,
//! a fabric with a failed link, another simulator's topology file), and it is what
//! `tailor import hpcc-ns3` writes when a topology is not a fat-tree (issue 29).
//!
//! The file has one cable a line: its two ends, its rate and its one-way delay,
//! `h0 s0 100Gbps 1us`. An end is `hN` (host N) or `sN` (switch N), numbered from 0
//! without gaps; `#` starts a comment. A host has exactly one cable, to a switch, and
//! every host's cable has the same rate (a class's load is a share of it). Ports are
//! built in the file's order, each cable's first end first, so a file that lists the
//! cables of a fat-tree in the order `topology::build` wires them builds the same
//! network, port for port (`tests/graph_topology.rs`).
//!
//! Routing is by shortest paths in hops with ECMP over every next hop on one
//! (`routing::Table`), as ECMP routes in a Clos fabric and as the HPCC authors' ns-3
//! programs route. A switch's tier is its distance in hops to the nearest host less one
//! (a ToR is 0), which names its ports' roles: up towards a higher tier, down towards a
//! lower one, trunk between switches of one tier.

use super::topology::LinkSpec;
use crate::input::error::ScenarioError;
use crate::input::units::{parse_rate, parse_time};
use crate::sim::{Rate, Time};
use std::collections::VecDeque;

/// The most hosts or switches a graph may number (as many as a star may have hosts).
pub const MAX_NODES: usize = 1 << 20;

/// One end of a cable.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum End {
    Host(u32),
    Switch(u32),
}

impl std::fmt::Display for End {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            End::Host(h) => write!(f, "h{h}"),
            End::Switch(s) => write!(f, "s{s}"),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Cable {
    pub a: End,
    pub b: End,
    pub link: LinkSpec,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Graph {
    pub hosts: usize,
    pub switches: usize,
    /// In the file's order, the order the ports are built in.
    pub cables: Vec<Cable>,
    /// Per switch: hops to the nearest host, less one.
    pub tiers: Vec<u8>,
    /// Per host: its rack, the rank of its switch among the switches with hosts.
    pub racks: Vec<u32>,
    /// The cables of the path with the longest round trip in the empty network (of the
    /// paths ECMP's first choice takes between hosts of two racks; `longest`).
    pub longest: Vec<LinkSpec>,
}

fn error(file: &str, line: usize, message: String) -> ScenarioError {
    ScenarioError { file: file.to_string(), path: format!("line {line}"), message }
}

fn end(token: &str) -> Result<End, String> {
    let accepted = "accepted: hN for host N or sN for switch N (N from 0)";
    let (kind, digits) = token.split_at(token.find(|c: char| c.is_ascii_digit()).unwrap_or(token.len()));
    let n: usize = match digits.parse::<usize>() {
        Ok(n) if n < MAX_NODES && (digits == "0" || !digits.starts_with('0')) => n,
        _ => return Err(format!("\"{token}\" is not a host or a switch; {accepted}, N below {MAX_NODES}")),
    };
    match kind {
        "h" => Ok(End::Host(n as u32)),
        "s" => Ok(End::Switch(n as u32)),
        _ => Err(format!("\"{token}\" is not a host or a switch; {accepted}")),
    }
}

/// A cable's line: `END END RATE DELAY`.
fn cable(fields: &[&str]) -> Result<Cable, String> {
    let [a, b, rate, delay] = fields else {
        return Err(format!(
            "has {} fields; accepted: two ends, a rate and a delay, such as \"h0 s0 100Gbps 1us\"",
            fields.len()
        ));
    };
    let (a, b) = (end(a)?, end(b)?);
    if a == b {
        return Err(format!("joins {a} to itself; accepted: a cable between two nodes"));
    }
    if let (End::Host(_), End::Host(_)) = (a, b) {
        return Err(format!("joins two hosts ({a}, {b}); accepted: a host's cable goes to a switch"));
    }
    let rate = parse_rate(rate)?;
    let delay = parse_time(delay)?;
    Ok(Cable { a, b, link: LinkSpec { rate, delay, mechanisms: Vec::new() } })
}

impl Graph {
    /// Reads an edge list; `file` names it in errors, which give the line.
    pub fn parse(text: &str, file: &str) -> Result<Graph, ScenarioError> {
        let mut cables = Vec::new();
        let mut lines = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let content = raw.split('#').next().unwrap_or("");
            let fields: Vec<&str> = content.split_whitespace().collect();
            if fields.is_empty() {
                continue;
            }
            cables.push(cable(&fields).map_err(|m| error(file, i + 1, m))?);
            lines.push(i + 1);
        }
        let nodes = Nodes::count(&cables, file)?;
        let host_of = nodes.host_cables(&cables, &lines, file)?;
        let adjacency = switch_adjacency(&cables, nodes.switches);
        let tiers = tiers(&cables, &host_of, &adjacency, nodes.switches, file)?;
        connected(&cables, &host_of, &adjacency, file)?;
        let racks = racks(&cables, &host_of, nodes.switches);
        let mut g = Graph { hosts: nodes.hosts, switches: nodes.switches, cables, tiers, racks, longest: Vec::new() };
        g.longest = longest(&g, &host_of, &adjacency);
        Ok(g)
    }

    /// The rate every host's cable has.
    pub fn host_rate(&self) -> Rate {
        self.host_cable(0).link.rate
    }

    /// The cable of host `h`.
    pub fn host_cable(&self, h: usize) -> &Cable {
        let is_h = |e: End| e == End::Host(h as u32);
        self.cables.iter().find(|c| is_h(c.a) || is_h(c.b)).expect("every host has a cable (parse checked)")
    }

    /// A digest of its cables (SHA-256 of one line a cable: ends, bit/s, ps), which names
    /// what a run computes on whatever the file's name, comments or spacing.
    pub fn digest(&self) -> String {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        for c in &self.cables {
            h.update(format!("{} {} {} {}\n", c.a, c.b, c.link.rate.bps(), c.link.delay.ps()).as_bytes());
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The egress ports `topology::build` makes: two a cable.
    pub fn port_count(&self) -> usize {
        2 * self.cables.len()
    }
}

/// How many hosts and switches the cables name, checked to be numbered without gaps.
struct Nodes {
    hosts: usize,
    switches: usize,
}

impl Nodes {
    fn count(cables: &[Cable], file: &str) -> Result<Nodes, ScenarioError> {
        let whole = |m: String| ScenarioError { file: file.to_string(), path: String::new(), message: m };
        let (mut hosts, mut switches) = (Vec::new(), Vec::new());
        for c in cables {
            for e in [c.a, c.b] {
                let (seen, n) = match e {
                    End::Host(n) => (&mut hosts, n as usize),
                    End::Switch(n) => (&mut switches, n as usize),
                };
                if seen.len() <= n {
                    seen.resize(n + 1, false);
                }
                seen[n] = true;
            }
        }
        if hosts.len() < 2 || switches.is_empty() {
            return Err(whole(format!(
                "has {} hosts and {} switches; accepted: cables joining at least two hosts through switches",
                hosts.len(),
                switches.len()
            )));
        }
        for (what, seen) in [("h", &hosts), ("s", &switches)] {
            if let Some(gap) = seen.iter().position(|&s| !s) {
                let last = seen.len() - 1;
                return Err(whole(format!(
                    "names {what}{last} but no cable of {what}{gap}; accepted: nodes numbered from {what}0 without gaps"
                )));
            }
        }
        Ok(Nodes { hosts: hosts.len(), switches: switches.len() })
    }

    /// Each host's cable (index), checked: one a host, all of one rate.
    fn host_cables(&self, cables: &[Cable], lines: &[usize], file: &str) -> Result<Vec<usize>, ScenarioError> {
        let mut host_of = vec![usize::MAX; self.hosts];
        let mut first: Option<(u32, Rate)> = None;
        for (i, c) in cables.iter().enumerate() {
            let h = match (c.a, c.b) {
                (End::Host(h), _) | (_, End::Host(h)) => h,
                _ => continue,
            };
            if host_of[h as usize] != usize::MAX {
                let m = format!(
                    "gives h{h} a second cable (its first is on line {}); accepted: one cable a host",
                    lines[host_of[h as usize]]
                );
                return Err(error(file, lines[i], m));
            }
            host_of[h as usize] = i;
            match first {
                None => first = Some((h, c.link.rate)),
                Some((h0, r0)) if r0 != c.link.rate => {
                    let show = crate::input::units::show_rate;
                    let m = format!(
                        "gives h{h} a cable of {} where h{h0}'s is {}; accepted: one rate for every host's cable (a class's load is a share of it)",
                        show(c.link.rate),
                        show(r0)
                    );
                    return Err(error(file, lines[i], m));
                }
                Some(_) => {}
            }
        }
        Ok(host_of)
    }
}

/// Per switch: (neighbouring switch, cable) in cable order, which is the order of the
/// ports `build` gives the switch (a cable's ports are `2 i` at its first end, `2 i + 1`
/// at its second).
fn switch_adjacency(cables: &[Cable], switches: usize) -> Vec<Vec<(u32, usize)>> {
    let mut adj = vec![Vec::new(); switches];
    for (i, c) in cables.iter().enumerate() {
        if let (End::Switch(a), End::Switch(b)) = (c.a, c.b) {
            adj[a as usize].push((b, i));
            adj[b as usize].push((a, i));
        }
    }
    adj
}

/// The switch a host's cable goes to.
fn switch_of(c: &Cable) -> u32 {
    match (c.a, c.b) {
        (End::Switch(s), _) | (_, End::Switch(s)) => s,
        _ => unreachable!("a host's cable goes to a switch (parse checked)"),
    }
}

/// Hops between switches from `from` (a breadth-first search; u32::MAX: unreached).
fn hops_from(adj: &[Vec<(u32, usize)>], from: &[u32]) -> Vec<u32> {
    let mut dist = vec![u32::MAX; adj.len()];
    let mut q = VecDeque::new();
    for &s in from {
        if dist[s as usize] == u32::MAX {
            dist[s as usize] = 0;
            q.push_back(s);
        }
    }
    while let Some(s) = q.pop_front() {
        for &(n, _) in &adj[s as usize] {
            if dist[n as usize] == u32::MAX {
                dist[n as usize] = dist[s as usize] + 1;
                q.push_back(n);
            }
        }
    }
    dist
}

fn tiers(
    cables: &[Cable],
    host_of: &[usize],
    adj: &[Vec<(u32, usize)>],
    switches: usize,
    file: &str,
) -> Result<Vec<u8>, ScenarioError> {
    let edges: Vec<u32> = host_of.iter().map(|&c| switch_of(&cables[c])).collect();
    let dist = hops_from(adj, &edges);
    let whole = |m: String| ScenarioError { file: file.to_string(), path: String::new(), message: m };
    (0..switches)
        .map(|s| match dist[s] {
            u32::MAX => Err(whole(format!("s{s} is joined to no host; accepted: every switch on a path to a host"))),
            d if d > u8::MAX as u32 => {
                Err(whole(format!("s{s} is {d} hops from the nearest host; accepted: at most {}", u8::MAX)))
            }
            d => Ok(d as u8),
        })
        .collect()
}

/// Every host reaches every other: every host's switch is reached from h0's.
fn connected(cables: &[Cable], host_of: &[usize], adj: &[Vec<(u32, usize)>], file: &str) -> Result<(), ScenarioError> {
    let dist = hops_from(adj, &[switch_of(&cables[host_of[0]])]);
    match host_of.iter().position(|&c| dist[switch_of(&cables[c]) as usize] == u32::MAX) {
        None => Ok(()),
        Some(h) => Err(ScenarioError {
            file: file.to_string(),
            path: String::new(),
            message: format!("no path joins h0 to h{h}; accepted: a connected graph"),
        }),
    }
}

fn racks(cables: &[Cable], host_of: &[usize], switches: usize) -> Vec<u32> {
    let mut has_hosts = vec![false; switches];
    for &c in host_of {
        has_hosts[switch_of(&cables[c]) as usize] = true;
    }
    let mut rank = vec![0u32; switches];
    let mut next = 0;
    for s in 0..switches {
        rank[s] = next;
        next += u32::from(has_hosts[s]);
    }
    host_of.iter().map(|&c| rank[switch_of(&cables[c]) as usize]).collect()
}

/// What a full-size packet takes on a cable: its delay and its serialization.
fn cost(link: &LinkSpec) -> Time {
    link.delay + link.rate.ser(1500)
}

/// The cables of the path between two racks' first hosts with the largest total `cost`,
/// over the path ECMP's first choice takes (at each switch the next hop on a shortest
/// path through its lowest port), found with one breadth-first search a rack: the first
/// choices towards one switch form a tree, so the cost from every switch is summed
/// outwards from it.
fn longest(g: &Graph, host_of: &[usize], adj: &[Vec<(u32, usize)>]) -> Vec<LinkSpec> {
    let mut first_host = vec![usize::MAX; g.switches];
    for (h, &c) in host_of.iter().enumerate() {
        let s = switch_of(&g.cables[c]) as usize;
        first_host[s] = first_host[s].min(h);
    }
    let racks: Vec<usize> = (0..g.switches).filter(|&s| first_host[s] != usize::MAX).collect();
    let mut best: (Time, usize, usize) = (Time::ZERO, racks[0], racks[0]);
    for &to in &racks {
        let (order, next) = first_choices(adj, to);
        let mut total = vec![Time::ZERO; g.switches];
        for &s in order.iter().skip(1) {
            let (n, c) = next[s];
            total[s] = cost(&g.cables[c].link) + total[n as usize];
        }
        for &from in &racks {
            let ends = cost(&g.cables[host_of[first_host[from]]].link) + cost(&g.cables[host_of[first_host[to]]].link);
            let t = total[from] + ends;
            if t > best.0 {
                best = (t, from, to);
            }
        }
    }
    let (_, from, to) = best;
    let (_, next) = first_choices(adj, to);
    let mut path = vec![g.cables[host_of[first_host[from]]].link.clone()];
    let mut s = from;
    while s != to {
        let (n, c) = next[s];
        path.push(g.cables[c].link.clone());
        s = n as usize;
    }
    path.push(g.cables[host_of[first_host[to]]].link.clone());
    path
}

/// The switches in order of their hops to `to`, and each one's first choice of next hop
/// towards it (switch, cable): its neighbour one hop closer through its lowest port.
fn first_choices(adj: &[Vec<(u32, usize)>], to: usize) -> (Vec<usize>, Vec<(u32, usize)>) {
    let dist = hops_from(adj, &[to as u32]);
    let mut order: Vec<usize> = (0..adj.len()).filter(|&s| dist[s] != u32::MAX).collect();
    order.sort_by_key(|&s| dist[s]);
    // A switch's neighbours are in cable order, which is its ports' order (no cable
    // joins a switch to itself): the first one closer is its lowest port's.
    let next = (0..adj.len())
        .map(|s| {
            adj[s]
                .iter()
                .find(|&&(n, _)| dist[n as usize].wrapping_add(1) == dist[s])
                .copied()
                .unwrap_or((s as u32, usize::MAX))
        })
        .collect();
    (order, next)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiers_racks_and_the_longest_round_trip() {
        // Two racks (s0, s1) through s2 and, on a slower detour, s3 and s4.
        let g = Graph::parse(
            "h0 s0 10Gbps 1us\nh1 s1 10Gbps 1us\nh2 s0 10Gbps 1us # a comment\n\n\
             s0 s2 40Gbps 1us\ns2 s1 40Gbps 1us\ns0 s3 10Gbps 5us\ns3 s4 10Gbps 5us\ns4 s1 10Gbps 5us\n",
            "t.graph",
        )
        .unwrap();
        assert_eq!((g.hosts, g.switches, g.cables.len()), (3, 5, 8));
        assert_eq!(g.tiers, [0, 0, 1, 1, 1]);
        assert_eq!(g.racks, [0, 1, 0]);
        // The shortest path (two hops through s2), not the slow detour.
        let rates: Vec<u64> = g.longest.iter().map(|l| l.rate.bps() / 1_000_000_000).collect();
        assert_eq!(rates, [10, 40, 40, 10]);
        assert_eq!(g.host_rate().bps(), 10_000_000_000);
        // Spacing and comments do not change what the graph is; a cable does.
        let same = Graph::parse(
            "h0  s0 10Gbps 1000ns\nh1 s1 10Gbps 1us\nh2 s0 10Gbps 1us\ns0 s2 40Gbps 1us\ns2 s1 40Gbps 1us\n\
             s0 s3 10Gbps 5us\ns3 s4 10Gbps 5us\ns4 s1 10Gbps 5us",
            "u.graph",
        )
        .unwrap();
        assert_eq!(g.digest(), same.digest());
        let other = Graph::parse("h0 s0 10Gbps 1us\nh1 s0 10Gbps 2us\n", "v.graph").unwrap();
        assert_ne!(g.digest(), other.digest());
    }

    #[test]
    fn node_names_are_checked() {
        assert_eq!(end("h12"), Ok(End::Host(12)));
        assert_eq!(end("s0"), Ok(End::Switch(0)));
        for bad in ["h", "s01", "x3", "h-1", "H3", "s1048576", "h1a"] {
            assert!(end(bad).unwrap_err().contains("accepted"), "{bad}");
        }
    }
}
