//! The one list of network mechanisms: what switches and hosts do to packets beyond
//! forwarding and queueing them (HULL's phantom queues and pacer, receive coalescing,
//! PL2's ToR agent, HPCC's in-band telemetry). Each entry says the scenario key that turns
//! it on, what it installs in the packet engine's network, and why the fast model
//! cannot stand for it; the engine and the model's scope walk this list and never name a
//! mechanism (docs/architecture.md, "Network mechanisms"), as the transport registry
//! (`transport::registry`) does for transports.

use super::agent::SwitchAgent;
use super::ids::SwitchId;
use super::topology::NetSpec;
use super::Network;

/// What the packet engine hands a mechanism to install itself in (before the run).
pub trait Installer {
    fn network(&mut self) -> &mut Network;
    /// Makes `agent` the ingress agent of switch `s` (`net::agent`).
    fn set_agent(&mut self, s: SwitchId, agent: Box<dyn SwitchAgent>);
    /// Whether a transport of the run reads in-band telemetry (`Transport::collects_telemetry`).
    fn collects_telemetry(&self) -> bool;
}

/// A network mechanism as the registry lists it.
#[derive(Copy, Clone)]
pub struct Mechanism {
    /// Its name (summary.json's `network.<name>` where it reports counters).
    pub name: &'static str,
    /// One line for listings.
    pub about: &'static str,
    /// The scenario key that turns it on in `net`, as errors name it (None: it is off).
    pub used: fn(&NetSpec) -> Option<String>,
    /// Why the fast model cannot stand for it, ending with what it accepts instead (None:
    /// the model accounts for it): `--engine model` refuses a scenario that uses it.
    pub model_refuses: Option<&'static str>,
    /// What it adds to the built network (None: `topology::build` places it from `net`).
    pub install: Option<fn(&NetSpec, &mut dyn Installer)>,
}

/// Every mechanism, in the order they are installed and refused.
pub const MECHANISMS: &[Mechanism] = &[
    super::phantom::MECHANISM,
    super::pacer::MECHANISM,
    super::nic::COALESCING,
    super::pl2::MECHANISM,
    super::int::MECHANISM,
];

/// Installs every mechanism `net` uses (the packet engine, before the run).
pub fn install(net: &NetSpec, into: &mut dyn Installer) {
    for m in MECHANISMS {
        if let Some(install) = m.install {
            install(net, into);
        }
    }
}

/// The first mechanism `net` uses that the fast model cannot stand for: the key that
/// turns it on and why.
pub fn model_refusal(net: &NetSpec) -> Option<(String, &'static str)> {
    MECHANISMS.iter().find_map(|m| Some(((m.used)(net)?, m.model_refuses?)))
}

pub fn find(name: &str) -> Option<&'static Mechanism> {
    MECHANISMS.iter().find(|m| m.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        for (i, m) in MECHANISMS.iter().enumerate() {
            assert!(MECHANISMS[..i].iter().all(|o| o.name != m.name), "{} twice", m.name);
            assert_eq!(find(m.name).map(|f| f.name), Some(m.name));
        }
    }
}
