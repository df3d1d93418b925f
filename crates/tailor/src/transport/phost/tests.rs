//! Scripted exchanges between pHost endpoints (§3), on a virtual network of hosts whose
//! NICs send one packet at a time at 10 Gbps and whose packets arrive a fixed delay
//! (plus jitter, if asked) after they leave; tests may drop chosen packets.

use super::wire::{Kind, Wire};
use super::{Config, PhostEndpoint, Span, CONTROL, SCHEDULED};
use crate::net::ids::{ClassId, ConnId, HostId};
use crate::net::int::Pool;
use crate::sim::{Rate, Time};
use crate::transport::test_support::packet;
use crate::transport::{Endpoint, EndpointEvent, Message, TimerKey, Transmit};
use rand::Rng;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A full packet at 10 Gbps: 1,538 bytes.
const P: Time = Time::from_ps(1_230_400);

fn cfg(free: u32, window: u32) -> Config {
    Config {
        wire: Wire::PAPER,
        free_tokens: free,
        token_window: window,
        token_expiry: Span::Packets(1.5),
        downgrade_timeout: Span::Packets(25.0),
        resend_timeout: Span::Packets(9.0),
        rts_timeout: Some(Time::from_us(300)),
        line_rate: Rate::from_gbps(10),
        levels: 2,
        wakeup: super::Wakeup::Arrivals,
        free_to: super::FreeTo::Every,
    }
}

fn msg(id: u32, src: usize, dst: usize, size: u64, start: Time) -> Message {
    Message {
        conn: ConnId { slot: id, gen: 0 },
        class: ClassId::new(0),
        src: HostId::new(src),
        dst: HostId::new(dst),
        size,
        start,
        rpc: Default::default(),
        channel: None,
    }
}

/// A packet as it left a host.
#[derive(Copy, Clone, Debug)]
struct Sent {
    at: Time,
    from: usize,
    t: Transmit,
    kind: Kind,
}

#[derive(Copy, Clone, Debug)]
enum Ev {
    Start(usize),
    Arrive(usize, Transmit),
    Timer(usize, TimerKey),
    NicFree(usize),
}

/// Hosts, their endpoints and NICs, and a clock.
struct Net {
    eps: Vec<PhostEndpoint>,
    msgs: Vec<Message>,
    busy: Vec<bool>,
    now: Time,
    seq: u64,
    heap: BinaryHeap<Reverse<(Time, u64, usize)>>,
    evs: Vec<Ev>,
    delay: Time,
    jitter_ns: u64,
    rng: crate::sim::rng::Stream,
    /// Every packet that left a host, and the ones the filter dropped.
    sent: Vec<Sent>,
    drop: Box<dyn FnMut(&Sent) -> bool>,
    dropped: Vec<Sent>,
    done: Vec<(ConnId, Time)>,
    /// Times a sender's own count of tokens received and spent was checked.
    token_checks: u64,
}

impl Net {
    fn new(hosts: usize, c: &Config, delay: Time) -> Net {
        Net {
            eps: (0..hosts).map(|_| PhostEndpoint::new(c.clone())).collect(),
            msgs: Vec::new(),
            busy: vec![false; hosts],
            now: Time::ZERO,
            seq: 0,
            heap: BinaryHeap::new(),
            evs: Vec::new(),
            delay,
            jitter_ns: 0,
            rng: crate::sim::rng::stream(11, "test/phost"),
            sent: Vec::new(),
            drop: Box::new(|_| false),
            dropped: Vec::new(),
            done: Vec::new(),
            token_checks: 0,
        }
    }

    fn at(&mut self, t: Time, ev: Ev) {
        self.seq += 1;
        self.evs.push(ev);
        self.heap.push(Reverse((t, self.seq, self.evs.len() - 1)));
    }

    fn send(&mut self, m: Message) {
        self.msgs.push(m);
        self.at(m.start, Ev::Start(self.msgs.len() - 1));
    }

    /// What the engine does after an input to host `h`: timers, completions, the NIC.
    fn after(&mut self, h: usize) {
        while let Some(e) = self.eps[h].poll_event() {
            match e {
                EndpointEvent::Timer(k, t) => self.at(t, Ev::Timer(h, k)),
                EndpointEvent::Completed(c) => {
                    self.done.push((c, self.now));
                    let m = self.msgs[c.slot as usize];
                    self.eps[m.src.index()].on_finished(c);
                    self.eps[m.dst.index()].on_finished(c);
                }
                other => unreachable!("pHost reports no {other:?}"),
            }
        }
        if !self.busy[h] {
            if let Some(t) = self.eps[h].poll_transmit(self.now, &mut Pool::default()) {
                let s = Sent { at: self.now, from: h, t, kind: Kind::decode(&t.hdr).expect("a pHost header") };
                // The invariant by the sender's own count, after every packet it sends.
                for (conn, got, spent) in self.eps[h].spent_tokens() {
                    assert!(spent <= got, "host {h}, message {}: {spent} packets on {got} tokens", conn.slot);
                    self.token_checks += 1;
                }
                self.sent.push(s);
                let ser = Rate::from_gbps(10).ser(t.wire_bytes as u64);
                self.busy[h] = true;
                self.at(self.now + ser, Ev::NicFree(h));
                let jitter = if self.jitter_ns > 0 {
                    Time::from_ns(self.rng.random_range(0..self.jitter_ns))
                } else {
                    Time::ZERO
                };
                if (self.drop)(&s) {
                    self.dropped.push(s);
                } else {
                    self.at(self.now + ser + self.delay + jitter, Ev::Arrive(t.dst.index(), t));
                }
            }
        }
    }

    fn run_until(&mut self, end: Time) {
        while let Some(&Reverse((t, _, i))) = self.heap.peek() {
            if t > end {
                break;
            }
            self.heap.pop();
            self.now = t;
            let h = match self.evs[i] {
                Ev::Start(k) => {
                    let m = self.msgs[k];
                    self.eps[m.src.index()].on_message(t, &m);
                    m.src.index()
                }
                Ev::Arrive(h, tx) => {
                    let m = self.msgs[tx.conn.slot as usize];
                    if !self.done.iter().any(|d| d.0 == tx.conn) {
                        self.eps[h].on_packet(
                            t,
                            &m,
                            &packet(if tx.dst == m.dst { m.src } else { m.dst }.index(), &tx),
                            None,
                        );
                    }
                    h
                }
                Ev::Timer(h, k) => {
                    self.eps[h].on_timer(t, k);
                    h
                }
                Ev::NicFree(h) => {
                    self.busy[h] = false;
                    h
                }
            };
            self.after(h);
        }
    }

    fn completed(&self, c: ConnId) -> Option<Time> {
        self.done.iter().find(|d| d.0 == c).map(|d| d.1)
    }

    fn tokens_to(&self, conn: ConnId) -> Vec<&Sent> {
        self.sent.iter().filter(|s| s.t.conn == conn && matches!(s.kind, Kind::Token { .. })).collect()
    }
}

#[test]
fn a_lone_message_spends_its_free_tokens_then_goes_at_line_rate_on_paced_tokens() {
    // Delay 2 us each way: a token's round trip (P + 2 us + 67 ns + 2 us) is 4.3 packets,
    // so five free tokens cover it.
    let mut net = Net::new(2, &cfg(5, 5), Time::from_us(2));
    let m = msg(0, 0, 1, 30 * 1460 + 100, Time::ZERO);
    net.send(m);
    net.run_until(Time::from_ms(1));
    let done = net.completed(m.conn).expect("it completes");
    let from0: Vec<&Sent> = net.sent.iter().filter(|s| s.from == 0).collect();
    assert_eq!(from0[0].kind, Kind::Rts);
    assert_eq!(from0[0].t.prio, Some(CONTROL));
    let data: Vec<&&Sent> = from0.iter().filter(|s| matches!(s.kind, Kind::Data { .. })).collect();
    assert_eq!(data.len(), 31, "each packet once");
    // Packets in order, back to back from the end of the RTS: the sender never waited.
    let rts = Rate::from_gbps(10).ser(84);
    for (i, s) in data.iter().enumerate() {
        let Kind::Data { index, token, free } = s.kind else { unreachable!() };
        assert_eq!((index, token), (i as u32, i as u32));
        assert_eq!(free, i < 5);
        assert_eq!(s.t.prio, Some(if i < 5 { CONTROL } else { SCHEDULED }));
        assert_eq!(s.at, rts + Time::from_ps(P.ps() * i as u64), "packet {i}");
    }
    // The last one (100 bytes, 178 on the wire) arrives after the delay.
    assert_eq!(done, data[30].at + Rate::from_gbps(10).ser(178) + Time::from_us(2));
    // One token per packet beyond the free ones, each a packet time after the previous
    // one at least, none wasted.
    let tokens = net.tokens_to(m.conn);
    assert_eq!(tokens.len(), 26);
    assert!(tokens.windows(2).all(|w| w[1].at - w[0].at >= P));
    assert!(tokens.iter().all(|s| s.t.prio == Some(CONTROL) && s.t.wire_bytes == 84));
    let mut c = crate::transport::Counters::default();
    net.eps[0].counters(&mut c);
    assert_eq!(c.get("tokens_wasted"), Some(0));
    // The receiver wanted packets from its RTS to its last token, and its link was busy all
    // that time (the first packet follows the RTS by its own serialization): no waste.
    let mut r = crate::transport::Counters::default();
    net.eps[1].counters(&mut r);
    let busy_ns = r.get("backlogged_wire_bytes").unwrap() as f64 * 8.0 / 10.0;
    assert!(busy_ns > 25.0 * 1230.4, "{r:?}");
    assert!((r.get("backlogged_ns").unwrap() as f64 - busy_ns).abs() < 1.0, "{r:?}");
}

#[test]
fn a_message_no_longer_than_its_free_tokens_needs_no_token() {
    let mut net = Net::new(2, &cfg(5, 5), Time::from_us(2));
    let m = msg(0, 0, 1, 3 * 1460, Time::ZERO);
    net.send(m);
    net.run_until(Time::from_ms(1));
    assert!(net.completed(m.conn).is_some());
    assert!(net.tokens_to(m.conn).is_empty());
    // Its receiver acknowledges it.
    assert!(net.sent.iter().any(|s| s.from == 1 && s.kind == Kind::Ack));
}

#[test]
fn a_receiver_gives_its_tokens_to_the_message_with_the_fewest_bytes_left() {
    let mut net = Net::new(3, &cfg(5, 5), Time::from_us(2));
    let long = msg(0, 0, 2, 60 * 1460, Time::ZERO);
    let short = msg(1, 1, 2, 15 * 1460, Time::from_us(20));
    net.send(long);
    net.send(short);
    net.run_until(Time::from_ms(2));
    let (t_long, t_short) = (net.completed(long.conn).unwrap(), net.completed(short.conn).unwrap());
    assert!(t_short < t_long);
    // From the first token the short message gets to its last, the long one gets none.
    let to_short = net.tokens_to(short.conn);
    let (first, last) = (to_short[0].at, to_short[to_short.len() - 1].at);
    let stolen = net.tokens_to(long.conn).iter().filter(|s| s.at >= first && s.at <= last).count();
    assert_eq!(stolen, 0, "SRPT at the receiver");
    // And every token of either went from the receiver a packet time apart.
    let mut all: Vec<Time> = net.sent.iter().filter(|s| matches!(s.kind, Kind::Token { .. })).map(|s| s.at).collect();
    all.sort();
    assert!(all.windows(2).all(|w| w[1] - w[0] >= P));
}

#[test]
fn a_sender_spends_the_tokens_of_its_shortest_message_first() {
    // Host 0 sends a long message to 1; a shorter one to 2 starts while the long one is
    // being sent on tokens.
    let mut net = Net::new(3, &cfg(5, 5), Time::from_us(2));
    let long = msg(0, 0, 1, 80 * 1460, Time::ZERO);
    let short = msg(1, 0, 2, 30 * 1460, Time::from_us(20));
    net.send(long);
    net.send(short);
    net.run_until(Time::from_ms(3));
    assert!(net.completed(short.conn).unwrap() < net.completed(long.conn).unwrap());
    // From the short one's first packet to its last, the long one's packets wait.
    let data: Vec<&Sent> = net.sent.iter().filter(|s| s.from == 0 && matches!(s.kind, Kind::Data { .. })).collect();
    let first = data.iter().position(|s| s.t.conn == short.conn).unwrap();
    let last = data.iter().rposition(|s| s.t.conn == short.conn).unwrap();
    let long_between = data[first..last].iter().filter(|s| s.t.conn == long.conn).count();
    assert!(data[..first].iter().filter(|s| s.t.conn == long.conn).count() > 10);
    assert!(long_between <= 2, "{long_between} packets of the long message went while the short one had tokens");
    // The long one's receiver kept sending tokens for a while: they expired unused.
    let mut c = crate::transport::Counters::default();
    net.eps[0].counters(&mut c);
    assert!(c.get("tokens_wasted").unwrap() >= 3, "{c:?}");
}

#[test]
fn an_unresponsive_sender_is_passed_over_then_resumed() {
    // Host 0's message to 2 is shorter, but host 0 does not answer (its tokens are lost)
    // until 100 us; host 1's longer message takes the tokens meanwhile.
    let c = cfg(5, 5);
    let mut net = Net::new(3, &c, Time::from_us(2));
    let a = msg(0, 0, 2, 40 * 1460, Time::ZERO);
    let b = msg(1, 1, 2, 200 * 1460, Time::ZERO);
    net.send(a);
    net.send(b);
    let wake = Time::from_us(100);
    net.drop = Box::new(move |s| s.t.conn.slot == 0 && matches!(s.kind, Kind::Token { .. }) && s.at < wake);
    net.run_until(Time::from_ms(3));
    let to_a: Vec<Time> = net.tokens_to(a.conn).iter().map(|s| s.at).collect();
    let lost: Vec<Time> = to_a.iter().copied().filter(|&t| t < wake).collect();
    // A's five free packets answer nothing it was sent; its first window of tokens goes
    // unanswered, then one token per downgrade timeout (25 packet times).
    assert!(lost.len() >= 5 + 2, "{lost:?}");
    let window_end = lost[4];
    let probes = &lost[5..];
    assert!(probes[0] - window_end >= Time::from_ps(25 * P.ps()), "{lost:?}");
    assert!(probes.windows(2).all(|w| w[1] - w[0] >= Time::from_ps(25 * P.ps())), "{lost:?}");
    // Meanwhile B had the tokens.
    let to_b_meanwhile = net.tokens_to(b.conn).iter().filter(|s| s.at > window_end && s.at < wake).count();
    let slots = ((wake - window_end).ps() / P.ps()) as usize;
    assert!(to_b_meanwhile + probes.len() + 2 >= slots, "{to_b_meanwhile} of {slots} token slots to B");
    // Once A answers it is served first again: A finishes long before B.
    assert!(net.completed(a.conn).unwrap() + Time::from_us(50) < net.completed(b.conn).unwrap());
    let mut c = crate::transport::Counters::default();
    net.eps[2].counters(&mut c);
    let downgrades = c.get("downgrades").unwrap() as usize;
    assert!(
        (probes.len()..=probes.len() + 1).contains(&downgrades),
        "{downgrades} downgrades, {} probes",
        probes.len()
    );
}

#[test]
fn a_lost_packet_is_named_again_after_the_resend_timeout() {
    let c = cfg(5, 5);
    let mut net = Net::new(2, &c, Time::from_us(2));
    let m = msg(0, 0, 1, 12 * 1460, Time::ZERO);
    net.send(m);
    let mut once = true;
    net.drop = Box::new(move |s| {
        let hit = once && matches!(s.kind, Kind::Data { index: 9, .. });
        once &= !hit;
        hit
    });
    net.run_until(Time::from_ms(1));
    assert!(net.completed(m.conn).is_some());
    let tokens = net.tokens_to(m.conn);
    let names: Vec<u32> =
        tokens.iter().map(|s| if let Kind::Token { index, .. } = s.kind { index } else { 0 }).collect();
    assert_eq!(names, vec![5, 6, 7, 8, 9, 10, 11, 9], "one pass, then the missing packet");
    // The new token waited 9 packet times after the last of the pass.
    assert!(tokens[7].at - tokens[6].at >= Time::from_ps(9 * P.ps()));
    let again: Vec<&Sent> = net.sent.iter().filter(|s| matches!(s.kind, Kind::Data { index: 9, .. })).collect();
    assert_eq!(again.len(), 2);
    assert_eq!(again[1].t.prio, Some(SCHEDULED));
    let mut k = crate::transport::Counters::default();
    net.eps[0].counters(&mut k);
    assert_eq!(k.get("retransmitted_packets"), Some(1));
}

#[test]
fn a_lost_rts_and_free_packets_are_announced_again() {
    let mut net = Net::new(2, &cfg(5, 5), Time::from_us(2));
    let m = msg(0, 0, 1, 2 * 1460, Time::ZERO);
    net.send(m);
    net.drop = Box::new(|s| s.at < Time::from_us(10));
    net.run_until(Time::from_ms(2));
    let done = net.completed(m.conn).expect("it completes");
    assert!(done > Time::from_us(300), "after the RTS timeout: {done}");
    let rts = net.sent.iter().filter(|s| s.kind == Kind::Rts).count();
    assert_eq!(rts, 2);
}

/// Random traffic among eight hosts, packets jittered (reordered) and 2 % of every kind
/// dropped: every message completes, and no sender ever sent more packets on tokens than
/// tokens it received, nor more on free tokens than it had (the invariant).
#[test]
fn random_exchanges_never_exceed_their_tokens_and_complete_despite_loss() {
    let c = cfg(7, 7);
    let mut net = Net::new(8, &c, Time::from_us(2));
    net.jitter_ns = 3_000;
    let mut rng = crate::sim::rng::stream(5, "test/phost-random");
    let mut start = Time::ZERO;
    for id in 0..300u32 {
        start += Time::from_ns(rng.random_range(0..4_000));
        let (src, dst) = (rng.random_range(0..8), rng.random_range(0..7));
        let dst = if dst >= src { dst + 1 } else { dst };
        let size = [1u64, 800, 5_000, 11_000, 40_000, 150_000][rng.random_range(0..6)];
        net.send(msg(id, src, dst, size, start));
    }
    let mut drop_rng = crate::sim::rng::stream(6, "test/phost-drops");
    net.drop = Box::new(move |_| drop_rng.random_bool(0.02));
    net.run_until(Time::from_ms(50));
    assert_eq!(net.done.len(), 300, "every message completes");
    assert!(net.dropped.len() > 50, "{} dropped", net.dropped.len());
    // Counted in the order packets left their hosts: a token that left its receiver
    // before a packet is a bound on the tokens its sender had received.
    let mut seen: std::collections::HashMap<ConnId, (usize, usize, usize)> = Default::default();
    let mut checked = 0;
    for s in &net.sent {
        let e = seen.entry(s.t.conn).or_default();
        match s.kind {
            Kind::Token { .. } => e.0 += 1,
            Kind::Data { free: true, .. } => {
                e.1 += 1;
                assert!(e.1 <= 7, "message {} sent {} packets on free tokens", s.t.conn.slot, e.1);
            }
            Kind::Data { free: false, .. } => {
                e.2 += 1;
                assert!(e.2 <= e.0, "message {} sent {} packets on {} tokens", s.t.conn.slot, e.2, e.0);
                checked += 1;
            }
            _ => {}
        }
    }
    assert!(checked > 1_000, "{checked} packets sent on tokens");
    assert!(net.token_checks > 10_000, "the senders' own counts were checked {} times", net.token_checks);
    let mut k = crate::transport::Counters::default();
    for ep in &net.eps {
        ep.counters(&mut k);
    }
    assert!(k.get("retransmitted_packets").unwrap() > 0 && k.get("tokens_wasted").unwrap() > 0, "{k:?}");
}

#[test]
fn the_load_counts_rts_packets_tokens_and_ack() {
    use crate::transport::Transport;
    let c = cfg(7, 7);
    // 20,000 bytes: 13 full packets and one of 1,020 (1,098 on the wire), 7 tokens for the
    // packets beyond the free ones, an RTS and an ACK of 84 bytes.
    assert_eq!(c.wire_bytes(20_000), Some((13 * 1538 + 1098 + (7 + 2) * 84) as f64));
    // One byte: three minimum frames.
    assert_eq!(c.wire_bytes(1), Some(3.0 * 84.0));
    // Free tokens for short messages only: 20,000 bytes need a token for every packet.
    let short = Config { free_to: super::FreeTo::Short, ..cfg(7, 7) };
    assert_eq!(short.wire_bytes(20_000), Some((13 * 1538 + 1098 + (14 + 2) * 84) as f64));
    assert_eq!(short.wire_bytes(7 * 1460), Some((7 * 1538 + 2 * 84) as f64));
}

#[test]
fn one_level_puts_every_packet_at_level_0() {
    let mut net = Net::new(2, &Config { levels: 1, ..cfg(5, 5) }, Time::from_us(2));
    let m = msg(0, 0, 1, 20 * 1460, Time::ZERO);
    net.send(m);
    net.run_until(Time::from_ms(1));
    assert!(net.completed(m.conn).is_some());
    assert!(net.sent.iter().any(|s| matches!(s.kind, Kind::Data { free: false, .. })));
    assert!(net.sent.iter().all(|s| s.t.prio == Some(CONTROL)));
}

#[test]
fn an_idle_token_clock_wakes_on_an_answer_or_only_at_a_timeout_as_the_simulator() {
    // No free tokens and a window of 2 against a round trip of 4.3 packets: the window
    // fills after two tokens and the first answer comes about 2.3 packet times later.
    let gap = |wakeup: super::Wakeup| {
        let c = Config { wakeup, free_to: super::FreeTo::Short, ..cfg(0, 2) };
        let mut net = Net::new(2, &c, Time::from_us(2));
        let m = msg(0, 0, 1, 10 * 1460, Time::ZERO);
        net.send(m);
        net.run_until(Time::from_ms(1));
        assert!(net.completed(m.conn).is_some());
        let t = net.tokens_to(m.conn);
        t[2].at - t[1].at
    };
    let arrivals = gap(super::Wakeup::Arrivals);
    assert!(arrivals < Time::from_ps(5 * P.ps()), "woken by the first answer: {arrivals}");
    let timeouts = gap(super::Wakeup::Timeouts);
    assert_eq!(timeouts, Time::from_ps(25 * P.ps()), "asleep until the downgrade timeout");
}
