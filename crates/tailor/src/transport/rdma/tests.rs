//! The RDMA NIC driven by scripted exchanges (no network): round robin and pacing,
//! the window, ACKs first, go-back-N, pauses and the ECN echo.

use super::wire::Segment;
use super::*;
use crate::net::ids::{ClassId, ConnId};
use crate::net::int::Pool;
use crate::net::packet::{Ecn, Flags};
use crate::transport::test_support::{drain, packet};
use crate::transport::{EndpointEvent, Message, Rpc, TimerKey, Transmit};

const G: u64 = 1_000_000_000;

fn config(window: u64, ack_high_priority: bool) -> Config {
    Config {
        control: Control::None,
        mss: 1000,
        header: 48,
        ack_bytes: 60,
        priority: 3,
        ack_high_priority,
        window,
        variable_window: false,
        rate_bound: true,
        line_bps: 100 * G,
        min_bps: G,
        base_rtt: Time::from_us(8),
        nack_interval: Time::from_us(500),
        ack_interval: 1,
        chunk: 4000,
        back_to_zero: false,
        cnp_interval: None,
        collects_int: false,
    }
}

fn message(slot: u32, size: u64) -> Message {
    Message {
        conn: ConnId { slot, gen: 1 },
        class: ClassId::new(0),
        src: HostId::new(0),
        dst: HostId::new(1),
        size,
        start: Time::ZERO,
        rpc: Rpc::OneWay,
        channel: None,
    }
}

fn seg(t: &Transmit) -> Segment {
    Segment::decode(&t.hdr).expect("an RDMA header")
}

fn timers(ep: &mut RdmaEndpoint) -> Vec<Time> {
    std::iter::from_fn(|| ep.poll_event())
        .filter_map(|e| match e {
            EndpointEvent::Timer(_, at) => Some(at),
            _ => None,
        })
        .collect()
}

/// Two queue pairs at line rate take turns packet by packet; each may send again one
/// packet time (1,048 B at 100 Gb/s: 83.84 ns) after its last, so the NIC, asked again
/// at once, has nothing and arms its wake for then.
#[test]
fn queue_pairs_take_turns_and_are_paced() {
    let mut ep = RdmaEndpoint::new(Arc::new(config(0, false)));
    ep.on_message(Time::ZERO, &message(0, 5000));
    ep.on_message(Time::ZERO, &message(1, 5000));
    let sent = drain(&mut ep, Time::ZERO);
    assert_eq!(sent.iter().map(|t| t.conn.slot).collect::<Vec<_>>(), vec![0, 1]);
    assert!(sent.iter().all(|t| t.wire_bytes == 1048 && t.payload == 1000 && t.ecn == Ecn::Ect));
    let gap = Time::from_ps(83_840);
    assert_eq!(timers(&mut ep), vec![gap]);
    ep.on_timer(gap, TimerKey::new(u64::MAX));
    let next = drain(&mut ep, gap);
    assert_eq!(
        next.iter().map(|t| (t.conn.slot, seg(t))).collect::<Vec<_>>(),
        vec![
            (0, Segment::Data { seq: 1000, len: 1000, sent: gap }),
            (1, Segment::Data { seq: 1000, len: 1000, sent: gap }),
        ]
    );
}

/// A fixed window of 3,000 B: three packets leave, the fourth waits for an ACK.
#[test]
fn the_window_holds_the_queue_pair() {
    let mut ep = RdmaEndpoint::new(Arc::new(config(3000, false)));
    let m = message(0, 10_000);
    ep.on_message(Time::ZERO, &m);
    let mut now = Time::ZERO;
    for k in 0..3 {
        assert_eq!(drain(&mut ep, now).len(), 1, "packet {k}");
        now += Time::from_ns(100);
    }
    assert!(drain(&mut ep, now).is_empty(), "3,000 B in flight");
    let ack = Segment::Reply { seq: 1000, nack: false, ecn: false, sent: Time::ZERO };
    let t = Transmit { hdr: ack.encode(), wire_bytes: 60, payload: 0, ..drain_template(&m) };
    ep.on_packet(now, &m, &packet(1, &t), None);
    assert_eq!(drain(&mut ep, now).len(), 1, "the ACK opened the window by one packet");
}

fn drain_template(m: &Message) -> Transmit {
    Transmit {
        conn: m.conn,
        dst: m.src,
        class: m.class,
        hdr: Segment::Reply { seq: 0, nack: false, ecn: false, sent: Time::ZERO }.encode(),
        wire_bytes: 60,
        payload: 0,
        ecn: Ecn::NotEct,
        prio: Some(3),
        rank: 0,
        flags: Flags::empty(),
        int: None,
    }
}

/// The receiver ACKs in-order data, NACKs a gap once per hold time and discards what
/// follows the gap; the sender goes back to the NACKed byte and counts the resend.
#[test]
fn a_gap_is_nacked_once_and_the_sender_goes_back_n() {
    let mut tx = RdmaEndpoint::new(Arc::new(config(0, false)));
    let mut rx = RdmaEndpoint::new(Arc::new(config(0, false)));
    let m = message(0, 4000);
    tx.on_message(Time::ZERO, &m);
    let mut now = Time::ZERO;
    let mut data = Vec::new();
    while data.len() < 4 {
        data.extend(drain(&mut tx, now));
        now += Time::from_ns(100);
    }
    // Packet 1 (bytes 1000..2000) is lost.
    for (i, d) in data.iter().enumerate().filter(|(i, _)| *i != 1) {
        rx.on_packet(now, &m, &packet(0, d), None);
        let replies = drain(&mut rx, now);
        let want = match i {
            0 => vec![Segment::Reply { seq: 1000, nack: false, ecn: false, sent: Time::ZERO }],
            2 => vec![Segment::Reply { seq: 1000, nack: true, ecn: false, sent: seg(d).sent() }],
            _ => vec![],
        };
        assert_eq!(replies.iter().map(seg).collect::<Vec<_>>(), want, "after packet {i}");
        for r in &replies {
            tx.on_packet(now, &m, &packet(1, r), None);
        }
    }
    now += Time::from_us(1);
    let resent = drain(&mut tx, now);
    assert_eq!(resent.iter().map(seg).collect::<Vec<_>>(), vec![Segment::Data { seq: 1000, len: 1000, sent: now }]);
    let mut c = crate::transport::Counters::default();
    tx.counters(&mut c);
    assert_eq!((c.get("go_back_n"), c.get("retransmitted_bytes")), (Some(1), Some(1000)));
}

impl Segment {
    fn sent(self) -> Time {
        match self {
            Segment::Data { sent, .. } | Segment::Reply { sent, .. } => sent,
            Segment::Cnp => Time::ZERO,
        }
    }
}

/// ACKs leave before data; a pause of the data's priority stops both, unless ACKs are
/// high priority; a CE mark is echoed.
#[test]
fn acks_go_first_and_pauses_hold_what_they_name() {
    for ack_high in [false, true] {
        let mut ep = RdmaEndpoint::new(Arc::new(config(0, ack_high)));
        let mine = message(0, 3000);
        ep.on_message(Time::ZERO, &mine);
        let theirs = Message { src: HostId::new(1), dst: HostId::new(0), ..message(5, 3000) };
        let data = Segment::Data { seq: 0, len: 1000, sent: Time::ZERO };
        let mut t =
            Transmit { hdr: data.encode(), wire_bytes: 1048, payload: 1000, ecn: Ecn::Ect, ..drain_template(&theirs) };
        t.dst = HostId::new(0);
        let mut pkt = packet(1, &t);
        pkt.set_ecn(Ecn::Ce);
        ep.on_pause(Time::ZERO, 3, true);
        ep.on_packet(Time::ZERO, &theirs, &pkt, None);
        let sent = drain(&mut ep, Time::ZERO);
        let want: Vec<Segment> = if ack_high {
            vec![Segment::Reply { seq: 1000, nack: false, ecn: true, sent: Time::ZERO }]
        } else {
            vec![]
        };
        assert_eq!(sent.iter().map(seg).collect::<Vec<_>>(), want, "ack_high {ack_high}, paused");
        assert!(sent.iter().all(|s| s.flags.contains(Flags::ECHO) && s.prio == Some(3)));
        ep.on_pause(Time::ZERO, 3, false);
        let after: Vec<Segment> = drain(&mut ep, Time::ZERO).iter().map(seg).collect();
        let first_data = Segment::Data { seq: 0, len: 1000, sent: Time::ZERO };
        if ack_high {
            assert_eq!(after, vec![first_data]);
        } else {
            assert_eq!(after[1], first_data, "the ACK first: {after:?}");
        }
    }
}

/// HPCC's data collects INT and its ACKs echo the stack; others carry none.
#[test]
fn only_hpcc_collects_telemetry() {
    let mut cfg = config(100_000, false);
    cfg.collects_int = true;
    let mut ep = RdmaEndpoint::new(Arc::new(cfg));
    ep.on_message(Time::ZERO, &message(0, 1000));
    let mut pool = Pool::default();
    let t = ep.poll_transmit(Time::ZERO, &mut pool).unwrap();
    assert!(t.flags.contains(Flags::COLLECT_INT) && t.int.is_some());
}

/// With `cnp_interval`, marked data brings a CNP at most once per interval, ahead of the
/// ACKs, which then echo nothing (DCQCN's NP, §3.1).
#[test]
fn marked_packets_bring_one_cnp_per_interval() {
    let mut cfg = config(0, false);
    cfg.cnp_interval = Some(Time::from_us(50));
    let mut rx = RdmaEndpoint::new(Arc::new(cfg));
    let m = message(0, 100_000);
    let mut got = Vec::new();
    for k in 0..8u64 {
        let now = Time::from_us(20 * k);
        let data = Segment::Data { seq: 1000 * k, len: 1000, sent: now };
        let t = Transmit { hdr: data.encode(), wire_bytes: 1048, payload: 1000, ecn: Ecn::Ect, ..drain_template(&m) };
        let mut pkt = packet(0, &t);
        pkt.set_ecn(Ecn::Ce);
        rx.on_packet(now, &m, &pkt, None);
        got.extend(drain(&mut rx, now).iter().map(|r| (k, seg(r))));
    }
    let cnps: Vec<u64> = got.iter().filter(|(_, s)| *s == Segment::Cnp).map(|(k, _)| *k).collect();
    // Marked arrivals every 20 us: CNPs at 0, 60 and 120 us.
    assert_eq!(cnps, vec![0, 3, 6]);
    assert!(got.iter().all(|(_, s)| !matches!(s, Segment::Reply { ecn: true, .. })), "ACKs echo no mark");
}
