//! Switch agents in the engine (net::agent): installing one, and what follows each of
//! its inputs.

use super::{Event, Simulation};
use crate::net::agent::SwitchAgent;
use crate::net::ids::SwitchId;

impl Simulation {
    /// Installs the ingress agent of switch `s` (before `run`).
    pub fn set_agent(&mut self, s: SwitchId, agent: Box<dyn SwitchAgent>) {
        if self.agents.is_empty() {
            self.agents.resize_with(self.net.switches.len(), || None);
        }
        self.agents[s.index()] = Some(agent);
    }

    /// PL2's agent in every ToR (`[switch] pl2`: `net::pl2`).
    pub(super) fn install_pl2(&mut self, spec: crate::net::pl2::Pl2Switch) {
        let hosts = self.net.hosts.len();
        for s in 0..self.net.switches.len() {
            if self.net.switches[s].tier == 0 {
                self.set_agent(SwitchId::new(s), Box::new(crate::net::pl2::TorAgent::new(spec, hosts)));
            }
        }
    }

    /// The agents' counters, summed (`summary.json`'s `network.agents`).
    pub fn agent_counters(&self) -> crate::measure::counters::Counters {
        let mut c = crate::measure::counters::Counters::default();
        for a in self.agents.iter().flatten() {
            a.counters(&mut c);
        }
        c
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
