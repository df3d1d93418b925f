//! Switch agents in the engine (net::agent): installing one, and what follows each of
//! its inputs; the engine as the installer network mechanisms use (`net::mechanism`).

use super::{Event, Simulation};
use crate::net::agent::SwitchAgent;
use crate::net::ids::SwitchId;

/// The engine as mechanisms see it when they install themselves (`net::mechanism`).
impl crate::net::mechanism::Installer for Simulation {
    fn network(&mut self) -> &mut crate::net::Network {
        &mut self.net
    }

    fn set_agent(&mut self, s: SwitchId, agent: Box<dyn SwitchAgent>) {
        Simulation::set_agent(self, s, agent);
    }

    fn collects_telemetry(&self) -> bool {
        self.transports.iter().any(|t| t.collects_telemetry())
    }
}

impl Simulation {
    /// Installs the ingress agent of switch `s` (before `run`).
    pub fn set_agent(&mut self, s: SwitchId, agent: Box<dyn SwitchAgent>) {
        if self.agents.is_empty() {
            self.agents.resize_with(self.net.switches.len(), || None);
        }
        self.agents[s.index()] = Some(agent);
    }

    /// The agent of switch `s`, taken out (after `run`, to read what it kept).
    pub fn take_agent(&mut self, s: SwitchId) -> Option<Box<dyn SwitchAgent>> {
        self.agents.get_mut(s.index()).and_then(Option::take)
    }

    /// What follows every input to the agent of `s`: its packets go out, its timers are armed.
    pub(super) fn after_agent(&mut self, s: SwitchId) {
        let now = self.now;
        while let Some(pkt) = self.agents[s.index()].as_mut().and_then(|a| a.poll_emit()) {
            let sw = &mut self.net.switches[s.index()];
            sw.emitted.0 += 1;
            sw.emitted.1 += pkt.wire_bytes as u64;
            self.forward(s, pkt);
        }
        while let Some((key, at)) = self.agents[s.index()].as_mut().and_then(|a| a.poll_timer()) {
            self.events.push(at.max(now), Event::AgentTimer(s, key));
        }
    }
}
