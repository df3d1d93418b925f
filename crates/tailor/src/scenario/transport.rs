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
    let kinds = registry::names();
    let kind = t.choice("kind", &kinds)?.ok_or_else(|| t.error("kind", format!("missing; accepted: {}", kinds.join(", "))))?;
    let entry = registry::find(&kind).expect("choice() checked the kind");
    (entry.parse)(t, net)
}
