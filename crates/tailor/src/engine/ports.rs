//! Packets through ports and links (DESIGN.md "switch ports as pipelines"): a port's
//! admission, marking and queueing, the start of each transmission, a switch's forwarding
//! decision, and a packet's arrival at the far end of its link.

use super::{Event, RunError, Simulation};
use crate::net::agent::Ingress;
use crate::net::ids::{LinkId, Node, PortId, SwitchId};
use crate::net::packet::{Flags, Packet};
use rand::Rng;

impl Simulation {
    /// Admission, marking and queueing at a port; starts transmission if it is idle.
    pub(super) fn offer(&mut self, p: PortId, pkt: Packet) {
        self.offer_from(p, pkt, None)
    }

    /// `offer`, `pkt` having come in through switch port `from` (for a memory that admits
    /// by ingress, `net::memory`). Inlined into `offer` with None, so that a network
    /// without a memory runs the code it ran before there was one.
    #[inline(always)]
    pub(super) fn offer_from(&mut self, p: PortId, pkt: Packet, from: Option<PortId>) {
        let now = self.now;
        let counted = match from {
            Some(i) if self.net.memory.as_ref().is_some_and(|m| m.counts(&pkt)) => {
                if !self.net.memory.as_mut().expect("checked").admit(i, &pkt) {
                    return self.refused(p, pkt);
                }
                Some(i)
            }
            _ => None,
        };
        let port = &mut self.net.ports[p.index()];
        let shared = match port.owner {
            Node::Switch(s) => self.net.switches[s.index()].shared.as_mut(),
            Node::Host(_) => None,
        };
        let q = self.waits.as_ref().map(|_| port.scheduler().queue_of(&pkt));
        let sq = self.sojourn.as_ref().filter(|s| s.records(p)).map(|_| port.scheduler().queue_of(&pkt));
        let queued = port.offer(now, pkt, shared, &mut self.dropped);
        if let (Some(s), true) = (self.sojourn.as_mut(), queued) {
            s.enqueued(p, sq, now, &pkt);
        }
        if let (Some(w), Some(q)) = (self.waits.as_mut(), q) {
            if queued {
                w.enqueued(p, q, now, &pkt);
            }
            self.dropped.iter().for_each(|d| w.lost(d));
        }
        if !self.dropped.is_empty() {
            for d in self.dropped.drain(..) {
                if let Some(slot) = d.int {
                    self.net.int.take(slot);
                }
            }
        }
        if let (Some(i), true) = (counted, queued) {
            self.memory_enqueued(i, p, &pkt);
        }
        if queued {
            self.wake_for_queued(p);
        }
    }

    /// A packet now waits at port `p`: an idle port starts it; a busy port whose end of
    /// transmission was left unscheduled (`start_tx`) schedules it now, in the place in the
    /// event order it would have had, or, when that place has passed (the port went idle
    /// with nothing to send), starts the packet at once, as that event would have left it.
    #[inline(always)]
    pub(super) fn wake_for_queued(&mut self, p: PortId) {
        let port = &mut self.net.ports[p.index()];
        if !port.busy {
            return self.start_tx(p);
        }
        let Some(slot) = self.idle_slots[p.index()].take() else { return };
        if self.events.passed(slot) {
            port.busy = false;
            self.start_tx(p);
        } else {
            self.events.push_reserved(slot, Event::PortIdle(p));
        }
    }

    pub(super) fn start_tx(&mut self, p: PortId) {
        let now = self.now;
        let port = &mut self.net.ports[p.index()];
        let shared = match port.owner {
            Node::Switch(s) => self.net.switches[s.index()].shared.as_mut(),
            Node::Host(_) => None,
        };
        let Some((pkt, ser)) = port.start_next(now, p, shared, &mut self.net.int) else {
            if let Some(t) = port.wake_at(now) {
                if port.wake.is_none_or(|w| t < w) {
                    port.wake = Some(t);
                    self.events.push(t.max(now), Event::PortWake(p));
                }
            }
            if let (Node::Host(h), 0) = (port.owner, port.paused()) {
                if self.net.hosts[h.index()].nic_depth == Some(0) {
                    // A NIC that asks only when idle asks now.
                    if let Err(err) = self.pull(h) {
                        self.deferred.get_or_insert(err);
                    }
                }
            }
            return;
        };
        let done = now + ser;
        let (l, owner) = (port.link, port.owner);
        if !pkt.flags.contains(Flags::CONTROL) {
            if let Some(w) = self.waits.as_mut() {
                w.started(p, port.scheduler().queue_of(&pkt), now, done, &pkt);
            }
            if let Some(s) = self.sojourn.as_mut() {
                let q = s.records(p).then(|| port.scheduler().queue_of(&pkt));
                s.started(p, q, now, &pkt);
            }
            if let Node::Switch(s) = owner {
                if let Some(Some(agent)) = self.agents.get_mut(s.index()) {
                    agent.on_departure(now, s, &pkt);
                }
                if self.net.memory.as_ref().is_some_and(|m| m.counts(&pkt)) {
                    self.memory_departed(p, &pkt);
                }
            }
        }
        let at = done + self.net.links[l.index()].delay;
        if self.net.launch(l, at, pkt) {
            self.events.push(at, Event::LinkArrival(l));
        }
        // The end of this transmission matters only if a packet waits behind this one, or
        // to a NIC that asks its endpoints for a packet when idle: otherwise its place in
        // the event order is taken (so that every later event orders exactly as if it had
        // been pushed) and the event is pushed only if a packet arrives before it.
        let asks_when_idle = matches!(owner, Node::Host(h) if self.net.hosts[h.index()].nic_depth == Some(0));
        let port = &self.net.ports[p.index()];
        if port.queued_packets() == 0 && !asks_when_idle {
            self.idle_slots[p.index()] = Some(self.events.reserve(done));
        } else {
            self.events.push(done, Event::PortIdle(p));
        }
        if let Node::Host(h) = owner {
            if self.net.hosts[h.index()].nic_depth.is_some_and(|d| d > 0) {
                // A bounded NIC has room again: it pulls the next packet. (Only a write of
                // a record can fail in a pull; it is reported by the next one.)
                if let Err(err) = self.pull(h) {
                    self.deferred.get_or_insert(err);
                }
            }
        }
    }

    /// Routes a packet at switch `s` to its egress port.
    pub(super) fn forward(&mut self, s: SwitchId, pkt: Packet) {
        self.forward_from(s, pkt, None)
    }

    /// `forward`, `pkt` having come in through switch port `from` (`offer_from`).
    #[inline(always)]
    fn forward_from(&mut self, s: SwitchId, pkt: Packet, from: Option<PortId>) {
        let spray = &mut self.spray;
        // Messages on persistent connections hash as their connection (a lookup in the
        // flow table, only in runs that have such connections).
        let key = match self.channels {
            false => pkt.conn.key(),
            true => self.flows.get(pkt.conn).map_or(pkt.conn.key(), |f| f.ecmp_key(pkt.conn)),
        };
        let out = self.net.next_port(s, &pkt, key, |n| spray.random_range(0..n));
        match from {
            None => self.offer(out, pkt),
            Some(_) => self.offer_from(out, pkt, from),
        }
    }

    pub(super) fn link_arrival(&mut self, l: LinkId) -> Result<(), RunError> {
        let (pkt, next) = self.net.land(l).expect("a link event has a packet");
        let link = &mut self.net.links[l.index()];
        link.delivered.0 += 1;
        link.delivered.1 += pkt.wire_bytes as u64;
        if let Some(next) = next {
            self.events.push(next, Event::LinkArrival(l));
        }
        if self.net.memory.is_some() {
            return self.arrival_under_memory(l, pkt);
        }
        self.arrive(l, pkt, None)
    }

    /// `pkt` reaches the far end of link `l`, in through switch port `from` when a memory
    /// counts it (`net::memory`).
    #[inline(always)]
    pub(super) fn arrive(&mut self, l: LinkId, pkt: Packet, from: Option<PortId>) -> Result<(), RunError> {
        match self.net.links[l.index()].to {
            Node::Switch(s) => {
                let sw = &mut self.net.switches[s.index()];
                sw.received.0 += 1;
                sw.received.1 += pkt.wire_bytes as u64;
                if let Some(Some(agent)) = self.agents.get_mut(s.index()) {
                    let mut pkt = pkt;
                    let now = self.now;
                    match agent.on_arrival(now, s, &mut pkt) {
                        Ingress::Forward => self.forward_from(s, pkt, from),
                        verdict @ (Ingress::Consume | Ingress::Drop) => {
                            let sw = &mut self.net.switches[s.index()];
                            let count = if verdict == Ingress::Consume { &mut sw.consumed } else { &mut sw.dropped };
                            count.0 += 1;
                            count.1 += pkt.wire_bytes as u64;
                            if let Some(slot) = pkt.int {
                                self.net.int.take(slot);
                            }
                        }
                    }
                    self.after_agent(s);
                    return Ok(());
                }
                match from {
                    None => self.forward(s, pkt),
                    Some(_) => self.forward_from(s, pkt, from),
                }
                Ok(())
            }
            Node::Host(h) => self.receive(h, pkt),
        }
    }
}
