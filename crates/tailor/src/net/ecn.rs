//! ECN step marking (DCTCP, Alizadeh et al. SIGCOMM 2010, §3.1; RFC 8257 §3.1): a port
//! sets CE on an ECN-capable packet that finds K bytes or more ahead of it (`EcnStep` in
//! `net::marker`). K comes from `[switch] ecn_threshold` for every switch port, a link
//! table's `ecn_threshold` for the switch ports feeding links of its kind (overriding the
//! switch's), `[[class]] ecn_threshold` for a class's own queue (SWP's per-class signals;
//! read with the class's other queue settings into `ClassPolicy::ecn`) and
//! `[host] ecn_threshold` for the hosts' NICs (ns-2 scripts where every link is one queue
//! type, PIAS's and pFabric's). The fast model stands for the step: its q0 is the
//! bottleneck port's K (`marks_at`).

use super::marker::EcnStep;
use super::mechanism::{Configured, Installer, Keys, LinkKeys, Mechanism, Parsed, Section};
use super::port::PortRole;
use super::topology::{LinkSpec, NetSpec, Shape};
use crate::input::{ScenarioError, Table};
use crate::sim::Rate;
use std::sync::Arc;

/// The registry's entry (`net::mechanism`).
pub const MECHANISM: Mechanism = Mechanism {
    name: "ecn",
    about: "ECN step marking at a backlog of K bytes (DCTCP's marking, RFC 3168's CE)",
    used: |_| None,
    model_refuses: None,
    oracle_refuses: None,
    decomposed_refuses: None,
    install: Some(install),
    keys: &[
        Keys { section: Section::Switch, keys: &["ecn_threshold"], parse: parse_switch },
        Keys { section: Section::Host, keys: &["ecn_threshold"], parse: parse_host },
    ],
    link_keys: Some(LinkKeys { keys: &["ecn_threshold"], parse: parse_link }),
    marks_at: Some(marks_at),
    report: None,
};

/// `[switch] ecn_threshold`: K at every switch port (bytes).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SwitchThreshold(pub u64);

/// A link table's `ecn_threshold`: K at the switch ports feeding links of its kind.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LinkThreshold(pub u64);

/// `[host] ecn_threshold`: K over the whole queue of every host's NIC.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct NicThreshold(pub u64);

/// [`install`] places every kind at once (a link's K overrides the switch's, and a class's
/// own K needs a marker on ports that have no port-wide one).
impl Configured for SwitchThreshold {
    fn install(&self, _net: &NetSpec, _into: &mut dyn Installer) {}
}
impl Configured for LinkThreshold {
    fn install(&self, _net: &NetSpec, _into: &mut dyn Installer) {}
}
impl Configured for NicThreshold {
    fn install(&self, _net: &NetSpec, _into: &mut dyn Installer) {}
}

fn size(t: &mut Table) -> Result<u64, ScenarioError> {
    t.size("ecn_threshold")?.ok_or_else(|| t.error("ecn_threshold", "missing; accepted: a size such as \"65KB\""))
}

fn parse_switch(t: &mut Table, _shape: &Shape) -> Parsed {
    Ok(Arc::new(SwitchThreshold(size(t)?)))
}

fn parse_host(t: &mut Table, _shape: &Shape) -> Parsed {
    Ok(Arc::new(NicThreshold(size(t)?)))
}

fn parse_link(t: &mut Table, _rate: Rate) -> Parsed {
    Ok(Arc::new(LinkThreshold(size(t)?)))
}

/// A link's own K, if its table gave one.
fn link_threshold(l: &LinkSpec) -> Option<u64> {
    l.mechanisms
        .iter()
        .find_map(|s| (s.spec.as_ref() as &dyn std::any::Any).downcast_ref::<LinkThreshold>())
        .map(|k| k.0)
}

/// The port-wide K of the switch ports feeding links like `link`.
fn marks_at(net: &NetSpec, link: &LinkSpec) -> Option<u64> {
    link_threshold(link).or(net.setting::<SwitchThreshold>().map(|k| k.0))
}

/// A step marker on every switch port with a port-wide K or a class with its own, and on
/// every NIC with `[host] ecn_threshold`. It is the ports' first marker: a phantom queue
/// installed after it replaces it (HULL §2.1), RED is added after it.
fn install(net: &NetSpec, into: &mut dyn Installer) {
    let nic = net.setting::<NicThreshold>().map(|k| k.0);
    let classes = &net.classes.ecn;
    for port in into.network().ports.iter_mut() {
        if port.role == PortRole::HostNic {
            if let Some(k) = nic {
                port.push_marker(Box::new(EcnStep::port(k)));
            }
            continue;
        }
        let k = net.shape.link_fed_by(port.role).and_then(|(_, link)| marks_at(net, link));
        if k.is_some() || classes.iter().any(Option::is_some) {
            port.push_marker(Box::new(EcnStep { port: k, per_class: classes.clone() }));
        }
    }
}
