//! The phantom queue (HULL, Alizadeh et al. NSDI 2012, §2.1 and §5.1; Table 3).
//!
//! A phantom queue is a counter in series with a port's link, not a queue: it simulates
//! the backlog of a virtual link draining at γ·C (`drain`, below the line rate C) that
//! every packet leaving the port crosses, and sets CE on ECN-capable packets while that
//! virtual backlog is at or above its threshold. Marks then come from utilization, before
//! any real queue forms, which leaves the "bandwidth headroom" (1 − γ)·C.
//!
//! Counter semantics (the paper's NetFPGA increments the counter per packet and
//! decrements it by the drain rate every 800 ns; this is the exact, continuous form):
//!
//! - the counter sees a packet when the port starts putting it on the link (a departure
//!   stage: it is in series with the port, so it sees the line-rate output, never the
//!   input burst);
//! - at each packet it first drains: `v ← max(0, v − γC·(t − t_last))`, so an idle port
//!   drains it to zero, floored there, and an idle period costs no event;
//! - then it compares: the packet is marked if `v ≥ threshold`, the virtual backlog the
//!   packet finds ahead of it (as DCTCP's step marker compares the real backlog found on
//!   arrival, not counting the packet: with Table 3's 1 KB threshold and 1,500-byte
//!   packets, counting the packet itself would mark every packet);
//! - then it adds the packet's wire bytes.
//!
//! Arithmetic is exact: the counter is held in bit-picoseconds (bytes × 8 × 10^12), so
//! draining `γC·dt` is an integer product (`drain_bps × dt_ps`) and no rounding drifts
//! over a long run. A port with a phantom queue does no physical-queue marking: its queue
//! replaces the port's markers when it is installed.

use super::marker::{Backlog, Departure, Marker};
use super::mechanism::{own_table, Configured, Installer, Keys, LinkKeys, Mechanism, Parsed, Section};
use super::packet::{Ecn, Packet};
use super::port::PortRole;
use super::topology::{LinkSpec, NetSpec, Shape};
use crate::input::units::show_rate;
use crate::input::{ScenarioError, Table};
use crate::sim::{Rate, Time};
use std::sync::Arc;
use toml::Value;

/// Bit-picoseconds per byte: the unit of the counter.
const BYTE: u128 = 8 * 1_000_000_000_000;

/// How fast a phantom queue drains: a fraction γ of the port's rate, or a rate.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Drain {
    Fraction(f64),
    Rate(Rate),
}

impl Drain {
    /// The drain rate on a port of rate `line`.
    pub fn on(self, line: Rate) -> Rate {
        match self {
            Drain::Fraction(g) => Rate::from_bps(((line.bps() as f64 * g).round() as u64).max(1)),
            Drain::Rate(r) => r,
        }
    }
}

/// The phantom queue's settings (`drain`, `threshold`), as a scenario gives them.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PhantomSpec {
    pub drain: Drain,
    pub threshold: u64,
}

/// One port's phantom queue.
pub struct PhantomQueue {
    drain: Rate,
    threshold: u128,
    /// The virtual backlog in bit-picoseconds, as of `last`.
    v: u128,
    last: Time,
}

impl PhantomQueue {
    pub fn new(drain: Rate, threshold: u64) -> PhantomQueue {
        PhantomQueue { drain, threshold: threshold as u128 * BYTE, v: 0, last: Time::ZERO }
    }

    /// Drains the counter up to `now`.
    fn drain_to(&mut self, now: Time) {
        let dt = now.ps().saturating_sub(self.last.ps()) as u128;
        self.v = self.v.saturating_sub(self.drain.bps() as u128 * dt);
        self.last = self.last.max(now);
    }

    /// The virtual backlog in bytes (rounded down) as of the last packet.
    pub fn backlog_bytes(&self) -> u64 {
        (self.v / BYTE) as u64
    }

    /// A packet of `bytes` leaves at `now`: drain, compare, add. True if the virtual
    /// backlog it found was at or above the threshold.
    pub fn depart(&mut self, now: Time, bytes: u64) -> bool {
        self.drain_to(now);
        let over = self.v >= self.threshold;
        self.v += bytes as u128 * BYTE;
        over
    }
}

impl Marker for PhantomQueue {
    fn on_enqueue(&mut self, _now: Time, _backlog: Backlog, _pkt: &mut Packet) -> bool {
        false
    }
    fn on_dequeue(&mut self, now: Time, _dep: &mut Departure, pkt: &mut Packet) -> bool {
        let over = self.depart(now, pkt.wire_bytes as u64);
        if over && pkt.ecn() == Ecn::Ect {
            pkt.set_ecn(Ecn::Ce);
            return true;
        }
        false
    }
    fn sees_departures(&self) -> bool {
        true
    }
}

/// The registry's entry (`net::mechanism`): `[switch] phantom` gives switch ports of the
/// roles it names a phantom queue, a link table's `phantom` sets or turns off the one of
/// the ports that feed links of its kind; [`install`] places them.
pub const MECHANISM: Mechanism = Mechanism {
    name: "phantom",
    about: "HULL's phantom queues: ECN marks from a virtual link draining below line rate",
    used: |net| {
        let mut links = net.shape.links().into_iter();
        let set = |l: &LinkSpec| matches!(link_setting(l), Some(LinkPhantom::Set(_)));
        links.find(|(_, l)| set(l)).map(|(key, _)| format!("topology.{key}.phantom"))
    },
    model_refuses: Some("the model has no phantom queues (its marking is the real queue's against q0); accepted: --engine packet, or no phantom queue"),
    oracle_refuses: None,
    decomposed_refuses: None,
    install: Some(install),
    keys: &[Keys { section: Section::Switch, keys: &["phantom"], parse: parse_switch }],
    link_keys: Some(LinkKeys { keys: &["phantom"], parse: parse_link }),
    marks_at: None,
    report: None,
};

/// Table 3's phantom-queue marking threshold.
pub const PHANTOM_THRESHOLD: u64 = 1_000;

/// `[switch] phantom`: the phantom queue of every switch port, or of the roles named in
/// `roles` (links may override it).
#[derive(Clone, Debug, PartialEq)]
pub struct SwitchPhantom {
    pub spec: PhantomSpec,
    pub roles: Vec<PortRole>,
}

/// A link table's `phantom`: the ports feeding links of its kind get this queue, or none.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum LinkPhantom {
    Off,
    Set(PhantomSpec),
}

/// [`install`] places both kinds of setting at once (a link's overrides the switch's).
impl Configured for SwitchPhantom {
    fn install(&self, _net: &NetSpec, _into: &mut dyn Installer) {}
}

impl Configured for LinkPhantom {
    fn install(&self, _net: &NetSpec, _into: &mut dyn Installer) {}
}

/// A link's own phantom setting, if its table has one.
fn link_setting(l: &LinkSpec) -> Option<&LinkPhantom> {
    l.mechanisms.iter().find_map(|s| (s.spec.as_ref() as &dyn std::any::Any).downcast_ref())
}

/// The phantom queue of a switch port of `role`: its link kind's own setting, else the
/// switch's if it names the role. A port with one does no physical-queue marking, so the
/// queue replaces the port's markers (`topology::build` placed the ECN step first).
fn install(net: &NetSpec, into: &mut dyn Installer) {
    let switch = net.setting::<SwitchPhantom>();
    for port in into.network().ports.iter_mut().filter(|p| p.role != PortRole::HostNic) {
        let Some((_, link)) = net.shape.link_fed_by(port.role) else { continue };
        let spec = match link_setting(link) {
            Some(LinkPhantom::Off) => None,
            Some(LinkPhantom::Set(p)) => Some(*p),
            None => switch.filter(|s| s.roles.contains(&port.role)).map(|s| s.spec),
        };
        if let Some(pq) = spec {
            port.replace_markers(Box::new(PhantomQueue::new(pq.drain.on(port.rate), pq.threshold)));
        }
    }
}

/// `drain` (a fraction γ of the port's rate, or a rate) and `threshold` of a phantom
/// queue (HULL §2.1, Table 3).
fn spec(t: &mut Table) -> Result<PhantomSpec, ScenarioError> {
    const ACCEPTED: &str = "a fraction of the port's rate above 0 and at most 1 (0.95), or a rate such as \"950Mbps\"";
    let drain = t.req("drain", ACCEPTED, |v| match v {
        Value::Float(_) | Value::Integer(_) => {
            let g = v.as_float().or(v.as_integer().map(|i| i as f64)).unwrap_or(f64::NAN);
            if g > 0.0 && g <= 1.0 {
                Ok(Drain::Fraction(g))
            } else {
                Err(format!("{} is out of range; accepted: {ACCEPTED}", crate::input::reader::num(g)))
            }
        }
        Value::String(s) => crate::input::units::parse_rate(s).map(Drain::Rate),
        other => Err(format!("is {}; accepted: {ACCEPTED}", crate::input::reader::type_name(other))),
    })?;
    let threshold = t.size("threshold")?.unwrap_or(PHANTOM_THRESHOLD);
    Ok(PhantomSpec { drain, threshold })
}

/// A drain faster than its port's rate never lets the virtual backlog build: the
/// phantom queue would mark nothing, silently.
fn check_drain(t: &Table, spec: &PhantomSpec, port: &str, rate: Rate) -> Result<(), ScenarioError> {
    match spec.drain {
        Drain::Rate(r) if r > rate => {
            let (r, rate) = (show_rate(r), show_rate(rate));
            Err(t.error("drain", format!(
                "{r} is above the rate of {port} ({rate}), so its virtual backlog never builds (HULL drains it below the line rate); accepted: a rate up to {rate}, or a fraction such as 0.95"
            )))
        }
        _ => Ok(()),
    }
}

/// A link's `phantom`: a table of its own, or "off".
fn parse_link(l: &mut Table, rate: Rate) -> Parsed {
    if let Some(Value::String(_)) = l.peek("phantom") {
        l.choice("phantom", &["off"])?;
        return Ok(Arc::new(LinkPhantom::Off));
    }
    let mut t = own_table(l, "phantom")?;
    let spec = spec(&mut t)?;
    check_drain(&t, &spec, "this link", rate)?;
    t.finish()?;
    Ok(Arc::new(LinkPhantom::Set(spec)))
}

/// `[switch] phantom`, checked against the roles and links `shape` has.
fn parse_switch(t: &mut Table, shape: &Shape) -> Parsed {
    let mut p = own_table(t, "phantom")?;
    let spec = spec(&mut p)?;
    const ROLES: [PortRole; 4] = [PortRole::ToHost, PortRole::Up, PortRole::Down, PortRole::Trunk];
    let accepted = "a list of switch port roles: \"to_host\", \"up\", \"down\", \"trunk\"";
    let roles = p.get("roles", |v| {
        let items = v.as_array().ok_or_else(|| format!("is {}; accepted: {accepted}", crate::input::reader::type_name(v)))?;
        if items.is_empty() {
            return Err(format!("is empty; accepted: {accepted} (leave roles out for every switch port)"));
        }
        items
            .iter()
            .map(|it| {
                let s = it.as_str().unwrap_or("");
                let role = ROLES.iter().copied().find(|r| r.name() == s).ok_or_else(|| format!("{it} is not a switch port role; accepted: {accepted}"))?;
                if !shape.has_role(role) {
                    let has = ROLES.iter().filter(|r| shape.has_role(**r)).map(|r| format!("\"{}\"", r.name())).collect::<Vec<_>>().join(", ");
                    return Err(format!("a {} topology has no \"{s}\" ports, so no port would get a phantom queue; accepted: roles it has ({has})", shape.kind()));
                }
                Ok(role)
            })
            .collect::<Result<Vec<_>, _>>()
    })?;
    let roles = roles.unwrap_or_else(|| ROLES.to_vec());
    // Each link kind the switch's phantom queue applies to (not one with its own).
    for (key, link) in shape.links() {
        let fed = |r: &PortRole| shape.link_fed_by(*r).is_some_and(|(k, _)| k == key);
        if link_setting(link).is_none() && roles.iter().any(fed) {
            check_drain(&p, &spec, &format!("topology.{key}"), link.rate)?;
        }
    }
    p.finish()?;
    Ok(Arc::new(SwitchPhantom { spec, roles }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The roles with a phantom queue in a leaf-spine whose switch names `roles` and
    /// whose host and fabric links set `host` and `fabric` of their own.
    fn placed(roles: &[PortRole], host: Option<LinkPhantom>, fabric: Option<LinkPhantom>) -> Vec<PortRole> {
        use super::super::mechanism::Setting;
        use super::super::topology::tests::{link, spec};
        let own = |p: Option<LinkPhantom>| {
            p.map(|p| Setting { name: "phantom", key: "topology.x.phantom".into(), spec: Arc::new(p) })
                .into_iter()
                .collect()
        };
        let (mut host_link, mut fabric_link) = (link(10), link(10));
        host_link.mechanisms = own(host);
        fabric_link.mechanisms = own(fabric);
        let mut net = spec(Shape::LeafSpine { racks: 2, hosts_per_rack: 2, spines: 2, host_link, fabric_link });
        let q = PhantomSpec { drain: Drain::Fraction(0.9), threshold: 1_000 };
        let switch = SwitchPhantom { spec: q, roles: roles.to_vec() };
        net.mechanisms.push(super::super::mechanism::Setting {
            name: "phantom",
            key: "switch.phantom".into(),
            spec: Arc::new(switch),
        });
        let mut built = super::super::mechanism::Standalone::new(super::super::topology::build(&net));
        install(&net, &mut built);
        let mut with: Vec<PortRole> =
            built.network.ports.iter().filter(|p| p.marks_departures()).map(|p| p.role).collect();
        with.dedup();
        with
    }

    /// `[switch] phantom` reaches the roles it names; a link's own setting overrides it
    /// for the ports that feed links of its kind, "off" or a queue of its own.
    #[test]
    fn roles_and_a_links_own_setting_decide_which_ports_get_a_queue() {
        use PortRole::{Down, ToHost, Up};
        let q = LinkPhantom::Set(PhantomSpec { drain: Drain::Fraction(0.5), threshold: 1_000 });
        let sorted = |mut v: Vec<PortRole>| {
            v.sort_by_key(|r| r.name());
            v.dedup();
            v
        };
        assert_eq!(sorted(placed(&[ToHost, Up, Down], None, None)), sorted(vec![ToHost, Up, Down]));
        assert_eq!(sorted(placed(&[ToHost, Up, Down], None, Some(LinkPhantom::Off))), vec![ToHost]);
        assert_eq!(sorted(placed(&[Up], Some(q), None)), sorted(vec![ToHost, Up]));
        assert_eq!(sorted(placed(&[ToHost], Some(LinkPhantom::Off), Some(q))), sorted(vec![Up, Down]));
    }

    /// A train of 1,500-byte packets at line rate (1 Gbps: one every 12 µs) into a phantom
    /// queue draining at 950 Mbps with a 1 KB threshold (HULL's Table 3). Each packet adds
    /// 1,500 B and the 12 µs until the next drains 1,425 B: the counter grows by 75 B a
    /// packet. By hand: after packet 1 it holds 1,500 B; packet 2 finds 75 B (drained
    /// 1,425), so it is not marked … every packet finds 75·(k−1) B, so packet k is marked
    /// once 75·(k−1) ≥ 1,000, i.e. from packet 15 (k − 1 = 14: 1,050 B) on.
    #[test]
    fn a_line_rate_train_is_marked_from_the_packet_that_finds_the_threshold() {
        let line = Rate::from_gbps(1);
        let mut pq = PhantomQueue::new(Drain::Fraction(0.95).on(line), 1_000);
        let gap = line.ser(1_500);
        assert_eq!(gap, Time::from_us(12));
        let marks: Vec<bool> = (0..20).map(|k| pq.depart(Time::from_ps(gap.ps() * k), 1_500)).collect();
        let first = marks.iter().position(|&m| m).unwrap();
        assert_eq!(first, 14, "packet 15 (index 14) finds 1,050 B");
        assert!(marks[first..].iter().all(|&m| m), "the counter only grows while the train lasts");
        // After packet 20 the counter holds 19·75 + 1,500 = 2,925 B.
        assert_eq!(pq.backlog_bytes(), 2_925);
    }

    /// Gaps wider than the drain time empty the counter (floored at zero, no negative
    /// credit): packets spaced at the drain rate or slower are never marked.
    #[test]
    fn traffic_below_the_drain_rate_is_never_marked_and_idle_drains_to_zero() {
        let line = Rate::from_gbps(10);
        let mut pq = PhantomQueue::new(Drain::Fraction(0.9).on(line), 1);
        // Threshold 1 B: a packet is marked iff it finds any virtual backlog at all.
        let drain_time = Drain::Fraction(0.9).on(line).ser(1_500);
        let mut t = Time::ZERO;
        for _ in 0..100 {
            assert!(!pq.depart(t, 1_500));
            t += drain_time;
        }
        // One packet a hair early finds a few bytes left.
        assert!(pq.depart(t - Time::from_ps(1_000), 1_500));
        // A long idle period: empty again, not negative.
        assert!(!pq.depart(t + Time::from_ms(10), 1_500));
        assert_eq!(pq.backlog_bytes(), 1_500);
    }

    #[test]
    fn a_drain_given_as_a_rate_is_used_as_is() {
        assert_eq!(Drain::Rate(Rate::from_bps(950_000_000)).on(Rate::from_gbps(10)).bps(), 950_000_000);
        assert_eq!(Drain::Fraction(0.95).on(Rate::from_gbps(10)).bps(), 9_500_000_000);
    }
}
