//! A host's side of the engine (net::nic, transport::Endpoint): what follows an input
//! to an endpoint, the NIC pulling packets from the endpoints while it has room, the
//! transmit stages up to the NIC queue, and the receive stages up to the endpoint.

use super::{EndpointId, Event, RunError, Simulation};
use crate::net::ids::HostId;
use crate::net::nic;
use crate::net::packet::Packet;
use crate::sim::Time;
use crate::transport::{EndpointEvent, Transmit};

impl Simulation {
    /// What follows every input to endpoint `e`: its host's NIC pulls what it has room
    /// for, the endpoint's timers are armed, and the messages it completed are finished.
    pub(super) fn after_input(&mut self, e: EndpointId) -> Result<(), RunError> {
        self.pull(HostId::new(e.host()))
    }

    /// Hands the NIC of `host` the packets its endpoints have, while it has room: one
    /// packet from each endpoint in turn (a host with one transport drains its one).
    pub(super) fn pull(&mut self, host: HostId) -> Result<(), RunError> {
        if self.pulling {
            // Reached again from inside (the NIC started a packet): the outer loop goes on.
            return Ok(());
        }
        self.pulling = true;
        let n = self.transports.len();
        let now = self.now;
        let base = host.index() * n;
        if n == 1 && self.net.hosts[host.index()].nic_depth.is_none() {
            // One transport, an unbounded NIC (every scenario before the pipeline): drain.
            while let Some(tx) = self.endpoints[base].as_mut().and_then(|ep| ep.poll_transmit(now, &mut self.net.int)) {
                self.emit(host, tx);
            }
        } else {
            self.pull_turns(host, base, n, now);
        }
        self.pulling = false;
        // Sending moves deadlines (an RTO starts with the first packet out), so the
        // timers are armed after every pull, not only after inputs; then the messages
        // the endpoints completed are finished.
        for t in 0..n {
            let e = EndpointId::new(host, t);
            while let Some(ev) = self.endpoints[base + t].as_mut().and_then(|ep| ep.poll_event()) {
                match ev {
                    EndpointEvent::Timer(key, at) => self.events.push(at.max(now), Event::Timer(e, key)),
                    EndpointEvent::Completed(cid) => self.finish(cid)?,
                    EndpointEvent::Delivered(cid) => self.deliver_whole(cid)?,
                    EndpointEvent::Framed(cid, channel, end) => self.frame(cid, channel, end),
                }
            }
        }
        Ok(())
    }

    /// One packet from each endpoint in turn while the NIC has room.
    fn pull_turns(&mut self, host: HostId, base: usize, n: usize, now: Time) {
        loop {
            let mut sent = false;
            for t in 0..n {
                if !self.nic_has_room(host) {
                    break;
                }
                let Some(tx) =
                    self.endpoints[base + t].as_mut().and_then(|ep| ep.poll_transmit(now, &mut self.net.int))
                else {
                    continue;
                };
                self.emit(host, tx);
                sent = true;
            }
            if !sent || !self.nic_has_room(host) {
                break;
            }
        }
    }

    /// A packet leaves a host's transport: the engine adds addresses, class and priority
    /// from its flow, and its INT stack to the pool.
    pub(super) fn emit(&mut self, host: HostId, t: Transmit) {
        let class = t.class;
        let prio = t.prio.unwrap_or(self.classes[class.index()].priority);
        let int = t.int;
        debug_assert!(
            t.wire_bytes - t.payload <= u16::MAX as u32,
            "headers are at most 64 KiB (the scenario reader checks)"
        );
        let mut pkt = Packet {
            conn: t.conn,
            src: host,
            dst: t.dst,
            class,
            wire_bytes: t.wire_bytes,
            header_bytes: (t.wire_bytes - t.payload) as u16,
            prio,
            rank: t.rank,
            flags: t.flags,
            hdr: t.hdr,
            int,
        };
        pkt.set_ecn(t.ecn);
        if let Some(w) = self.waits.as_mut() {
            w.emitted(self.now, &pkt);
        }
        let h = &mut self.net.hosts[host.index()];
        h.stats.sent_packets += 1;
        h.stats.sent_bytes += pkt.wire_bytes as u64;
        if h.tx_stages.is_empty() && h.tx_pipe.is_empty() {
            let nic = h.nic;
            self.offer(nic, pkt);
            return;
        }
        let r = nic::release(&mut h.tx_stages, self.now, h.tx_pipe.back().map(|e| e.0), &pkt);
        if r.at == self.now && h.tx_pipe.is_empty() {
            let nic = h.nic;
            self.offer(nic, pkt);
            return;
        }
        if let Some(head) = nic::enter(&mut h.tx_pipe, r, pkt) {
            self.events.push(head, Event::HostTx(host));
        }
    }

    /// Whether the NIC of `host` takes another packet from its endpoints. A depth of 0
    /// takes one only when the link is idle: the transport decides at the last moment.
    pub(super) fn nic_has_room(&self, host: HostId) -> bool {
        let h = &self.net.hosts[host.index()];
        let port = &self.net.ports[h.nic.index()];
        match h.nic_depth {
            None => true,
            Some(0) => !port.busy && port.queued_packets() == 0 && h.tx_pipe.is_empty(),
            Some(d) => port.queued_packets() + h.tx_pipe.len() < d as usize,
        }
    }

    /// The head of a host's transmit stages reaches its NIC queue. An event whose packet
    /// a closed batch moved earlier finds nothing due and is ignored.
    pub(super) fn host_tx(&mut self, host: HostId) {
        let h = &mut self.net.hosts[host.index()];
        if h.tx_pipe.front().is_none_or(|e| e.0 > self.now) {
            return;
        }
        let (_, pkt) = h.tx_pipe.pop_front().expect("a due packet");
        if let Some(&(next, _)) = h.tx_pipe.front() {
            self.events.push(next, Event::HostTx(host));
        }
        let nic = h.nic;
        self.offer(nic, pkt);
    }

    /// A packet reaches a host: through its receive stages, if it has any, to `deliver`.
    #[inline]
    pub(super) fn receive(&mut self, host: HostId, pkt: Packet) -> Result<(), RunError> {
        let h = &mut self.net.hosts[host.index()];
        if h.watches_arrivals {
            let nic = h.nic;
            self.net.ports[nic.index()].observe_arrival(self.now, &pkt);
        }
        let h = &mut self.net.hosts[host.index()];
        if h.rx_stages.is_empty() {
            return self.deliver(host, pkt);
        }
        let r = nic::release(&mut h.rx_stages, self.now, h.rx_pipe.back().map(|e| e.0), &pkt);
        if let Some(head) = nic::enter(&mut h.rx_pipe, r, pkt) {
            self.events.push(head, Event::HostRx(host));
        }
        Ok(())
    }

    /// The packets of a host's receive stages that are due reach their endpoints, all of
    /// them before any endpoint is polled (a batch is processed as one softirq: its ACKs
    /// leave together). An event whose packets a closed batch already delivered finds
    /// nothing due and is ignored.
    pub(super) fn host_rx(&mut self, host: HostId) -> Result<(), RunError> {
        let mut touched: Vec<EndpointId> = Vec::new();
        let mut popped = false;
        loop {
            let h = &mut self.net.hosts[host.index()];
            match h.rx_pipe.front() {
                Some(&(t, _)) if t <= self.now => {}
                Some(&(t, _)) => {
                    // The new head's event (a stale event leaves the pending one alone).
                    if popped {
                        self.events.push(t, Event::HostRx(host));
                    }
                    break;
                }
                None => break,
            }
            let (_, pkt) = h.rx_pipe.pop_front().expect("a due packet");
            popped = true;
            if let Some(e) = self.hand(host, pkt) {
                if !touched.contains(&e) {
                    touched.push(e);
                }
            }
        }
        for e in touched {
            self.after_input(e)?;
        }
        Ok(())
    }

    /// A packet reaches its endpoint (or is stale: its message is finished).
    fn deliver(&mut self, host: HostId, pkt: Packet) -> Result<(), RunError> {
        match self.hand(host, pkt) {
            Some(e) => self.after_input(e),
            None => Ok(()),
        }
    }

    /// Hands a packet to its endpoint without polling it: the endpoint it reached, or
    /// None if the packet is stale.
    fn hand(&mut self, host: HostId, pkt: Packet) -> Option<EndpointId> {
        let now = self.now;
        let stats = &mut self.net.hosts[host.index()].stats;
        stats.recv_packets += 1;
        stats.recv_bytes += pkt.wire_bytes as u64;
        let int = pkt.int.map(|slot| self.net.int.take(slot));
        if let Some(w) = self.waits.as_mut() {
            w.delivered(&pkt);
        }
        let Some(flow) = self.flows.get(pkt.conn) else {
            self.net.hosts[host.index()].stats.stale_packets += 1;
            return None;
        };
        let (msg, t) = (flow.message(pkt.conn), flow.transport);
        self.tally.delivered_bytes += pkt.payload() as u64;
        let e = self.endpoint_id(host, t);
        self.endpoint(e).on_packet(now, &msg, &pkt, int.as_ref());
        Some(e)
    }
}
