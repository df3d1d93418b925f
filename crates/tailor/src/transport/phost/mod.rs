//! pHost (Gao et al., "pHost: Distributed Near-Optimal Datacenter Transport Over Commodity
//! Network Fabric", CoNEXT 2015): receivers pull packets with per-packet tokens; two
//! priority levels (docs/phost.md).
//!
//! - A sender announces each message with an RTS and sends its first packets at once on
//!   free tokens, one BDP's worth (§3, "free tokens"); the rest waits for tokens
//!   (`outbound`).
//! - A receiver sends one token per full-packet time of its downlink, each naming a
//!   packet, to the message with the fewest bytes left among those that may have one
//!   (§3, SRPT at the destination); a message whose sender leaves `token_window` tokens
//!   unanswered is passed over until it answers or `downgrade_timeout` passes (§3,
//!   downgrading an unresponsive source) (`inbound`).
//! - A sender spends, among the tokens it holds, one of the message with the fewest
//!   bytes left (§3, SRPT at the source); a token expires `token_expiry` after it arrives
//!   (§3), and no packet goes without a token or a free token.
//! - Losses (§3): once every packet of a message has had its token, the receiver waits
//!   `resend_timeout` and names the missing packets in new tokens.
//! - Priorities (§3): RTS, tokens, ACKs and packets sent on free tokens at level 0, the
//!   packets sent on tokens at level 1 (`priority_levels = 1`: all at 0, for switches
//!   without priority queues).
//! - Two choices of the pHost authors' simulator are options: free tokens only for messages
//!   that fit in them (`free_tokens_to = "short_messages"`), and a token clock that, with
//!   nothing to serve, sleeps until a timeout even when DATA arrives (`idle_wakeup =
//!   "timeouts"`) (docs/phost.md, "Differences").
//!
//! Defaults of the numbers are the pHost authors' simulator's (NetSys/simulator,
//! `py/run_experiments.py`: `capability_timeout` 1.5, `capability_window_timeout` 25,
//! `capability_resend_timeout` 9 full-packet times; `capability_initial` and
//! `capability_window` one BDP in packets), with the BDP of the fabric the scenario gives. This module holds the configuration:
//! its scenario table, the ideal latency of a message and its bytes on the wire.

mod endpoint;
mod inbound;
mod outbound;
pub mod wire;

#[cfg(test)]
mod tests;

pub use endpoint::PhostEndpoint;
pub use wire::{Kind, Wire};

use crate::input::{ScenarioError, Table};
use crate::measure::ideal::{pipeline, pipeline_blocks, Block, Train};
use crate::net::ids::HostId;
use crate::net::packet::Priority;
use crate::net::topology::{Discipline, NetSpec};
use crate::sim::{Rate, Time};
use crate::transport::path::{line_rate, longest_hops, Path};
use crate::transport::registry::Entry;
use crate::transport::{Endpoint, Transport, TransportConfig};
use std::sync::Arc;

/// The level of RTS, tokens, ACKs and packets sent on free tokens.
pub const CONTROL: Priority = 0;
/// The level of packets sent on tokens.
pub const SCHEDULED: Priority = 1;

/// Its line in the registry.
pub const ENTRY: Entry = Entry {
    name: "phost",
    about: "receiver-driven: RTS, a BDP of free tokens, one token per packet by SRPT, source downgrading, two levels",
    keys: &[
        "kind",
        "free_tokens",
        "token_window",
        "token_expiry",
        "downgrade_timeout",
        "resend_timeout",
        "rts_timeout",
        "priority_levels",
        "idle_wakeup",
        "free_tokens_to",
    ],
    // Homa §2.2: two levels, control and free tokens high; a sender picks among its tokens
    // when its link is free, so the NIC asks for a packet only then.
    needs: r#"switch = { scheduler = "priority", priority_levels = 2 }
host = { nic_depth = 0 }"#,
    parse,
};

/// Which messages get free tokens.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FreeTo {
    /// Every message, for its first `free_tokens` packets (the Homa paper's account of
    /// pHost, §2: "the first RTTbytes of each message blindly").
    Every,
    /// A message of at most `free_tokens` packets gets one for each; a longer one none (the
    /// pHost authors' simulator, `CapabilityFlow::init_capa_size`).
    Short,
}

/// What wakes a receiver's token clock when no message could have a token.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Wakeup {
    /// A DATA packet that answers a window, an announcement, or the earliest timeout.
    Arrivals,
    /// An announcement or the earliest timeout only, as in the pHost authors' simulator
    /// (`CapabilityHost::send_capability`): a DATA packet that answers a window waits for
    /// the next tick of a running clock, or for a timeout.
    Timeouts,
}

/// A duration given in full-packet times of the host link (the pHost simulator's unit)
/// or as a time.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Span {
    Packets(f64),
    Fixed(Time),
}

impl Span {
    /// The duration when a full packet takes `packet`.
    pub fn at(self, packet: Time) -> Time {
        match self {
            Span::Packets(n) => Time::from_ps((n * packet.ps() as f64).round() as u64),
            Span::Fixed(t) => t,
        }
    }

    fn json(self) -> serde_json::Value {
        match self {
            Span::Packets(n) => serde_json::json!({ "packets": n }),
            Span::Fixed(t) => serde_json::json!({ "ns": t.ps() as f64 / 1e3 }),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub wire: Wire,
    /// Packets of a message sent before any token (§3, "free tokens").
    pub free_tokens: u32,
    /// Tokens a sender may leave unanswered before its receiver passes it over.
    pub token_window: u32,
    /// A token's life at the sender.
    pub token_expiry: Span,
    /// How long a receiver passes over a sender that left its window unanswered.
    pub downgrade_timeout: Span,
    /// How long a receiver waits after a message's last token before naming its missing
    /// packets again.
    pub resend_timeout: Span,
    /// A sender whose receiver never spoke of a message re-sends its RTS after this much
    /// silence; None: never (a fabric that cannot drop).
    pub rts_timeout: Option<Time>,
    /// The host link rate: the token clock and the packet-time unit.
    pub line_rate: Rate,
    /// 2: pHost's levels (§3); 1: every packet at level 0, for switches without priorities.
    pub levels: u8,
    pub wakeup: Wakeup,
    pub free_to: FreeTo,
}

impl Config {
    /// The level of control packets and of packets sent on free tokens.
    pub fn high(&self) -> Priority {
        CONTROL
    }
    /// The level of packets sent on tokens.
    pub fn low(&self) -> Priority {
        if self.levels > 1 {
            SCHEDULED
        } else {
            CONTROL
        }
    }

    /// The free tokens of a message of `size` bytes.
    pub fn free_of(&self, size: u64) -> u32 {
        let packets = self.wire.packets(size);
        match self.free_to {
            FreeTo::Every => self.free_tokens.min(packets),
            FreeTo::Short if packets <= self.free_tokens => packets,
            FreeTo::Short => 0,
        }
    }

    /// A full packet's time on the host link: the token clock's period.
    pub fn packet_time(&self) -> Time {
        self.line_rate.ser(self.wire.full() as u64)
    }

    pub fn token_expiry(&self) -> Time {
        self.token_expiry.at(self.packet_time())
    }

    /// The receiver's rules for one message (`inbound`).
    pub fn rules(&self) -> inbound::Rules {
        let p = self.packet_time();
        inbound::Rules {
            window: self.token_window,
            downgrade: self.downgrade_timeout.at(p),
            resend: self.resend_timeout.at(p),
        }
    }

    /// The message's packets as the wire sees them, its RTS first.
    fn blocks(&self, size: u64) -> [Block; 3] {
        let n = self.wire.packets(size) as u64;
        let last = self.wire.bytes(self.wire.chunk(size, n as u32 - 1).1) as u64;
        [
            Block { count: 1, bytes: self.wire.control() as u64 },
            Block { count: n - 1, bytes: self.wire.full() as u64 },
            Block { count: 1, bytes: last },
        ]
    }
}

/// `[transport] kind = "phost"` (docs/phost.md; keys in docs/scenario.md).
pub fn parse(t: &mut Table, net: &NetSpec) -> Result<TransportConfig, ScenarioError> {
    let wire = Wire::PAPER;
    let bdp = computed_bdp(net, &wire).div_ceil(wire.full() as u64).max(1) as u32;
    let count = |t: &mut Table, key: &'static str, min: i64| -> Result<Option<u32>, ScenarioError> {
        Ok(t.int(key, min, 1 << 20)?.map(|v| v as u32))
    };
    let free_tokens = count(t, "free_tokens", 0)?.unwrap_or(bdp);
    let token_window = count(t, "token_window", 1)?.unwrap_or(bdp);
    let token_expiry = t.get("token_expiry", span)?.unwrap_or(Span::Packets(1.5));
    let downgrade_timeout = t.get("downgrade_timeout", span)?.unwrap_or(Span::Packets(25.0));
    let resend_timeout = t.get("resend_timeout", span)?.unwrap_or(Span::Packets(9.0));
    let rts_timeout = t
        .get("rts_timeout", |v| match v.as_str() {
            Some("off") => Ok(None),
            Some(s) => match crate::input::units::parse_time(s) {
                Ok(d) if d >= Time::from_us(1) => Ok(Some(d)),
                Ok(_) => Err("is below 1us; accepted: a time of at least \"1us\", or \"off\"".to_string()),
                Err(e) => Err(format!("{e}; or \"off\"")),
            },
            None => {
                Err(format!("is {}; accepted: a time such as \"1ms\", or \"off\"", crate::input::reader::type_name(v)))
            }
        })?
        .unwrap_or(Some(Time::from_ms(1)));
    let levels = t.int("priority_levels", 1, 2)?.unwrap_or(2) as u8;
    let wakeup = match t.choice("idle_wakeup", &["arrivals", "timeouts"])?.as_deref() {
        Some("timeouts") => Wakeup::Timeouts,
        _ => Wakeup::Arrivals,
    };
    let free_to = match t.choice("free_tokens_to", &["every_message", "short_messages"])?.as_deref() {
        Some("short_messages") => FreeTo::Short,
        _ => FreeTo::Every,
    };
    check_switch(t, net, levels)?;
    let cfg = Config {
        wire,
        free_tokens,
        token_window,
        token_expiry,
        downgrade_timeout,
        resend_timeout,
        rts_timeout,
        line_rate: line_rate(net),
        levels,
        wakeup,
        free_to,
    };
    Ok(Arc::new(cfg))
}

/// A positive number of full-packet times, or a positive time.
fn span(v: &toml::Value) -> Result<Span, String> {
    let accepted = "accepted: a number of full-packet times such as 1.5, or a time such as \"2us\"";
    match v {
        toml::Value::Integer(i) if *i > 0 => Ok(Span::Packets(*i as f64)),
        toml::Value::Float(f) if f.is_finite() && *f > 0.0 => Ok(Span::Packets(*f)),
        toml::Value::String(s) => match crate::input::units::parse_time(s)? {
            d if d > Time::ZERO => Ok(Span::Fixed(d)),
            _ => Err(format!("is zero; {accepted}")),
        },
        toml::Value::Integer(_) | toml::Value::Float(_) => Err(format!("is not positive; {accepted}")),
        _ => Err(format!("is {}; {accepted}", crate::input::reader::type_name(v))),
    }
}

/// pHost's two levels need ports that queue by priority, with at least two levels (one
/// level, `priority_levels = 1`, runs on any switch).
fn check_switch(t: &Table, net: &NetSpec, levels: u8) -> Result<(), ScenarioError> {
    if levels == 1 {
        return Ok(());
    }
    let priority = net.classes.discipline == Discipline::Priority;
    if !priority || net.classes.levels < 2 {
        let ports = if priority {
            format!("keep {} level", net.classes.levels)
        } else {
            "do not queue by priority".to_string()
        };
        return Err(t.error(
            "priority_levels",
            format!(
                "is 2 (the default): pHost sends control and free-token packets at priority 0 and the others at 1, \
             but switch ports {ports}; accepted: [switch] scheduler = \"priority\" with priority_levels of at least 2, \
             or priority_levels = 1 here"
            ),
        ));
    }
    Ok(())
}

/// The BDP of the fabric in bytes on the wire: a full DATA packet out and a token back over
/// the longest path, host delays included, at the host link's rate, rounded up (the Homa
/// paper's RTTbytes, §5.2: 9,680 bytes on its fabric).
pub fn computed_bdp(net: &NetSpec, wire: &Wire) -> u64 {
    let hops = longest_hops(net);
    let one = |bytes: u64| pipeline(&hops, Train { packets: 1, full: bytes, last: bytes });
    let rtt = net.host_tx_delay + net.host_tx_delay + one(wire.full() as u64) + one(wire.control() as u64);
    (rtt.ps() as u128 * line_rate(net).bps() as u128).div_ceil(8_000_000_000_000) as u64
}

impl Transport for Config {
    fn name(&self) -> &'static str {
        ENTRY.name
    }
    fn full_packet(&self) -> u64 {
        self.wire.full() as u64
    }
    fn endpoint(&self, _host: HostId) -> Box<dyn Endpoint> {
        Box::new(PhostEndpoint::new(self.clone()))
    }
    /// The message alone: its RTS and its packets back to back at line rate through the
    /// store-and-forward tandem of its path, its tokens arriving in time when its free
    /// tokens last a token's round trip (the default: one BDP of the longest path). A
    /// message without free tokens waits for its first token: its RTS out and the token
    /// back, then its packets back to back (one BDP of window keeps its tokens coming).
    fn ideal(&self, p: &Path, size: u64) -> Time {
        let blocks = self.blocks(size);
        if self.free_of(size) > 0 {
            return p.src_tx_delay + pipeline_blocks(&p.fwd, &blocks);
        }
        let control = self.wire.control() as u64;
        let one =
            |hops: &[crate::measure::ideal::Hop]| pipeline(hops, Train { packets: 1, full: control, last: control });
        p.src_tx_delay
            + one(&p.fwd)
            + p.dst_tx_delay
            + one(&p.rev)
            + p.src_tx_delay
            + pipeline_blocks(&p.fwd, &blocks[1..])
    }
    /// Counts per round trip scale with the links; durations in packet times follow the
    /// faster packets, durations given as times stay.
    fn scaled(&self, factor: f64, _net: &NetSpec) -> TransportConfig {
        let times = |x: u32| ((x as f64 * factor).ceil() as u32).max(1);
        Arc::new(Config {
            free_tokens: if self.free_tokens == 0 { 0 } else { times(self.free_tokens) },
            token_window: times(self.token_window),
            line_rate: Rate::from_bps((self.line_rate.bps() as f64 * factor).round() as u64),
            ..self.clone()
        })
    }
    /// Its RTS, its packets, a token per packet beyond the free ones and its ACK.
    fn wire_bytes(&self, size: u64) -> Option<f64> {
        let data: u64 = self.blocks(size)[1..].iter().map(|b| b.count * b.bytes).sum();
        let tokens = (self.wire.packets(size) - self.free_of(size)) as u64;
        Some((data + (tokens + 2) * self.wire.control() as u64) as f64)
    }
    fn settings(&self) -> serde_json::Value {
        serde_json::json!({
            "free_tokens": self.free_tokens,
            "token_window": self.token_window,
            "packet_time_ns": self.packet_time().ps() as f64 / 1e3,
            "token_expiry": self.token_expiry.json(),
            "downgrade_timeout": self.downgrade_timeout.json(),
            "resend_timeout": self.resend_timeout.json(),
            "rts_timeout_ns": self.rts_timeout.map(|t| t.ps() as f64 / 1e3),
            "priority_levels": self.levels,
            "idle_wakeup": match self.wakeup { Wakeup::Arrivals => "arrivals", Wakeup::Timeouts => "timeouts" },
            "free_tokens_to": match self.free_to { FreeTo::Every => "every_message", FreeTo::Short => "short_messages" },
        })
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
