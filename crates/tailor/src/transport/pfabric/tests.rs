//! Scripted exchanges: sender and receiver endpoints driven by hand, packets carried
//! between them without a network (§4.1, §4.3).

use super::endpoint::PfabricEndpoint;
use super::{Config, Control, Segment, Wire};
use crate::net::ids::{ClassId, ConnId, HostId};
use crate::net::int::Pool;
use crate::sim::Time;
use crate::transport::test_support::{drain, packet};
use crate::transport::{Endpoint, EndpointEvent, Message, TimerKey, Transmit};

const RTO: Time = Time::from_us(24);

fn cfg() -> Config {
    Config {
        wire: Wire { mss: 1460, header: 78 },
        control: Control { init_cwnd: 12, max_cwnd: 12, rto: RTO, probe_after: Some(5) },
    }
}

fn msg(slot: u32, src: usize, dst: usize, size: u64) -> Message {
    Message {
        conn: ConnId { slot, gen: 0 },
        class: ClassId::new(0),
        src: HostId::new(src),
        dst: HostId::new(dst),
        size,
        start: Time::from_ps(slot as u64),
        rpc: Default::default(),
        channel: None,
    }
}

fn seg(t: &Transmit) -> Segment {
    Segment::decode(&t.hdr).expect("a pFabric header")
}

fn data(ts: &[Transmit]) -> Vec<u64> {
    ts.iter().filter_map(|t| if let Segment::Data { index } = seg(t) { Some(index) } else { None }).collect()
}

/// Timers asked for and messages completed.
fn events(ep: &mut PfabricEndpoint) -> (Vec<(TimerKey, Time)>, Vec<ConnId>) {
    let (mut timers, mut done) = (Vec::new(), Vec::new());
    while let Some(e) = ep.poll_event() {
        match e {
            EndpointEvent::Timer(k, at) => timers.push((k, at)),
            EndpointEvent::Completed(c) => done.push(c),
            other => unreachable!("pFabric reports no {other:?}"),
        }
    }
    (timers, done)
}

/// Delivers `ts` from the sender (host 0) to the receiver (host 1) and its ACKs back,
/// all at `now`; returns what the sender sends next.
fn round(s: &mut PfabricEndpoint, r: &mut PfabricEndpoint, m: &Message, ts: &[Transmit], now: Time) -> Vec<Transmit> {
    for t in ts {
        r.on_packet(now, m, &packet(0, t), None);
    }
    for a in drain(r, now) {
        s.on_packet(now, m, &packet(1, &a), None);
    }
    drain(s, now)
}

#[test]
fn a_lone_message_starts_at_line_rate_and_completes_at_the_receiver() {
    let (mut s, mut r) = (PfabricEndpoint::new(cfg()), PfabricEndpoint::new(cfg()));
    let m = msg(0, 0, 1, 30_000);
    s.on_message(Time::ZERO, &m);
    let first = drain(&mut s, Time::ZERO);
    // 30,000 bytes are 21 packets; the first window is 12, all ranked by the whole size.
    assert_eq!(data(&first), (0..12).collect::<Vec<_>>());
    assert!(first.iter().all(|t| t.rank == 30_000 && t.wire_bytes == 1538 && t.payload == 1460));
    let (timers, _) = events(&mut s);
    assert_eq!(timers.iter().map(|t| t.1).collect::<Vec<_>>(), vec![RTO], "one timer entry for the message");
    let now = Time::from_us(8);
    let second = round(&mut s, &mut r, &m, &first, now);
    assert_eq!(data(&second), (12..21).collect::<Vec<_>>());
    // The rank is what is not yet acknowledged: 12 packets are.
    assert!(second.iter().all(|t| t.rank == 30_000 - 12 * 1460));
    assert_eq!(second.last().unwrap().payload, 30_000 - 20 * 1460);
    assert!(events(&mut r).1.is_empty());
    round(&mut s, &mut r, &m, &second, now + Time::from_us(8));
    assert_eq!(events(&mut r).1, vec![m.conn], "complete with its last byte at the receiver");
    assert_eq!(s.sender(m.conn).map(|x| x.deadline()), Some(None), "every packet acknowledged: no timer");
}

#[test]
fn acks_are_ranked_first_and_leave_before_the_hosts_own_data() {
    let (mut a, mut b) = (PfabricEndpoint::new(cfg()), PfabricEndpoint::new(cfg()));
    let to_b = msg(0, 0, 1, 5_000);
    let to_a = msg(1, 1, 0, 100_000);
    a.on_message(Time::ZERO, &to_b);
    b.on_message(Time::ZERO, &to_a);
    let from_a = drain(&mut a, Time::ZERO);
    let mut pool = Pool::default();
    b.on_packet(Time::ZERO, &to_b, &packet(0, &from_a[0]), None);
    let next = b.poll_transmit(Time::ZERO, &mut pool).unwrap();
    assert_eq!((seg(&next), next.rank, next.wire_bytes), (Segment::Ack { cum: 1, sack: Some(0) }, 0, 84));
    assert!(matches!(seg(&b.poll_transmit(Time::ZERO, &mut pool).unwrap()), Segment::Data { .. }));
}

#[test]
fn a_host_sends_its_shortest_message_first() {
    let mut s = PfabricEndpoint::new(cfg());
    let (long, short) = (msg(0, 0, 1, 50_000), msg(1, 0, 2, 3_000));
    s.on_message(Time::ZERO, &long);
    s.on_message(Time::ZERO, &short);
    assert_eq!(s.ready_messages(), vec![(short.conn, 3_000), (long.conn, 50_000)]);
    let out = drain(&mut s, Time::ZERO);
    let conns: Vec<u32> = out.iter().map(|t| t.conn.slot).collect();
    assert_eq!(conns, [vec![1; 3], vec![0; 12]].concat(), "the short message's 3 packets, then the long one's window");
}

#[test]
fn a_drop_is_repaired_by_the_timeout_alone_and_only_the_lost_packet_is_resent() {
    let (mut s, mut r) = (PfabricEndpoint::new(cfg()), PfabricEndpoint::new(cfg()));
    let m = msg(0, 0, 1, 5 * 1460);
    s.on_message(Time::ZERO, &m);
    let sent = drain(&mut s, Time::ZERO);
    let (timers, _) = events(&mut s);
    // Packet 2 is lost; the rest arrive and are acknowledged (two duplicate ACKs).
    let kept: Vec<Transmit> = sent.iter().filter(|t| seg(t) != Segment::Data { index: 2 }).copied().collect();
    assert!(round(&mut s, &mut r, &m, &kept, Time::from_us(5)).is_empty(), "no fast retransmission");
    assert_eq!(s.sender(m.conn).unwrap().remaining(), 1460, "only the lost packet is unacknowledged");
    // The pending entry was armed for 24 us; the ACK that moved cum to 2 at 5 us moved the
    // deadline to 29 us: the entry fires early, and asks again.
    let (key, at) = timers[0];
    assert_eq!(at, RTO);
    s.on_timer(at, key);
    assert!(drain(&mut s, at).is_empty());
    let (again, _) = events(&mut s);
    assert_eq!(again.iter().map(|t| t.1).collect::<Vec<_>>(), vec![Time::from_us(29)]);
    s.on_timer(again[0].1, again[0].0);
    let resent = drain(&mut s, again[0].1);
    assert_eq!(data(&resent), vec![2]);
    assert_eq!(resent[0].rank, 1460, "ranked by what is left");
    round(&mut s, &mut r, &m, &resent, Time::from_us(31));
    assert_eq!(events(&mut r).1, vec![m.conn]);
    let mut c = crate::transport::Counters::default();
    s.counters(&mut c);
    assert_eq!((c.get("timeouts"), c.get("retransmitted_packets"), c.get("data_packets")), (Some(1), Some(1), Some(6)));
    let mut c = crate::transport::Counters::default();
    r.counters(&mut c);
    assert_eq!((c.get("acks"), c.get("duplicate_packets")), (Some(5), Some(0)));
}

#[test]
fn five_silent_timeouts_start_probe_mode_and_an_answered_probe_ends_it() {
    let (mut s, mut r) = (PfabricEndpoint::new(cfg()), PfabricEndpoint::new(cfg()));
    let m = msg(0, 0, 1, 3 * 1460);
    s.on_message(Time::ZERO, &m);
    assert_eq!(data(&drain(&mut s, Time::ZERO)), vec![0, 1, 2]);
    let mut now = Time::ZERO;
    let mut sent = Vec::new();
    // Nothing gets through: every timeout resends, and from the fifth on it probes.
    for _ in 0..6 {
        let (timers, _) = events(&mut s);
        let (key, at) = *timers.last().expect("a timer runs while packets are unacknowledged");
        now = at;
        s.on_timer(now, key);
        sent.push(drain(&mut s, now));
    }
    let kinds: Vec<Vec<Segment>> = sent.iter().map(|ts| ts.iter().map(seg).collect()).collect();
    let d0 = Segment::Data { index: 0 };
    assert_eq!(kinds, vec![vec![d0], vec![d0], vec![d0], vec![d0], vec![Segment::Probe], vec![Segment::Probe]]);
    assert_eq!(now, Time::from_us(6 * 24), "a fixed RTO, no backoff");
    let probe = sent[5][0];
    assert_eq!((probe.payload, probe.wire_bytes, probe.rank), (0, 84, 3 * 1460));
    // The receiver answers the probe; the sender leaves probe mode and slow-starts.
    let next = round(&mut s, &mut r, &m, &[probe], now + Time::from_us(3));
    assert!(!s.sender(m.conn).unwrap().is_probing());
    assert_eq!(data(&next), vec![0], "a window of one packet, from the first missing");
    let last = round(&mut s, &mut r, &m, &next, now + Time::from_us(6));
    assert_eq!(data(&last), vec![1, 2]);
    round(&mut s, &mut r, &m, &last, now + Time::from_us(9));
    assert_eq!(events(&mut r).1, vec![m.conn]);
}

#[test]
fn a_timer_of_a_finished_message_does_not_reach_the_next_one_in_its_slot() {
    let mut s = PfabricEndpoint::new(cfg());
    let a = msg(0, 0, 1, 1_000);
    s.on_message(Time::ZERO, &a);
    drain(&mut s, Time::ZERO);
    let (timers, _) = events(&mut s);
    s.on_finished(a.conn);
    let b = msg(1, 0, 1, 1_000);
    s.on_message(Time::from_us(1), &b);
    drain(&mut s, Time::from_us(1));
    events(&mut s);
    s.on_timer(timers[0].1, timers[0].0);
    assert!(drain(&mut s, timers[0].1).is_empty(), "the stale firing resends nothing");
    assert_eq!(s.sender(b.conn).unwrap().deadline(), Some(Time::from_us(25)));
}
