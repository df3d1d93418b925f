//! Where the fast model applies: one bottleneck that every class's traffic crosses.
//!
//! The SWP model (§4, Fig. 5) is "a single bottleneck with an infinite queue"; its
//! authors justify it by incast and last-hop congestion (§4.1) and check it on one
//! bottleneck link (§5.1). Run on traffic that spreads over many links it squeezes it all
//! through one and answers wrongly without a word (quickstart's all-to-all RPCs came out
//! with a p99 of 5.07 against 2.03 on the packet engine), so the model runs only when
//! the scenario has such a link, decided from where its messages go:
//!
//! - every message goes to one receiver: the switch port towards it (its host link) is
//!   the one link they all cross, whatever the topology;
//! - in a dumbbell, every message crosses the trunk in the same direction (all senders
//!   on one side, all receivers on the other) and the trunk is no faster than the host
//!   links: the trunk.
//!
//! When both hold, the slower link is the bottleneck (the trunk on a tie: it comes first,
//! so the queue builds there). A link that only part of the traffic crosses (a trunk
//! or fabric link) must be at least as fast as the bottleneck, or queues could build
//! there too. A host's NIC is not a candidate: one sender to many receivers queues in the
//! host, where no switch discipline or ECN marking applies. Anything else is refused,
//! naming the class and the reason. `[model] bottleneck` states the link instead and
//! the user takes the responsibility: nothing is checked then.
//!
//! A trace's senders and receivers are those its rows name (its `receiver` column may
//! send rows anywhere): the pass that reads the trace when the scenario is read collects
//! them (`Scenario::traces`), so the scope reads no file again.

use super::model::LinkKind;
use super::reader::ScenarioError;
use super::{ClassKind, Scenario};
use crate::net::ids::HostId;
use crate::net::topology::{LinkSpec, Shape};
use crate::sim::Rate;
use crate::workload::Pattern;
use std::collections::BTreeSet;

/// The one link the model stands for.
#[derive(Clone, Debug, PartialEq)]
pub struct Bottleneck {
    pub link: Link,
    pub rate: Rate,
    /// The ECN threshold of the switch port feeding it (the link's own, else the
    /// switches' default).
    pub ecn_threshold: Option<u64>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Link {
    /// The switch port towards this host: every message goes to it.
    Into(HostId),
    /// A dumbbell's trunk, crossed by every message in one direction.
    Trunk,
    /// What `[model] bottleneck` states.
    Stated(LinkKind),
}

impl Bottleneck {
    /// For people: "the link into host 15", "the trunk", "[model] bottleneck = \"trunk\" (stated, not checked)".
    pub fn describe(&self) -> String {
        match &self.link {
            Link::Into(h) => format!("the link into host {}", h.index()),
            Link::Trunk => "the trunk".into(),
            Link::Stated(k) => format!("[model] bottleneck = \"{}\" (stated, not checked)", k.name()),
        }
    }
}

/// Where a class's messages go: its senders and receivers (host indices).
#[derive(Clone, Debug, Default, PartialEq)]
struct Traffic {
    senders: BTreeSet<usize>,
    receivers: BTreeSet<usize>,
}

/// The bottleneck of `sc`, or why the fast model does not apply to it.
pub fn bottleneck(sc: &Scenario) -> Result<Bottleneck, ScenarioError> {
    let shape = &sc.net.shape;
    if let Shape::Graph(_) = shape {
        return Err(ScenarioError {
            file: sc.file.clone(),
            path: "topology.kind".into(),
            message: "is a graph, and the fast model's one bottleneck is found and checked on the parameterised \
                 topologies only; accepted: --engine packet for a graph"
                .into(),
        });
    }
    let of = |spec: &LinkSpec, link: Link| Bottleneck {
        link,
        rate: spec.rate,
        ecn_threshold: crate::net::mechanism::step_threshold(&sc.net, spec),
    };
    if let Some(kind) = sc.model.bottleneck {
        return Ok(of(kind.spec(shape), Link::Stated(kind)));
    }
    let traffic = (0..sc.classes.len()).map(|i| traffic(sc, i)).collect::<Result<Vec<_>, _>>()?;
    let mut found: Option<Bottleneck> = None;
    let receivers: BTreeSet<usize> = traffic.iter().flat_map(|t| t.receivers.iter().copied()).collect();
    if let [r] = receivers.iter().copied().collect::<Vec<_>>()[..] {
        found = Some(of(LinkKind::HostLink.spec(shape), Link::Into(HostId::new(r))));
    }
    // A trunk faster than the host links is not where the queues of several receivers
    // (or senders) build: each of their links is slower.
    if let Shape::Dumbbell { trunk, host_link, .. } = shape {
        let crosses_all = one_way_across(shape, &traffic) && trunk.rate <= host_link.rate;
        if crosses_all && found.as_ref().is_none_or(|b| trunk.rate <= b.rate) {
            found = Some(of(trunk, Link::Trunk));
        }
    }
    let Some(b) = found else { return Err(spread(sc, &traffic)) };
    check_other_links(sc, &traffic, &b)?;
    Ok(b)
}

/// The senders and receivers of class `i`.
fn traffic(sc: &Scenario, i: usize) -> Result<Traffic, ScenarioError> {
    let set = |hosts: &[HostId]| hosts.iter().map(|h| h.index()).collect::<BTreeSet<_>>();
    match &sc.classes[i].kind {
        ClassKind::Generated { pattern, .. } => Ok(match pattern {
            Pattern::NToOne { senders, receiver } => Traffic { senders: set(senders), receivers: set(&[*receiver]) },
            Pattern::AllToAll { senders, receivers } => Traffic { senders: set(senders), receivers: set(receivers) },
            Pattern::Permutation { hosts } => Traffic { senders: set(hosts), receivers: set(hosts) },
        }),
        ClassKind::Trace { .. } => trace_traffic(sc, i),
    }
}

/// Class `i`'s senders and receivers, as reading its trace with the scenario found them.
fn trace_traffic(sc: &Scenario, i: usize) -> Result<Traffic, ScenarioError> {
    let scan = sc.traces.get(i).and_then(Option::as_ref).ok_or_else(|| ScenarioError {
        file: sc.file.clone(),
        path: format!("class[{i}].trace"),
        message: "was not read with the scenario; accepted: a scenario read by Scenario::load or resolve".into(),
    })?;
    Ok(Traffic { senders: scan.senders.clone(), receivers: scan.receivers.clone() })
}

/// The group of switches a host hangs off: the dumbbell's side, the leaf-spine's rack,
/// the fat-tree's ToR (a star has one). Traffic between groups crosses the trunk or the
/// fabric.
fn group(shape: &Shape, host: usize) -> usize {
    match *shape {
        Shape::Star { .. } => 0,
        Shape::Dumbbell { left, .. } => usize::from(host >= left),
        Shape::LeafSpine { hosts_per_rack, .. } => host / hosts_per_rack,
        Shape::FatTree { hosts_per_tor, .. } => host / hosts_per_tor,
        Shape::Graph(ref g) => g.racks[host] as usize,
    }
}

fn groups(shape: &Shape, hosts: &BTreeSet<usize>) -> BTreeSet<usize> {
    hosts.iter().map(|&h| group(shape, h)).collect()
}

/// Whether every message crosses between groups in one direction: all senders in one
/// group, all receivers in another.
fn one_way_across(shape: &Shape, traffic: &[Traffic]) -> bool {
    let senders = groups(shape, &traffic.iter().flat_map(|t| t.senders.iter().copied()).collect());
    let receivers = groups(shape, &traffic.iter().flat_map(|t| t.receivers.iter().copied()).collect());
    senders.len() == 1 && receivers.len() == 1 && senders != receivers
}

/// Whether some message of the class goes from one group to another.
fn crosses_groups(shape: &Shape, t: &Traffic) -> bool {
    let (s, r) = (groups(shape, &t.senders), groups(shape, &t.receivers));
    !(s.len() == 1 && s == r)
}

/// A trunk or fabric link that part of the traffic crosses must not be slower than the
/// bottleneck: queues would build there too.
fn check_other_links(sc: &Scenario, traffic: &[Traffic], b: &Bottleneck) -> Result<(), ScenarioError> {
    let shape = &sc.net.shape;
    let (kind, spec) = match shape {
        Shape::Star { .. } => return Ok(()),
        Shape::Dumbbell { trunk, .. } => (LinkKind::Trunk, trunk),
        Shape::LeafSpine { fabric_link, .. } | Shape::FatTree { fabric_link, .. } => {
            (LinkKind::FabricLink, fabric_link)
        }
        Shape::Graph(_) => unreachable!("`bottleneck` refuses a graph first"),
    };
    if b.link == Link::Trunk || spec.rate >= b.rate || !traffic.iter().any(|t| crosses_groups(shape, t)) {
        return Ok(());
    }
    Err(ScenarioError {
        file: sc.file.clone(),
        path: format!("topology.{}.rate", kind.name()),
        message: format!(
            "{} carries part of the traffic and is slower than {} ({}): queues would build on both, and the fast model has one bottleneck (docs/model.md); accepted: {} links at least as fast as the bottleneck, or [model] bottleneck = \"{}\" (you state that every message crosses it)",
            gbps(spec.rate),
            b.describe(),
            gbps(b.rate),
            kind.name(),
            kind.name()
        ),
    })
}

/// Why no one link carries every message: the first class that sends to several hosts,
/// else the first whose receiver differs from class 0's.
fn spread(sc: &Scenario, traffic: &[Traffic]) -> ScenarioError {
    let key = |i: usize, generated: &str| match sc.classes[i].kind {
        ClassKind::Generated { .. } => format!("class[{i}].{generated}"),
        ClassKind::Trace { .. } => format!("class[{i}].trace"),
    };
    let (path, what) = match traffic.iter().position(|t| t.receivers.len() > 1) {
        Some(i) => (key(i, "pattern"), spreads(sc, i, &traffic[i])),
        None => {
            // Each class has at most one receiver (a trace may have none), and two differ.
            let to = |i: usize| traffic[i].receivers.first().copied();
            let f = (0..traffic.len()).find(|&i| to(i).is_some());
            let j = f.and_then(|f| (f + 1..traffic.len()).find(|&j| to(j).is_some_and(|r| Some(r) != to(f))));
            match (f, j) {
                (Some(f), Some(j)) => (
                    key(j, "receiver"),
                    format!(
                        "sends to host {} while class[{f}] sends to host {}: no one link carries every class's traffic",
                        to(j).unwrap_or(0),
                        to(f).unwrap_or(0)
                    ),
                ),
                _ => (key(0, "pattern"), "no class sends a message, so no link carries traffic".into()),
            }
        }
    };
    let stated = LinkKind::names(&sc.net.shape).iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(" | ");
    ScenarioError {
        file: sc.file.clone(),
        path,
        message: format!(
            "{what}; the fast model has one bottleneck (docs/model.md); accepted: n_to_1 into one receiver, a dumbbell whose trunk every message crosses one way, or [model] bottleneck = {stated} (you state the link)"
        ),
    }
}

/// "\"all_to_all\" spreads traffic over many links" and the like.
fn spreads(sc: &Scenario, i: usize, t: &Traffic) -> String {
    let n = t.receivers.len();
    match &sc.classes[i].kind {
        ClassKind::Generated { pattern: Pattern::AllToAll { .. }, .. } => {
            format!("\"all_to_all\" spreads traffic over many links (to {n} receivers)")
        }
        ClassKind::Generated { .. } => format!("\"permutation\" spreads traffic over many links (to {n} receivers)"),
        ClassKind::Trace { .. } => {
            let some: Vec<String> = t.receivers.iter().take(3).map(|r| r.to_string()).collect();
            let more = if n > 3 { ", ..." } else { "" };
            format!("the trace's rows go to {n} receivers (hosts {}{more}), over many links", some.join(", "))
        }
    }
}

fn gbps(r: Rate) -> String {
    format!("{} Gbps", r.bps() as f64 / 1e9)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    const STAR: &str = "kind = \"star\"\nhosts = 16\nlink = { rate = \"100Gbps\", delay = \"1us\" }";
    const DUMBBELL_SLOW: &str = "kind = \"dumbbell\"\nleft = 4\nright = 4\nhost_link = { rate = \"100Gbps\", delay = \"1us\" }\ntrunk = { rate = \"40Gbps\", delay = \"1us\", ecn_threshold = \"30KB\" }";
    const DUMBBELL_FAST: &str = "kind = \"dumbbell\"\nleft = 4\nright = 4\nhost_link = { rate = \"100Gbps\", delay = \"1us\" }\ntrunk = { rate = \"400Gbps\", delay = \"1us\" }";
    const LEAF_SPINE: &str = "kind = \"leaf_spine\"\nracks = 2\nhosts_per_rack = 4\nspines = 2\nhost_link = { rate = \"100Gbps\", delay = \"1us\" }\nfabric_link = { rate = \"100Gbps\", delay = \"1us\" }";
    const FAT_TREE: &str = "kind = \"fat_tree\"\nk = 4\nhost_link = { rate = \"100Gbps\", delay = \"1us\" }\nfabric_link = { rate = \"100Gbps\", delay = \"1us\" }";

    fn class(pattern: &str) -> String {
        format!("[[class]]\nsizes_fixed = \"10KB\"\narrival = \"poisson\"\nload = 0.1\nmessages = 10\n{pattern}\n")
    }

    fn scenario(topology: &str, classes: &[String], extra: &str) -> Scenario {
        let text = format!(
            "[topology]\n{topology}\n[switch]\necn_threshold = \"100KB\"\n[transport]\nkind = \"dctcp\"\n{extra}\n{}",
            classes.iter().map(|c| format!("{c}\n")).collect::<String>()
        );
        Scenario::parse(&text, "t.toml", Path::new(".")).unwrap()
    }

    fn decide(topology: &str, classes: &[String]) -> Result<Bottleneck, ScenarioError> {
        bottleneck(&scenario(topology, classes, ""))
    }

    fn refused(topology: &str, classes: &[String]) -> ScenarioError {
        decide(topology, classes).expect_err("out of the model's scope")
    }

    fn into(h: usize) -> Link {
        Link::Into(HostId::new(h))
    }

    #[test]
    fn n_to_1_classes_into_one_receiver_share_its_link() {
        let c = [
            class("pattern = \"n_to_1\"\nreceiver = 15"),
            class("pattern = \"n_to_1\"\nsenders = \"0..4\"\nreceiver = 15"),
        ];
        let b = decide(STAR, &c).unwrap();
        assert_eq!((b.link, b.rate.bps(), b.ecn_threshold), (into(15), 100_000_000_000, Some(100_000)));
    }

    #[test]
    fn all_to_all_beside_an_incast_is_refused_at_its_pattern() {
        // quickstart's shape: the RPCs go everywhere.
        let e = refused(STAR, &[class("pattern = \"n_to_1\"\nreceiver = 15"), class("pattern = \"all_to_all\"")]);
        assert_eq!((e.file.as_str(), e.path.as_str()), ("t.toml", "class[1].pattern"));
        assert!(
            e.message.starts_with("\"all_to_all\" spreads traffic over many links (to 16 receivers)"),
            "{}",
            e.message
        );
        assert!(
            e.message.contains("accepted: n_to_1 into one receiver")
                && e.message.contains("[model] bottleneck = \"link\""),
            "{}",
            e.message
        );
    }

    #[test]
    fn incasts_into_different_receivers_are_refused_at_the_receiver() {
        let e = refused(
            STAR,
            &[
                class("pattern = \"n_to_1\"\nreceiver = 15"),
                class("pattern = \"n_to_1\"\nsenders = \"0..4\"\nreceiver = 14"),
            ],
        );
        assert_eq!(e.path, "class[1].receiver");
        assert!(e.message.starts_with("sends to host 14 while class[0] sends to host 15"), "{}", e.message);
    }

    #[test]
    fn all_to_all_with_one_receiver_is_an_incast() {
        let b = decide(STAR, &[class("pattern = \"all_to_all\"\nsenders = \"0..8\"\nreceivers = [9]")]).unwrap();
        assert_eq!(b.link, into(9));
    }

    #[test]
    fn one_sender_to_many_and_permutations_are_refused() {
        // One sender's traffic shares only its NIC: no switch port, no marking there.
        let e = refused(STAR, &[class("pattern = \"all_to_all\"\nsenders = [0]\nreceivers = \"1..5\"")]);
        assert_eq!(e.path, "class[0].pattern");
        assert!(e.message.contains("(to 4 receivers)"), "{}", e.message);
        let e = refused(STAR, &[class("pattern = \"permutation\"\nhosts = \"0..4\"")]);
        assert_eq!(e.path, "class[0].pattern");
        assert!(e.message.starts_with("\"permutation\" spreads traffic"), "{}", e.message);
    }

    #[test]
    fn a_dumbbell_trunk_crossed_one_way_is_the_bottleneck() {
        let across = class("pattern = \"all_to_all\"\nsenders = \"0..4\"\nreceivers = \"4..8\"");
        let b = decide(DUMBBELL_SLOW, std::slice::from_ref(&across)).unwrap();
        assert_eq!((b.link, b.rate.bps(), b.ecn_threshold), (Link::Trunk, 40_000_000_000, Some(30_000)));
        // Faster than the host links, the trunk is not where many receivers' queues build.
        let e = refused(DUMBBELL_FAST, &[across]);
        assert_eq!(e.path, "class[0].pattern");
        // Into one receiver: the slower of the trunk and the receiver's link.
        let incast = class("pattern = \"n_to_1\"\nsenders = \"0..4\"\nreceiver = 7");
        assert_eq!(decide(DUMBBELL_SLOW, std::slice::from_ref(&incast)).unwrap().link, Link::Trunk);
        assert_eq!(decide(DUMBBELL_FAST, &[incast]).unwrap().link, into(7));
    }

    #[test]
    fn a_slower_link_that_part_of_the_traffic_crosses_is_refused() {
        // Senders on both sides of a 40 Gbps trunk into one 100 Gbps receiver: two bottlenecks.
        let e = refused(DUMBBELL_SLOW, &[class("pattern = \"n_to_1\"\nreceiver = 7")]);
        assert_eq!(e.path, "topology.trunk.rate");
        assert!(
            e.message
                .starts_with("40 Gbps carries part of the traffic and is slower than the link into host 7 (100 Gbps)"),
            "{}",
            e.message
        );
        let slow_fabric = LEAF_SPINE.replace("fabric_link = { rate = \"100Gbps\"", "fabric_link = { rate = \"25Gbps\"");
        let e = refused(&slow_fabric, &[class("pattern = \"n_to_1\"\nreceiver = 7")]);
        assert_eq!(e.path, "topology.fabric_link.rate");
        // Within one rack the fabric is not on the way.
        let b = decide(&slow_fabric, &[class("pattern = \"n_to_1\"\nsenders = \"4..7\"\nreceiver = 7")]).unwrap();
        assert_eq!(b.link, into(7));
    }

    #[test]
    fn an_incast_in_a_leaf_spine_or_fat_tree_is_the_receivers_downlink() {
        assert_eq!(decide(LEAF_SPINE, &[class("pattern = \"n_to_1\"\nreceiver = 7")]).unwrap().link, into(7));
        assert_eq!(decide(FAT_TREE, &[class("pattern = \"n_to_1\"\nreceiver = 0")]).unwrap().link, into(0));
        let e = refused(FAT_TREE, &[class("pattern = \"all_to_all\"")]);
        assert_eq!(e.path, "class[0].pattern");
    }

    #[test]
    fn a_traces_receivers_are_read_from_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            std::fs::write(dir.path().join(name), text).unwrap();
            dir.path().join(name).display().to_string()
        };
        let spread = write("spread.csv", "flow_id,sender,receiver,size_bytes,start_ns\n1,0,5,100,0\n2,1,6,100,10\n");
        let one = write("one.csv", "flow_id,sender,receiver,size_bytes,start_ns\n1,0,5,100,0\n2,1,5,100,10\n");
        let plain = write("plain.csv", "flow_id,sender,size_bytes,start_ns\n1,0,100,0\n2,1,100,10\n");
        let trace = |file: &str, extra: &str| format!("[[class]]\ntrace = \"{file}\"\n{extra}\n");
        let e = refused(STAR, &[trace(&spread, "")]);
        assert_eq!(e.path, "class[0].trace");
        assert!(e.message.starts_with("the trace's rows go to 2 receivers (hosts 5, 6)"), "{}", e.message);
        assert_eq!(decide(STAR, &[trace(&one, "")]).unwrap().link, into(5));
        assert_eq!(decide(STAR, &[trace(&plain, "receiver = 9")]).unwrap().link, into(9));
        let e = refused(STAR, &[trace(&plain, "receiver = 9"), class("pattern = \"n_to_1\"\nreceiver = 15")]);
        assert_eq!(e.path, "class[1].receiver");
        // A trace with no row of its class never reaches the scope: reading refuses it.
        let empty = write("empty.csv", "flow_id,sender,receiver,size_bytes,start_ns\n");
        let text = format!("[topology]\n{STAR}\n[transport]\nkind = \"dctcp\"\n{}", trace(&empty, ""));
        let e = Scenario::parse(&text, "t.toml", Path::new(".")).unwrap_err();
        assert_eq!(e.path, "class[0].trace", "{e}");
    }

    #[test]
    fn a_stated_bottleneck_is_taken_as_stated() {
        let all = [class("pattern = \"all_to_all\"")];
        let b = bottleneck(&scenario(STAR, &all, "[model]\nbottleneck = \"link\"")).unwrap();
        assert_eq!((&b.link, b.rate.bps()), (&Link::Stated(LinkKind::Link), 100_000_000_000));
        assert_eq!(b.describe(), "[model] bottleneck = \"link\" (stated, not checked)");
        let b = bottleneck(&scenario(DUMBBELL_SLOW, &all, "[model]\nbottleneck = \"trunk\"")).unwrap();
        assert_eq!((b.rate.bps(), b.ecn_threshold), (40_000_000_000, Some(30_000)));
        let text =
            format!("[topology]\n{STAR}\n[transport]\nkind = \"dctcp\"\n[model]\nbottleneck = \"trunk\"\n{}", all[0]);
        let e = Scenario::parse(&text, "t.toml", Path::new(".")).unwrap_err();
        assert_eq!(e.path, "model.bottleneck");
        assert!(e.message.contains("accepted: \"link\""), "{}", e.message);
    }

    #[test]
    fn the_model_runs_at_the_bottlenecks_rate_with_flows_starting_at_line_rate() {
        let sc =
            scenario(DUMBBELL_SLOW, &[class("pattern = \"all_to_all\"\nsenders = \"0..4\"\nreceivers = \"4..8\"")], "");
        let cfg = super::super::model::config(&sc).unwrap();
        assert_eq!((cfg.capacity_bps, cfg.cc.r0, cfg.cc.q0), (40e9, 2.5, 30_000.0));
        let sc = scenario(STAR, &[class("pattern = \"n_to_1\"\nreceiver = 15")], "");
        let cfg = super::super::model::config(&sc).unwrap();
        assert_eq!((cfg.capacity_bps, cfg.cc.r0, cfg.cc.q0), (100e9, 1.0, 100_000.0));
    }
}
