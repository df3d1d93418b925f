//! Trimming and eviction: what a switch port does with a packet its buffer cannot take,
//! when that is not drop-tail. `[switch] overflow = "trim"` cuts the payload and forwards
//! the header at the first priority level (NDP, Handley et al. SIGCOMM 2017 §3.1);
//! `"trim_random"` is NDP's coin against phase effects (§3.1: half the time the newest data
//! packet queued ahead is cut instead); `"evict"` drops a queued packet that matters less
//! (pFabric, Alizadeh et al. SIGCOMM 2013 §4.2). `"drop"`, the default, turns nothing on.
//!
//! The verdicts themselves are the port's (`net::port`, `Overflow`): this mechanism reads the
//! key, checks it against the buffer and the scheduler, and gives every switch port its
//! verdict after the build. A port's trim coin is the run's stream named by its link
//! (`trim/link<i>`), as when the builder set it. The ports count what it does
//! (`PortStats::trim_packets`, `evict_packets`), as before: an eviction is a drop in
//! summary.json's `network.drops` and ports.csv, trims are in the engine's ledger.

use super::mechanism::{Configured, Context, Installer, Keys, Mechanism, Parsed, Reorders, Section};
use super::port::{Overflow, PortRole};
use super::topology::{BufferSpec, Discipline, NetSpec, Shape};
use crate::input::Table;
use std::sync::Arc;

const CHOICES: &[&str] = &["drop", "trim", "trim_random", "evict"];

impl Configured for Overflow {
    fn install(&self, net: &NetSpec, into: &mut dyn Installer) {
        for port in into.network().ports.iter_mut().filter(|p| p.role != PortRole::HostNic) {
            port.set_overflow(*self, net.seed);
        }
    }

    fn off(&self) -> bool {
        *self == Overflow::Drop
    }

    fn check(&self, with: &Context) -> Result<(), (String, String)> {
        let net = with.net;
        let refuse = |message: &str| Err(("switch.overflow".to_string(), message.to_string()));
        match self {
            Overflow::TrimRandom if !matches!(net.buffer, BufferSpec::PerPort { .. }) => refuse(
                "\"trim_random\" weighs a port's data queue against its own limit; accepted: buffer = \"per_port\" with it, or \"trim\"",
            ),
            Overflow::Evict if !matches!(net.classes.discipline, Discipline::Priority | Discipline::Rank) => refuse(
                "\"evict\" is only used with scheduler = \"priority\" or \"rank\" (it evicts a less important packet); accepted: \"drop\", \"trim\", or scheduler = \"priority\" or \"rank\"",
            ),
            _ => Ok(()),
        }
    }

    fn reorders(&self) -> Option<Reorders> {
        Some(Reorders {
            at_switches: true,
            at_nics: false,
            why: "trim and evict change packets in their queues",
            accepted: "[switch] overflow = \"drop\"",
        })
    }
}

fn parse(t: &mut Table, _shape: &Shape) -> Parsed {
    Ok(Arc::new(match t.choice("overflow", CHOICES)?.as_deref() {
        None | Some("drop") => Overflow::Drop,
        Some("trim") => Overflow::Trim,
        Some("trim_random") => Overflow::TrimRandom,
        Some(_) => Overflow::Evict,
    }))
}

/// The registry's entry (`net::mechanism`).
pub const MECHANISM: Mechanism = Mechanism {
    name: "overflow",
    about: "trimming (NDP §3.1) or eviction (pFabric §4.2) of what a full switch port cannot take",
    used: |_| None,
    model_refuses: Some("trimming and eviction act on single packets in a full buffer, and the model's queues are fluid and unbounded (it would run as if they were off); accepted: --engine packet, or overflow = \"drop\""),
    oracle_refuses: None,
    decomposed_refuses: Some("trimming and eviction change what the links after a full buffer carry (headers, retransmissions), and the decomposition gives each link the messages whole; accepted: --engine packet, or overflow = \"drop\""),
    install: None,
    keys: &[Keys { section: Section::Switch, keys: &["overflow"], parse }],
    link_keys: None,
    marks_at: None,
    report: None,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::topology::{self, tests::link};

    /// Installed after the build, the verdict reaches every switch port and no NIC.
    #[test]
    fn every_switch_port_and_no_nic_gets_the_verdict() {
        let shape = Shape::Star { hosts: 3, link: link(10) };
        let mut spec = topology::tests::spec(shape);
        spec.buffer = BufferSpec::PerPort { bytes: 12_304 };
        let mut net = topology::build(&spec);
        struct Into<'a>(&'a mut super::super::Network);
        impl Installer for Into<'_> {
            fn network(&mut self) -> &mut super::super::Network {
                self.0
            }
            fn set_agent(&mut self, _: crate::net::ids::SwitchId, _: Box<dyn crate::net::agent::SwitchAgent>) {}
            fn collects_telemetry(&self) -> bool {
                false
            }
        }
        Overflow::Evict.install(&spec, &mut Into(&mut net));
        for p in &net.ports {
            let want = if p.role == PortRole::HostNic { Overflow::Drop } else { Overflow::Evict };
            assert_eq!(p.overflow(), want, "{:?}", p.role);
        }
        assert!(Overflow::Drop.off() && !Overflow::Evict.off());
    }
}
