//! The one list of transports: each entry says how its scenario table is read and what
//! keys it accepts; the configuration it returns ([`super::Transport`]) builds the
//! endpoints, computes ideal latency and adds its counters. Nothing else in tailor names
//! transports (the Python front reads this list through `tailor._core.transports()`).

use super::TransportConfig;
use crate::input::{ScenarioError, Table};
use crate::net::topology::NetSpec;

/// A transport as a scenario names it.
#[derive(Copy, Clone)]
pub struct Entry {
    /// Its `kind`.
    pub name: &'static str,
    /// One line for listings.
    pub about: &'static str,
    /// Every key its table accepts, `kind` included.
    pub keys: &'static [&'static str],
    /// The switch, host and routing settings its scheme needs of the network, as TOML tables
    /// `switch`, `host`, `routing` (empty: none): `tailor advise --transports` sets them for a
    /// candidate of this kind before the candidate's own keys (docs/advisor.md, "Candidates").
    /// Only what does not scale with the fabric: an ECN threshold is the scenario's to give.
    pub needs: &'static str,
    /// Reads the rest of its table (after `kind`).
    pub parse: fn(&mut Table, &NetSpec) -> Result<TransportConfig, ScenarioError>,
}

/// Every transport, in the order error messages list them.
pub const TRANSPORTS: &[Entry] = &[
    super::tcp::DCTCP,
    super::tcp::NEWRENO,
    super::tcp::CUBIC,
    super::tcp::HPCC,
    super::raw::ENTRY,
    super::raw::UDP,
    super::homa::ENTRY,
    super::pfabric::ENTRY,
    super::pias::ENTRY,
    super::phost::ENTRY,
    super::ndp::ENTRY,
    super::rds::ENTRY,
    super::pl2::ENTRY,
];

/// Reads a transport table: its `kind`, then the keys that transport accepts (the
/// scenario's `[transport]`, a class's own, or the one a transport wraps: `pl2`'s `over`).
pub fn parse_table(t: &mut Table, net: &NetSpec) -> Result<TransportConfig, ScenarioError> {
    let kinds = names();
    let kind = t.choice("kind", &kinds)?.ok_or_else(|| t.error("kind", format!("missing; accepted: {}", kinds.join(", "))))?;
    let entry = find(&kind).expect("choice() checked the kind");
    (entry.parse)(t, net)
}

pub fn names() -> Vec<&'static str> {
    TRANSPORTS.iter().map(|e| e.name).collect()
}

pub fn find(name: &str) -> Option<&'static Entry> {
    TRANSPORTS.iter().find(|e| e.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    /// A sprayed leaf-spine of FIFO switches: what a scenario shares among candidates.
    const FABRIC: &str = r#"
        [topology]
        kind = "leaf_spine"
        racks = 2
        hosts_per_rack = 2
        spines = 1
        host_link = { rate = "10Gbps" }
        fabric_link = { rate = "10Gbps" }
        [routing]
        paths = "spray"
        [[class]]
        name = "c"
        sizes_fixed = "3000B"
        arrival = "poisson"
        load = 0.3
        pattern = "all_to_all"
        messages = 10
    "#;

    /// Every entry's `needs` holds only `switch`, `host` and `routing` tables, and with them
    /// set on a FIFO fabric the transport is accepted: what `advise` gives a bare `kind`.
    #[test]
    fn every_transports_needs_make_a_fifo_fabric_run_it() {
        for e in TRANSPORTS {
            let needs: toml::Table = toml::from_str(e.needs).unwrap_or_else(|err| panic!("{}: needs: {err}", e.name));
            let mut doc: toml::Table = toml::from_str(FABRIC).unwrap();
            for (section, table) in needs {
                assert!(["switch", "host", "routing"].contains(&section.as_str()), "{}: needs sets [{section}]", e.name);
                let table = table.as_table().unwrap_or_else(|| panic!("{}: needs.{section} is not a table", e.name));
                let into = doc.entry(section).or_insert_with(|| toml::Value::Table(toml::Table::new()));
                into.as_table_mut().unwrap().extend(table.clone());
            }
            let mut transport = toml::Table::new();
            transport.insert("kind".into(), e.name.into());
            if e.name == "pl2" {
                // PL2 schedules another transport: which one is the scenario's choice.
                transport.insert("over".into(), toml::Value::Table(toml::from_str(r#"kind = "raw""#).unwrap()));
            }
            doc.insert("transport".into(), toml::Value::Table(transport));
            let text = toml::to_string(&doc).unwrap();
            Scenario::parse(&text, "needs.toml", std::path::Path::new("."))
                .unwrap_or_else(|err| panic!("{} with its needs: {}: {}", e.name, err.path, err.message));
        }
    }
}
