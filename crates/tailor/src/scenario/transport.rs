//! `[transport]`: which transport every message uses and its options.

use super::reader::{ScenarioError, Table};
use crate::engine::TransportConfig;
use crate::measure::ideal::{pipeline, Hop, Train};
use crate::net::topology::{LinkSpec, NetSpec, Shape};
use crate::sim::{Rate, Time};
use crate::transport::{raw, tcp};

pub const KINDS: &[&str] = &["dctcp", "tcp", "hpcc", "raw"];

/// The links of the longest path of a topology (the path a BDP is computed on).
fn longest_path(shape: &Shape) -> Vec<&LinkSpec> {
    match shape {
        Shape::Star { link, .. } => vec![link, link],
        Shape::Dumbbell { host_link, trunk, .. } => vec![host_link, trunk, host_link],
        Shape::LeafSpine { racks, host_link, fabric_link, .. } if *racks > 1 => {
            vec![host_link, fabric_link, fabric_link, host_link]
        }
        Shape::LeafSpine { host_link, .. } => vec![host_link, host_link],
        Shape::FatTree { pods, tors, host_link, fabric_link, .. } => match (*pods > 1, *tors > 1) {
            (true, _) => vec![host_link, fabric_link, fabric_link, fabric_link, fabric_link, host_link],
            (false, true) => vec![host_link, fabric_link, fabric_link, host_link],
            _ => vec![host_link, host_link],
        },
    }
}

/// The bandwidth-delay product used for `init_cwnd = "bdp"`: the first link's rate
/// times the round trip of one full-size packet and its ACK over the longest path in
/// the empty network (propagation, store-and-forward, switch and host delays). Taking
/// propagation alone would leave a lone flow window-limited on multi-hop paths (the
/// ns-3 leaf-spine anchor's quirk 2).
pub fn bdp_bytes(net: &NetSpec, mss: u64, header: u64) -> u64 {
    line_rate(net).bytes_in(base_rtt(net, mss, header))
}

/// The rate of the first link of the longest path (a host's link).
fn line_rate(net: &NetSpec) -> Rate {
    longest_path(&net.shape)[0].rate
}

/// The round trip of one full-size packet and its ACK over the longest path in the
/// empty network: the RTT behind `"bdp"`, and HPCC's T.
pub fn base_rtt(net: &NetSpec, mss: u64, header: u64) -> Time {
    let links = longest_path(&net.shape);
    let hops: Vec<Hop> = links
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let extra = if i + 1 == links.len() { net.host_rx_delay } else { net.switch_delay };
            Hop { rate: l.rate, delay: l.delay + extra }
        })
        .collect();
    net.host_tx_delay + net.host_tx_delay
        + pipeline(&hops, Train::of(mss, mss, header))
        + pipeline(&hops, Train::of(0, mss, header))
}

fn segments(t: &mut Table, key: &'static str, bdp_segs: u64) -> Result<Option<u32>, ScenarioError> {
    t.get(key, |v| match v {
        toml::Value::Integer(i) if (1..=1_000_000).contains(i) => Ok(*i as u32),
        toml::Value::String(s) if s == "bdp" => Ok(bdp_segs as u32),
        _ => Err("is not a window; accepted: a number of segments from 1 to 1000000, or \"bdp\"".to_string()),
    })
}

pub fn parse(t: &mut Table, net: &NetSpec) -> Result<TransportConfig, ScenarioError> {
    let kind = t.choice("kind", KINDS)?.ok_or_else(|| t.error("kind", format!("missing; accepted: {}", KINDS.join(", "))))?;
    let mss = t.size("mss")?.unwrap_or(1448);
    if !(1..=1 << 30).contains(&mss) {
        return Err(t.error("mss", "is out of range; accepted: \"1B\" to \"1GiB\""));
    }
    let header = t.size("header")?.unwrap_or(54);
    if header > 65_535 {
        return Err(t.error("header", "is out of range; accepted: at most \"65535B\""));
    }
    if kind == "raw" {
        return Ok(TransportConfig::Raw(raw::Config { mtu_payload: mss as u32, header: header as u32 }));
    }
    if kind == "hpcc" {
        return hpcc(t, net, mss, header);
    }
    let bdp_segs = bdp_bytes(net, mss, header).div_ceil(mss).max(1);
    let flavor = if kind == "dctcp" {
        let g = t.float("dctcp_g", 1e-6, 1.0)?.unwrap_or(1.0 / 16.0);
        let initial_alpha = t.float("dctcp_initial_alpha", 0.0, 1.0)?.unwrap_or(1.0);
        tcp::Flavor::Dctcp { g, initial_alpha }
    } else {
        tcp::Flavor::NewReno
    };
    let prr = match t.choice("prr", &["rfc6937", "ns3"])?.as_deref() {
        Some("ns3") => tcp::cc::PrrVariant::Ns3,
        _ => tcp::cc::PrrVariant::Rfc6937,
    };
    let init_cwnd = segments(t, "init_cwnd", bdp_segs)?.unwrap_or(10);
    let max_cwnd = segments(t, "max_cwnd", bdp_segs)?;
    let cfg = reliability(t, flavor, mss, header, init_cwnd, max_cwnd, prr)?;
    if cfg.max_cwnd.is_some_and(|m| m < cfg.init_cwnd) {
        return Err(t.error("max_cwnd", format!("is below init_cwnd ({}); accepted: {} segments or more", cfg.init_cwnd, cfg.init_cwnd)));
    }
    Ok(TransportConfig::Tcp(cfg))
}

/// The keys every TCP flavor shares: ACK policy, timers, handshake.
fn reliability(
    t: &mut Table,
    flavor: tcp::Flavor,
    mss: u64,
    header: u64,
    init_cwnd: u32,
    max_cwnd: Option<u32>,
    prr: tcp::cc::PrrVariant,
) -> Result<tcp::Config, ScenarioError> {
    let delayed_ack = t.boolean("delayed_ack")?.unwrap_or(false);
    let delack_timeout = t.time("delayed_ack_timeout")?;
    if delack_timeout.is_some() && !delayed_ack {
        return Err(t.error("delayed_ack_timeout", "is only used with delayed_ack = true; accepted: no timeout without delayed ACKs"));
    }
    let min_rto = t.time("min_rto")?.unwrap_or(Time::from_ms(1));
    Ok(tcp::Config {
        flavor,
        mss: mss as u32,
        header: header as u32,
        init_cwnd,
        max_cwnd,
        delayed_ack,
        delack_timeout: delack_timeout.unwrap_or(Time::from_us(40)),
        min_rto,
        initial_rto: t.time("initial_rto")?.unwrap_or(min_rto),
        rto_granularity: t.time("clock_granularity")?.unwrap_or(Time::from_ns(1)).max(Time::from_ps(1)),
        handshake: t.boolean("handshake")?.unwrap_or(false),
        prr,
    })
}

/// HPCC over the TCP sender (docs/transport.md, "HPCC"). Every packet of an HPCC
/// connection carries the INT header, so `int_header` joins `header` on the wire; T is
/// the base RTT of the longest path, W_init = line rate × T (`"bdp"`) unless given, and
/// W_AI defaults to line rate × T / 2500 (R_AI = line rate / 2500: 10 Mb/s per 25 Gb/s,
/// HPCC's published ns-3 settings).
fn hpcc(t: &mut Table, net: &NetSpec, mss: u64, header: u64) -> Result<TransportConfig, ScenarioError> {
    let int_header = t.size("int_header")?.unwrap_or(42);
    if header + int_header > 65_535 {
        return Err(t.error("int_header", format!("header + int_header is above 65535B (header is {header}B); accepted: at most \"{}B\"", 65_535 - header)));
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
    let params = tcp::hpcc::Params {
        eta: t.float("eta", 0.5, 1.0)?.unwrap_or(0.95),
        max_stage: t.int("max_stage", 0, 1000)?.unwrap_or(5) as u32,
        w_ai,
        w_init,
        base_rtt,
        line_rate,
    };
    let init_cwnd = w_init.div_ceil(mss) as u32;
    let cfg = reliability(t, tcp::Flavor::Hpcc(params), mss, header, init_cwnd, None, tcp::cc::PrrVariant::Rfc6937)?;
    Ok(TransportConfig::Tcp(cfg))
}
