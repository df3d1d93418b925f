//! One host's raw transport: its messages to send, in the order they started, and the
//! byte counts of the messages it receives.

use super::{Chunk, Config, Receiver, Sender};
use crate::net::ids::ConnId;
use crate::net::int::Stack;
use crate::net::packet::{Ecn, Flags, Packet};
use crate::sim::Time;
use crate::transport::{Endpoint, EndpointEvent, Message, TimerKey, Transmit};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

pub struct RawEndpoint {
    cfg: Config,
    /// Messages with chunks left to send; the NIC takes the first one's first.
    sending: VecDeque<(Message, Sender)>,
    receiving: FxHashMap<ConnId, Receiver>,
    completed: VecDeque<ConnId>,
}

impl RawEndpoint {
    pub fn new(cfg: Config) -> RawEndpoint {
        RawEndpoint { cfg, sending: VecDeque::new(), receiving: FxHashMap::default(), completed: VecDeque::new() }
    }
}

impl Endpoint for RawEndpoint {
    fn on_message(&mut self, _now: Time, msg: &Message) {
        self.sending.push_back((*msg, Sender::new(self.cfg, msg.size)));
    }

    fn on_packet(&mut self, now: Time, msg: &Message, pkt: &Packet, _int: Option<&Stack>) {
        let Some(chunk) = Chunk::decode(&pkt.hdr) else { return };
        if pkt.is_trimmed() {
            return;
        }
        let r = self.receiving.entry(pkt.conn).or_insert_with(|| Receiver::new(msg.size, self.cfg.mtu_payload));
        let done = r.completed_at.is_some();
        r.handle_chunk(now, chunk);
        if !done && r.completed_at.is_some() {
            self.completed.push_back(pkt.conn);
        }
    }

    /// The raw transport arms no timers.
    fn on_timer(&mut self, _now: Time, _key: TimerKey) {}

    fn on_finished(&mut self, conn: ConnId) {
        self.receiving.remove(&conn);
        self.sending.retain(|(m, _)| m.conn != conn);
    }

    fn poll_transmit(&mut self, _now: Time, _int: &mut crate::net::int::Pool) -> Option<Transmit> {
        while let Some((msg, s)) = self.sending.front_mut() {
            if let Some((chunk, wire_bytes)) = s.poll_transmit() {
                return Some(Transmit {
                    conn: msg.conn,
                    dst: msg.dst,
                    class: msg.class,
                    hdr: chunk.encode(),
                    wire_bytes,
                    payload: chunk.len,
                    ecn: Ecn::NotEct,
                    prio: None,
                    rank: 0,
                    flags: Flags::empty(),
                    int: None,
                });
            }
            self.sending.pop_front();
        }
        None
    }

    fn poll_event(&mut self) -> Option<EndpointEvent> {
        self.completed.pop_front().map(EndpointEvent::Completed)
    }
}
