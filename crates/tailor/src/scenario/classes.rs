//! `[[class]]`: traffic classes, generated (sizes, arrivals, load, pattern) or replayed
//! from a trace.

use super::reader::{num, ScenarioError, Table};
use crate::measure::slo::{Metric, Slo, Stat};
use crate::net::ids::HostId;
use crate::net::topology::Discipline;
use crate::sim::{Rate, Time};
use crate::workload::generated::Response;
use crate::workload::{builtin_names, load_builtin, Arrival, Cdf, Interpolation, Pattern, SizeDist, WorkloadError};
use std::path::{Path, PathBuf};
use toml::Value;

pub const PATTERNS: &[&str] = &["n_to_1", "all_to_all", "permutation"];

/// The largest `load` of one class: a fraction of its reference capacity.
pub const MAX_LOAD: f64 = 1.0;

/// How the mean arrival rate of a generated class is given.
#[derive(Clone, Debug, PartialEq)]
pub enum Offered {
    /// A fraction of the reference capacity (the receiver's link for n_to_1, the
    /// senders' links together otherwise).
    Load(f64),
    /// Mean offered payload rate, all senders together.
    Rate(Rate),
    /// A closed loop (`outstanding`): each client keeps this many requests outstanding
    /// and issues the next `think` after a response arrives (`workload::closed`); its rate
    /// is whatever the network lets it reach.
    Closed { outstanding: u32, think: Time },
}

#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant, reason = "one per class, read once at start: boxing buys nothing")]
pub enum ClassKind {
    Generated {
        sizes: SizeDist,
        arrival: Arrival,
        offered: Offered,
        pattern: Pattern,
        count: Option<u64>,
        until: Option<Time>,
        start: Time,
        exact_load: bool,
        /// `load_basis = "wire"`: the load counts the bytes the class's transport puts
        /// on the wire (headers and control packets, `Transport::wire_bytes`), as the
        /// Homa paper's network load does, rather than message bytes.
        wire_load: bool,
        /// An RPC class: each message is a request whose arrival triggers this response.
        response: Option<Response>,
        /// Persistent connections per (sender, receiver) (`connections = 16`) and how a
        /// message picks one (`connection_choice`).
        connections: Option<(u32, crate::workload::generated::Choice)>,
    },
    Trace {
        file: PathBuf,
        receiver: Option<HostId>,
    },
}

#[derive(Clone, Debug)]
pub struct ClassSpec {
    pub name: String,
    pub kind: ClassKind,
    pub bins: Option<Vec<u64>>,
    pub queue: QueueSpec,
    /// Its service-level objectives ("and").
    pub slos: Vec<Slo>,
    /// Index of its transport in `Scenario::transports`: the scenario's `[transport]`
    /// unless the class has a `transport` table of its own.
    pub transport: usize,
    /// A probe class (`probe = true`): its packets' waits are recorded at every port.
    pub probe: bool,
}

/// How switch ports treat the class (docs/scenario.md, "Class scheduling").
#[derive(Clone, Debug, PartialEq)]
pub struct QueueSpec {
    /// Scheduling weight (drr, wfq, hierarchical).
    pub weight: f64,
    /// Priority level, 0 first (strict_priority); classes on one level share a queue.
    pub priority: usize,
    /// ECN threshold on the class's own queue.
    pub ecn_threshold: Option<u64>,
    /// Drop-tail limit on the class's own queue.
    pub queue_limit: Option<u64>,
}

fn queue(t: &mut Table, discipline: Discipline, nic_priority: bool) -> Result<QueueSpec, ScenarioError> {
    let weighted = matches!(discipline, Discipline::Drr | Discipline::Wfq | Discipline::Hierarchical);
    let weight = t.float("weight", 1e-6, 1e6)?;
    if weight.is_some() && !weighted {
        return Err(t.error("weight", "is only used with [switch] scheduler = \"drr\", \"wfq\" or \"hierarchical\"; accepted: no weight with this scheduler"));
    }
    let priority = t.int("priority", 0, 63)?;
    if priority.is_some()
        && !matches!(discipline, Discipline::StrictPriority | Discipline::Priority | Discipline::Rank)
        && !nic_priority
    {
        return Err(t.error("priority", "is only used with [switch] scheduler = \"strict_priority\", \"priority\" or \"rank\", or [host] nic = \"priority\" or \"rank\"; accepted: no priority with these settings"));
    }
    Ok(QueueSpec {
        weight: weight.unwrap_or(1.0),
        priority: priority.unwrap_or(0) as usize,
        ecn_threshold: t.size("ecn_threshold")?,
        queue_limit: t.size("queue_limit")?,
    })
}

/// "0..4" (exclusive), "0..=3" (inclusive), or an array of host indices.
fn hosts(v: &Value, n: usize) -> Result<Vec<HostId>, String> {
    let check = |h: i64| {
        if h >= 0 && (h as usize) < n {
            Ok(HostId::new(h as usize))
        } else {
            Err(format!("host {h} does not exist; accepted: hosts 0 to {}", n - 1))
        }
    };
    let list: Vec<HostId> = match v {
        Value::Array(items) => items
            .iter()
            .map(|i| {
                i.as_integer()
                    .ok_or("holds a value that is not a host index; accepted: integers".to_string())
                    .and_then(check)
            })
            .collect::<Result<_, _>>()?,
        Value::String(s) => {
            let bad = || format!("expected a host range such as \"0..8\" or \"0..=7\", got \"{s}\"");
            let (a, b, incl) = match s.split_once("..=") {
                Some((a, b)) => (a, b, true),
                None => s.split_once("..").map(|(a, b)| (a, b, false)).ok_or_else(bad)?,
            };
            let a: i64 = a.trim().parse().map_err(|_| bad())?;
            let b: i64 = b.trim().parse().map_err(|_| bad())?;
            let end = if incl { b + 1 } else { b };
            if end <= a {
                return Err(format!("the range \"{s}\" is empty; accepted: a range a..b with a < b"));
            }
            (a..end).map(check).collect::<Result<_, _>>()?
        }
        Value::Integer(i) => vec![check(*i)?],
        _ => {
            return Err("is not a host list; accepted: a host range such as \"0..8\" or an array of host indices".into())
        }
    };
    Ok(list)
}

fn host(v: &Value, n: usize) -> Result<HostId, String> {
    match v.as_integer() {
        Some(h) if h >= 0 && (h as usize) < n => Ok(HostId::new(h as usize)),
        Some(h) => Err(format!("host {h} does not exist; accepted: hosts 0 to {}", n - 1)),
        None => {
            Err(format!("is {}; accepted: a host index (an integer from 0 to {})", super::reader::type_name(v), n - 1))
        }
    }
}

pub fn bins(t: &mut Table) -> Result<Option<Vec<u64>>, ScenarioError> {
    t.get("bins", |v| {
        let items = v.as_array().ok_or("is not an array; accepted: an array of sizes such as [\"10KB\", \"1MB\"]")?;
        let mut out = Vec::new();
        for it in items {
            let s =
                it.as_str().ok_or("holds a value that is not a size; accepted: sizes with units such as \"10KB\"")?;
            out.push(super::units::parse_size(s)?);
        }
        if out.is_empty() {
            return Err("is empty; accepted: at least one bin edge".into());
        }
        Ok(out)
    })
}

fn interpolation(s: &str) -> Result<Interpolation, String> {
    match s {
        "step" => Ok(Interpolation::Step),
        "linear" => Ok(Interpolation::Linear),
        _ => Err(format!("unknown value \"{s}\"; accepted: \"step\", \"linear\"")),
    }
}

/// The keys that each give a class its sizes; exactly one of them.
const SIZE_KEYS: [&str; 5] = ["sizes", "sizes_cdf", "sizes_fixed", "sizes_exponential_mean", "sizes_pareto"];

/// `sizes_pareto = { shape, mean, max }`: a Pareto law of this shape whose untruncated
/// mean is `mean` (so scale = mean·(shape − 1)/shape, as HULL §6.3 quotes it), truncated
/// at `max`.
fn pareto(mut p: Table) -> Result<SizeDist, ScenarioError> {
    let shape = p.req("shape", "a number above 1 and at most 10 (HULL's is 1.05)", |v| match v.as_float().or(v.as_integer().map(|i| i as f64)) {
        Some(a) if a > 1.0 && a <= 10.0 => Ok(a),
        _ => Err("is not a shape above 1 and at most 10; accepted: a number such as 1.05 (the mean is infinite at 1 or below)".to_string()),
    })?;
    let mean =
        p.size("mean")?.ok_or_else(|| p.error("mean", "missing; accepted: the untruncated mean, such as \"100KB\""))?;
    let scale = mean as f64 * (shape - 1.0) / shape;
    if scale < 1.0 {
        return Err(p.error(
            "mean",
            format!(
                "makes the smallest size {scale:.2} B; accepted: a mean of at least {} B at shape {shape}",
                (shape / (shape - 1.0)).ceil()
            ),
        ));
    }
    let max = p.size("max")?.ok_or_else(|| p.error("max", "missing; accepted: the truncation, such as \"1GB\" (an untruncated Pareto near shape 1 has no usable sample mean)"))?;
    if (max as f64) <= scale {
        return Err(p.error("max", format!("is not above the smallest size ({scale:.0} B); accepted: a larger size")));
    }
    p.finish()?;
    Ok(SizeDist::Pareto { shape, scale, max: max as f64 })
}

fn sizes(t: &mut Table, dir: &Path) -> Result<SizeDist, ScenarioError> {
    let given: Vec<&str> = SIZE_KEYS.into_iter().filter(|k| t.has(k)).collect();
    if let [first, second, ..] = given[..] {
        return Err(t.error(
            second,
            format!("{first} and {second} exclude each other; accepted: one of {}", SIZE_KEYS.join(", ")),
        ));
    }
    if let Some(name) = t.string("sizes")? {
        let interp = t.get("interpolation", |v| interpolation(v.as_str().unwrap_or("")))?;
        return load_builtin(&name, interp)
            .map(SizeDist::Cdf)
            .map_err(|e| t.error("sizes", format!("{e}, or sizes_cdf = \"path.cdf\" for a file of your own")));
    }
    if let Some(file) = t.string("sizes_cdf")? {
        let interp = t.get("interpolation", |v| interpolation(v.as_str().unwrap_or("")))?;
        let interp = interp.ok_or_else(|| {
            t.error("interpolation", "missing; a size file needs one; accepted: \"step\", \"linear\"")
        })?;
        return Cdf::load(&dir.join(&file), interp).map(SizeDist::Cdf).map_err(|e| match e {
            // A bad line is located in the size file, as a bad trace row is in the trace.
            WorkloadError::Cdf { file, line, msg } => {
                ScenarioError { file, path: format!("line {line}"), message: msg }
            }
            WorkloadError::CdfFile { file, msg } => ScenarioError { file, path: String::new(), message: msg },
            WorkloadError::Refused(msg) => t.error("sizes_cdf", msg),
            other => t.error("sizes_cdf", format!("{other}; accepted: a readable size file")),
        });
    }
    if let Some(b) = t.size("sizes_fixed")? {
        return if b == 0 {
            Err(t.error("sizes_fixed", "is 0; accepted: at least \"1B\""))
        } else {
            Ok(SizeDist::Fixed(b))
        };
    }
    if let Some(b) = t.size("sizes_exponential_mean")? {
        return if b == 0 {
            Err(t.error("sizes_exponential_mean", "is 0; accepted: at least \"1B\""))
        } else {
            Ok(SizeDist::Exponential { mean: b as f64 })
        };
    }
    if let Some(p) = t.table("sizes_pareto")? {
        return pareto(p);
    }
    Err(t.error("sizes", format!(
        "missing; accepted: one of sizes = NAME ({}), sizes_cdf = \"file.cdf\", sizes_fixed = \"1KB\", sizes_exponential_mean = \"100KB\", sizes_pareto = {{ shape = 1.05, mean = \"100KB\", max = \"1GB\" }}",
        builtin_names().join(", ")
    )))
}

fn arrival(t: &mut Table) -> Result<Arrival, ScenarioError> {
    let kind = t.choice("arrival", &["poisson", "lognormal", "periodic"])?;
    let sigma = t.float("sigma", 0.01, 10.0)?;
    match (kind.as_deref(), sigma) {
        (Some("lognormal"), Some(s)) => Ok(Arrival::LogNormal { sigma: s }),
        (Some("lognormal"), None) => Err(t.error(
            "sigma",
            "missing; arrival = \"lognormal\" needs sigma; accepted: a number from 0.01 to 10 (e.g. 2.0)",
        )),
        (_, Some(_)) => {
            Err(t.error("sigma", "is only used with arrival = \"lognormal\"; accepted: no sigma with this arrival"))
        }
        (Some("poisson"), None) => Ok(Arrival::Poisson),
        (Some("periodic"), None) => Ok(Arrival::Periodic),
        _ => Err(t.error("arrival", "missing; accepted: \"poisson\", \"lognormal\", \"periodic\"")),
    }
}

fn pattern(t: &mut Table, n: usize) -> Result<Pattern, ScenarioError> {
    let kind = t
        .choice("pattern", PATTERNS)?
        .ok_or_else(|| t.error("pattern", format!("missing; accepted: {}", PATTERNS.join(", "))))?;
    let all: Vec<HostId> = (0..n).map(HostId::new).collect();
    let pattern = match kind.as_str() {
        "n_to_1" => {
            let receiver = t.get("receiver", |v| host(v, n))?.unwrap_or(HostId::new(n - 1));
            let senders = t
                .get("senders", |v| hosts(v, n))?
                .unwrap_or_else(|| all.iter().copied().filter(|&h| h != receiver).collect());
            Pattern::NToOne { senders, receiver }
        }
        "all_to_all" => {
            let senders = t.get("senders", |v| hosts(v, n))?.unwrap_or_else(|| all.clone());
            let receivers = t.get("receivers", |v| hosts(v, n))?.unwrap_or_else(|| all.clone());
            Pattern::AllToAll { senders, receivers }
        }
        _ => Pattern::Permutation { hosts: t.get("hosts", |v| hosts(v, n))?.unwrap_or(all) },
    };
    // The workload's own check, so that what parses is exactly what the engine accepts.
    pattern.validate().map_err(|e| t.error(e.key, e.msg))?;
    Ok(pattern)
}

fn offered(t: &mut Table) -> Result<Offered, ScenarioError> {
    let load = t.float("load", 1e-6, MAX_LOAD)?;
    let rate = t.rate("rate")?;
    match (load, rate) {
        (Some(l), None) => Ok(Offered::Load(l)),
        (None, Some(r)) => Ok(Offered::Rate(r)),
        (Some(_), Some(_)) => {
            Err(t.error("rate", "load and rate exclude each other; accepted: either load or rate, not both"))
        }
        (None, None) => {
            Err(t.error("load", "missing; accepted: load (a fraction, e.g. 0.6) or rate (e.g. \"60Gbps\")"))
        }
    }
}
/// A class's `name` (`class<index>` when absent): not empty, no comma, not "all".
fn class_name(t: &mut Table, index: usize) -> Result<String, ScenarioError> {
    let name = t.string("name")?.unwrap_or_else(|| format!("class{index}"));
    if name.is_empty() || name.contains(',') {
        return Err(t.error("name", "is empty or holds a comma; accepted: a non-empty name without a comma"));
    }
    // Summaries, tables and plots call the aggregate of every class "all".
    if name == "all" {
        return Err(t.error("name", "\"all\" is reserved for the aggregate of every class; accepted: any other name"));
    }
    Ok(name)
}

/// `load_basis`: whether `load` counts wire bytes (headers included) instead of payload.
fn load_basis(t: &mut Table, offered: &Offered, exact_load: bool) -> Result<bool, ScenarioError> {
    Ok(match t.choice("load_basis", &["payload", "wire"])?.as_deref() {
        Some("wire") if !matches!(offered, Offered::Load(_)) => {
            return Err(t.error(
                "load_basis",
                "is only used with load (a rate is message bytes); accepted: no load_basis with rate",
            ));
        }
        Some("wire") if exact_load => {
            return Err(t.error("load_basis", "\"wire\" cannot be made exact (exact_load scales message bytes); accepted: \"payload\" with exact_load"));
        }
        Some("wire") => true,
        _ => false,
    })
}

/// `nic_priority`: host NICs queue by packet priority (a class's `priority` is then used
/// even if switch ports queue by class).
pub fn parse(
    t: &mut Table,
    index: usize,
    n_hosts: usize,
    dir: &Path,
    discipline: Discipline,
    nic_priority: bool,
) -> Result<ClassSpec, ScenarioError> {
    let name = class_name(t, index)?;
    let bins = bins(t)?;
    let queue = queue(t, discipline, nic_priority)?;
    let slos = t.tables("slo")?.into_iter().map(slo).collect::<Result<Vec<_>, _>>()?;
    let probe = t.boolean("probe")?.unwrap_or(false);
    if let Some(file) = t.string("trace")? {
        let receiver = t.get("receiver", |v| host(v, n_hosts))?;
        return Ok(ClassSpec {
            name,
            kind: ClassKind::Trace { file: dir.join(file), receiver },
            bins,
            queue,
            slos,
            transport: 0,
            probe,
        });
    }
    let sizes = sizes(t, dir)?;
    let closed = closed(t)?;
    let (arrival, offered) = match &closed {
        Some(c) => (Arrival::Periodic, c.clone()),
        None => (arrival(t)?, offered(t)?),
    };
    let pattern = pattern(t, n_hosts)?;
    let count = t.int("messages", 1, i64::MAX)?.map(|c| c as u64);
    let until = t.time("until")?;
    let start = t.time("start")?.unwrap_or(Time::ZERO);
    let exact_load = t.boolean("exact_load")?.unwrap_or(false);
    if exact_load && count.is_none() {
        return Err(t.error(
            "exact_load",
            "needs messages = N (the sample whose load is made exact); accepted: exact_load with messages",
        ));
    }
    let wire_load = load_basis(t, &offered, exact_load)?;
    let response = response(t)?;
    if closed.is_some() && response.is_none() {
        return Err(t.error("outstanding", "a closed loop waits for responses; accepted: outstanding with response = \"echo\", response_sizes or response_sizes_fixed"));
    }
    let connections = connections(t)?;
    let kind = ClassKind::Generated {
        sizes,
        arrival,
        offered,
        pattern,
        count,
        until,
        start,
        exact_load,
        wire_load,
        response,
        connections,
    };
    Ok(ClassSpec { name, kind, bins, queue, slos, transport: 0, probe })
}

/// `outstanding = N` (and `think`): a closed-loop class; its arrivals, load and rate are
/// then not given.
fn closed(t: &mut Table) -> Result<Option<Offered>, ScenarioError> {
    let Some(n) = t.int("outstanding", 1, 1 << 20)? else {
        return match t.time("think")? {
            Some(_) => {
                Err(t
                    .error("think", "is only used with outstanding (a closed loop); accepted: outstanding = N with it"))
            }
            None => Ok(None),
        };
    };
    for key in ["arrival", "sigma", "load", "rate", "exact_load", "load_basis"] {
        if t.has(key) {
            return Err(t.error(key, "a closed-loop class (outstanding) issues a request when a response comes back, at no given rate; accepted: no arrival, sigma, load, rate, exact_load or load_basis with outstanding"));
        }
    }
    Ok(Some(Offered::Closed { outstanding: n as u32, think: t.time("think")?.unwrap_or(Time::ZERO) }))
}

/// `connections = N` and `connection_choice = "random" | "idle" | "available"`.
fn connections(t: &mut Table) -> Result<Option<(u32, crate::workload::generated::Choice)>, ScenarioError> {
    use crate::workload::generated::Choice;
    let n = t.int("connections", 1, 1 << 16)?;
    let choice = t.choice("connection_choice", &["random", "idle", "available"])?;
    match (n, choice.as_deref()) {
        (None, Some(_)) => {
            Err(t.error("connection_choice", "needs connections; accepted: connection_choice with connections = N"))
        }
        (None, None) => Ok(None),
        (Some(n), Some("idle")) => Ok(Some((n as u32, Choice::Idle))),
        (Some(n), Some("available")) => Ok(Some((n as u32, Choice::Available))),
        (Some(n), _) => Ok(Some((n as u32, Choice::Random))),
    }
}

/// An RPC class's responses: `response = "echo"` (as long as the request),
/// `response_sizes = NAME` (a built-in table) or `response_sizes_fixed = "10KB"`.
fn response(t: &mut Table) -> Result<Option<Response>, ScenarioError> {
    const KEYS: [&str; 3] = ["response", "response_sizes", "response_sizes_fixed"];
    let given: Vec<&str> = KEYS.into_iter().filter(|k| t.has(k)).collect();
    if let [first, second, ..] = given[..] {
        return Err(
            t.error(second, format!("{first} and {second} exclude each other; accepted: one of {}", KEYS.join(", ")))
        );
    }
    if t.choice("response", &["echo"])?.is_some() {
        return Ok(Some(Response::Echo));
    }
    if let Some(name) = t.string("response_sizes")? {
        return load_builtin(&name, None)
            .map(|c| Some(Response::Sizes(SizeDist::Cdf(c))))
            .map_err(|e| t.error("response_sizes", e.to_string()));
    }
    match t.size("response_sizes_fixed")? {
        Some(0) => Err(t.error("response_sizes_fixed", "is 0; accepted: at least \"1B\"")),
        Some(b) => Ok(Some(Response::Sizes(SizeDist::Fixed(b)))),
        None => Ok(None),
    }
}

/// `{ sli = "p99", metric = "slowdown", max_size = "125KB", threshold = 3.0 }`.
fn slo(mut t: Table) -> Result<Slo, ScenarioError> {
    let stat = t.req("sli", "\"mean\" or a percentile such as \"p99\" or \"p99.9\"", |v| {
        let s = v.as_str().ok_or("is not a string; accepted: \"mean\" or a percentile such as \"p99\"")?;
        if s == "mean" {
            return Ok(Stat::Mean);
        }
        match s.strip_prefix('p').and_then(|p| p.parse::<f64>().ok()) {
            Some(p) if p > 0.0 && p <= 100.0 => Ok(Stat::Percentile(p)),
            _ => {
                Err(format!("unknown SLI \"{s}\"; accepted: \"mean\" or \"pN\" with 0 < N <= 100 (\"p99\", \"p99.9\")"))
            }
        }
    })?;
    let metric = match t.choice("metric", &["slowdown", "latency"])?.as_deref() {
        Some("latency") => Metric::Latency,
        _ => Metric::Slowdown,
    };
    let threshold = match metric {
        Metric::Slowdown => t.req("threshold", "a slowdown of at least 1 (e.g. 3.0)", |v| {
            match v.as_float().or(v.as_integer().map(|i| i as f64)) {
                Some(x) if x >= 1.0 && x.is_finite() => Ok(x),
                Some(x) => Err(format!("{} is out of range; accepted: a slowdown threshold of at least 1", num(x))),
                None => {
                    Err("is not a number; accepted: a slowdown of at least 1 (for a time, metric = \"latency\")".into())
                }
            }
        })?,
        Metric::Latency => t
            .req("threshold", "a time such as \"50us\"", |v| {
                v.as_str()
                    .ok_or("is not a string; accepted: a time such as \"50us\"".to_string())
                    .and_then(super::units::parse_time)
            })?
            .as_ns_f64(),
    };
    if threshold <= 0.0 {
        return Err(t.error("threshold", "is 0; accepted: a positive threshold"));
    }
    let min_size = t.size("min_size")?;
    let max_size = t.size("max_size")?;
    if let (Some(lo), Some(hi)) = (min_size, max_size) {
        if lo >= hi {
            return Err(t.error("max_size", format!("is not above min_size ({lo} B); accepted: a size above {lo} B")));
        }
    }
    t.finish()?;
    Ok(Slo { stat, metric, min_size, max_size, threshold })
}
