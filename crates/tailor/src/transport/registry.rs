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
    super::rdma::ENTRY,
];

/// Reads a transport table: its `kind`, then the keys that transport accepts (the
/// scenario's `[transport]`, a class's own, or the one a transport wraps: `pl2`'s `over`).
pub fn parse_table(t: &mut Table, net: &NetSpec) -> Result<TransportConfig, ScenarioError> {
    let kinds = names();
    let kind =
        t.choice("kind", &kinds)?.ok_or_else(|| t.error("kind", format!("missing; accepted: {}", kinds.join(", "))))?;
    let entry = find(&kind).expect("choice() checked the kind");
    (entry.parse)(t, net)
}

pub fn names() -> Vec<&'static str> {
    TRANSPORTS.iter().map(|e| e.name).collect()
}

pub fn find(name: &str) -> Option<&'static Entry> {
    TRANSPORTS.iter().find(|e| e.name == name)
}
