//! What a transport needs to know of the network: the path of one message (for its
//! ideal latency) and the round trip and bandwidth-delay product of the longest path
//! (for windows given as `"bdp"` and HPCC's T).

use crate::measure::ideal::{pipeline, Hop, Train};
use crate::net::ids::HostId;
use crate::net::topology::{LinkSpec, NetSpec, Shape};
use crate::net::Network;
use crate::sim::{Rate, Time};

/// One message's path in the empty network, both ways, with the transmit software
/// delays of its two hosts (the receive delays are in the last hop's delay).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Path {
    pub fwd: Vec<Hop>,
    pub rev: Vec<Hop>,
    pub src_tx_delay: Time,
    pub dst_tx_delay: Time,
}

impl Path {
    /// The path from `from` to `to` in the built network `net`, both ways.
    pub fn between(net: &Network, from: HostId, to: HostId) -> Path {
        Path {
            fwd: hops(net, from, to),
            rev: hops(net, to, from),
            src_tx_delay: net.hosts[from.index()].tx_delay,
            dst_tx_delay: net.hosts[to.index()].tx_delay,
        }
    }
}

/// The hops from `from` to `to`. The connection key is not known before a flow exists;
/// the paths ECMP chooses among have equal rates and delays in every topology tailor
/// builds, so any key will do.
fn hops(net: &Network, from: HostId, to: HostId) -> Vec<Hop> {
    net.path(from, to, 0)
        .into_iter()
        .map(|p| {
            let port = net.port(p);
            Hop { rate: port.rate, delay: net.links[port.link.index()].delay }
        })
        .collect()
}

/// The links of the longest path of a topology (the path a BDP is computed on).
fn longest_path(shape: &Shape) -> Vec<&LinkSpec> {
    match shape {
        Shape::Graph(g) => g.longest.iter().collect(),
        Shape::Star { link, .. } => vec![link, link],
        Shape::Dumbbell { host_link, trunk, .. } => vec![host_link, trunk, host_link],
        Shape::LeafSpine { racks, host_link, fabric_link, .. } if *racks > 1 => {
            vec![host_link, fabric_link, fabric_link, host_link]
        }
        Shape::LeafSpine { host_link, .. } => vec![host_link, host_link],
        Shape::FatTree { pods, tors, host_link, fabric_link, .. } => match (*pods > 1, *tors > 1) {
            (true, _) => vec![host_link, fabric_link, fabric_link, fabric_link, fabric_link, host_link],
            (false, true) => vec![host_link, fabric_link, fabric_link, host_link],
            _ => vec![host_link, host_link],
        },
    }
}

/// The bandwidth-delay product used for `init_cwnd = "bdp"`: the first link's rate
/// times the round trip of one full-size packet and its ACK over the longest path in
/// the empty network (propagation, store-and-forward, switch and host delays). Taking
/// propagation alone would leave a lone flow window-limited on multi-hop paths (the
/// ns-3 leaf-spine anchor's quirk 2).
pub fn bdp_bytes(net: &NetSpec, mss: u64, header: u64) -> u64 {
    line_rate(net).bytes_in(base_rtt(net, mss, header))
}

/// The hops of the longest path, each with the fixed delays of its far end (and the
/// sending host's NIC delay on the first).
pub fn longest_hops(net: &NetSpec) -> Vec<Hop> {
    let links = longest_path(&net.shape);
    links
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let extra = if i + 1 == links.len() { net.host_rx_delay } else { net.switch_delay }
                + if i == 0 { net.host_nic_delay } else { Time::ZERO };
            Hop { rate: l.rate, delay: l.delay + extra }
        })
        .collect()
}

/// The rate of the first link of the longest path (a host's link).
pub fn line_rate(net: &NetSpec) -> Rate {
    longest_path(&net.shape)[0].rate
}

/// The round trip of one full-size packet and its ACK over the longest path in the
/// empty network: the RTT behind `"bdp"`, and HPCC's T.
pub fn base_rtt(net: &NetSpec, mss: u64, header: u64) -> Time {
    let hops = longest_hops(net);
    net.host_tx_delay
        + net.host_tx_delay
        + pipeline(&hops, Train::of(mss, mss, header))
        + pipeline(&hops, Train::of(0, mss, header))
}
