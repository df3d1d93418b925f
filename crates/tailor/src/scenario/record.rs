//! `[record]`: what a run records beyond messages, ports and the summary.
//!
//! `waits = true` writes `waits.csv`: per message, the time its (last) packet waited
//! behind a less important packet already on the wire and the rest of its waiting, over
//! every port it crossed (`engine::waits`, the Homa paper's Figure 14).
//!
//! `progress = "1ms"` samples the run's progress every interval into `progress.csv`
//! (`measure::progress`): messages and bytes generated, completed and delivered, so that
//! a backlog that grows (an open-loop load beyond what the transport sustains) shows.
//!
//! `sojourn = "switches"` records every packet's wait at the selected ports (the same
//! selections as `queue_ports`) into `ports.csv`'s `sojourn_*` columns (`engine::sojourn`).
//!
//! `queues = "10us"` samples the queue occupancy of the ports `queue_ports` selects
//! ("switches" by default) every interval into `queues.csv` (`measure::queues`). Port
//! ids are those of `ports.csv`; they are checked against the topology here, so a
//! scenario that parses names only ports that exist.

use super::reader::{ScenarioError, Table};
use crate::measure::queues::{PortSelect, QueueSpec};
use crate::net::ids::PortId;
use crate::net::port::PortRole;
use crate::net::topology::Shape;
use crate::sim::Time;
use toml::Value;

/// What `[record]` asks for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RecordSpec {
    /// Queue occupancy over time; None: not recorded.
    pub queues: Option<QueueSpec>,
    /// Where each message's packets waited (`waits.csv`: preemption lag and queueing).
    pub waits: bool,
    /// The run's progress sampled at this interval; None: not recorded.
    pub progress: Option<Time>,
    /// The ports whose every packet's wait is recorded (`engine::sojourn`).
    pub sojourn: Option<PortSelect>,
    /// Every completed message as a line of the HPCC programs' FCT file (`fct.txt`,
    /// `output::fct`).
    pub fct: bool,
}

const SELECTIONS: &str =
    "\"switches\", \"all\", a port role (\"to_host\", \"host_nic\", \"up\", \"down\", \"trunk\") or a list of port ids";

pub fn parse(t: Option<Table>, shape: &Shape) -> Result<RecordSpec, ScenarioError> {
    let Some(mut t) = t else { return Ok(RecordSpec::default()) };
    let every = t.time("queues")?;
    if every == Some(Time::ZERO) {
        return Err(t.error("queues", "is 0; accepted: a positive sampling interval such as \"10us\""));
    }
    let ports = t.get("queue_ports", |v| select(v, shape))?;
    let queues = match (every, ports) {
        (Some(every), ports) => Some(QueueSpec { every, ports: ports.unwrap_or(PortSelect::Switches) }),
        (None, Some(_)) => return Err(t.error(
            "queue_ports",
            "needs queues, the sampling interval; accepted: queue_ports with queues = \"10us\" (or another interval)",
        )),
        (None, None) => None,
    };
    let waits = t.boolean("waits")?.unwrap_or(false);
    let progress = t.time("progress")?;
    if progress == Some(Time::ZERO) {
        return Err(t.error("progress", "is 0; accepted: a positive sampling interval such as \"1ms\""));
    }
    let sojourn = t.get("sojourn", |v| select(v, shape))?;
    let fct = t.boolean("fct")?.unwrap_or(false);
    t.finish()?;
    Ok(RecordSpec { queues, waits, progress, sojourn, fct })
}

fn select(v: &Value, shape: &Shape) -> Result<PortSelect, String> {
    match v {
        Value::String(s) => named(s, shape),
        Value::Array(items) => ids(items, shape),
        _ => Err(format!("is {}; accepted: {SELECTIONS}", super::reader::type_name(v))),
    }
}

fn named(s: &str, shape: &Shape) -> Result<PortSelect, String> {
    let role = match s {
        "switches" => return Ok(PortSelect::Switches),
        "all" => return Ok(PortSelect::All),
        "to_host" => PortRole::ToHost,
        "host_nic" => PortRole::HostNic,
        "up" => PortRole::Up,
        "down" => PortRole::Down,
        "trunk" => PortRole::Trunk,
        _ => return Err(format!("unknown value \"{s}\"; accepted: {SELECTIONS}")),
    };
    if !shape.has_role(role) {
        return Err(format!(
            "a {} topology has no \"{s}\" ports; accepted: {SELECTIONS} that the topology has",
            shape.kind()
        ));
    }
    Ok(PortSelect::Role(role))
}

fn ids(items: &[Value], shape: &Shape) -> Result<PortSelect, String> {
    let n = shape.port_count();
    if items.is_empty() {
        return Err(format!("an empty list selects no port; accepted: {SELECTIONS}"));
    }
    let mut ids = Vec::with_capacity(items.len());
    for it in items {
        let id = match it.as_integer() {
            Some(i) if (0..n as i64).contains(&i) => i as usize,
            Some(i) => {
                return Err(format!(
                    "port {i} does not exist; accepted: ports 0 to {} of this {} (ports.csv lists them)",
                    n - 1,
                    shape.kind()
                ))
            }
            None => return Err(format!("holds {it}; accepted: a list of port ids (integers)")),
        };
        if ids.contains(&id) {
            return Err(format!("port {id} is listed twice; accepted: distinct port ids"));
        }
        ids.push(id);
    }
    ids.sort_unstable();
    Ok(PortSelect::Ids(ids.into_iter().map(PortId::new).collect()))
}
