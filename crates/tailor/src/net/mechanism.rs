//! The one list of network mechanisms: what switches and hosts do to packets beyond
//! forwarding and queueing them (HULL's phantom queues and pacer, receive coalescing,
//! PL2's ToR agent, HPCC's in-band telemetry). Each entry says the scenario key that turns
//! it on, what it installs in the packet engine's network, and why the fast model
//! cannot stand for it; the engine and the model's scope walk this list and never name a
//! mechanism (docs/architecture.md, "Network mechanisms"), as the transport registry
//! (`transport::registry`) does for transports.

use super::agent::SwitchAgent;
use super::ids::SwitchId;
use super::topology::{LinkSpec, NetSpec, Shape};
use super::Network;
use crate::input::{ScenarioError, Table};
use crate::sim::{Rate, Time};
use std::any::Any;
use std::sync::Arc;

/// What the packet engine hands a mechanism to install itself in (before the run).
pub trait Installer {
    fn network(&mut self) -> &mut Network;
    /// Makes `agent` the ingress agent of switch `s` (`net::agent`).
    fn set_agent(&mut self, s: SwitchId, agent: Box<dyn SwitchAgent>);
    /// Whether a transport of the run reads in-band telemetry (`Transport::collects_telemetry`).
    fn collects_telemetry(&self) -> bool;
}

/// An installer outside the engine (tests, tools): the network, and the agents and the
/// telemetry choice it is given, kept for the caller to read.
pub struct Standalone {
    pub network: Network,
    pub agents: Vec<(SwitchId, Box<dyn SwitchAgent>)>,
    pub telemetry: bool,
}

impl Standalone {
    /// `network` as built, before any mechanism is installed; no transport reads telemetry.
    pub fn new(network: Network) -> Standalone {
        Standalone { network, agents: Vec::new(), telemetry: false }
    }
}

impl Installer for Standalone {
    fn network(&mut self) -> &mut Network {
        &mut self.network
    }
    fn set_agent(&mut self, s: SwitchId, agent: Box<dyn SwitchAgent>) {
        self.agents.push((s, agent));
    }
    fn collects_telemetry(&self) -> bool {
        self.telemetry
    }
}

/// A mechanism's settings as its own keys gave them, ready to install.
pub trait Configured: Any + Send + Sync + std::fmt::Debug {
    /// Adds it to the built network (before the run); `net.seed` seeds its random streams.
    fn install(&self, net: &NetSpec, into: &mut dyn Installer);

    /// The switches' processing delay it brings when `[switch] delay` is not given (PL2's
    /// prototype switch took 347 ns); None: it brings none. The largest one wins.
    fn switch_delay(&self) -> Option<Time> {
        None
    }

    /// Whether its keys, as given, leave it off (`[switch] overflow = "drop"`, the default
    /// spelled out): the scenario then holds no setting of it.
    fn off(&self) -> bool {
        false
    }

    /// Checks its settings against the rest of the scenario, once all of it is read: the
    /// key (its whole path, e.g. `host.pacer.bucket`) and the message of the error.
    fn check(&self, _with: &Context) -> Result<(), (String, String)> {
        Ok(())
    }

    /// Whether it takes packets out of a queue's arrival order at switch ports or host
    /// NICs, and why, as an error says it: `[record] waits` and `sojourn` match each
    /// queue's arrivals to its departures in order and refuse it there.
    fn reorders(&self) -> Option<Reorders> {
        None
    }
}

/// What a mechanism's `check` sees of the scenario besides the network.
pub struct Context<'a> {
    pub net: &'a NetSpec,
    /// The largest packet any transport of the scenario sends (bytes on the wire), and
    /// the words that say so in an error (`a full "dctcp" packet is 1538B on the wire, …`).
    pub full_packet: (u64, String),
    /// The priority levels every port that queues by packet priority keeps (the fewest of
    /// the switches' and the NICs'; None: no port does).
    pub levels: Option<usize>,
}

/// Where a mechanism reorders packets, and the error's reason and what it accepts.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Reorders {
    pub at_switches: bool,
    pub at_nics: bool,
    /// Why (`a pacer lets bypassing packets pass paced ones`).
    pub why: &'static str,
    /// What is accepted instead (`no [host] pacer`).
    pub accepted: &'static str,
}

/// A mechanism the scenario turned on through its own keys: its name, the key that
/// turned it on (its whole path, as errors name it) and its settings.
#[derive(Clone, Debug)]
pub struct Setting {
    pub name: &'static str,
    pub key: String,
    pub spec: Arc<dyn Configured>,
}

/// Two settings are equal when they are of one mechanism and print alike (their specs
/// are plain numbers: `NetSpec` compares whole scenarios in tests).
impl PartialEq for Setting {
    fn eq(&self, other: &Setting) -> bool {
        self.name == other.name && self.key == other.key && format!("{:?}", self.spec) == format!("{:?}", other.spec)
    }
}

/// What a mechanism's reader returns: its settings, or the error naming the key.
pub type Parsed = Result<Arc<dyn Configured>, ScenarioError>;

/// The scenario table a mechanism's keys are in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Section {
    Switch,
    Host,
}

impl Section {
    pub fn name(self) -> &'static str {
        match self {
            Section::Switch => "switch",
            Section::Host => "host",
        }
    }
}

/// The keys a mechanism owns in one section, and its reader of them. The reader gets the
/// section's table when one of `keys` is in it and reads its keys from there itself (a
/// table of its own, as `[switch] red`, or plain keys, as `[host] rx_frames`); errors name
/// the whole path (`switch.red.max`). No other reader touches these keys.
#[derive(Copy, Clone)]
pub struct Keys {
    pub section: Section,
    pub keys: &'static [&'static str],
    pub parse: fn(&mut Table, &Shape) -> Parsed,
}

/// The keys a mechanism owns in each link table of `[topology]` (`link`, `host_link`,
/// `trunk`, `fabric_link`): its setting for the switch ports that feed links of that kind,
/// read knowing the link's rate. The settings live in `LinkSpec::mechanisms`.
#[derive(Copy, Clone)]
pub struct LinkKeys {
    pub keys: &'static [&'static str],
    pub parse: fn(&mut Table, Rate) -> Parsed,
}

/// The table under `key` of `t`, for a reader the registry called because `key` is there.
pub fn own_table<'a>(t: &mut Table<'a>, key: &'static str) -> Result<Table<'a>, ScenarioError> {
    t.table(key)?.ok_or_else(|| t.error(key, "missing; accepted: a table"))
}

/// The engines that can run a scenario besides the packet engine, each with a scope.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Engine {
    /// The SWP fast model (`--engine model`).
    Model,
    /// The SRPT oracle (`--engine oracle`).
    Oracle,
    /// The per-link decomposition (`--engine decomposed`, docs/decomposed.md).
    Decomposed,
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
    /// Why the oracle cannot stand for it, likewise (None: the oracle's schedule is still
    /// what it claims with it on; docs/oracle.md, "Scope").
    pub oracle_refuses: Option<&'static str>,
    /// Why the decomposition cannot stand for it, likewise (None: its effect stays at the
    /// port it acts at, which a link simulation has; docs/decomposed.md, "Scope").
    pub decomposed_refuses: Option<&'static str>,
    /// What it adds to the built network (None: `topology::build` places it from `net`,
    /// or its `Setting` installs itself).
    pub install: Option<fn(&NetSpec, &mut dyn Installer)>,
    /// The keys it owns and reads itself, in each section it has keys in (none: its keys
    /// are still read by `scenario::network` into `NetSpec` fields).
    pub keys: &'static [Keys],
    /// The keys it owns in link tables, if any.
    pub link_keys: Option<LinkKeys>,
    /// The backlog (bytes) at which the switch ports feeding links like `link` mark
    /// packets as a step, which the fast model takes for its q0 (None: it does not mark
    /// so there).
    pub marks_at: Option<fn(&NetSpec, &LinkSpec) -> Option<u64>>,
    /// Its counters after the run, summed over the network, in the order summary.json
    /// lists them under `network.<name>` (None: it reports nothing, or it is off).
    pub report: Option<fn(&Ran) -> Option<Fields>>,
}

/// What a mechanism's `report` reads after the run: the network, and the switch agents
/// (by switch) the mechanisms installed.
pub struct Ran<'a> {
    pub network: &'a Network,
    pub agents: &'a [Option<Box<dyn SwitchAgent>>],
}

/// A mechanism's counters as named values, in their order.
pub type Fields = Vec<(&'static str, serde_json::Value)>;

/// Every mechanism's counters, by name in registry order: summary.json's `network.<name>`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reports(pub Vec<(&'static str, Fields)>);

impl Reports {
    pub fn of(ran: &Ran) -> Reports {
        Reports(MECHANISMS.iter().filter_map(|m| Some((m.name, (m.report?)(ran)?))).collect())
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
    super::ecn::MECHANISM,
    super::phantom::MECHANISM,
    super::pacer::MECHANISM,
    super::nic::COALESCING,
    super::pl2::MECHANISM,
    super::int::MECHANISM,
    super::red::MECHANISM,
    super::dequeue_red::MECHANISM,
    super::overflow::MECHANISM,
    super::pfc::MECHANISM,
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

/// Reads the keys the mechanisms own in `section` (its table `t`): a setting for each
/// mechanism one of whose keys is there, in registry order.
pub fn parse_section(section: Section, t: &mut Table, shape: &Shape) -> Result<Vec<Setting>, ScenarioError> {
    let mut settings = Vec::new();
    for m in MECHANISMS {
        for own in m.keys.iter().filter(|k| k.section == section) {
            own.keys.iter().for_each(|k| t.accepts(k));
            let Some(key) = own.keys.iter().find(|k| t.peek(k).is_some()) else { continue };
            let spec = (own.parse)(t, shape)?;
            if spec.off() {
                continue;
            }
            settings.push(Setting { name: m.name, key: format!("{}.{key}", section.name()), spec });
        }
    }
    Ok(settings)
}

/// Reads the keys the mechanisms own in the link table `t` of `[topology]` (`key`, e.g.
/// `host_link`), a link of `rate`: a setting for each mechanism one of whose keys is there.
pub fn parse_link(t: &mut Table, key: &str, rate: Rate) -> Result<Vec<Setting>, ScenarioError> {
    let mut settings = Vec::new();
    for m in MECHANISMS {
        let Some(own) = m.link_keys else { continue };
        own.keys.iter().for_each(|k| t.accepts(k));
        let Some(k) = own.keys.iter().find(|k| t.peek(k).is_some()) else { continue };
        let spec = (own.parse)(t, rate)?;
        settings.push(Setting { name: m.name, key: format!("topology.{key}.{k}"), spec });
    }
    Ok(settings)
}

/// The settings of every section together, in registry order (then section order): the
/// order they are installed in.
pub fn in_order(mut a: Vec<Setting>, b: Vec<Setting>) -> Vec<Setting> {
    a.extend(b);
    let rank = |s: &Setting| MECHANISMS.iter().position(|m| m.name == s.name).unwrap_or(usize::MAX);
    a.sort_by_key(rank);
    a
}

/// The first mechanism `net` uses that `engine` cannot stand for: the key that turns it
/// on and why.
pub fn refusal(net: &NetSpec, engine: Engine) -> Option<(String, &'static str)> {
    refusal_in(MECHANISMS, net, engine)
}

fn refusal_in(list: &[Mechanism], net: &NetSpec, engine: Engine) -> Option<(String, &'static str)> {
    let why = |m: &Mechanism| match engine {
        Engine::Model => m.model_refuses,
        Engine::Oracle => m.oracle_refuses,
        Engine::Decomposed => m.decomposed_refuses,
    };
    let fixed = list.iter().find_map(|m| Some(((m.used)(net)?, why(m)?)));
    fixed.or_else(|| {
        net.mechanisms.iter().find_map(|s| {
            let m = list.iter().find(|m| m.name == s.name)?;
            Some((s.key.clone(), why(m)?))
        })
    })
}

/// The backlog at which the switch ports feeding links like `link` mark as a step
/// (`Mechanism::marks_at`), for the fast model's q0.
pub fn step_threshold(net: &NetSpec, link: &LinkSpec) -> Option<u64> {
    MECHANISMS.iter().find_map(|m| (m.marks_at?)(net, link))
}

/// The largest switch delay the mechanisms `settings` bring (`Configured::switch_delay`).
pub fn switch_delay(settings: &[Setting]) -> Option<Time> {
    settings.iter().filter_map(|s| s.spec.switch_delay()).max()
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

    #[derive(Debug)]
    struct Fake;
    impl Configured for Fake {
        fn install(&self, _net: &NetSpec, _into: &mut dyn Installer) {}
    }

    fn fake(
        name: &'static str,
        used: fn(&NetSpec) -> Option<String>,
        model: Option<&'static str>,
        oracle: Option<&'static str>,
    ) -> Mechanism {
        Mechanism {
            name,
            about: "a test's",
            used,
            model_refuses: model,
            oracle_refuses: oracle,
            decomposed_refuses: None,
            install: None,
            keys: &[],
            link_keys: None,
            marks_at: None,
            report: None,
        }
    }

    /// Each engine's refusal comes from its own field of the entry, and names the key
    /// that turned the mechanism on: a fixed one's `used`, a setting's own key.
    #[test]
    fn refusals_are_each_engines_own_and_name_the_key() {
        let shape = super::super::topology::Shape::Star { hosts: 2, link: super::super::topology::tests::link(10) };
        let mut net = super::super::topology::tests::spec(shape);
        let list = [
            fake("marks", |_| Some("switch.marks".into()), Some("the model: no"), None),
            fake("own", |_| None, None, Some("the oracle: no")),
        ];
        assert_eq!(refusal_in(&list, &net, Engine::Model), Some(("switch.marks".into(), "the model: no")));
        assert_eq!(refusal_in(&list, &net, Engine::Oracle), None, "not turned on");
        net.mechanisms.push(Setting { name: "own", key: "host.own_key".into(), spec: Arc::new(Fake) });
        assert_eq!(refusal_in(&list, &net, Engine::Oracle), Some(("host.own_key".into(), "the oracle: no")));
        assert!(net.setting::<Fake>().is_some(), "its settings, by type");
    }
}
