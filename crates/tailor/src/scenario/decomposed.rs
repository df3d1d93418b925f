//! What the decomposed estimator can stand for, checked before it runs: each error names
//! the scenario key that puts the scenario outside it and what would be accepted
//! (docs/decomposed.md, "Scope"). The method (Parsimon, NSDI'23 §3) simulates each link
//! alone with the messages that cross it and sums the delays along each path, so it
//! holds where a message's delay is made at the queues of the links it crosses, by
//! messages that are all known before the run:
//!
//! - every message is known in advance: no RPC class (a response starts when its
//!   request arrives), no `[run] stop` (every message is estimated to its delivery);
//! - a link's delay depends on that link's traffic only: no mechanism with state across
//!   ports or hosts (switch agents such as PL2's, in-band telemetry, host pacers), only
//!   per-port marking (`ecn`, `red`, `phantom`): each mechanism says so in the registry
//!   (`Mechanism::decomposed_refuses`);
//! - one path per message (per-flow ECMP, not per-packet spraying) and FIFO ports with
//!   one priority level (under priorities a link's delay for one class depends on the
//!   other classes' traffic at every hop, which the sum of independent draws does not
//!   keep, and receiver-driven transports' priorities are not validated);
//! - the transports it has been measured against and found close enough (`VALIDATED`;
//!   Homa was measured and missed: `unvalidated`);
//! - no fabric link more than `EDGE_SPEEDUP` times faster than a host link (the link
//!   simulations' edge links run that much faster than a host's, and would queue behind
//!   a faster trunk);
//! - nothing recorded that it does not have: queues, waits, sojourns, probes, progress.

use super::reader::ScenarioError;
use super::{ClassKind, Scenario};
use crate::net::mechanism;
use crate::net::routing::PathChoice;
use crate::net::topology::{Discipline, NicQueue, Shape};

/// The transports whose decomposed estimates have been measured against the packet
/// engine (docs/decomposed.md, "Accuracy").
pub const VALIDATED: &[&str] = &["dctcp"];

pub fn check(sc: &Scenario) -> Result<(), ScenarioError> {
    let err = |path: &str, message: String| ScenarioError { file: sc.file.clone(), path: path.into(), message };
    let with = "with --engine decomposed";
    if sc.stop.is_some() {
        return Err(err(
            "run.stop",
            format!(
                "cuts the run short, and the decomposition estimates every message to its delivery; accepted: no stop \
                 (end arrivals with a class's until or count) {with}"
            ),
        ));
    }
    if let Some((key, why)) = mechanism::refusal(&sc.net, mechanism::Engine::Decomposed) {
        return Err(err(&key, format!("{why} {with}")));
    }
    if sc.net.paths == PathChoice::Spray {
        return Err(err(
            "routing.paths",
            format!("sprays packets over paths, and the decomposition routes each message on one path; accepted: ecmp {with}"),
        ));
    }
    if sc.net.nic != NicQueue::Fifo {
        return Err(err(
            "host.nic",
            format!("orders packets at hosts' NICs by flow, priority or rank, which the link simulations' senders do not share with the rest of their host's traffic; accepted: fifo {with}"),
        ));
    }
    if sc.net.classes.discipline != Discipline::Fifo {
        return Err(err(
            "switch.scheduler",
            format!(
                "schedules classes or priority levels at switch ports, and summing per-link delays drawn independently \
                 does not keep what one class's traffic does to another's at every hop; accepted: fifo {with}"
            ),
        ));
    }
    fabric(&sc.net.shape).map_err(|(key, m)| err(&format!("topology.{key}"), format!("{m} {with}")))?;
    classes(sc, &err, with)?;
    let rec = &sc.record;
    let recorded = [
        ("record.queues", rec.queues.is_some()),
        ("record.waits", rec.waits),
        ("record.sojourn", rec.sojourn.is_some()),
        ("record.progress", rec.progress.is_some()),
    ];
    if let Some((key, _)) = recorded.iter().find(|(_, on)| *on) {
        return Err(err(
            key,
            format!("asks for a record of the whole fabric's run, which the decomposition does not have; accepted: no such key {with}"),
        ));
    }
    Ok(())
}

/// Ok unless a class is one the decomposition cannot estimate: RPCs, persistent
/// connections, a transport not measured against the packet engine, probes.
fn classes(sc: &Scenario, err: &impl Fn(&str, String) -> ScenarioError, with: &str) -> Result<(), ScenarioError> {
    for (i, c) in sc.classes.iter().enumerate() {
        if let ClassKind::Generated { response: Some(_), .. } = &c.kind {
            return Err(err(
                &format!("class[{i}].response"),
                format!(
                    "makes an RPC class (a response starts when its request has arrived), and the decomposition needs every \
                     message before the run; accepted: a class without response keys {with}"
                ),
            ));
        }
        if let ClassKind::Generated { connections: Some(_), .. } = &c.kind {
            return Err(err(
                &format!("class[{i}].connections"),
                format!("sends on persistent connections, which the link simulations do not keep; accepted: no connections key {with}"),
            ));
        }
        let t = sc.transport_of(i).name();
        if !VALIDATED.contains(&t) {
            return Err(err(
                &format!("class[{i}]"),
                format!("uses transport \"{t}\", {}; accepted: {} {with}", unvalidated(t), VALIDATED.join(", ")),
            ));
        }
        if c.probe {
            return Err(err(&format!("class[{i}].probe"), format!("probes measure waits at ports, which the decomposition does not report; accepted: no probe class {with}")));
        }
    }
    Ok(())
}

/// Why a transport outside `VALIDATED` is refused: what was measured of it, if anything.
fn unvalidated(t: &str) -> &'static str {
    match t {
        // scripts/decomposed_accuracy.py --transport homa --workloads websearch (k = 8,
        // FIFO ports and one priority level, the scope): docs/decomposed.md, "Homa".
        "homa" => {
            "whose decomposed estimates were measured against the packet engine and missed: p99 per size bin \
             -15 % to +50 % at 30 % load and -12 % to +220 % at 60 % (a 128-host fat-tree, FIFO ports, docs/decomposed.md, \"Homa\")"
        }
        _ => "whose decomposed estimates have not been measured against the packet engine",
    }
}

/// Ok unless a fabric link is faster than a host link.
fn fabric(shape: &Shape) -> Result<(), (&'static str, String)> {
    let (key, fabric, host) = match shape {
        Shape::Star { .. } => return Ok(()),
        Shape::Dumbbell { host_link, trunk, .. } => ("trunk", trunk, host_link),
        Shape::LeafSpine { host_link, fabric_link, .. } | Shape::FatTree { host_link, fabric_link, .. } => {
            ("fabric_link", fabric_link, host_link)
        }
        // Its link simulations are built from a shape's link kinds (a host link, a fabric
        // link), which a graph's cables need not fall into.
        Shape::Graph(_) => {
            return Err((
                "kind",
                "is a graph, whose cables need not fall into the host and fabric link kinds the link simulations \
                 are built from; accepted: --engine packet for a graph, or a parameterised topology"
                    .into(),
            ))
        }
    };
    if fabric.rate.bps() > host.rate.bps() * crate::decomposed::EDGE_SPEEDUP {
        return Err((
            key,
            format!(
                "is more than {} times faster ({} Gbps) than a host link ({} Gbps), and the link simulations' edge links \
                 run {0} times a host's, which would queue behind it; accepted: a {key} at most {0} times host_link's rate",
                crate::decomposed::EDGE_SPEEDUP,
                fabric.rate.bps() as f64 / 1e9,
                host.rate.bps() as f64 / 1e9
            ),
        ));
    }
    Ok(())
}
