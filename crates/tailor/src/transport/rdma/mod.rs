//! The RDMA NIC of lossless fabrics (RoCEv2) with its rate-based congestion controls, as
//! the HPCC authors' ns-3 programs model it (alibaba-edu/High-Precision-Congestion-Control,
//! the simulator of HPCC, SIGCOMM 2019, and of much work since): docs/rdma.md.
//!
//! - `endpoint`: the NIC: queue pairs served per packet in round robin, each paced at its
//!   controller's rate and held by its window; ACK per packet; go-back-N on NACK; ACKs
//!   before data; PFC's pauses obeyed per priority.
//! - `cc`: the controllers: DCQCN (`dcqcn`), TIMELY (`timely`), DCTCP on a rate
//!   (`dctcp`) and HPCC as those programs run it (`hpcc`), or none.
//! - `wire`: the headers.
//!
//! `[transport] kind = "rdma"` reads the programs' settings under tailor's names
//! (docs/scenario.md, "RDMA"); `tailor import hpcc-ns3` writes them from a config file of
//! theirs.

pub mod cc;
mod endpoint;
pub mod wire;

#[cfg(test)]
mod tests;

pub use endpoint::RdmaEndpoint;

use crate::input::{ScenarioError, Table};
use crate::measure::ideal::{last_ack, Train};
use crate::net::ids::HostId;
use crate::net::packet::Priority;
use crate::net::topology::NetSpec;
use crate::sim::{Rate, Time};
use crate::transport::path::{base_rtt, line_rate, Path};
use crate::transport::registry::Entry;
use crate::transport::{Endpoint, Transport, TransportConfig};
use cc::{dcqcn, dctcp, hpcc, timely, Bounds, RateControl};
use std::sync::Arc;

/// Its line in the registry.
pub const ENTRY: Entry = Entry {
    name: "rdma",
    about: "RDMA NIC (queue pairs in round robin, rate pacing, go-back-N) with DCQCN, TIMELY, DCTCP or HPCC",
    keys: &[
        "kind",
        "congestion_control",
        "mss",
        "header",
        "priority",
        "ack_high_priority",
        "window",
        "variable_window",
        "rate_bound",
        "min_rate",
        "base_rtt",
        "nack_interval",
        "ack_interval",
        "chunk",
        "back_to_zero",
        "cnp_interval",
        "dcqcn",
        "timely",
        "dctcp",
        "hpcc",
    ],
    needs: "host = { nic_depth = 0 }",
    parse,
};

/// The controllers `congestion_control` names.
pub const CONTROLS: &[&str] = &["dcqcn", "timely", "dctcp", "hpcc", "none"];

/// A queue pair's controller, as configured.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Control {
    None,
    Dcqcn(dcqcn::Params),
    Timely(timely::Params),
    Dctcp(dctcp::Params),
    Hpcc(hpcc::Params),
}

impl Control {
    pub fn name(&self) -> &'static str {
        match self {
            Control::None => "none",
            Control::Dcqcn(_) => "dcqcn",
            Control::Timely(_) => "timely",
            Control::Dctcp(_) => "dctcp",
            Control::Hpcc(_) => "hpcc",
        }
    }

    fn make(&self, cfg: &Config) -> Box<dyn RateControl> {
        match *self {
            Control::None => Box::new(cc::Fixed(cfg.line_bps)),
            Control::Dcqcn(p) => Box::new(dcqcn::Dcqcn::new(p)),
            Control::Timely(p) => Box::new(timely::Timely::new(p)),
            Control::Dctcp(p) => Box::new(dctcp::Dctcp::new(p)),
            Control::Hpcc(p) => Box::new(hpcc::Hpcc::new(p)),
        }
    }

    /// Header bytes its data packets carry beyond the base 48 (the programs' INT header
    /// of the mode): HPCC's five hop records, TIMELY's timestamp.
    fn extra_header(name: &str) -> u64 {
        match name {
            "hpcc" => 42,
            "timely" => 8,
            _ => 0,
        }
    }
}

/// The RDMA transport's configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub control: Control,
    /// Payload bytes per data packet (`PACKET_PAYLOAD_SIZE`).
    pub mss: u32,
    /// Header bytes per data packet (48: Ethernet 14, IPv4 20, UDP 8, sequence 6; plus
    /// the controller's INT or timestamp).
    pub header: u32,
    /// Wire bytes of an ACK or NACK (60, or 88 with HPCC's INT).
    pub ack_bytes: u32,
    /// The priority of its packets, data and ACKs (the flow file's `pg`).
    pub priority: Priority,
    /// ACKs leave the NIC even when the data's priority is paused (`ACK_HIGH_PRIO`).
    pub ack_high_priority: bool,
    /// W in bytes; 0: no window (`HAS_WIN 0`).
    pub window: u64,
    /// The window scales with the rate: W·R/R_max (`VAR_WIN`).
    pub variable_window: bool,
    /// Pace at the controller's rate (`RATE_BOUND`), else at line rate.
    pub rate_bound: bool,
    pub line_bps: u64,
    pub min_bps: u64,
    /// T: HPCC's horizon, and what `window = "bdp"` is computed on.
    pub base_rtt: Time,
    pub nack_interval: Time,
    /// The receiver ACKs once the next expected byte reaches this (`L2_ACK_INTERVAL`).
    pub ack_interval: u64,
    /// It also ACKs at multiples of this (`L2_CHUNK_SIZE`).
    pub chunk: u64,
    pub back_to_zero: bool,
    /// DCQCN's CNPs (§3.1): the receiver sends one on a CE-marked packet at most this
    /// often per queue pair, and ACKs echo no mark. None: the programs' ECN echo in the
    /// ACK of each marked packet.
    pub cnp_interval: Option<Time>,
    pub collects_int: bool,
}

/// `[transport] kind = "rdma"` (docs/scenario.md, "RDMA").
pub fn parse(t: &mut Table, net: &NetSpec) -> Result<TransportConfig, ScenarioError> {
    if net.nic_depth != Some(0) {
        let m = "needs a NIC that decides each packet when its link is idle (the RDMA NIC's round robin and PFC \
                 pause); accepted: [host] nic_depth = 0 with kind = \"rdma\"";
        return Err(t.error("kind", m));
    }
    // DCQCN unless named: the programs' default `CC_MODE 1`.
    let cc = t.choice("congestion_control", CONTROLS)?.unwrap_or_else(|| "dcqcn".to_string());
    for other in ["dcqcn", "timely", "dctcp", "hpcc"].into_iter().filter(|c| *c != cc) {
        if t.has(other) {
            let m = format!("sets {other}'s parameters, but congestion_control is \"{cc}\"; accepted: a table named as congestion_control");
            return Err(t.error(other, m));
        }
        t.accepts(other);
    }
    let mss = t.int("mss", 64, 9_000)?.unwrap_or(1_000) as u32;
    let extra = Control::extra_header(&cc);
    let header = t.size("header")?.unwrap_or(48 + extra);
    if !(1..=4_096).contains(&header) {
        return Err(t.error("header", "is out of range; accepted: \"1B\" to \"4096B\""));
    }
    let line = line_rate(net).bps();
    let bounds = Bounds { line, min: t.rate("min_rate")?.map_or(1_000_000_000, |r| r.bps()).min(line) };
    let rtt = t.time("base_rtt")?.unwrap_or_else(|| base_rtt(net, mss as u64, header));
    let bdp = Rate::from_bps(line).bytes_in(rtt);
    let window = read_window(t, &cc, bdp)?;
    let variable_window = t.boolean("variable_window")?.unwrap_or(window > 0);
    if variable_window && window == 0 {
        return Err(t.error("variable_window", "needs a window to scale; accepted: false, or a window"));
    }
    let control = read_control(t, &cc, mss as u64, bounds, rtt, window)?;
    let chunk = t.size("chunk")?.unwrap_or(4_000);
    if chunk == 0 {
        return Err(t.error("chunk", "is 0; accepted: at least \"1B\""));
    }
    let cfg = Config {
        control,
        mss,
        header: header as u32,
        ack_bytes: 60.max(46 + extra) as u32,
        priority: t.int("priority", 0, 7)?.unwrap_or(3) as Priority,
        ack_high_priority: t.boolean("ack_high_priority")?.unwrap_or(false),
        window,
        variable_window,
        rate_bound: t.boolean("rate_bound")?.unwrap_or(true),
        line_bps: line,
        min_bps: bounds.min,
        base_rtt: rtt,
        nack_interval: t.time("nack_interval")?.unwrap_or(Time::from_us(500)),
        ack_interval: t.size("ack_interval")?.unwrap_or(1).max(1),
        chunk,
        back_to_zero: t.boolean("back_to_zero")?.unwrap_or(false),
        cnp_interval: read_cnp_interval(t, &cc)?,
        collects_int: cc == "hpcc",
    };
    Ok(Arc::new(cfg))
}

/// `window`: `"none"`, `"bdp"` (line rate × base RTT) or bytes; by default what the
/// programs' presets give the controller (HPCC and DCTCP a BDP, DCQCN and TIMELY none).
fn read_window(t: &mut Table, cc: &str, bdp: u64) -> Result<u64, ScenarioError> {
    let accepted = "accepted: \"none\", \"bdp\" (line rate × base_rtt) or a size such as \"100KB\"";
    let w = match t.peek("window") {
        None if matches!(cc, "hpcc" | "dctcp") => bdp,
        None => 0,
        Some(toml::Value::String(s)) if s == "none" => 0,
        Some(toml::Value::String(s)) if s == "bdp" => bdp,
        Some(toml::Value::String(_)) => t.size("window")?.expect("present"),
        Some(_) => return Err(t.error("window", format!("is not a window; {accepted}"))),
    };
    t.accepts("window");
    if cc == "hpcc" && w == 0 {
        return Err(t.error(
            "window",
            "is none, but HPCC measures queues in windows (u = qlen/W); accepted: \"bdp\" or a size",
        ));
    }
    Ok(w)
}

/// The controller's table, `dcqcn = { ... }` and so on; defaults are the programs'
/// `run.py` presets at this line rate (docs/rdma.md, "Settings").
fn read_control(
    t: &mut Table,
    cc: &str,
    mss: u64,
    bounds: Bounds,
    rtt: Time,
    window: u64,
) -> Result<Control, ScenarioError> {
    let gbps = bounds.line as f64 / 1e9;
    let mbps = |x: f64| (x * 1e6) as u64;
    let owned = t.table(match cc {
        "dcqcn" => "dcqcn",
        "timely" => "timely",
        "dctcp" => "dctcp",
        "hpcc" => "hpcc",
        _ => return Ok(Control::None),
    })?;
    let empty = toml::Table::new();
    let mut own = owned.unwrap_or_else(|| Table::root(t.file_name(), &empty));
    let s = &mut own;
    let rate = |s: &mut Table, key: &'static str, default: u64| -> Result<u64, ScenarioError> {
        let r = s.rate(key)?.map_or(default, |r| r.bps());
        if r == 0 || r > bounds.line {
            return Err(
                s.error(key, format!("is out of range; accepted: above 0 and at most the line rate, {gbps} Gbps"))
            );
        }
        Ok(r)
    };
    let control = match cc {
        "dcqcn" => Control::Dcqcn(dcqcn::Params {
            g: s.float("g", 0.0, 1.0)?.unwrap_or(1.0 / 256.0),
            alpha_interval: positive(s, "alpha_interval", Time::from_us(1))?,
            decrease_interval: positive(s, "decrease_interval", Time::from_us(4))?,
            rp_timer: positive(s, "rp_timer", Time::from_us(300))?,
            fast_recovery: s.int("fast_recovery", 0, 1_000)?.unwrap_or(1) as u32,
            rate_ai: rate(s, "rate_ai", mbps(5.0 * gbps / 25.0))?,
            rate_hai: rate(s, "rate_hai", mbps(50.0 * gbps / 25.0))?,
            clamp_target: s.boolean("clamp_target")?.unwrap_or(false),
            byte_counter: s.size("byte_counter")?.filter(|b| *b > 0),
            bounds,
        }),
        "timely" => Control::Timely(timely::Params {
            alpha: s.float("alpha", 0.0, 1.0)?.unwrap_or(0.875),
            beta: s.float("beta", 0.0, 1.0)?.unwrap_or(0.8),
            t_low: s.time("t_low")?.unwrap_or(Time::from_us(50)),
            t_high: positive(s, "t_high", Time::from_us(500))?,
            min_rtt: positive(s, "min_rtt", Time::from_us(20))?,
            rate_ai: rate(s, "rate_ai", mbps(gbps))?,
            rate_hai: rate(s, "rate_hai", mbps(5.0 * gbps))?,
            bounds,
        }),
        "dctcp" => Control::Dctcp(dctcp::Params {
            g: s.float("g", 0.0, 1.0)?.unwrap_or(1.0 / 16.0),
            rate_ai: rate(s, "rate_ai", mbps(615.0).min(bounds.line))?,
            mss,
            bounds,
        }),
        _ => Control::Hpcc(hpcc::Params {
            eta: s.float("eta", 0.1, 1.0)?.unwrap_or(0.95),
            max_stage: s.int("max_stage", 0, 1_000)?.unwrap_or(0) as u32,
            rate_ai: rate(s, "rate_ai", mbps(10.0 * gbps / 25.0))?,
            fast_react: s.boolean("fast_react")?.unwrap_or(true),
            int_multi: s.int("int_multi", 0, 1_000)?.unwrap_or(1) as u32,
            base_rtt: rtt,
            window,
            bounds,
        }),
    };
    own.finish()?;
    Ok(control)
}

/// `cnp_interval`: DCQCN's CNPs instead of ECN echoes (the paper's NP, 50 us there).
fn read_cnp_interval(t: &mut Table, cc: &str) -> Result<Option<Time>, ScenarioError> {
    let Some(iv) = t.time("cnp_interval")? else { return Ok(None) };
    if cc != "dcqcn" {
        let m = format!("is DCQCN's notification point, but congestion_control is \"{cc}\"; accepted: congestion_control = \"dcqcn\" with cnp_interval");
        return Err(t.error("cnp_interval", m));
    }
    if iv == Time::ZERO {
        return Err(t.error("cnp_interval", "is 0; accepted: a positive time such as \"50us\" (DCQCN §3.1)"));
    }
    Ok(Some(iv))
}

fn positive(s: &mut Table, key: &'static str, default: Time) -> Result<Time, ScenarioError> {
    match s.time(key)? {
        Some(t) if t == Time::ZERO => Err(s.error(key, "is 0; accepted: a positive time such as \"4us\"")),
        Some(t) => Ok(t),
        None => Ok(default),
    }
}

impl Transport for Config {
    fn name(&self) -> &'static str {
        ENTRY.name
    }
    fn endpoint(&self, _host: HostId) -> Box<dyn Endpoint> {
        Box::new(RdmaEndpoint::new(Arc::new(self.clone())))
    }
    /// The sender's last ACK: the message's packets through the path, then the ACK of the
    /// last one back (the programs' FCT ends there too).
    fn ideal(&self, p: &Path, size: u64) -> Time {
        let train = Train::of(size, self.mss as u64, self.header as u64);
        p.src_tx_delay + last_ack(&p.fwd, &p.rev, train, self.ack_bytes as u64, 1, p.dst_tx_delay)
    }
    fn collects_telemetry(&self) -> bool {
        self.collects_int
    }
    fn obeys_pause(&self) -> bool {
        true
    }
    fn full_packet(&self) -> u64 {
        (self.mss + self.header) as u64
    }
    fn segment_payload(&self) -> u64 {
        self.mss as u64
    }
    fn wire_bytes(&self, size: u64) -> Option<f64> {
        let packets = size.div_ceil(self.mss as u64).max(1);
        Some((size + packets * (self.header + self.ack_bytes) as u64) as f64)
    }
    /// On links `factor` times faster the line rate, the window and the rate steps scale
    /// with them; times stay.
    fn scaled(&self, factor: f64, _net: &NetSpec) -> TransportConfig {
        let mut c = self.clone();
        let s = |r: u64| (r as f64 * factor) as u64;
        c.line_bps = s(c.line_bps);
        c.window = s(c.window);
        let bounds = Bounds { line: c.line_bps, min: c.min_bps.min(c.line_bps) };
        c.control = match c.control {
            Control::None => Control::None,
            Control::Dcqcn(p) => {
                Control::Dcqcn(dcqcn::Params { rate_ai: s(p.rate_ai), rate_hai: s(p.rate_hai), bounds, ..p })
            }
            Control::Timely(p) => {
                Control::Timely(timely::Params { rate_ai: s(p.rate_ai), rate_hai: s(p.rate_hai), bounds, ..p })
            }
            Control::Dctcp(p) => Control::Dctcp(dctcp::Params { rate_ai: s(p.rate_ai), bounds, ..p }),
            Control::Hpcc(p) => Control::Hpcc(hpcc::Params { rate_ai: s(p.rate_ai), window: c.window, bounds, ..p }),
        };
        Arc::new(c)
    }
    fn settings(&self) -> serde_json::Value {
        serde_json::json!({
            "congestion_control": self.control.name(),
            "window_bytes": self.window,
            "variable_window": self.variable_window,
            "base_rtt_ns": self.base_rtt.ps() as f64 / 1e3,
            "line_rate_bps": self.line_bps,
        })
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
