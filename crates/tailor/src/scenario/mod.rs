//! The scenario language: one TOML file describes a run (docs/scenario.md).
//!
//! Parsing is strict: an unknown key, a wrong type, a value without its unit or out of
//! range is a [`ScenarioError`] naming the file, the key path and what is accepted.
//! Parsing reads every referenced file (size tables) and checks every host index, so a
//! scenario that parses is a scenario that runs; building then only draws on the seed.

pub mod advise;
pub mod capacity;
pub mod classes;
pub mod clustering;
pub mod decomposed;
mod empty;
mod mechanisms;
pub mod memory;
pub mod model;
mod network;
pub mod oracle;
pub mod overrides;
pub mod record;
mod room;
mod run;
pub mod scope;
pub mod transport;

pub use crate::input::{reader, units};

pub use classes::{ClassKind, ClassSpec, Offered};
pub use empty::check_result;
pub use network::check_fits_in;
pub use overrides::Override;
pub use reader::ScenarioError;

use crate::engine::{self, ClassSetup};
use crate::net::ids::ClassId;
use crate::net::topology::NetSpec;
use crate::sim::{Rate, Time};
use crate::transport::TransportConfig;
use crate::workload::generated::mean_gap_ns;
use crate::workload::{
    Cdf, ClosedLoop, ClosedSpec, GenSpec, Generated, Pattern, SizeDist, Source, Trace, WorkloadError,
};
use reader::Table;
use std::path::{Path, PathBuf};

/// The largest seed: 2^63 - 1, the largest integer a TOML file (and so a scenario, a
/// `--set seed=…` axis and the resolved document a store keeps) can hold. Seeds given
/// on the command line or to the Python API are held to the same bound, so that every
/// run's seed can be written back into its scenario (docs/scenario.md, "Seeds").
pub const MAX_SEED: u64 = i64::MAX as u64;

/// Checks a seed given outside the file (`--seed`, `tailor.run(seed=…)`) against the
/// bound a file has; the error is located at `seed` in `file`.
pub fn check_seed(file: &str, seed: u64) -> Result<u64, ScenarioError> {
    if seed <= MAX_SEED {
        return Ok(seed);
    }
    Err(ScenarioError {
        file: file.to_string(),
        path: "seed".into(),
        message: format!(
            "{seed} is out of range; accepted: 0 to {MAX_SEED} (2^63 - 1, the largest integer a scenario file holds)"
        ),
    })
}

/// A scenario as run: the parsed scenario, the TOML document it was read from (after
/// overrides), and the text that identifies what it computes.
#[derive(Clone, Debug)]
pub struct Resolved {
    pub scenario: Scenario,
    /// The document after overrides, as TOML with its keys sorted.
    pub document: String,
    /// `document` followed by every size distribution the classes draw from, as loaded
    /// (a named table or a file's contents, not its name): two resolutions compute the
    /// same thing when their identities are equal (and their `inputs` hold the same bytes).
    pub identity: String,
    /// Files read during the run rather than at parsing (traces), whose contents
    /// belong to the identity too.
    pub inputs: Vec<PathBuf>,
    /// `identity` without the document's `seed`: equal for the seeds of one configuration.
    pub config: String,
}

impl Resolved {
    fn new(mut scenario: Scenario, doc: &toml::Table) -> Resolved {
        // `[advise]` does not change what a run computes: the run's document is the rest,
        // so editing one candidate of the advisor leaves the others' stored points valid.
        let mut doc = doc.clone();
        doc.remove("advise");
        // Nor does `[run] memory_limit`: a run under it computes what it computes without.
        if let Some(toml::Value::Table(run)) = doc.get_mut("run") {
            run.remove("memory_limit");
            if run.is_empty() {
                doc.remove("run");
            }
        }
        let doc = &doc;
        // toml::Table is ordered by key (no `preserve_order`), so this text is canonical.
        let document = toml::to_string(doc).expect("a parsed TOML document serializes");
        scenario.document = document.clone();
        let mut unseeded = doc.clone();
        unseeded.remove("seed");
        let mut identity = document.clone();
        let mut config = toml::to_string(&unseeded).expect("a parsed TOML document serializes");
        let mut inputs = Vec::new();
        if let crate::net::topology::Shape::Graph(g) = &scenario.net.shape {
            // The file's cables, not its name, are what the run computes on.
            let line = format!("\n# topology graph: {}", g.digest());
            identity.push_str(&line);
            config.push_str(&line);
        }
        for (i, c) in scenario.classes.iter().enumerate() {
            match &c.kind {
                ClassKind::Generated { sizes, .. } => {
                    let line = format!("\n# class[{i}] sizes: {sizes:?}");
                    identity.push_str(&line);
                    config.push_str(&line);
                }
                ClassKind::Trace { file, .. } => inputs.push(file.clone()),
            }
        }
        Resolved { scenario, document, identity, inputs, config }
    }
}

#[derive(Clone, Debug)]
pub struct Scenario {
    /// The file it came from (as given), for messages.
    pub file: String,
    /// The TOML it was parsed from, after overrides (`Resolved::document`): what a run
    /// keeps beside its results as `scenario.toml`.
    pub document: String,
    pub name: String,
    pub seed: u64,
    pub stop: Option<Time>,
    pub warmup: Time,
    /// `[run] memory_limit`: the most the packet engine's process may hold, bytes
    /// (`capacity`; None: a share of the memory available when the run starts).
    pub memory_limit: Option<u64>,
    pub bins: Option<Vec<u64>>,
    pub net: NetSpec,
    /// The transports the classes use: the scenario's `[transport]` first, if it has
    /// one, then each class's own `transport` table (`ClassSpec::transport` indexes this).
    pub transports: Vec<TransportConfig>,
    pub classes: Vec<ClassSpec>,
    /// The host link rate (every topology has one).
    pub host_rate: Rate,
    /// `[model]`: parameters of the fast model engine.
    pub model: model::ModelSpec,
    /// `[record]`: what the run records besides messages, ports and the summary.
    pub record: record::RecordSpec,
    /// `[decomposed] cluster`: the decomposed estimator's link-clustering tolerance.
    pub cluster: Option<f64>,
    /// `[decomposed] feedback`: the decomposed estimator's second pass over host uplinks.
    pub feedback: bool,
    /// Per class, what reading a trace class whole found (None for a generated class):
    /// read once when the scenario is, for the checks and the fast model's scope.
    pub traces: Vec<Option<crate::workload::trace::Scan>>,
}

impl Scenario {
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        Scenario::resolve(path, &[]).map(|r| r.scenario)
    }

    /// Reads the file at `path`, applies `overrides` (docs/scenario.md, "Overrides")
    /// and parses the result.
    pub fn resolve(path: &Path, overrides: &[Override]) -> Result<Resolved, ScenarioError> {
        let file = path.display().to_string();
        let text =
            crate::input::files::read_text(path, crate::input::files::MAX_TEXT, None).map_err(|e| ScenarioError {
                file: file.clone(),
                path: String::new(),
                message: format!("{}; accepted: {}", e.what, e.accepted),
            })?;
        let dir = path.parent().unwrap_or(Path::new("."));
        Scenario::resolve_text(&text, &file, dir, overrides)
    }

    /// Parses scenario text; relative file names in it are taken from `dir`.
    pub fn parse(text: &str, file: &str, dir: &Path) -> Result<Scenario, ScenarioError> {
        Scenario::resolve_text(text, file, dir, &[]).map(|r| r.scenario)
    }

    /// Parses scenario text after applying `overrides` to it.
    pub fn resolve_text(text: &str, file: &str, dir: &Path, overrides: &[Override]) -> Result<Resolved, ScenarioError> {
        let mut doc: toml::Table = toml::from_str(text).map_err(|e| ScenarioError {
            file: file.to_string(),
            path: String::new(),
            message: format!("not valid TOML: {}", e.to_string().trim()),
        })?;
        overrides::apply(&mut doc, file, overrides)?;
        let scenario = Scenario::from_document(&doc, file, dir)?;
        Ok(Resolved::new(scenario, &doc))
    }

    fn from_document(doc: &toml::Table, file: &str, dir: &Path) -> Result<Scenario, ScenarioError> {
        let mut root = Table::root(file, doc);
        let name = name_of(&mut root, file)?;
        let seed = root.int("seed", 0, MAX_SEED as i64)?.unwrap_or(1) as u64;
        let run::RunKeys { stop, warmup, bins, memory_limit } = run::run_keys(&mut root)?;
        let mut topo = root.table("topology")?.ok_or_else(|| {
            root.error("topology", "missing; accepted: a [topology] table (every scenario needs one)")
        })?;
        let shape = network::topology(&mut topo, dir)?;
        topo.finish()?;
        let sw = network::switch(root.table("switch")?, &shape)?;
        let host = network::host(root.table("host")?, &shape)?;
        let paths = network::routing(root.table("routing")?)?;
        let model = model::parse(root.table("model")?, &shape)?;
        let record = record::parse(root.table("record")?, &shape)?;
        let (cluster, feedback) = clustering::parse(root.table("decomposed")?)?;
        // `[advise]`: the transport advisor's candidates and search (docs/advisor.md), checked
        // here; `tailor advise` builds each candidate's scenario from it. A run does not use
        // it, and `Resolved` leaves it out of what a run is identified by.
        advise::check(root.table("advise")?)?;
        let net = network::assemble(shape, sw, host, paths, seed);
        if let Some(select) = &record.sojourn {
            check_sojourn(&net, &root, select)?;
        }
        if record.waits {
            check_waits(&net, &root)?;
        }
        // Before the classes, whose host lists are as long as the topology is wide.
        let n_classes = doc.get("class").and_then(toml::Value::as_array).map_or(1, Vec::len);
        network::check_fits(&net, n_classes, file)?;
        let mut transports = Vec::new();
        let default_transport = match root.table("transport")? {
            Some(mut tr) => {
                transports.push(transport::parse(&mut tr, &net)?);
                tr.finish()?;
                Some(0)
            }
            None => None,
        };
        let classes = classes_of(&mut root, &net, dir, &mut transports, default_transport)?;
        let endless =
            classes.iter().position(|c| matches!(c.kind, ClassKind::Generated { count: None, until: None, .. }));
        if let (Some(i), None) = (endless, stop) {
            return Err(root.error(
                "class",
                format!("class[{i}] generates messages forever; accepted: messages = N or until = \"10ms\" in the class, or [run] stop"),
            ));
        }
        root.finish()?;
        let mut net = net;
        apply_queues(&mut net, &classes);
        bind_transports(&mut transports, &classes, &net, file, default_transport.is_some())?;
        room::check(&net, &transports, &classes, file)?;
        mechanisms::check(&net, &transports, &classes, file)?;
        let host_rate = host_rate(&net);
        let traces = Vec::new();
        let mut sc = Scenario {
            file: file.to_string(),
            document: String::new(),
            name,
            seed,
            stop,
            warmup,
            memory_limit,
            bins,
            net,
            transports,
            classes,
            host_rate,
            model,
            record,
            cluster,
            feedback,
            traces,
        };
        sc.check_offered()?;
        Ok(sc)
    }

    /// The transport of class `class`.
    pub fn transport_of(&self, class: usize) -> &TransportConfig {
        &self.transports[self.classes[class].transport]
    }

    /// The names of the transports in use, in class order, each once ("dctcp",
    /// "dctcp+raw").
    pub fn transport_names(&self) -> String {
        let mut names: Vec<&str> = Vec::new();
        for c in &self.classes {
            let n = self.transports[c.transport].name();
            if !names.contains(&n) {
                names.push(n);
            }
        }
        names.join("+")
    }

    /// The engine configuration of this scenario with `seed`.
    pub fn build(&self, seed: u64) -> Result<engine::Config, WorkloadError> {
        let mut net = self.net.clone();
        net.seed = seed;
        let mut classes = Vec::new();
        let mut all_bins = Vec::new();
        for (i, c) in self.classes.iter().enumerate() {
            let bins = self.bins_of(c);
            all_bins.extend_from_slice(&bins);
            classes.push(ClassSetup {
                name: c.name.clone(),
                source: self.source(i, seed)?,
                bins,
                slos: c.slos.clone(),
                transport: c.transport,
                priority: c.queue.priority as u8,
                probe: c.probe,
            });
        }
        let overall_bins = self.bins.clone().unwrap_or(all_bins);
        Ok(engine::Config {
            net,
            transports: self.transports.clone(),
            classes,
            overall_bins,
            seed,
            stop_at: self.stop,
            sojourn: self.record.sojourn.clone(),
            persistent: self
                .classes
                .iter()
                .any(|c| matches!(c.kind, ClassKind::Generated { connections: Some(_), .. })),
            warmup: self.warmup,
        })
    }

    fn bins_of(&self, c: &ClassSpec) -> Vec<u64> {
        if let Some(b) = c.bins.as_ref().or(self.bins.as_ref()) {
            return b.clone();
        }
        match &c.kind {
            ClassKind::Generated { sizes: SizeDist::Cdf(cdf), .. } => cdf_edges(cdf),
            ClassKind::Generated { sizes, .. } => sizes.bin_edges(),
            ClassKind::Trace { .. } => default_edges(),
        }
    }

    fn source(&self, i: usize, seed: u64) -> Result<Box<dyn Source + Send>, WorkloadError> {
        let c = &self.classes[i];
        let class = ClassId::new(i);
        match &c.kind {
            ClassKind::Trace { file, receiver } => {
                Ok(Box::new(Trace::open(file, &c.name, class, *receiver, self.net.shape.host_count())?))
            }
            ClassKind::Generated {
                sizes,
                offered: Offered::Closed { outstanding, think },
                pattern,
                count,
                until,
                start,
                response,
                connections,
                ..
            } => {
                let spec = ClosedSpec {
                    class,
                    sizes: sizes.clone(),
                    pattern: pattern.clone(),
                    outstanding: *outstanding,
                    think: *think,
                    count: *count,
                    until: *until,
                    first_at: *start,
                    response: response.clone().expect("a closed-loop class has responses (checked when read)"),
                    connections: *connections,
                };
                Ok(Box::new(ClosedLoop::new(spec, seed, &format!("class/{}", c.name))?))
            }
            ClassKind::Generated {
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
            } => {
                let rate = match offered {
                    Offered::Rate(r) => (1.0, *r),
                    Offered::Load(l) => (*l, self.reference_rate(pattern)),
                    Offered::Closed { .. } => unreachable!("matched above"),
                };
                let spec = GenSpec {
                    class,
                    sizes: sizes.clone(),
                    arrival: *arrival,
                    mean_gap_ns: mean_gap_ns(self.mean_bytes(i, *wire_load), rate.0, rate.1.bps()),
                    pattern: pattern.clone(),
                    count: *count,
                    until: *until,
                    first_at: *start,
                    exact_load: *exact_load,
                    response: response.clone(),
                    connections: *connections,
                };
                Ok(Box::new(Generated::new(spec, seed, &format!("class/{}", c.name))?))
            }
        }
    }

    /// The mean bytes one message of class `i` counts for its load: its mean size, or
    /// its transport's mean bytes on the wire (`load_basis = "wire"`, checked when read).
    pub fn mean_bytes(&self, i: usize, wire: bool) -> f64 {
        let ClassKind::Generated { sizes, .. } = &self.classes[i].kind else { return 0.0 };
        if !wire {
            return sizes.mean();
        }
        let t = self.transport_of(i);
        sizes.expect(|s| t.wire_bytes(s).expect("checked when the scenario was read"))
    }

    /// The capacity a class's load is a fraction of: the receiver's link for n_to_1, the
    /// senders' links together otherwise.
    pub(crate) fn reference_rate(&self, p: &Pattern) -> Rate {
        let n = match p {
            Pattern::NToOne { .. } => 1,
            Pattern::AllToAll { senders, .. } => senders.len(),
            Pattern::Permutation { hosts } => hosts.len(),
        };
        Rate::from_bps(self.host_rate.bps() * n as u64)
    }
}

/// `[[class]]` number `i`, its `priority` checked against the levels ports keep.
fn class_of(t: &mut Table, i: usize, net: &NetSpec, dir: &Path) -> Result<ClassSpec, ScenarioError> {
    let nic_priority =
        matches!(net.nic, crate::net::topology::NicQueue::Priority(_) | crate::net::topology::NicQueue::Rank);
    let c = classes::parse(t, i, net.shape.host_count(), dir, net.classes.discipline, nic_priority)?;
    if let Some(levels) = mechanisms::packet_levels(net) {
        if c.queue.priority >= levels {
            return Err(t.error(
                "priority",
                format!(
                    "{} is not a level of {levels}; accepted: 0 to {} (priority_levels sets how many)",
                    c.queue.priority,
                    levels - 1
                ),
            ));
        }
    }
    Ok(c)
}

/// The transport of class `i`: its own `transport` table (added to `transports`), else
/// the scenario's `[transport]` (`default`, an index into `transports`).
fn class_transport(
    t: &mut Table,
    i: usize,
    net: &NetSpec,
    transports: &mut Vec<TransportConfig>,
    default: Option<usize>,
    root: &Table,
) -> Result<usize, ScenarioError> {
    let Some(mut tr) = t.table("transport")? else {
        return default.ok_or_else(|| {
            root.error("transport", format!("missing; accepted: a [transport] table (the transport of every class without a transport table of its own, as class[{i}])"))
        });
    };
    if transports.len() == crate::engine::MAX_TRANSPORTS {
        return Err(t.error("transport", format!("is the {}th transport table of the scenario; accepted: at most {} (give classes that share a transport none of their own: they use [transport])", transports.len() + 1, crate::engine::MAX_TRANSPORTS)));
    }
    transports.push(transport::parse(&mut tr, net)?);
    tr.finish()?;
    Ok(transports.len() - 1)
}

/// Hands each transport the traffic of its classes (`Transport::bind`) and checks that a
/// class whose load counts wire bytes has a transport that says what they are.
fn bind_transports(
    transports: &mut [TransportConfig],
    classes: &[ClassSpec],
    net: &NetSpec,
    file: &str,
    has_default: bool,
) -> Result<(), ScenarioError> {
    use crate::transport::{ClassTraffic, Traffic};
    let host = host_rate(net).bps() as f64;
    for (t, slot) in transports.iter_mut().enumerate() {
        let mine: Vec<(usize, &ClassSpec)> = classes.iter().enumerate().filter(|(_, c)| c.transport == t).collect();
        let traffic = Traffic {
            classes: mine
                .iter()
                .map(|(_, c)| match &c.kind {
                    ClassKind::Generated { sizes, offered, .. } => {
                        let (bps, load) = match offered {
                            Offered::Load(l) => (l * host, Some(*l)),
                            Offered::Rate(r) => (r.bps() as f64, None),
                            // A closed loop's rate is the network's doing: unknown here.
                            Offered::Closed { .. } => (0.0, None),
                        };
                        ClassTraffic { name: &c.name, sizes: Some(sizes), rate: bps / 8.0 / sizes.mean(), load }
                    }
                    ClassKind::Trace { .. } => ClassTraffic { name: &c.name, sizes: None, rate: 0.0, load: None },
                })
                .collect(),
        };
        // The table the transport came from: the scenario's, or the first class's own.
        let at = match mine.first() {
            Some((i, _)) if t > 0 || !has_default => format!("class[{i}].transport"),
            _ => "transport".to_string(),
        };
        let bound = slot.bind(&traffic).map_err(|message| ScenarioError {
            file: file.to_string(),
            path: at.clone(),
            message,
        })?;
        if let Some(b) = bound {
            *slot = b;
        }
        for (i, c) in &mine {
            if matches!(c.kind, ClassKind::Generated { wire_load: true, .. }) && slot.wire_bytes(1).is_none() {
                return Err(ScenarioError {
                    file: file.to_string(),
                    path: format!("class[{i}].load_basis"),
                    message: format!("transport \"{}\" does not say its bytes on the wire; accepted: \"payload\" with this transport", slot.name()),
                });
            }
        }
    }
    Ok(())
}

/// The scenario's `name`, checked; else the file's stem, which holds no "/" and is a safe
/// prefix of a folder's name as it is.
fn name_of(root: &mut Table, file: &str) -> Result<String, ScenarioError> {
    let name = root.string("name")?;
    if let Some(name) = &name {
        check_name(root, name)?;
    }
    Ok(name
        .unwrap_or_else(|| Path::new(file).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()))
}

/// The `[[class]]` tables, each with its transport (added to `transports` when it has its
/// own); at least one, with distinct names.
fn classes_of(
    root: &mut Table,
    net: &NetSpec,
    dir: &Path,
    transports: &mut Vec<TransportConfig>,
    default_transport: Option<usize>,
) -> Result<Vec<ClassSpec>, ScenarioError> {
    let mut classes: Vec<ClassSpec> = Vec::new();
    for (i, mut t) in root.tables("class")?.into_iter().enumerate() {
        let mut c = class_of(&mut t, i, net, dir)?;
        c.transport = class_transport(&mut t, i, net, transports, default_transport, root)?;
        check_connections(&c, transports, &t)?;
        t.finish()?;
        if classes.iter().any(|o| o.name == c.name) {
            return Err(root.error("class", format!("two classes are named \"{}\"; accepted: distinct names", c.name)));
        }
        classes.push(c);
    }
    if classes.is_empty() {
        if default_transport.is_none() {
            return Err(root.error("transport", "missing; accepted: a [transport] table (every scenario needs one)"));
        }
        return Err(root.error("class", "missing; accepted: at least one [[class]]"));
    }
    Ok(classes)
}

/// Refuses a scenario name that would lead a run's default output (`runs/NAME-…`) or a
/// sweep's out of its folder, or that a path cannot hold.
fn check_name(root: &Table, name: &str) -> Result<(), ScenarioError> {
    let bad = [("/", "\"/\""), ("\\", "a backslash"), ("..", "\"..\"")].into_iter().find(|(b, _)| name.contains(b));
    let bad = bad.map(|(_, what)| format!("holds {what}"));
    let bad = bad.or_else(|| name.chars().any(char::is_control).then(|| "holds a control character".to_string()));
    match bad {
        None => Ok(()),
        Some(why) => Err(root.error("name", format!(
            "{name:?} {why}; accepted: a name without \"/\", a backslash, \"..\" or control characters (it names the default output folder under runs/)"
        ))),
    }
}

/// A class on persistent connections needs a transport that keeps them.
fn check_connections(c: &ClassSpec, transports: &[TransportConfig], t: &Table) -> Result<(), ScenarioError> {
    if let (ClassKind::Generated { connections: Some(_), .. }, Some(tr)) = (&c.kind, transports.get(c.transport)) {
        if !tr.persistent_connections() {
            return Err(t.error("connections", format!(
                "transport \"{}\" sends every message on a connection of its own; accepted: connections with a transport of the TCP family, which keeps connections (docs/scenario.md), or no connections",
                tr.name()
            )));
        }
    }
    Ok(())
}

/// `[record] waits` matches each queue's arrivals to its departures in order: it needs
/// ports that serve each queue first come, first served and take no packet out of one.
fn check_waits(net: &NetSpec, root: &Table) -> Result<(), ScenarioError> {
    fifo_queues(net, root, "record.waits", true, true)
}

/// Whether the selected ports — switch ports, host NICs or both — serve each of their
/// queues in arrival order and take no packet out of one (what `[record] waits` and
/// `[record] sojourn` need to match arrivals to departures without a per-packet key).
fn fifo_queues(net: &NetSpec, root: &Table, key: &str, switches: bool, nics: bool) -> Result<(), ScenarioError> {
    use crate::net::topology::{Discipline, NicQueue};
    let what = key.trim_start_matches("record.");
    if nics && net.nic == NicQueue::FlowRoundRobin {
        return Err(root.error(key, format!("needs NICs that serve each queue in order, and [host] nic = \"round_robin\" does not; accepted: nic = \"fifo\" or \"priority\" with {what}")));
    }
    if nics && net.nic == NicQueue::Rank {
        return Err(root.error(key, format!("needs NICs that serve each queue in order, and [host] nic = \"rank\" serves by rank; accepted: nic = \"fifo\" or \"priority\" with {what}")));
    }
    if switches && matches!(net.classes.discipline, Discipline::Hierarchical | Discipline::Rank) {
        return Err(root.error(key, format!("needs switch ports that serve each queue in order, and [switch] scheduler = \"hierarchical\" or \"rank\" does not; accepted: fifo, strict_priority, round_robin, drr, wfq or priority with {what} (probe classes work with any scheduler)")));
    }
    if let Some(r) = mechanisms::reordering(net, switches, nics) {
        return Err(root.error(
            key,
            format!("needs ports that serve each queue in order, and {}; accepted: {} with {what}", r.why, r.accepted),
        ));
    }
    Ok(())
}

/// `[record] sojourn`: the kinds of port its selection names must keep their queues in order.
fn check_sojourn(
    net: &NetSpec,
    root: &Table,
    select: &crate::measure::queues::PortSelect,
) -> Result<(), ScenarioError> {
    use crate::measure::queues::PortSelect;
    use crate::net::port::PortRole;
    let (switches, nics) = match select {
        PortSelect::Switches => (true, false),
        PortSelect::All | PortSelect::Ids(_) => (true, true),
        PortSelect::Role(PortRole::HostNic) => (false, true),
        PortSelect::Role(_) => (true, false),
    };
    fifo_queues(net, root, "record.sojourn", switches, nics)
}

/// Copies each class's queue settings into the switch ports' class policy.
fn apply_queues(net: &mut NetSpec, classes: &[ClassSpec]) {
    use crate::net::topology::Discipline;
    let p = &mut net.classes;
    p.queue_of = classes
        .iter()
        .enumerate()
        .map(|(i, c)| {
            if matches!(p.discipline, Discipline::StrictPriority | Discipline::Priority) {
                c.queue.priority
            } else {
                i
            }
        })
        .collect();
    p.weights = classes.iter().map(|c| c.queue.weight).collect();
    p.ecn = classes.iter().map(|c| c.queue.ecn_threshold).collect();
    p.limits = classes.iter().map(|c| c.queue.queue_limit).collect();
}

fn host_rate(net: &NetSpec) -> Rate {
    crate::net::topology::host_rate(&net.shape)
}

/// The size table's own points as bin edges; a table of more than 24 points (W1-W4)
/// would give unreadable summaries, so then only the points where the CDF first reaches
/// 10 %, 20 %, ..., 90 %, 95 %, 99 %, 99.9 % and the largest size are kept.
fn cdf_edges(cdf: &Cdf) -> Vec<u64> {
    let sizes = cdf.sizes();
    if sizes.len() <= 24 {
        return sizes;
    }
    let targets = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 0.999];
    let mut edges: Vec<u64> =
        targets.iter().filter_map(|&q| sizes.iter().copied().find(|&s| cdf.cdf_at(s) >= q - 1e-12)).collect();
    edges.push(*sizes.last().expect("a table has points"));
    edges.dedup();
    edges
}

/// Size-bin edges when a class has no size table: powers of ten from 1 KB to 100 MB.
fn default_edges() -> Vec<u64> {
    (3..=8).map(|e| 10u64.pow(e)).collect()
}
