//! `[transport]` (and a class's own `transport` table): which transport and its options.
//! The kinds and their keys come from `transport::registry`; each transport reads its
//! own table in its folder.

use super::reader::{ScenarioError, Table};
use crate::net::topology::NetSpec;
use crate::transport::registry;
use crate::transport::TransportConfig;

pub use crate::transport::path::{base_rtt, bdp_bytes};

/// Reads a transport table: its `kind`, then the keys that transport accepts.
pub fn parse(t: &mut Table, net: &NetSpec) -> Result<TransportConfig, ScenarioError> {
    registry::parse_table(t, net)
}

/// The registry's `needs` checked against the scenario parser: here, above the transport
/// layer, because the transport layer must not read scenarios (tests/joints.rs).
#[cfg(test)]
mod needs_tests {
    use crate::scenario::Scenario;
    use crate::transport::registry::TRANSPORTS;

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
                assert!(
                    ["switch", "host", "routing"].contains(&section.as_str()),
                    "{}: needs sets [{section}]",
                    e.name
                );
                let table = table.as_table().unwrap_or_else(|| panic!("{}: needs.{section} is not a table", e.name));
                let into = doc.entry(section).or_insert_with(|| toml::Value::Table(toml::Table::new()));
                into.as_table_mut().unwrap().extend(table.clone());
            }
            let mut transport = toml::Table::new();
            transport.insert("kind".into(), e.name.into());
            if e.keys.contains(&"over") {
                // A transport over another (PL2's): which one is the scenario's choice.
                transport.insert("over".into(), toml::Value::Table(toml::from_str(r#"kind = "raw""#).unwrap()));
            }
            doc.insert("transport".into(), toml::Value::Table(transport));
            let text = toml::to_string(&doc).unwrap();
            Scenario::parse(&text, "needs.toml", std::path::Path::new("."))
                .unwrap_or_else(|err| panic!("{} with its needs: {}: {}", e.name, err.path, err.message));
        }
    }
}
