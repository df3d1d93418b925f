//! The flow table: one entry per active message — its record and the transport it
//! uses — in slots with a generation each, so that a late packet of a finished message
//! is recognised as stale when its slot has been reused. The slot and generation are
//! the packet's `conn` and its ECMP key.
//!
//! A message is recorded when its transport completes it. A transport that completes a
//! message when its receiver has it (`EndpointEvent::Delivered`) while its connection
//! still needs its packets routed leaves its flow in the table, marked recorded, until
//! its sender's `Completed`; the recorded flows count as neither active nor unfinished.

use crate::measure::MessageRecord;
use crate::net::ids::ConnId;
use crate::sim::Time;
use crate::transport::{Message, Rpc};

#[derive(Copy, Clone)]
pub struct Flow {
    /// The message's record, complete but for its finish time.
    pub msg: MessageRecord,
    /// Index of its transport in the run's list.
    pub transport: usize,
    pub rpc: FlowRpc,
    /// Its persistent connection (`transport::Message::channel`).
    pub channel: Option<crate::transport::Channel>,
    /// Recorded already: its receiver had it whole (`EndpointEvent::Delivered`). It stays
    /// in the table, so that its connection's packets are routed, until its sender
    /// completes it.
    pub recorded: bool,
}

/// What a flow is in an RPC, as the engine needs it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FlowRpc {
    OneWay,
    /// A request; its completion starts a response of `response` bytes.
    Request {
        response: u64,
    },
    /// A response: what the RPC's record takes from its request.
    Response {
        request: ConnId,
        id: u64,
        start: Time,
        ideal: Time,
    },
}

impl Flow {
    /// The message as its endpoints see it.
    pub fn message(&self, conn: ConnId) -> Message {
        let m = &self.msg;
        let rpc = match self.rpc {
            FlowRpc::OneWay => Rpc::OneWay,
            FlowRpc::Request { .. } => Rpc::Request,
            FlowRpc::Response { request, .. } => Rpc::Response { request },
        };
        Message {
            conn,
            class: m.class,
            src: m.src,
            dst: m.dst,
            size: m.size,
            start: m.start,
            rpc,
            channel: self.channel,
        }
    }
}

impl Flow {
    /// Its ECMP key: the message's own, or for a message on a persistent connection the
    /// connection's, the same both ways (all its messages and their ACKs take one path,
    /// as ECMP hashes a TCP connection's 5-tuple; HULL §6.3).
    pub fn ecmp_key(&self, conn: ConnId) -> u64 {
        use crate::transport::Channel;
        // A pool's connection is chosen by the sender's transport, after routing knows the
        // message: its connections share the pair's one path.
        let k = match self.channel {
            None => return conn.key(),
            Some(Channel::Fixed(k)) => k as u64,
            Some(Channel::Pool(_) | Channel::Available(_)) => u32::MAX as u64,
        };
        let m = &self.msg;
        let (a, b) = (m.src.index().min(m.dst.index()) as u64, m.src.index().max(m.dst.index()) as u64);
        crate::sim::rng::splitmix64(a << 40 ^ b << 16 ^ (m.class.index() as u64) << 56 ^ k ^ 1 << 63)
    }
}

/// Slots of flows with a generation per slot; freed slots are reused.
#[derive(Default)]
pub struct FlowTable {
    slots: Vec<Option<Flow>>,
    gens: Vec<u32>,
    free: Vec<u32>,
    active: usize,
}

impl FlowTable {
    pub fn insert(&mut self, flow: Flow) -> ConnId {
        self.active += 1;
        if let Some(slot) = self.free.pop() {
            self.slots[slot as usize] = Some(flow);
            return ConnId { slot, gen: self.gens[slot as usize] };
        }
        self.slots.push(Some(flow));
        self.gens.push(0);
        ConnId { slot: (self.slots.len() - 1) as u32, gen: 0 }
    }

    pub fn get(&self, id: ConnId) -> Option<&Flow> {
        if self.gens.get(id.slot as usize) != Some(&id.gen) {
            return None;
        }
        self.slots[id.slot as usize].as_ref()
    }

    pub fn get_mut(&mut self, id: ConnId) -> Option<&mut Flow> {
        if self.gens.get(id.slot as usize) != Some(&id.gen) {
            return None;
        }
        self.slots[id.slot as usize].as_mut()
    }

    pub fn remove(&mut self, id: ConnId) -> Option<Flow> {
        if self.gens.get(id.slot as usize) != Some(&id.gen) {
            return None;
        }
        let f = self.slots[id.slot as usize].take()?;
        self.gens[id.slot as usize] = self.gens[id.slot as usize].wrapping_add(1);
        self.free.push(id.slot);
        self.active -= 1;
        Some(f)
    }

    pub fn active(&self) -> usize {
        self.active
    }

    /// The active flows not yet recorded.
    pub fn iter(&self) -> impl Iterator<Item = &Flow> {
        self.slots.iter().flatten().filter(|f| !f.recorded)
    }

    /// The bytes of the active flows' messages not yet recorded.
    pub fn active_bytes(&self) -> u64 {
        self.slots.iter().flatten().filter(|f| !f.recorded).map(|f| f.msg.size).sum()
    }
}

impl super::Simulation {
    /// Its receiver has the message whole and the transport completes it there
    /// (`EndpointEvent::Delivered`): it is recorded now, as `finish` records it, and its
    /// flow stays until its sender's `Completed` (TCP's state and packets are untouched).
    pub(super) fn deliver_whole(&mut self, cid: ConnId) -> Result<(), super::RunError> {
        let Some(flow) = self.flows.get_mut(cid).filter(|f| !f.recorded) else { return Ok(()) };
        flow.recorded = true;
        let flow = *flow;
        self.tally.completed_messages += 1;
        self.tally.completed_bytes += flow.msg.size;
        self.record(cid, flow)
    }

    /// A message's place in its connection's stream (`EndpointEvent::Framed`), handed to
    /// its receiver's endpoint.
    pub(super) fn frame(&mut self, cid: ConnId, channel: u32, end: u64) {
        let Some(flow) = self.flows.get(cid) else { return };
        let (msg, t) = (flow.message(cid), flow.transport);
        let e = super::EndpointId::new(msg.dst, t);
        self.endpoint(e).on_framed(&msg, channel, end);
    }

    /// A finished message's record: written, its response started if it is a request,
    /// its closed-loop client told if it ends an RPC.
    pub(super) fn record(&mut self, cid: ConnId, flow: Flow) -> Result<(), super::RunError> {
        let t = flow.transport;
        let rec = match flow.rpc {
            FlowRpc::OneWay => MessageRecord { finish: self.now, ..flow.msg },
            FlowRpc::Request { response } => {
                if let Some(w) = self.waits.as_mut() {
                    w.finished(cid, None)?;
                }
                return self.respond(cid, flow.msg, t, response, flow.channel);
            }
            // The RPC: from its request's start to its response's end, client to server,
            // the response's size.
            FlowRpc::Response { id, start, ideal, .. } => {
                let m = flow.msg;
                MessageRecord { id, src: m.dst, dst: m.src, start, finish: self.now, ideal: ideal + m.ideal, ..m }
            }
        };
        self.recorder.record(&rec)?;
        if let Some(w) = self.waits.as_mut() {
            w.finished(cid, Some(&rec))?;
        }
        if let FlowRpc::Response { .. } = flow.rpc {
            self.rpc_done(rec.class, rec.src)?;
        }
        Ok(())
    }
}
