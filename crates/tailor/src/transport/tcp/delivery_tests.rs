//! Completion at delivery (`completion = "delivery"`, docs/transport.md "Completion"): two
//! TCP endpoints driven through a virtual-time harness that plays the engine's part
//! (framing handed to the receiver, `Delivered` and `Completed` recorded, `on_finished`
//! to both ends). The harness reassembles the stream itself from the data it carried, so
//! each message's delivery time is checked against an independent reading of when its
//! last byte was in order at the receiver.

use super::tests::cfg;
use super::{Completion, Config, Flavor, Segment, TcpEndpoint};
use crate::net::ids::{ClassId, ConnId, HostId};
use crate::net::int::Pool;
use crate::net::packet::Packet;
use crate::sim::Time;
use crate::transport::{Channel, Endpoint, EndpointEvent, Message, TimerKey, Transmit};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

/// One way across the harness's wire.
const DELAY: Time = Time::from_us(5);
/// Serialization of one packet at the sender: packets of a batch arrive in order, spaced.
const GAP: Time = Time::from_ns(100);

fn delivery(flavor: Flavor) -> Config {
    Config { completion: Completion::Delivery, ..cfg(flavor) }
}

enum Ev {
    Arrive(usize, Packet),
    Timer(usize, TimerKey),
    Send(usize, Message),
}

struct Pair {
    eps: [TcpEndpoint; 2],
    msgs: Vec<Message>,
    queue: BinaryHeap<Reverse<(Time, u64, usize)>>,
    evs: Vec<Option<Ev>>,
    now: Time,
    /// When each sender's link is free.
    free: [Time; 2],
    /// Data packets (by their index among data packets sent) the wire loses once.
    lose: Vec<u64>,
    data_sent: u64,
    /// Payload ranges that reached the receiver, and when the harness's own reassembly
    /// saw each stream offset become in order.
    got: BTreeMap<u64, u64>,
    /// Each data segment that reached the receiver: (seq, end, when).
    arrived: Vec<(u64, u64, Time)>,
    in_order: u64,
    in_order_at: Vec<(u64, Time)>,
    delivered: Vec<(ConnId, Time)>,
    completed: Vec<(ConnId, Time)>,
}

impl Pair {
    fn new(cfg: Config, lose: Vec<u64>) -> Pair {
        let eps = [TcpEndpoint::new(cfg, HostId::new(0)), TcpEndpoint::new(cfg, HostId::new(1))];
        Pair {
            eps,
            msgs: Vec::new(),
            queue: BinaryHeap::new(),
            evs: Vec::new(),
            now: Time::ZERO,
            free: [Time::ZERO; 2],
            lose,
            data_sent: 0,
            got: BTreeMap::new(),
            arrived: Vec::new(),
            in_order: 0,
            in_order_at: Vec::new(),
            delivered: Vec::new(),
            completed: Vec::new(),
        }
    }

    fn at(&mut self, t: Time, ev: Ev) {
        self.evs.push(Some(ev));
        let n = self.evs.len() - 1;
        self.queue.push(Reverse((t, n as u64, n)));
    }

    /// A message of `size` from host 0 to host 1 at `start`, on stream 0 or its own.
    fn send(&mut self, start: Time, size: u64, stream: bool) -> ConnId {
        let conn = ConnId { slot: self.msgs.len() as u32, gen: 0 };
        let channel = stream.then_some(Channel::Fixed(0));
        let m = Message {
            conn,
            class: ClassId::new(0),
            src: HostId::new(0),
            dst: HostId::new(1),
            size,
            start,
            rpc: Default::default(),
            channel,
        };
        self.msgs.push(m);
        self.at(start, Ev::Send(0, m));
        conn
    }

    fn run(&mut self) {
        while let Some(Reverse((t, _, i))) = self.queue.pop() {
            self.now = t;
            let h = match self.evs[i].take().expect("each event once") {
                Ev::Send(h, m) => {
                    self.eps[h].on_message(t, &m);
                    h
                }
                Ev::Timer(h, k) => {
                    self.eps[h].on_timer(t, k);
                    h
                }
                Ev::Arrive(h, p) => {
                    // The engine routes only packets of live messages.
                    let Some(m) = self.live(p.conn) else { continue };
                    if h == 1 {
                        self.reassemble(&p);
                    }
                    self.eps[h].on_packet(t, &m, &p, None);
                    h
                }
            };
            self.poll(h);
        }
    }

    fn live(&self, c: ConnId) -> Option<Message> {
        let done = self.completed.iter().any(|&(d, _)| d == c);
        (!done).then(|| self.msgs[c.slot as usize])
    }

    /// The harness's own reading of the stream: when each offset became in order.
    fn reassemble(&mut self, p: &Packet) {
        let Some(Segment::Data { seq, len, .. }) = Segment::decode(&p.hdr) else { return };
        self.arrived.push((seq, seq + len as u64, self.now));
        let e = self.got.entry(seq).or_insert(0);
        *e = (*e).max(seq + len as u64);
        let before = self.in_order;
        while let Some((_, &end)) = self.got.range(..=self.in_order).find(|&(_, &end)| end > self.in_order) {
            self.in_order = end;
        }
        if self.in_order > before {
            self.in_order_at.push((self.in_order, self.now));
        }
    }

    /// What the engine does after an input: packets onto the wire, then events.
    fn poll(&mut self, h: usize) {
        let mut pool = Pool::default();
        while let Some(t) = self.eps[h].poll_transmit(self.now, &mut pool) {
            self.wire(h, t);
        }
        while let Some(e) = self.eps[h].poll_event() {
            match e {
                EndpointEvent::Timer(k, at) => self.at(at.max(self.now), Ev::Timer(h, k)),
                EndpointEvent::Framed(c, channel, end) => {
                    let m = self.live(c).expect("framed while live");
                    self.eps[1 - h].on_framed(&m, channel, end);
                    self.poll(1 - h);
                }
                EndpointEvent::Delivered(c) => self.delivered.push((c, self.now)),
                EndpointEvent::Completed(c) => {
                    self.completed.push((c, self.now));
                    for ep in &mut self.eps {
                        ep.on_finished(c);
                    }
                }
            }
        }
    }

    fn wire(&mut self, h: usize, t: Transmit) {
        let p = Packet { src: HostId::new(h), ..Packet::scripted(t.conn, t.class, t.wire_bytes, t.hdr) };
        let p = Packet { header_bytes: (t.wire_bytes - t.payload) as u16, dst: t.dst, ..p };
        self.free[h] = self.free[h].max(self.now) + GAP;
        if t.payload > 0 {
            self.data_sent += 1;
            if self.lose.contains(&(self.data_sent - 1)) {
                return;
            }
        }
        let at = self.free[h] + DELAY;
        self.at(at, Ev::Arrive(1 - h, p));
    }

    /// When the harness saw stream offset `end` in order at the receiver.
    fn in_order_time(&self, end: u64) -> Time {
        self.in_order_at.iter().find(|&&(o, _)| o >= end).expect("the offset arrived").1
    }

    fn delivered_at(&self, c: ConnId) -> Time {
        let d: Vec<Time> = self.delivered.iter().filter(|&&(x, _)| x == c).map(|&(_, t)| t).collect();
        assert_eq!(d.len(), 1, "{c:?} delivered once");
        d[0]
    }
}

/// Each message on a coalescing persistent connection completes when the receiver's
/// in-order point passes its last byte: small messages sharing segments, and large ones
/// across several round trips.
#[test]
fn a_message_completes_when_its_last_byte_is_in_order_at_the_receiver() {
    let mut p = Pair::new(delivery(Flavor::NewReno), Vec::new());
    let sizes = [200, 300, 150, 5_000, 40, 25_000, 700, 1_000, 3];
    let mut ends = Vec::new();
    let mut end = 0;
    for (i, &size) in sizes.iter().enumerate() {
        end += size;
        ends.push((p.send(Time::from_ns(300 * i as u64), size, true), end));
    }
    p.run();
    let times: Vec<Time> = ends.iter().map(|&(c, _)| p.delivered_at(c)).collect();
    assert!(times.windows(2).any(|w| w[0] == w[1]), "some messages shared a segment: {times:?}");
    for &(c, end) in &ends {
        let at = p.delivered_at(c);
        assert_eq!(at, p.in_order_time(end), "message ending at {end}");
        let acked = p.completed.iter().find(|&&(x, _)| x == c).expect("completed at the sender").1;
        assert!(at < acked, "delivered before its ACK came back");
    }
}

/// A segment lost ahead of a message's bytes holds it back (head-of-line blocking): its
/// own bytes arrive early, and it completes only when the retransmission fills the hole.
#[test]
fn head_of_line_blocking_holds_a_message_until_the_retransmission() {
    // Data packet 0 carries the first 1,000 B (message a); b and c follow in later
    // segments, which arrive while the hole is open.
    let mut p = Pair::new(delivery(Flavor::NewReno), vec![0]);
    let a = p.send(Time::ZERO, 1_000, true);
    let b = p.send(Time::ZERO, 2_500, true);
    let c = p.send(Time::ZERO, 600, true);
    p.run();
    let (ta, tb, tc) = (p.delivered_at(a), p.delivered_at(b), p.delivered_at(c));
    let hole_filled = p.in_order_time(1_000);
    let b_arrived = p.arrived.iter().find(|&&(seq, end, _)| seq < 3_500 && end >= 3_500).expect("b's last byte came").2;
    assert!(b_arrived < hole_filled, "b's last byte came before the hole was filled");
    assert_eq!((ta, tb), (hole_filled, hole_filled), "a and b wait for the retransmission");
    assert_eq!(tc, p.in_order_time(4_100));
    assert!(tc >= hole_filled);
    assert!(hole_filled > DELAY + DELAY, "the retransmission came after a round trip");
}

/// Conservation: with losses and messages of every size, on one stream and on
/// connections of their own, every message is delivered once and completed once,
/// delivered no later than completed, and in stream order on the stream.
#[test]
fn every_message_is_delivered_once_and_completed_once() {
    let lose = (0..400).filter(|i| i % 7 == 3).collect();
    let mut p = Pair::new(delivery(Flavor::Off), lose);
    let mut rng = 12345u64;
    let mut ids = Vec::new();
    for i in 0..120u64 {
        rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let size = 1 + (rng >> 33) % 4_000;
        ids.push(p.send(Time::from_ns(700 * i), size, i % 5 != 4));
    }
    p.run();
    assert_eq!(p.delivered.len(), ids.len());
    assert_eq!(p.completed.len(), ids.len());
    for c in &ids {
        let d = p.delivered_at(*c);
        let done: Vec<Time> = p.completed.iter().filter(|&&(x, _)| x == *c).map(|&(_, t)| t).collect();
        assert_eq!(done.len(), 1, "{c:?} completed once");
        assert!(d <= done[0]);
    }
    let on_stream: Vec<ConnId> =
        p.delivered.iter().map(|&(c, _)| c).filter(|c| p.msgs[c.slot as usize].channel.is_some()).collect();
    let mut sorted = on_stream.clone();
    sorted.sort_by_key(|c| c.slot);
    assert_eq!(on_stream, sorted, "a stream delivers its messages in order");
}

/// Under `completion = "ack"` the receiver reports nothing: the sender's ACK completes.
#[test]
fn ack_completion_reports_no_delivery_and_no_framing() {
    let mut p = Pair::new(cfg(Flavor::NewReno), Vec::new());
    for i in 0..5 {
        p.send(Time::from_ns(100 * i), 700, i % 2 == 0);
    }
    p.run();
    assert!(p.delivered.is_empty());
    assert_eq!(p.completed.len(), 5);
}
