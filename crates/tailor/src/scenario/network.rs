//! `[topology]`, `[switch]`, `[host]` and `[routing]`.

use super::memory::Memory;
use super::reader::{ScenarioError, Table};
use crate::net::ids::PortId;
use crate::net::mechanism::Section;
use crate::net::routing::PathChoice;
use crate::net::sched::priority::{DEFAULT_LEVELS, MAX_LEVELS};
use crate::net::topology::{BufferSpec, ClassPolicy, Discipline, LinkSpec, NetSpec, NicQueue, Shape};
use crate::sim::Time;

pub const TOPOLOGIES: &[&str] = &["star", "dumbbell", "leaf_spine", "fat_tree", "graph"];

fn link(t: &mut Table, key: &'static str) -> Result<LinkSpec, ScenarioError> {
    let mut l = t
        .table(key)?
        .ok_or_else(|| t.error(key, "missing; accepted: a table such as { rate = \"100Gbps\", delay = \"1us\" }"))?;
    let rate = l.rate("rate")?.ok_or_else(|| l.error("rate", "missing; accepted: a rate such as \"100Gbps\""))?;
    let delay = l.time("delay")?.unwrap_or(Time::ZERO);
    let mechanisms = crate::net::mechanism::parse_link(&mut l, key, rate)?;
    l.finish()?;
    Ok(LinkSpec { rate, delay, mechanisms })
}

fn count(t: &mut Table, key: &'static str, min: i64, max: i64) -> Result<usize, ScenarioError> {
    let v = t.int(key, min, max)?;
    v.map(|v| v as usize).ok_or_else(|| t.error(key, format!("missing; accepted: an integer from {min} to {max}")))
}

/// `[topology]`; a graph's file is read from `dir` when its name is relative.
pub fn topology(t: &mut Table, dir: &std::path::Path) -> Result<Shape, ScenarioError> {
    let kind = t
        .choice("kind", TOPOLOGIES)?
        .ok_or_else(|| t.error("kind", format!("missing; accepted: {}", TOPOLOGIES.join(", "))))?;
    Ok(match kind.as_str() {
        "star" => Shape::Star { hosts: count(t, "hosts", 2, 1 << 20)?, link: link(t, "link")? },
        "dumbbell" => Shape::Dumbbell {
            left: count(t, "left", 1, 1 << 20)?,
            right: count(t, "right", 1, 1 << 20)?,
            host_link: link(t, "host_link")?,
            trunk: link(t, "trunk")?,
        },
        "leaf_spine" => Shape::LeafSpine {
            racks: count(t, "racks", 1, 1 << 16)?,
            hosts_per_rack: count(t, "hosts_per_rack", 1, 1 << 16)?,
            spines: count(t, "spines", 1, 1 << 16)?,
            host_link: link(t, "host_link")?,
            fabric_link: link(t, "fabric_link")?,
        },
        "fat_tree" => fat_tree(t)?,
        "graph" => graph(t, dir)?,
        _ => unreachable!("choice() checked the kind"),
    })
}

/// `file`: the edge list of a graph (`net::graph`), errors located in it by line.
fn graph(t: &mut Table, dir: &std::path::Path) -> Result<Shape, ScenarioError> {
    use crate::input::files::{read_text, MAX_LINE, MAX_TEXT};
    let name = t.string("file")?.ok_or_else(|| {
        t.error("file", "missing; accepted: the path of an edge list such as \"fabric.graph\" (docs/scenario.md, \"Graph topologies\")")
    })?;
    let path = dir.join(&name);
    let text = read_text(&path, MAX_TEXT, Some(MAX_LINE))
        .map_err(|e| t.error("file", format!("{}; accepted: {}", e.what, e.accepted)))?;
    let g = crate::net::graph::Graph::parse(&text, &path.display().to_string())?;
    Ok(Shape::Graph(std::sync::Arc::new(g)))
}

/// `k` alone gives the k-ary fat-tree; `pods`, `tors`, `aggs`, `cores` override its
/// counts, and `oversubscription` multiplies the hosts per ToR.
fn fat_tree(t: &mut Table) -> Result<Shape, ScenarioError> {
    let k = t.int("k", 2, 256)?;
    if let Some(k) = k {
        if k % 2 != 0 {
            return Err(t.error("k", format!("{k} is odd; accepted: an even k (a k-ary fat-tree)")));
        }
    }
    let half = k.map(|k| k as usize / 2);
    let dim = |t: &mut Table, key: &'static str, default: Option<usize>| -> Result<usize, ScenarioError> {
        match t.int(key, 1, 1 << 16)? {
            Some(v) => Ok(v as usize),
            None => default.ok_or_else(|| {
                t.error(key, "missing; accepted: an integer from 1 to 65536, or k for the k-ary default")
            }),
        }
    };
    let pods = dim(t, "pods", k.map(|k| k as usize))?;
    let tors = dim(t, "tors", half)?;
    let aggs = dim(t, "aggs", half)?;
    let cores = dim(t, "cores", half.map(|h| h * h))?;
    let over = t.int("oversubscription", 1, 64)?.unwrap_or(1) as usize;
    let hosts_per_tor = dim(t, "hosts_per_tor", half.map(|h| h * over))?;
    if cores % aggs != 0 {
        return Err(t.error("cores", format!("{cores} cores cannot be split evenly over {aggs} aggregation switches per pod; accepted: a multiple of {aggs}")));
    }
    Ok(Shape::FatTree {
        pods,
        tors,
        aggs,
        hosts_per_tor,
        cores,
        host_link: link(t, "host_link")?,
        fabric_link: link(t, "fabric_link")?,
    })
}

pub struct SwitchPart {
    pub delay: Time,
    pub buffer: BufferSpec,
    pub discipline: Discipline,
    pub quantum: u64,
    pub levels: usize,
    /// The mechanisms that own a key here (`net::mechanism::parse_switch`).
    pub mechanisms: Vec<crate::net::mechanism::Setting>,
}

pub const SCHEDULERS: &[&str] =
    &["fifo", "strict_priority", "round_robin", "drr", "wfq", "hierarchical", "priority", "rank"];

/// `priority_levels`: how many levels a port queueing by packet priority keeps.
fn levels(t: &mut Table, used: bool, what: &str) -> Result<usize, ScenarioError> {
    let n = t.int("priority_levels", 1, MAX_LEVELS as i64)?;
    if n.is_some() && !used {
        return Err(t.error(
            "priority_levels",
            format!("is only used with {what} = \"priority\"; accepted: no priority_levels otherwise"),
        ));
    }
    Ok(n.map_or(DEFAULT_LEVELS, |n| n as usize))
}

pub fn switch(t: Option<Table>, shape: &Shape) -> Result<SwitchPart, ScenarioError> {
    let mut part = SwitchPart {
        delay: Time::ZERO,
        buffer: BufferSpec::Unlimited,
        discipline: Discipline::Fifo,
        quantum: 1502,
        levels: DEFAULT_LEVELS,
        mechanisms: Vec::new(),
    };
    let Some(mut t) = t else { return Ok(part) };
    part.mechanisms = crate::net::mechanism::parse_section(Section::Switch, &mut t, shape)?;
    let delay_default = crate::net::mechanism::switch_delay(&part.mechanisms).unwrap_or(Time::ZERO);
    part.delay = t.time("delay")?.unwrap_or(delay_default);
    part.discipline = match t.choice("scheduler", SCHEDULERS)?.as_deref() {
        None | Some("fifo") => Discipline::Fifo,
        Some("strict_priority") => Discipline::StrictPriority,
        Some("round_robin") => Discipline::RoundRobin,
        Some("drr") => Discipline::Drr,
        Some("wfq") => Discipline::Wfq,
        Some("priority") => Discipline::Priority,
        Some("rank") => Discipline::Rank,
        Some(_) => Discipline::Hierarchical,
    };
    part.levels = levels(&mut t, part.discipline == Discipline::Priority, "scheduler")?;
    if let Some(q) = t.size("quantum")? {
        if !matches!(part.discipline, Discipline::Drr | Discipline::Hierarchical) {
            return Err(t.error(
                "quantum",
                "is only used with scheduler = \"drr\" or \"hierarchical\"; accepted: no quantum with this scheduler",
            ));
        }
        if q < 64 {
            return Err(t.error("quantum", "is below 64B; accepted: at least \"64B\" (one packet or more is usual)"));
        }
        part.quantum = q;
    }
    part.buffer = match t.choice("buffer", &["unlimited", "per_port", "shared"])?.as_deref() {
        None | Some("unlimited") => BufferSpec::Unlimited,
        Some("per_port") => BufferSpec::PerPort {
            bytes: t.size("buffer_size")?.ok_or_else(|| {
                t.error("buffer_size", "missing; buffer = \"per_port\" needs one; accepted: a size such as \"1MB\"")
            })?,
        },
        Some(_) => BufferSpec::Shared {
            bytes: t.size("buffer_size")?.ok_or_else(|| {
                t.error("buffer_size", "missing; buffer = \"shared\" needs one; accepted: a size such as \"16MB\"")
            })?,
            alpha: t.float("alpha", 1.0 / 64.0, 64.0)?.unwrap_or(1.0),
        },
    };
    t.finish()?;
    Ok(part)
}

pub struct HostPart {
    pub tx_delay: Time,
    pub rx_delay: Time,
    pub nic_delay: Time,
    pub nic: NicQueue,
    pub nic_depth: Option<u32>,
    /// The mechanisms that own a key here (`net::mechanism::parse_section`).
    pub mechanisms: Vec<crate::net::mechanism::Setting>,
    /// Drop-tail bytes at the NIC (`buffer`; None: unbounded).
    pub buffer: Option<u64>,
}

pub fn host(t: Option<Table>, shape: &Shape) -> Result<HostPart, ScenarioError> {
    let mut part = HostPart {
        tx_delay: Time::ZERO,
        rx_delay: Time::ZERO,
        nic_delay: Time::ZERO,
        nic: NicQueue::Fifo,
        nic_depth: None,
        mechanisms: Vec::new(),
        buffer: None,
    };
    let Some(mut t) = t else { return Ok(part) };
    part.tx_delay = t.time("tx_delay")?.unwrap_or(Time::ZERO);
    part.rx_delay = t.time("rx_delay")?.unwrap_or(Time::ZERO);
    part.nic_delay = t.time("nic_delay")?.unwrap_or(Time::ZERO);
    let nic = t.choice("nic", &["fifo", "round_robin", "priority", "rank"])?;
    let levels = levels(&mut t, nic.as_deref() == Some("priority"), "nic")?;
    part.nic = match nic.as_deref() {
        Some("round_robin") => NicQueue::FlowRoundRobin,
        Some("priority") => NicQueue::Priority(levels),
        Some("rank") => NicQueue::Rank,
        _ => NicQueue::Fifo,
    };
    part.nic_depth = t.int("nic_depth", 0, 1 << 20)?.map(|n| n as u32);
    part.mechanisms = crate::net::mechanism::parse_section(Section::Host, &mut t, shape)?;
    part.buffer = t.size("buffer")?;
    t.finish()?;
    Ok(part)
}

pub fn routing(t: Option<Table>) -> Result<PathChoice, ScenarioError> {
    let Some(mut t) = t else { return Ok(PathChoice::Ecmp) };
    let c = match t.choice("paths", &["ecmp", "spray"])?.as_deref() {
        Some("spray") => PathChoice::Spray,
        _ => PathChoice::Ecmp,
    };
    t.finish()?;
    Ok(c)
}

pub fn assemble(shape: Shape, sw: SwitchPart, h: HostPart, paths: PathChoice, seed: u64) -> NetSpec {
    let classes =
        ClassPolicy { discipline: sw.discipline, quantum: sw.quantum, levels: sw.levels, ..ClassPolicy::default() };
    NetSpec {
        shape,
        switch_delay: sw.delay,
        buffer: sw.buffer,
        host_tx_delay: h.tx_delay,
        host_rx_delay: h.rx_delay,
        host_nic_delay: h.nic_delay,
        nic: h.nic,
        nic_depth: h.nic_depth,
        nic_buffer: h.buffer,
        mechanisms: crate::net::mechanism::in_order(sw.mechanisms, h.mechanisms),
        paths,
        classes,
        seed,
    }
}

/// Refuses a network that cannot be built here: more ports than 32-bit ids can name, or
/// an estimated size (`NetSpec::memory_bytes`) above the memory available now
/// (`memory::here`) — found before anything is built, where building would exhaust
/// memory after minutes.
pub fn check_fits(net: &NetSpec, classes: usize, file: &str) -> Result<(), ScenarioError> {
    check_fits_in(net, classes, file, super::memory::here())
}

/// `check_fits` against the memory given (None: the system says nothing, only the ids
/// are checked), so that the comparison is testable without allocating.
pub fn check_fits_in(net: &NetSpec, classes: usize, file: &str, memory: Option<Memory>) -> Result<(), ScenarioError> {
    let (hosts, ports) = (net.shape.host_count() as u64, net.shape.port_count() as u64);
    let error =
        |message: String| ScenarioError { file: file.to_string(), path: size_key(&net.shape).to_string(), message };
    let max_ports = PortId::MAX.index() as u64;
    if ports > max_ports {
        return Err(error(format!(
            "{hosts} hosts make {ports} ports; accepted: at most {max_ports} ports (ids are 32-bit)"
        )));
    }
    // After the memory check (the more useful answer where both apply).
    let max_hosts = crate::engine::MAX_HOSTS as u64;
    let ids = || {
        if hosts > max_hosts {
            return Err(error(format!(
                "{hosts} hosts; accepted: at most {max_hosts} hosts (a host and a transport share a 32-bit id)"
            )));
        }
        Ok(())
    };
    let (need, Some(memory)) = (net.memory_bytes(classes), memory) else { return ids() };
    let usable = memory.usable();
    if need <= usable {
        return ids();
    }
    let fit = (usable as f64 / (need as f64 / hosts as f64)) as u64;
    Err(error(format!(
        "{hosts} hosts ({ports} ports) need about {:.1} GB; this machine has {:.1} GB available now, of which tailor \
         takes at most {:.0} %; accepted: about {fit} hosts or fewer in this topology (or free memory)",
        need as f64 / 1e9,
        memory.available as f64 / 1e9,
        super::memory::USABLE * 100.0,
    )))
}

/// The key that sets the host count of a shape (the table for shapes that multiply several).
fn size_key(shape: &Shape) -> &'static str {
    match shape {
        Shape::Star { .. } => "topology.hosts",
        _ => "topology",
    }
}
