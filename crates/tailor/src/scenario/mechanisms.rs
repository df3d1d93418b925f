//! The network mechanisms' checks against the whole scenario, once every table is read
//! (`net::mechanism`: a mechanism's `Configured::check` and `reorders`), so that the
//! scenario reader names no mechanism.

use super::reader::ScenarioError;
use super::room;
use super::ClassSpec;
use crate::net::mechanism::{Context, Reorders};
use crate::net::topology::NetSpec;
use crate::transport::TransportConfig;

/// Each mechanism's own check of its settings against the scenario.
pub(super) fn check(
    net: &NetSpec,
    transports: &[TransportConfig],
    classes: &[ClassSpec],
    file: &str,
) -> Result<(), ScenarioError> {
    let Some((full, name)) = room::largest(transports, classes) else { return Ok(()) };
    let with = Context { net, full_packet: (full, room::packet(full, name)), levels: packet_levels(net) };
    for s in &net.mechanisms {
        s.spec.check(&with).map_err(|(path, message)| ScenarioError { file: file.to_string(), path, message })?;
    }
    Ok(())
}

/// The first mechanism of `net` that takes packets out of their queue's arrival order at
/// switch ports (`switches`) or host NICs (`nics`).
pub(super) fn reordering(net: &NetSpec, switches: bool, nics: bool) -> Option<Reorders> {
    let reorders = net.mechanisms.iter().filter_map(|s| s.spec.reorders());
    reorders.into_iter().find(|r| (switches && r.at_switches) || (nics && r.at_nics))
}

/// The priority levels of the ports that queue by packet priority: the fewest of the
/// switches' and the NICs' (None: no port does).
pub(super) fn packet_levels(net: &NetSpec) -> Option<usize> {
    use crate::net::topology::{Discipline, NicQueue};
    let switch = (net.classes.discipline == Discipline::Priority).then_some(net.classes.levels);
    let nic = match net.nic {
        NicQueue::Priority(l) => Some(l),
        _ => None,
    };
    switch.into_iter().chain(nic).min()
}
