//! Scripted exchanges: NDP endpoints driven by a small event loop of their own — each
//! host's link serializes at 10 Gbps and asks its endpoint for a packet only when idle
//! (`nic_depth = 0`), everything for host 0 crosses one trimming switch port (the real
//! `net::port` with an 8-packet data queue, §3.1), every link adds 1 µs — so a test sees
//! every packet and decides which are lost (§3.2–§3.3).

use super::wire::{Kind, Wire};
use super::{Config, NdpEndpoint, CONTROL_LEVEL, DATA_LEVEL};
use crate::net::ids::{ClassId, ConnId, HostId, LinkId, Node, PortId, SwitchId};
use crate::net::int::Pool;
use crate::net::packet::Packet;
use crate::net::port::{Admission, Overflow, Port, PortRole};
use crate::net::sched::priority::PriorityQueues;
use crate::sim::{Rate, Time, TimerKey};
use crate::transport::test_support::{drain, packet};
use crate::transport::{Endpoint, EndpointEvent, Message};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

const RATE: Rate = Rate::from_gbps(10);
const HOP: Time = Time::from_us(1);
/// A full packet at 10 Gbps: 1,538 bytes.
const PACKET_TIME: Time = Time::from_ps(1_230_400);

fn cfg(window: u64) -> Config {
    Config { wire: Wire::PAPER, window, rto: Time::from_us(200), line_rate: RATE }
}

fn msg(slot: u32, src: usize, size: u64) -> Message {
    Message {
        conn: ConnId { slot, gen: 0 },
        class: ClassId::new(0),
        src: HostId::new(src),
        dst: HostId::new(0),
        size,
        start: Time::ZERO,
        rpc: Default::default(),
        channel: None,
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    /// A host's link finished sending.
    LinkFree(usize),
    /// The switch port towards host 0 finished sending.
    PortFree,
    /// A packet reaches the switch port (index into `Net::wire`).
    AtPort(usize),
    /// A packet reaches its host.
    AtHost(usize),
    Timer(usize, u64),
}

/// What left the receiver (host 0) and what reached it.
#[derive(Default)]
struct Log {
    /// (time, message, cumulative pull number): PULLs and pulls riding in ACKs/NACKs.
    pulls: Vec<(Time, ConnId, u32)>,
    /// Whole DATA payloads delivered: (message, offset, len).
    delivered: Vec<(ConnId, u64, u32)>,
    trimmed_arrivals: u64,
    completed: BTreeMap<u32, Time>,
    /// Data packets the switch port sent while a header waited at its high level, and
    /// departures of a header ahead of data that reached the port before it.
    data_before_header: u64,
    overtaken: u64,
}

struct Net {
    eps: Vec<NdpEndpoint>,
    msgs: Vec<Message>,
    busy: Vec<bool>,
    port: Port,
    wire: Vec<Packet>,
    heap: BinaryHeap<Reverse<(Time, u64, Ev)>>,
    seq: u64,
    now: Time,
    log: Log,
    /// Decides whether a packet leaving a host is lost (for scripted losses).
    lose: Box<dyn FnMut(&Packet) -> bool>,
}

impl Net {
    fn new(hosts: usize, cfg: Config) -> Net {
        let sched = Box::new(PriorityQueues::new(2));
        let port = Port::new(
            Node::Switch(SwitchId::new(0)),
            LinkId::new(0),
            RATE,
            PortRole::ToHost,
            Admission::PortLimit(8 * 1_538),
            Vec::new(),
            sched,
        )
        .with_overflow(Overflow::Trim);
        Net {
            eps: (0..hosts).map(|_| NdpEndpoint::new(cfg.clone())).collect(),
            msgs: Vec::new(),
            busy: vec![false; hosts],
            port,
            wire: Vec::new(),
            heap: BinaryHeap::new(),
            seq: 0,
            now: Time::ZERO,
            log: Log::default(),
            lose: Box::new(|_| false),
        }
    }

    fn at(&mut self, t: Time, ev: Ev) {
        self.seq += 1;
        self.heap.push(Reverse((t, self.seq, ev)));
    }

    fn carry(&mut self, t: Time, pkt: Packet, ev: fn(usize) -> Ev) {
        self.wire.push(pkt);
        let i = self.wire.len() - 1;
        self.at(t, ev(i));
    }

    fn start(&mut self, m: Message, at: Time) {
        self.msgs.push(m);
        self.now = at;
        self.eps[m.src.index()].on_message(at, &m);
        self.after(m.src.index());
    }

    /// What follows an input to host `h`: its timers and completions, and its link takes a
    /// packet if idle.
    fn after(&mut self, h: usize) {
        while let Some(e) = self.eps[h].poll_event() {
            match e {
                EndpointEvent::Timer(k, t) => self.at(t.max(self.now), Ev::Timer(h, k.get())),
                EndpointEvent::Completed(c) => {
                    self.log.completed.insert(c.slot, self.now);
                    let m = *self.msgs.iter().find(|m| m.conn == c).expect("a started message");
                    self.eps[m.src.index()].on_finished(c);
                    self.eps[m.dst.index()].on_finished(c);
                }
                other => unreachable!("NDP reports no {other:?}"),
            }
        }
        if self.busy[h] {
            return;
        }
        let Some(t) = self.eps[h].poll_transmit(self.now, &mut Pool::default()) else { return };
        let pkt = packet(h, &t);
        if h == 0 {
            self.log_pull(&pkt);
        }
        self.busy[h] = true;
        let done = self.now + RATE.ser(pkt.wire_bytes as u64);
        self.at(done, Ev::LinkFree(h));
        if (self.lose)(&pkt) {
            return;
        }
        let ev = if pkt.dst.index() == 0 { Ev::AtPort } else { Ev::AtHost };
        self.carry(done + HOP, pkt, ev);
    }

    fn log_pull(&mut self, pkt: &Packet) {
        let pull = match Kind::decode(&pkt.hdr) {
            Some(Kind::Pull { pull } | Kind::Ack { pull, .. } | Kind::Nack { pull, .. }) => pull,
            _ => 0,
        };
        if pull > 0 {
            self.log.pulls.push((self.now, pkt.conn, pull));
        }
    }

    fn port_next(&mut self) {
        if self.port.busy {
            return;
        }
        if let Some((pkt, ser)) = self.port.start_next(self.now, PortId::new(0), None, &mut Pool::default()) {
            let (headers, data) = (
                self.port.scheduler().bytes_in(CONTROL_LEVEL as usize),
                self.port.scheduler().bytes_in(DATA_LEVEL as usize),
            );
            if pkt.payload() > 0 && headers > 0 {
                self.log.data_before_header += 1;
            }
            if pkt.is_trimmed() && data > 0 {
                self.log.overtaken += 1;
            }
            self.carry(self.now + ser + HOP, pkt, Ev::AtHost);
            self.at(self.now + ser, Ev::PortFree);
        }
    }

    fn run(&mut self, until: Time) {
        while let Some(Reverse((t, _, ev))) = self.heap.pop() {
            if t > until {
                break;
            }
            self.now = t;
            match ev {
                Ev::LinkFree(h) => {
                    self.busy[h] = false;
                    self.after(h);
                }
                Ev::PortFree => {
                    self.port.busy = false;
                    self.port_next();
                }
                Ev::AtPort(i) => {
                    let mut dropped = Vec::new();
                    self.port.offer(t, self.wire[i], None, &mut dropped);
                    assert!(dropped.is_empty(), "a trimming port drops nothing");
                    self.port_next();
                }
                Ev::AtHost(i) => self.deliver(self.wire[i]),
                Ev::Timer(h, k) => {
                    self.eps[h].on_timer(t, TimerKey::new(k));
                    self.after(h);
                }
            }
        }
    }

    fn deliver(&mut self, pkt: Packet) {
        let h = pkt.dst.index();
        let Some(m) = self.msgs.iter().find(|m| m.conn == pkt.conn).copied() else { return };
        if self.log.completed.contains_key(&m.conn.slot) {
            return; // stale: the engine drops packets of finished messages
        }
        if h == 0 {
            match (Kind::decode(&pkt.hdr), pkt.is_trimmed()) {
                (Some(Kind::Data { .. }), true) => self.log.trimmed_arrivals += 1,
                (Some(Kind::Data { offset, len, .. }), false) => self.log.delivered.push((pkt.conn, offset, len)),
                _ => {}
            }
        }
        self.eps[h].on_packet(self.now, &m, &pkt, None);
        self.after(h);
    }
}

/// Every byte of every message delivered, whole packets only; returns the packets
/// delivered more than once.
fn assert_delivered(log: &Log, msgs: &[Message]) -> usize {
    let mut dups = 0;
    for m in msgs {
        let mut got: Vec<(u64, u32)> = log.delivered.iter().filter(|d| d.0 == m.conn).map(|d| (d.1, d.2)).collect();
        got.sort_unstable();
        let n = got.len();
        got.dedup();
        dups += n - got.len();
        let mut next = 0;
        for (offset, len) in got {
            assert_eq!(offset, next, "message {:?}: a hole at {next}", m.conn);
            next += len as u64;
        }
        assert_eq!(next, m.size, "message {:?}: every byte", m.conn);
    }
    dups
}

#[test]
fn a_sender_sends_its_first_window_at_once_and_then_one_packet_per_pull() {
    let c = cfg(10_000);
    let mut s = NdpEndpoint::new(c.clone());
    let m = Message { dst: HostId::new(1), ..msg(0, 0, 20 * 1_442) };
    s.on_message(Time::ZERO, &m);
    let out = drain(&mut s, Time::ZERO);
    // 10,000 bytes on the wire: 7 full packets (the seventh crosses 10,000 B), data level.
    assert_eq!(out.len(), 7);
    assert!(out.iter().all(|t| t.wire_bytes == 1_538 && t.payload == 1_442 && t.prio == Some(DATA_LEVEL)));
    let offsets: Vec<u64> = out
        .iter()
        .map(|t| if let Some(Kind::Data { offset, .. }) = Kind::decode(&t.hdr) { offset } else { u64::MAX })
        .collect();
    assert_eq!(offsets, (0..7).map(|i| i * 1_442).collect::<Vec<_>>());
    // A PULL numbered 2 lets two packets go; the same number again lets none.
    let pull = |n: u32| Packet {
        conn: m.conn,
        src: HostId::new(1),
        dst: HostId::new(0),
        hdr: Kind::Pull { pull: n }.encode(),
        ..Packet::scripted(m.conn, m.class, 84, Default::default())
    };
    s.on_packet(Time::ZERO, &m, &pull(2), None);
    assert_eq!(drain(&mut s, Time::ZERO).len(), 2);
    s.on_packet(Time::ZERO, &m, &pull(2), None);
    assert_eq!(drain(&mut s, Time::ZERO).len(), 0);
    // A NACK queues the packet again; the next pull sends it before new data.
    let nack = Packet { hdr: Kind::Nack { offset: 1_442, len: 1_442, pull: 3 }.encode(), ..pull(0) };
    s.on_packet(Time::ZERO, &m, &nack, None);
    let next = drain(&mut s, Time::ZERO);
    assert_eq!(
        next.iter().map(|t| Kind::decode(&t.hdr).unwrap()).collect::<Vec<_>>(),
        vec![Kind::Data { offset: 1_442, len: 1_442, retransmit: true }]
    );
}

#[test]
fn a_lone_message_runs_at_line_rate_its_pulls_riding_in_the_acks() {
    // 7 packets blind cover the 1 µs + 1 µs round trip of this script: the pulls arrive in
    // time and the link never idles.
    let mut net = Net::new(2, cfg(10_000));
    let m = msg(0, 1, 40 * 1_442 + 100);
    net.start(m, Time::ZERO);
    net.run(Time::from_ms(1));
    let done = net.log.completed[&m.conn.slot];
    // 40 full packets and one of 100 bytes back to back through the sender's link and the
    // switch port (the transport's ideal), 1 µs per link.
    let hop = crate::measure::ideal::Hop { rate: RATE, delay: HOP };
    let path = crate::transport::path::Path {
        fwd: vec![hop, hop],
        rev: vec![hop, hop],
        src_tx_delay: Time::ZERO,
        dst_tx_delay: Time::ZERO,
    };
    let ideal = crate::transport::Transport::ideal(&cfg(10_000), &path, m.size);
    assert_eq!(ideal, Time::from_ps(41 * PACKET_TIME.ps()) + RATE.ser(196) + HOP + HOP);
    assert_eq!(done, ideal, "no gap: every pull came back before the link would idle");
    assert_eq!(assert_delivered(&net.log, &[m]), 0);
    assert_eq!(net.log.trimmed_arrivals, 0);
    // One pull per packet beyond the first window, each riding in an ACK (the pacer was
    // free every time), paced one packet apart.
    let mut c = crate::transport::Counters::default();
    net.eps[0].counters(&mut c);
    assert_eq!((c.get("pulls"), c.get("pulls_on_feedback")), (Some(0), Some(41 - 7)));
    assert_eq!(net.log.pulls.len(), 41 - 7);
    assert!(net.log.pulls.windows(2).all(|w| w[1].0 - w[0].0 >= PACKET_TIME), "pulls one packet-time apart");
    // The receiver never pulls past the message's end, and pulls exactly the short last
    // packet's time after the last full one.
    assert_eq!(net.log.pulls.last().map(|p| p.2), Some(41 - 7));
}

#[test]
fn an_incast_is_trimmed_nacked_pulled_round_robin_and_delivered_whole() {
    const N: usize = 12;
    let mut net = Net::new(N + 1, cfg(10_000));
    let msgs: Vec<Message> = (1..=N).map(|h| msg(h as u32, h, 60 * 1_442)).collect();
    for m in &msgs {
        net.start(*m, Time::ZERO);
    }
    net.run(Time::from_ms(10));
    // Twelve first windows of 7 packets hit an 8-packet queue at once: most are trimmed,
    // every trimmed header reaches the receiver and is NACKed, every message completes.
    assert!(net.port.stats.trim_packets >= 60, "trimmed: {}", net.port.stats.trim_packets);
    assert_eq!(net.log.trimmed_arrivals, net.port.stats.trim_packets);
    let mut c = crate::transport::Counters::default();
    net.eps[0].counters(&mut c);
    assert_eq!(c.get("nacks"), Some(net.port.stats.trim_packets));
    assert_eq!(net.log.completed.len(), N);
    assert_eq!(assert_delivered(&net.log, &msgs), 0, "no payload byte duplicated");
    assert_eq!((c.get("duplicate_packets"), c.get("repulls")), (Some(0), Some(0)));
    // While all twelve have pulls to make, the pull queue serves them round robin: over
    // the first 360 pulls (30 each), every message gets its share within one pull.
    let mut share: BTreeMap<u32, u32> = BTreeMap::new();
    for (_, conn, _) in net.log.pulls.iter().take(30 * N) {
        *share.entry(conn.slot).or_default() += 1;
    }
    assert_eq!(share.len(), N);
    assert!(share.values().all(|&n| (29..=31).contains(&n)), "shares: {share:?}");
    // The pulls are paced at the downlink's rate, one packet-time apart when released; on
    // the wire a pull may wait behind the NACKs queued before it at the receiver's link
    // (84 B each), so k pulls span at least k packet-times less that wait.
    let nack_wait = Time::from_ps(RATE.ser(84).ps() * c.get("nacks").unwrap());
    for k in [1usize, 10, 100] {
        for w in net.log.pulls.windows(k + 1) {
            assert!(
                (w[k].0 - w[0].0) + nack_wait >= Time::from_ps(PACKET_TIME.ps() * k as u64),
                "{k} pulls within {}",
                w[k].0 - w[0].0
            );
        }
    }
    // The downlink stays busy: the last message ends within 10 % of the bytes' time.
    let bytes = (N * 60 * 1_538) as u64;
    let last = *net.log.completed.values().max().unwrap();
    assert!(last.ps() < RATE.ser(bytes).ps() * 11 / 10, "{last} for {}", RATE.ser(bytes));
}

#[test]
fn trimmed_headers_and_control_packets_go_first_at_the_switch() {
    let mut net = Net::new(4, cfg(10_000));
    for h in 1..4 {
        net.start(msg(h as u32, h, 30 * 1_442), Time::ZERO);
    }
    net.run(Time::from_ms(1));
    assert!(net.port.stats.trim_packets > 0);
    // Never a data packet left the port while a header waited, and headers overtook data
    // queued before them (the port's high level, §3.1).
    assert_eq!(net.log.data_before_header, 0);
    assert!(net.log.overtaken > 0);
    assert_eq!(net.log.completed.len(), 3);
}

#[test]
fn a_lost_packet_is_sent_again_after_the_timeout_and_a_lost_pull_is_asked_again() {
    let mut net = Net::new(2, cfg(10_000));
    let m = msg(0, 1, 20 * 1_442);
    // Lose the third DATA packet the first time it is sent, and the ACK that carries the
    // last pull (13: packets 7..19 are pulled).
    let mut pull_lost = false;
    net.lose = Box::new(move |p: &Packet| match Kind::decode(&p.hdr) {
        Some(Kind::Data { offset: 2_884, retransmit: false, .. }) => true,
        Some(Kind::Ack { pull: 13, .. }) if !pull_lost => {
            pull_lost = true;
            true
        }
        _ => false,
    });
    net.start(m, Time::ZERO);
    net.run(Time::from_ms(5));
    assert!(net.log.completed.contains_key(&m.conn.slot), "the message completes");
    assert_eq!(assert_delivered(&net.log, &[m]), 1, "the packet whose ACK was lost");
    let (mut s, mut r) = (crate::transport::Counters::default(), crate::transport::Counters::default());
    net.eps[1].counters(&mut s);
    net.eps[0].counters(&mut r);
    // The lost packet and the one whose ACK was lost, each sent again after 200 µs
    // without an answer (the second arrives twice); the lost last pull asked again.
    assert_eq!(s.get("timeouts"), Some(2));
    assert_eq!(r.get("duplicate_packets"), Some(1));
    assert_eq!(r.get("repulls"), Some(1));
    let done = net.log.completed[&m.conn.slot];
    // Both recoveries waited one timeout (200 µs, checked every 50 µs), side by side.
    assert!(done > Time::from_us(200) && done < Time::from_us(300), "{done}");
}
