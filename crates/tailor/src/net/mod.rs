//! The network: hosts, switches, ports and links in arenas, addressed by typed ids.
//!
//! A link is one-way and is fed by exactly one egress port. It keeps its in-flight
//! packets in its own FIFO with their arrival times, so only its head has an event
//! pending (htsim's pipe). Fixed delays that every packet crossing a link sees — the
//! propagation delay, the processing delay of the switch it enters, the receive
//! software delay of the host it enters — are folded into the link's delay: they are
//! pure delays in series and commute with the FIFO.

pub mod agent;
pub mod ecn;
pub mod graph;
/// The network's ids live in the leaf module `crate::ids` (so that `measure` and `workload`
/// use them without importing the network); `net::ids` names the same module.
pub use crate::ids;
pub mod dequeue_red;
pub mod int;
pub mod marker;
pub mod mechanism;
pub mod memory;
pub mod nic;
pub mod overflow;
pub mod pacer;
pub mod packet;
pub mod per_class;
pub mod pfc;
pub mod phantom;
pub mod pl2;
pub mod port;
pub mod red;
pub mod routing;
pub mod sched;
pub mod topology;
pub mod wire;

use crate::sim::Time;
use ids::{HostId, LinkId, Node, PortId, SwitchId};
use packet::Packet;
use port::{Port, SharedBuffer};
use routing::Routes;
use std::collections::VecDeque;

/// `repr(C)`: what a packet's arrival reads and counts (the pipe, the counters, where the
/// link goes, its delay) in one cache line (docs/performance.md, "A thousand hosts").
#[repr(C)]
pub struct Link {
    /// Packets on the wire (their slots in `Network::wire`) with the time each reaches
    /// `to`, in order.
    pipe: VecDeque<(Time, u32)>,
    /// Packets and bytes that reached `to`.
    pub delivered: (u64, u64),
    pub to: Node,
    /// Propagation plus the fixed delay of the node it enters.
    pub delay: Time,
    pub from: PortId,
    /// The propagation delay alone (for reports).
    pub propagation: Time,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct HostStats {
    pub sent_packets: u64,
    pub sent_bytes: u64,
    pub recv_packets: u64,
    pub recv_bytes: u64,
    /// Packets that arrived for a connection that no longer exists.
    pub stale_packets: u64,
}

/// A host: its NIC port and its NIC pipeline (`nic`).
pub struct Host {
    pub nic: PortId,
    /// Software delay between the transport emitting a packet and the NIC queue (also a
    /// transmit stage; kept for ideal latency).
    pub tx_delay: Time,
    /// Packets the NIC holds before it stops pulling (None: no bound).
    pub nic_depth: Option<u32>,
    pub tx_stages: Vec<Box<dyn nic::NicStage>>,
    /// Packets inside the transmit stages, with the time each reaches the NIC queue.
    pub tx_pipe: VecDeque<(Time, Packet)>,
    pub rx_stages: Vec<Box<dyn nic::NicStage>>,
    /// Packets inside the receive stages, with the time each reaches the endpoint.
    pub rx_pipe: VecDeque<(Time, Packet)>,
    /// Its NIC's scheduler watches arriving packets (`Scheduler::observe_arrival`: HULL's
    /// pacer); others are not called.
    pub watches_arrivals: bool,
    pub stats: HostStats,
}

pub struct Switch {
    pub shared: Option<SharedBuffer>,
    /// Packets and bytes that arrived at the switch.
    pub received: (u64, u64),
    /// Packets and bytes its agent consumed, and emitted of its own.
    pub consumed: (u64, u64),
    pub emitted: (u64, u64),
    /// Packets and bytes its agent dropped.
    pub dropped: (u64, u64),
    /// 0 = ToR / edge, 1 = spine / aggregation, 2 = core.
    pub tier: u8,
    pub ports: Vec<PortId>,
}

pub struct Network {
    pub hosts: Vec<Host>,
    pub switches: Vec<Switch>,
    pub ports: Vec<Port>,
    pub links: Vec<Link>,
    pub routes: Routes,
    /// The INT stacks of HPCC packets in flight.
    pub int: int::Pool,
    /// The packets on the links' wires.
    pub wire: wire::Wire,
    /// The switches' memory when a mechanism admits by ingress (PFC, `[switch] pfc`).
    pub memory: Option<Box<dyn memory::Memory>>,
}

impl Link {
    pub fn new(from: PortId, to: Node, delay: Time, propagation: Time) -> Link {
        Link { pipe: VecDeque::new(), delivered: (0, 0), to, delay, from, propagation }
    }
    /// Packets on its wire.
    pub fn on_wire(&self) -> usize {
        self.pipe.len()
    }
}

impl Network {
    /// The port at the other end of `p`'s cable: the one that sends back over it.
    /// `topology::build` makes a cable's two ports one after the other, so it is `p`'s
    /// neighbour in id order.
    pub fn reverse(&self, p: PortId) -> PortId {
        let r = PortId::new(p.index() ^ 1);
        debug_assert_eq!(self.links[self.ports[p.index()].link.index()].to, self.ports[r.index()].owner);
        r
    }

    /// Puts `pkt` on link `l` to reach its far end at `at`; true when it is the only
    /// packet on that wire (the caller then schedules its arrival).
    #[inline]
    pub fn launch(&mut self, l: LinkId, at: Time, pkt: Packet) -> bool {
        let slot = self.wire.put(pkt);
        let pipe = &mut self.links[l.index()].pipe;
        pipe.push_back((at, slot));
        pipe.len() == 1
    }

    /// Takes the head packet off link `l`'s wire, with the arrival time of the one after
    /// it, if any; None when nothing is on the wire.
    #[inline]
    pub fn land(&mut self, l: LinkId) -> Option<(Packet, Option<Time>)> {
        let pipe = &mut self.links[l.index()].pipe;
        let (_, slot) = pipe.pop_front()?;
        let next = pipe.front().map(|&(t, _)| t);
        Some((self.wire.take(slot), next))
    }

    /// The packets on link `l`'s wire, the first to arrive first.
    pub fn wire_of(&self, l: LinkId) -> impl Iterator<Item = &Packet> {
        self.links[l.index()].pipe.iter().map(|&(_, s)| self.wire.get(s))
    }

    /// The packet that reaches the end of link `l` next.
    pub fn wire_head(&self, l: LinkId) -> Option<&Packet> {
        self.links[l.index()].pipe.front().map(|&(_, s)| self.wire.get(s))
    }

    pub fn port(&self, p: PortId) -> &Port {
        &self.ports[p.index()]
    }

    /// The egress port `switch` uses for this packet (ECMP on the flow key `key`, or
    /// spraying; `spray` is the random draw used when spraying).
    #[inline]
    pub fn next_port(&self, switch: SwitchId, pkt: &Packet, key: u64, spray: impl FnOnce(usize) -> usize) -> PortId {
        let cands = self.routes.candidates(switch, pkt.dst);
        let i = match cands.len() {
            1 => 0,
            n => match self.routes.choice {
                routing::PathChoice::Ecmp => self.routes.ecmp_index(key, switch, n),
                routing::PathChoice::Spray => spray(n),
            },
        };
        cands[i]
    }

    /// The egress ports a packet of flow `key` takes from `src` to `dst` under ECMP
    /// (for spraying: the first shortest path; every one has the same rates in the
    /// topologies tailor builds).
    pub fn path(&self, src: HostId, dst: HostId, key: u64) -> Vec<PortId> {
        let mut hops = vec![self.hosts[src.index()].nic];
        let mut node = self.links[self.port(hops[0]).link.index()].to;
        while let Node::Switch(s) = node {
            let cands = self.routes.candidates(s, dst);
            let i = match self.routes.choice {
                routing::PathChoice::Ecmp if cands.len() > 1 => self.routes.ecmp_index(key, s, cands.len()),
                _ => 0,
            };
            let p = cands[i];
            hops.push(p);
            node = self.links[self.port(p).link.index()].to;
        }
        debug_assert_eq!(node, Node::Host(dst));
        hops
    }

    /// Bytes queued in every port, on every wire and in every host's NIC stages.
    pub fn in_flight(&self) -> (u64, u64) {
        let mut pkts = 0u64;
        let mut bytes = 0u64;
        for p in &self.ports {
            pkts += p.queued_packets() as u64;
            bytes += p.queued_bytes();
        }
        for l in &self.links {
            pkts += l.pipe.len() as u64;
            bytes += l.pipe.iter().map(|&(_, s)| self.wire.get(s).wire_bytes as u64).sum::<u64>();
        }
        for h in &self.hosts {
            pkts += (h.tx_pipe.len() + h.rx_pipe.len()) as u64;
            bytes += h.tx_pipe.iter().chain(&h.rx_pipe).map(|(_, p)| p.wire_bytes as u64).sum::<u64>();
        }
        (pkts, bytes)
    }
}
