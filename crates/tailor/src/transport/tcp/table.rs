//! The `[transport]` tables of the TCP family: `kind = "tcp"` (NewReno), `"dctcp"` and
//! `"hpcc"` (docs/scenario.md, "Transport").

use super::{cc, hpcc as hpcc_cc, Config, Flavor};
use crate::input::{ScenarioError, Table};
use crate::net::topology::NetSpec;
use crate::sim::Time;
use crate::transport::path::{base_rtt, bdp_bytes, line_rate};
use crate::transport::TransportConfig;
use std::sync::Arc;

/// Payload and header bytes per packet: the keys every transport of the family reads
/// first (so an error in them is reported the same whatever the kind).
pub(crate) fn mss_header(t: &mut Table) -> Result<(u64, u64), ScenarioError> {
    mss_header_or(t, (1448, 54))
}

/// `mss_header` with other defaults (payload, header).
pub(crate) fn mss_header_or(t: &mut Table, default: (u64, u64)) -> Result<(u64, u64), ScenarioError> {
    let mss = t.size("mss")?.unwrap_or(default.0);
    if !(1..=1 << 30).contains(&mss) {
        return Err(t.error("mss", "is out of range; accepted: \"1B\" to \"1GiB\""));
    }
    let header = t.size("header")?.unwrap_or(default.1);
    if header > 65_535 {
        return Err(t.error("header", "is out of range; accepted: at most \"65535B\""));
    }
    Ok((mss, header))
}

fn segments(t: &mut Table, key: &'static str, bdp_segs: u64) -> Result<Option<u32>, ScenarioError> {
    t.get(key, |v| match v {
        toml::Value::Integer(i) if (1..=1_000_000).contains(i) => Ok(*i as u32),
        toml::Value::String(s) if s == "bdp" => Ok(bdp_segs as u32),
        _ => Err("is not a window; accepted: a number of segments from 1 to 1000000, or \"bdp\"".to_string()),
    })
}

/// Which window control a table of the window family asks for.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Kind {
    Tcp,
    Cubic,
    Dctcp,
}

/// `kind = "tcp"`: NewReno, or no congestion control (`congestion_control = "off"`).
pub fn newreno(t: &mut Table, net: &NetSpec) -> Result<TransportConfig, ScenarioError> {
    window_tcp(t, net, Kind::Tcp)
}

/// `kind = "cubic"`.
pub fn cubic(t: &mut Table, net: &NetSpec) -> Result<TransportConfig, ScenarioError> {
    window_tcp(t, net, Kind::Cubic)
}

/// `kind = "dctcp"`.
pub fn dctcp(t: &mut Table, net: &NetSpec) -> Result<TransportConfig, ScenarioError> {
    window_tcp(t, net, Kind::Dctcp)
}

fn flavor(t: &mut Table, kind: Kind) -> Result<Flavor, ScenarioError> {
    Ok(match kind {
        Kind::Dctcp => {
            let g = t.float("dctcp_g", 1e-6, 1.0)?.unwrap_or(1.0 / 16.0);
            let initial_alpha = t.float("dctcp_initial_alpha", 0.0, 1.0)?.unwrap_or(1.0);
            Flavor::Dctcp { g, initial_alpha }
        }
        Kind::Cubic => {
            let d = super::cubic::Params::default();
            Flavor::Cubic(super::cubic::Params {
                c: t.float("cubic_c", 1e-3, 100.0)?.unwrap_or(d.c),
                beta: t.float("cubic_beta", 0.1, 0.95)?.unwrap_or(d.beta),
                fast_convergence: t.boolean("fast_convergence")?.unwrap_or(d.fast_convergence),
            })
        }
        Kind::Tcp => {
            // The built-in controllers, then the registry's (`cc::PLAIN`).
            let names: Vec<&str> = ["newreno", "off"].into_iter().chain(cc::PLAIN.iter().map(|p| p.name)).collect();
            match t.choice("congestion_control", &names)?.as_deref() {
                Some("off") => Flavor::Off,
                Some(name) => cc::PLAIN.iter().find(|p| p.name == name).map_or(Flavor::NewReno, Flavor::Plain),
                None => Flavor::NewReno,
            }
        }
    })
}

fn window_tcp(t: &mut Table, net: &NetSpec, kind: Kind) -> Result<TransportConfig, ScenarioError> {
    let (mss, header) = mss_header(t)?;
    let bdp_segs = bdp_bytes(net, mss, header).div_ceil(mss).max(1);
    let flavor = flavor(t, kind)?;
    let prr = match t.choice("prr", &["rfc6937", "ns3"])?.as_deref() {
        Some("ns3") => cc::PrrVariant::Ns3,
        _ => cc::PrrVariant::Rfc6937,
    };
    let init_cwnd = segments(t, "init_cwnd", bdp_segs)?.unwrap_or(10);
    let max_cwnd = segments(t, "max_cwnd", bdp_segs)?;
    let mut cfg = reliability(t, flavor, mss, header, init_cwnd, max_cwnd, prr)?;
    cfg.rfc3168 = rfc3168(t, kind, flavor)?;
    cfg.lso = t.size("lso")?;
    cfg.restart_after_idle = t.boolean("restart_after_idle")?.unwrap_or(false);
    cfg.rwnd = rwnd(t, mss, cfg.lso)?;
    if let Some(l) = cfg.lso {
        if l < mss || l > 1 << 20 {
            return Err(t.error(
                "lso",
                format!("is out of range; accepted: from one segment (\"{mss}B\") to \"1MiB\" (Linux's is \"64KB\")"),
            ));
        }
    }
    if cfg.max_cwnd.is_some_and(|m| m < cfg.init_cwnd) {
        return Err(t.error(
            "max_cwnd",
            format!("is below init_cwnd ({}); accepted: {} segments or more", cfg.init_cwnd, cfg.init_cwnd),
        ));
    }
    Ok(Arc::new(cfg))
}

/// `ecn = "rfc3168"`: NewReno or CUBIC with RFC 3168's ECN (`Config::rfc3168`, docs/transport.md
/// "ECN for NewReno and CUBIC"); `"off"` (the default): not ECN-capable. DCTCP has no such
/// key (its ECN is DCTCP's); TCP without congestion control has no window to cut.
fn rfc3168(t: &mut Table, kind: Kind, flavor: Flavor) -> Result<bool, ScenarioError> {
    if kind == Kind::Dctcp {
        return Ok(false);
    }
    let on = t.choice("ecn", &["off", "rfc3168"])?.is_some_and(|c| c == "rfc3168");
    if on && flavor == Flavor::Off {
        return Err(t.error("ecn", "needs a window to cut (congestion_control = \"off\"); accepted: \"off\" here, or congestion_control = \"newreno\""));
    }
    Ok(on)
}

/// `rwnd = { autotune = true, initial = "64KB", max = "4MB", clock = "1ms" }`: the receive window
/// (`receiver::RcvWindow`, docs/transport.md "Receive window"). `initial` is the window
/// first advertised (Linux's 65,535 B from `tcp_rmem[1]` = 87,380 B); `max` is the
/// receive buffer's ceiling (`tcp_rmem[2]`, 4 MB), of which 3/4 is window; `clock` is
/// the timestamps' tick (a jiffy) that the receiver's RTT estimate counts;
/// `cwnd_limited` is when the sender's cwnd may grow: `"burst"` (flight within three
/// segments of cwnd) or, with `lso`, `"tso"` (Linux 2.6.26's rule under segmentation
/// offload: less than a third of cwnd unsent).
fn rwnd(t: &mut Table, mss: u64, lso: Option<u64>) -> Result<Option<super::receiver::RcvWindow>, ScenarioError> {
    use super::receiver::CwndLimited;
    let Some(mut w) = t.table("rwnd")? else { return Ok(None) };
    let autotune = w.boolean("autotune")?.unwrap_or(true);
    let initial = w.size("initial")?.unwrap_or(65_535);
    if initial < mss || initial > 1 << 30 {
        return Err(w.error("initial", format!("is out of range; accepted: from one segment (\"{mss}B\") to \"1GiB\"")));
    }
    let max = w.size("max")?.unwrap_or(4 << 20);
    if max > 2 << 30 || (autotune && max / 4 * 3 < initial) {
        return Err(w.error(
            "max",
            format!("is out of range; accepted: up to \"2GiB\" with 3/4 of it at least initial ({initial}B)"),
        ));
    }
    let clock = w.time("clock")?.unwrap_or(Time::from_ms(1));
    if clock < Time::from_ns(1) || clock > Time::from_ms(1000) {
        return Err(w.error(
            "clock",
            "is out of range; accepted: \"1ns\" to \"1s\" (Linux's jiffy: \"1ms\" at HZ = 1000, \"4ms\" at HZ = 250)",
        ));
    }
    let cwnd_limited = match w.choice("cwnd_limited", &["burst", "tso"])?.as_deref() {
        Some("tso") if lso.is_none() => {
            return Err(w.error("cwnd_limited", "is \"tso\" without lso; accepted: \"burst\", or \"tso\" with [transport] lso (Linux's rule under segmentation offload)"));
        }
        Some("tso") => CwndLimited::Tso,
        _ => CwndLimited::Burst,
    };
    w.finish()?;
    Ok(Some(super::receiver::RcvWindow { autotune, initial, max, clock, cwnd_limited }))
}

/// The keys every TCP flavor shares: ACK policy, timers, handshake.
fn reliability(
    t: &mut Table,
    flavor: Flavor,
    mss: u64,
    header: u64,
    init_cwnd: u32,
    max_cwnd: Option<u32>,
    prr: cc::PrrVariant,
) -> Result<Config, ScenarioError> {
    let delayed_ack = t.boolean("delayed_ack")?.unwrap_or(false);
    let delack_timeout = t.time("delayed_ack_timeout")?;
    if delack_timeout.is_some() && !delayed_ack {
        return Err(t.error(
            "delayed_ack_timeout",
            "is only used with delayed_ack = true; accepted: no timeout without delayed ACKs",
        ));
    }
    // Retransmission timers have the floor every re-arming timer has (Homa's, NDP's).
    let floor = |t: &Table, key: &str, v: Time| match v < Time::from_us(1) {
        true => Err(t.error(
            key,
            "is below 1us; accepted: at least \"1us\" (Linux's is \"200ms\"; data centres use \"1ms\" or less)",
        )),
        false => Ok(v),
    };
    let min_rto = t.time("min_rto")?.unwrap_or(Time::from_ms(1));
    let min_rto = floor(t, "min_rto", min_rto)?;
    let initial_rto = t.time("initial_rto")?;
    let initial_rto = initial_rto.map(|v| floor(t, "initial_rto", v)).transpose()?.unwrap_or(min_rto);
    let dupack_threshold = t
        .get("dupack_threshold", |v| match v {
            toml::Value::Integer(i) if (1..=1_000_000).contains(i) => Ok(Some(*i as u32)),
            toml::Value::String(s) if s == "off" => Ok(None),
            _ => {
                Err("is not a threshold; accepted: a number of duplicate ACKs from 1 to 1000000, or \"off\""
                    .to_string())
            }
        })?
        .unwrap_or(Some(3));
    let coalesce = t.choice("coalesce", &["nagle", "off"])?.is_none_or(|c| c == "nagle");
    let dsack = t.boolean("dsack")?.unwrap_or(false);
    let completion = match t.choice("completion", &["ack", "delivery"])?.as_deref() {
        Some("delivery") => super::Completion::Delivery,
        _ => super::Completion::Ack,
    };
    Ok(Config {
        flavor,
        rfc3168: false,
        mss: mss as u32,
        header: header as u32,
        init_cwnd,
        max_cwnd,
        delayed_ack,
        delack_timeout: delack_timeout.unwrap_or(Time::from_us(40)),
        min_rto,
        initial_rto,
        rto_granularity: t.time("clock_granularity")?.unwrap_or(Time::from_ns(1)).max(Time::from_ps(1)),
        handshake: t.boolean("handshake")?.unwrap_or(false),
        prr,
        dupack_threshold,
        lso: None,
        restart_after_idle: false,
        coalesce,
        rwnd: None,
        dsack,
        completion,
    })
}

/// HPCC over the TCP sender (docs/transport.md, "HPCC"). Every packet of an HPCC
/// connection carries the INT header, so `int_header` joins `header` on the wire; T is
/// the base RTT of the longest path, W_init = line rate × T (`"bdp"`) unless given, and
/// W_AI defaults to line rate × T / 2500 (R_AI = line rate / 2500: 10 Mb/s per 25 Gb/s,
/// HPCC's published ns-3 settings).
pub fn hpcc(t: &mut Table, net: &NetSpec) -> Result<TransportConfig, ScenarioError> {
    let (mss, header) = mss_header(t)?;
    let int_header = t.size("int_header")?.unwrap_or(42);
    if header + int_header > 65_535 {
        return Err(t.error(
            "int_header",
            format!(
                "header + int_header is above 65535B (header is {header}B); accepted: at most \"{}B\"",
                65_535 - header
            ),
        ));
    }
    let header = header + int_header;
    let base_rtt = base_rtt(net, mss, header);
    let line_rate = line_rate(net);
    let bdp = line_rate.bytes_in(base_rtt);
    let w_init = t
        .get("init_cwnd", |v| match v {
            toml::Value::Integer(i) if (1..=1_000_000).contains(i) => Ok(*i as u64 * mss),
            toml::Value::String(s) if s == "bdp" => Ok(bdp),
            _ => Err("is not a window; accepted: a number of segments from 1 to 1000000, or \"bdp\"".to_string()),
        })?
        .unwrap_or(bdp);
    let w_ai = t.size("w_ai")?.unwrap_or((bdp / 2500).max(1));
    if !(1..=1 << 30).contains(&w_ai) {
        return Err(t.error("w_ai", "is out of range; accepted: \"1B\" to \"1GiB\""));
    }
    let params = hpcc_cc::Params {
        eta: t.float("eta", 0.5, 1.0)?.unwrap_or(0.95),
        max_stage: t.int("max_stage", 0, 1000)?.unwrap_or(5) as u32,
        w_ai,
        w_init,
        base_rtt,
        line_rate,
    };
    let init_cwnd = w_init.div_ceil(mss) as u32;
    let cfg = reliability(t, Flavor::Hpcc(params), mss, header, init_cwnd, None, cc::PrrVariant::Rfc6937)?;
    Ok(Arc::new(cfg))
}
