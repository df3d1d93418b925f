//! The one list of network mechanisms: what switches and hosts do to packets beyond
//! forwarding and queueing them (HULL's phantom queues and pacer, receive coalescing,
//! PL2's ToR agent, HPCC's in-band telemetry). Each entry says the scenario key that turns
//! it on, what it installs in the packet engine's network, and why the fast model
//! cannot stand for it; the engine and the model's scope walk this list and never name a
//! mechanism (docs/architecture.md, "Network mechanisms"), as the transport registry
//! (`transport::registry`) does for transports.

use super::agent::SwitchAgent;
use super::ids::SwitchId;
use super::topology::{NetSpec, Shape};
use super::Network;
use crate::input::{ScenarioError, Table};
use std::sync::Arc;

/// What the packet engine hands a mechanism to install itself in (before the run).
pub trait Installer {
    fn network(&mut self) -> &mut Network;
    /// Makes `agent` the ingress agent of switch `s` (`net::agent`).
    fn set_agent(&mut self, s: SwitchId, agent: Box<dyn SwitchAgent>);
    /// Whether a transport of the run reads in-band telemetry (`Transport::collects_telemetry`).
    fn collects_telemetry(&self) -> bool;
}

/// A mechanism's settings as its own table gave them, ready to install.
pub trait Configured: Send + Sync + std::fmt::Debug {
    /// Adds it to the built network (before the run); `net.seed` seeds its random streams.
    fn install(&self, net: &NetSpec, into: &mut dyn Installer);
}

/// A mechanism the scenario turned on through its own table: its name and settings.
#[derive(Clone, Debug)]
pub struct Setting {
    pub name: &'static str,
    pub spec: Arc<dyn Configured>,
}

/// Two settings are equal when they are of one mechanism and print alike (their specs
/// are plain numbers: `NetSpec` compares whole scenarios in tests).
impl PartialEq for Setting {
    fn eq(&self, other: &Setting) -> bool {
        self.name == other.name && format!("{:?}", self.spec) == format!("{:?}", other.spec)
    }
}

/// What a mechanism's reader returns: its settings, or the error naming the key.
pub type Parsed = Result<Arc<dyn Configured>, ScenarioError>;

/// A key of `[switch]` a mechanism owns, and how its table there is read and checked
/// (errors name `switch.<key>.<subkey>`; the reader refuses keys it did not ask).
#[derive(Copy, Clone)]
pub struct SwitchKey {
    pub key: &'static str,
    pub parse: fn(&mut Table, &Shape) -> Parsed,
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
    /// What it adds to the built network (None: `topology::build` places it from `net`,
    /// or its `Setting` installs itself).
    pub install: Option<fn(&NetSpec, &mut dyn Installer)>,
    /// Its own key in `[switch]` (None: its keys are still read by `scenario::network`).
    pub switch_key: Option<SwitchKey>,
    /// Its counters after the run, summed over the network, in the order summary.json
    /// lists them under `network.<name>` (None: it reports nothing, or it is off).
    pub report: Option<fn(&Network) -> Option<Fields>>,
}

/// A mechanism's counters as named values, in their order.
pub type Fields = Vec<(&'static str, serde_json::Value)>;

/// Every mechanism's counters, by name in registry order: summary.json's `network.<name>`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reports(pub Vec<(&'static str, Fields)>);

impl Reports {
    pub fn of(net: &Network) -> Reports {
        Reports(MECHANISMS.iter().filter_map(|m| Some((m.name, (m.report?)(net)?))).collect())
    }

    pub fn get(&self, name: &str) -> Option<&Fields> {
        self.0.iter().find(|(n, _)| *n == name).map(|(_, f)| f)
    }
}

/// As a map of maps, each in its own order (a serde_json::Map would sort the keys).
impl serde::Serialize for Reports {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        struct Ordered<'a>(&'a Fields);
        impl serde::Serialize for Ordered<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut m = s.serialize_map(Some(self.0.len()))?;
                for (k, v) in self.0 {
                    m.serialize_entry(k, v)?;
                }
                m.end()
            }
        }
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (name, fields) in &self.0 {
            m.serialize_entry(name, &Ordered(fields))?;
        }
        m.end()
    }
}

/// Every mechanism, in the order they are installed and refused.
pub const MECHANISMS: &[Mechanism] = &[
    super::phantom::MECHANISM,
    super::pacer::MECHANISM,
    super::nic::COALESCING,
    super::pl2::MECHANISM,
    super::int::MECHANISM,
    super::red::MECHANISM,
];

/// Installs every mechanism `net` uses (the packet engine, before the run).
pub fn install(net: &NetSpec, into: &mut dyn Installer) {
    for m in MECHANISMS {
        if let Some(install) = m.install {
            install(net, into);
        }
    }
    for s in &net.mechanisms {
        s.spec.install(net, into);
    }
}

/// Reads the `[switch]` keys the mechanisms own: a setting for each that is present.
pub fn parse_switch(t: &mut Table, shape: &Shape) -> Result<Vec<Setting>, ScenarioError> {
    let mut settings = Vec::new();
    for m in MECHANISMS {
        let Some(own) = m.switch_key else { continue };
        if let Some(mut p) = t.table(own.key)? {
            let spec = (own.parse)(&mut p, shape)?;
            p.finish()?;
            settings.push(Setting { name: m.name, spec });
        }
    }
    Ok(settings)
}

/// The first mechanism `net` uses that the fast model cannot stand for: the key that
/// turns it on and why.
pub fn model_refusal(net: &NetSpec) -> Option<(String, &'static str)> {
    let fixed = MECHANISMS.iter().find_map(|m| Some(((m.used)(net)?, m.model_refuses?)));
    fixed.or_else(|| {
        net.mechanisms.iter().find_map(|s| {
            let m = find(s.name)?;
            Some((format!("switch.{}", m.switch_key?.key), m.model_refuses?))
        })
    })
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
