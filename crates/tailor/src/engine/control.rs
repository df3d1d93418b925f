//! A switch memory that admits by ingress in the event loop (`net::memory`; PFC,
//! docs/pfc.md): its counts as counted packets join and leave switch ports, the control
//! frames they cause, what a frame does where it lands, and the check for a deadlock
//! when a hold takes effect.

use super::{RunError, Simulation};
use crate::net::ids::{LinkId, Node, PortId};
use crate::net::memory::Stuck;
use crate::net::packet::Packet;

impl Simulation {
    /// A counted packet that came in through switch port `ingress` joined port `p`.
    #[cold]
    pub(super) fn memory_enqueued(&mut self, ingress: PortId, p: PortId, pkt: &Packet) {
        let queue = self.net.ports[p.index()].scheduler().queue_of(pkt);
        let memory = self.net.memory.as_mut().expect("called with a memory");
        if let Some(frame) = memory.enqueued(ingress, p, queue, pkt) {
            self.send_control(ingress, frame);
        }
    }

    /// A counted packet left switch port `p`: its ingress's bytes are released, which
    /// may release that ingress's sender, or leave a hold nothing can lift any more.
    #[cold]
    pub(super) fn memory_departed(&mut self, p: PortId, pkt: &Packet) {
        let queue = self.net.ports[p.index()].scheduler().queue_of(pkt);
        let memory = self.net.memory.as_mut().expect("called with a memory");
        let left = memory.dequeued(p, queue, pkt);
        if let Some(frame) = left.frame {
            self.send_control(left.ingress, frame);
        } else if left.recheck {
            let held = self.net.reverse(left.ingress);
            self.check_stuck(held, crate::net::sched::pfc_priority(pkt));
        }
    }

    /// The memory refused counted `pkt` on its way to port `p`: a drop there.
    #[cold]
    pub(super) fn refused(&mut self, p: PortId, pkt: Packet) {
        let stats = &mut self.net.ports[p.index()].stats;
        stats.drop_packets += 1;
        stats.drop_bytes += pkt.wire_bytes as u64;
        if let Some(w) = self.waits.as_mut() {
            w.lost(&pkt);
        }
        if let Some(slot) = pkt.int {
            self.net.int.take(slot);
        }
    }

    /// A packet reached the far end of link `l` in a network with a memory: a control
    /// frame acts there; anything else goes on, in through the port of `l`'s cable at
    /// this end.
    #[cold]
    pub(super) fn arrival_under_memory(&mut self, l: LinkId, pkt: Packet) -> Result<(), RunError> {
        if pkt.flags.contains(crate::net::packet::Flags::CONTROL) {
            self.control_landed(l, pkt);
            return Ok(());
        }
        let from = self.net.reverse(self.net.links[l.index()].from);
        self.arrive(l, pkt, Some(from))
    }

    /// Switch port `port` sends `frame` to the other end of its link, ahead of its queue.
    fn send_control(&mut self, port: PortId, frame: Packet) {
        let p = &mut self.net.ports[port.index()];
        p.stats.enq_packets += 1;
        p.stats.enq_bytes += frame.wire_bytes as u64;
        if let Node::Switch(s) = p.owner {
            let sw = &mut self.net.switches[s.index()];
            sw.emitted.0 += 1;
            sw.emitted.1 += frame.wire_bytes as u64;
        }
        self.net.ports[port.index()].send_control(frame);
        self.wake_for_queued(port);
    }

    /// A control frame reached the far end of link `l`: it holds or releases the port
    /// there that sends over the same cable.
    #[cold]
    pub(super) fn control_landed(&mut self, l: LinkId, frame: Packet) {
        let link = &self.net.links[l.index()];
        let (to, port) = (link.to, self.net.reverse(link.from));
        match to {
            Node::Switch(s) => {
                let sw = &mut self.net.switches[s.index()];
                sw.consumed.0 += 1;
                sw.consumed.1 += frame.wire_bytes as u64;
            }
            Node::Host(h) => {
                let stats = &mut self.net.hosts[h.index()].stats;
                stats.recv_packets += 1;
                stats.recv_bytes += frame.wire_bytes as u64;
            }
        }
        let now = self.now;
        let Some(memory) = self.net.memory.as_mut() else { return };
        let (q, hold) = memory.landed(now, port, &frame);
        if let (Node::Host(h), true) = (to, self.pause_in_transport) {
            self.tell_pause(h, q, hold);
            return;
        }
        let target = &mut self.net.ports[port.index()];
        target.hold_priority(q, hold);
        if hold {
            self.check_stuck(port, q);
        } else if !target.busy {
            self.start_tx(port);
        }
    }

    /// A PAUSE or RESUME for `priority` reached host `h`, whose transports obey pauses
    /// themselves (`Transport::obeys_pause`): they are told, and a resumed NIC asks them
    /// for a packet.
    fn tell_pause(&mut self, h: crate::net::ids::HostId, priority: u8, paused: bool) {
        // Every transport's endpoint at the host hears it, built now if it was not yet, so
        // that one built later does not start unaware of a pause in force.
        let now = self.now;
        for t in 0..self.transports.len() {
            self.endpoint(super::EndpointId::new(h, t)).on_pause(now, priority, paused);
        }
        if !paused {
            if let Err(err) = self.pull(h) {
                self.deferred.get_or_insert(err);
            }
        }
    }

    /// Whether port `port`, held for `priority`, is held forever; if it is, the run ends
    /// here with the cycle named (nothing in it can move again).
    fn check_stuck(&mut self, port: PortId, priority: u8) {
        let Some(memory) = self.net.memory.as_ref() else { return };
        let Some(ports) = memory.stuck(&self.net, port, priority) else { return };
        let at = self.now;
        let name = |p: &PortId| {
            let port = &self.net.ports[p.index()];
            format!("port {} ({} {})", p.index(), super::report::node_name(port.owner), port.role.name())
        };
        let named = ports.iter().map(name).collect();
        let stuck = Stuck { at, priority, ports };
        self.net.memory.as_mut().expect("checked").record(stuck.clone());
        let found = Deadlocked { stuck, ports: named, active: self.flows.active() as u64 };
        self.deferred.get_or_insert(RunError::Deadlock(found));
    }
}

/// A run stopped at a deadlock of held ports: where, and how many messages it held.
#[derive(Clone, Debug, PartialEq)]
pub struct Deadlocked {
    pub stuck: Stuck,
    /// The cycle's ports as ports.csv names them.
    pub ports: Vec<String>,
    pub active: u64,
}

impl std::fmt::Display for Deadlocked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let d = &self.stuck;
        write!(
            f,
            "PFC deadlock at {:.3} us of simulated time: priority {} is paused around a cycle of {} ports, {}, each \
             waiting for the next one's switch to drain, so nothing in it can move again; the run stopped there with \
             {} messages active; likely cause: routes whose buffers depend on each other in a cycle \
             (docs/pfc.md, \"Deadlock\")",
            d.at.ps() as f64 / 1e6,
            d.priority,
            self.ports.len(),
            self.ports.join(" -> "),
            self.active
        )
    }
}
