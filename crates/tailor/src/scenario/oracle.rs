//! What the oracle can stand for, checked before it runs: each error names the scenario
//! key that puts the scenario outside it and what would be accepted (docs/oracle.md,
//! "Scope").
//!
//! - The network must be limited by its host links: the oracle schedules those and lets
//!   the fabric carry the result without queueing, which only a fabric that is not
//!   oversubscribed (and whose links are no slower than a host's) can.
//! - Every class is one-way: an RPC's response starts when its request has arrived, a
//!   dependency a schedule of independent messages does not have.
//! - Every class's transport says how it frames a message and that its ideal is the
//!   one-way delivery of those packets (`Transport::frames`), so that the oracle sends
//!   the packets the transport would and a message alone meets its ideal.
//! - Nothing is recorded that the oracle does not have: queues and waits.
//! - No network mechanism is on that the registry says the oracle cannot stand for
//!   (`net::mechanism`'s `oracle_refuses`).
//!
//! The check reads a whole scenario, so it lives with the scenario reader (as the fast
//! model's scope does, `scenario::scope`); the oracle itself takes the built run only.

use super::reader::ScenarioError;
use super::{ClassKind, Scenario};
use crate::net::mechanism::{refusal, Engine};
use crate::net::topology::{LinkSpec, Shape};

/// The registry's transports that, configured with their defaults on `net`, tell the
/// oracle their packets (`Transport::frames`): computed, so that the list in the error
/// names every transport that can run here and no other.
pub fn framed(net: &crate::net::topology::NetSpec) -> String {
    let empty = toml::Table::new();
    let names: Vec<&str> = crate::transport::registry::TRANSPORTS
        .iter()
        .filter(|e| (e.parse)(&mut crate::input::Table::root("", &empty), net).is_ok_and(|t| t.frames(1).is_some()))
        .map(|e| e.name)
        .collect();
    names.join(", ")
}

pub fn check(sc: &Scenario) -> Result<(), ScenarioError> {
    let err = |path: &str, message: String| ScenarioError { file: sc.file.clone(), path: path.into(), message };
    fabric(&sc.net.shape).map_err(|(key, m)| err(&format!("topology.{key}"), m))?;
    if let Some((key, why)) = refusal(&sc.net, Engine::Oracle) {
        return Err(err(&key, why.to_string()));
    }
    for (i, c) in sc.classes.iter().enumerate() {
        if let ClassKind::Generated { response: Some(_), .. } = &c.kind {
            return Err(err(
                &format!("class[{i}].response"),
                "makes an RPC class, and the oracle schedules one-way messages only (a response waits for its request); \
                 accepted: a class without response keys with --engine oracle"
                    .into(),
            ));
        }
        let t = sc.transport_of(i);
        if t.frames(1).is_none() {
            return Err(err(
                &format!("class[{i}]"),
                format!(
                    "uses transport \"{}\", which does not tell the oracle the packets it sends or whose ideal is more than \
                     their one-way delivery; accepted: a class whose transport is one of {} with --engine oracle",
                    t.name(),
                    framed(&sc.net)
                ),
            ));
        }
    }
    if sc.record.queues.is_some() {
        return Err(err(
            "record.queues",
            "asks for queue samples, and the oracle has no queues; accepted: no queues key with --engine oracle".into(),
        ));
    }
    if sc.record.sojourn.is_some() {
        return Err(err(
            "record.sojourn",
            "asks for waits at ports, and the oracle has no queues; accepted: no sojourn with --engine oracle".into(),
        ));
    }
    if let Some(i) = sc.classes.iter().position(|c| c.probe) {
        return Err(err(&format!("class[{i}].probe"), "probes measure waits at ports, and the oracle has no queues; accepted: no probe class with --engine oracle".into()));
    }
    if sc.record.waits {
        return Err(err(
            "record.waits",
            "asks where packets waited, and the oracle has no queues; accepted: waits = false with --engine oracle"
                .into(),
        ));
    }
    Ok(())
}

/// Ok when every switch can carry all its hosts send at once (and no fabric link is
/// slower than a host link); else the key to change and why.
fn fabric(shape: &Shape) -> Result<(), (&'static str, String)> {
    let gbps = |l: &LinkSpec| l.rate.bps() as f64 / 1e9;
    let slower = |host: &LinkSpec, fabric: &LinkSpec| {
        Err((
            "fabric_link",
            format!(
                "is slower ({} Gbps) than a host link ({} Gbps), so messages would queue in the fabric, which the oracle does \
                 not model; accepted: a fabric_link at least as fast as host_link with --engine oracle",
                gbps(fabric),
                gbps(host)
            ),
        ))
    };
    let short = |key: &'static str, what: String, up: f64, down: f64| {
        Err((
            key,
            format!(
                "leaves the fabric oversubscribed ({what}: {up} Gbps up for {down} Gbps of hosts below), so messages would queue \
                 in it, which the oracle does not model; accepted: a fabric that is not oversubscribed with --engine oracle"
            ),
        ))
    };
    match shape {
        Shape::Star { .. } => Ok(()),
        // Whether a graph carries all its hosts send at once is a flow problem the check
        // below does not solve.
        Shape::Graph(_) => Err((
            "kind",
            "is a graph, and the oracle's check that the fabric never queues is made on the parameterised \
             topologies only; accepted: --engine packet for a graph"
                .into(),
        )),
        Shape::Dumbbell { left, right, host_link, trunk } => {
            let need = (*left).min(*right) as f64 * gbps(host_link);
            if gbps(trunk) < need {
                return short("trunk", "the trunk".into(), gbps(trunk), need);
            }
            Ok(())
        }
        Shape::LeafSpine { racks, hosts_per_rack, spines, host_link, fabric_link } => {
            if *racks == 1 {
                return Ok(());
            }
            if fabric_link.rate < host_link.rate {
                return slower(host_link, fabric_link);
            }
            let (up, down) = (*spines as f64 * gbps(fabric_link), *hosts_per_rack as f64 * gbps(host_link));
            if up < down {
                return short("spines", format!("{spines} spines per ToR"), up, down);
            }
            Ok(())
        }
        Shape::FatTree { pods, tors, aggs, hosts_per_tor, cores, host_link, fabric_link } => {
            if pods * tors == 1 {
                return Ok(());
            }
            if fabric_link.rate < host_link.rate {
                return slower(host_link, fabric_link);
            }
            let (up, down) = (*aggs as f64 * gbps(fabric_link), *hosts_per_tor as f64 * gbps(host_link));
            if up < down {
                return short("aggs", format!("{aggs} up-links per ToR"), up, down);
            }
            let per_agg = cores / aggs;
            if *pods > 1 && per_agg < *tors {
                let (up, down) = (per_agg as f64 * gbps(fabric_link), *tors as f64 * gbps(fabric_link));
                return short("cores", format!("{per_agg} cores per aggregation switch"), up, down);
            }
            Ok(())
        }
    }
}
