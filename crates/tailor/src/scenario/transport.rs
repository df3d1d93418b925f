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
