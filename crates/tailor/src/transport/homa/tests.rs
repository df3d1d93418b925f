//! Scripted exchanges: one sender endpoint and one or more receiver endpoints driven by
//! hand, packets carried between them without a network (§3.2–§3.7).

use super::levels::{Levels, Request};
use super::wire::{Kind, Wire};
use super::{Config, HomaEndpoint};
use crate::net::ids::{ClassId, ConnId, HostId};
use crate::net::int::Pool;
use crate::net::packet::Packet;
use crate::sim::{Rate, Time};
use crate::transport::{Endpoint, EndpointEvent, Message, Transmit};

fn cfg(degree: Option<usize>) -> Config {
    Config {
        wire: Wire::PAPER,
        rtt_bytes: 10_000,
        unscheduled_bytes: 9_328,
        request: Request { unscheduled: Some(4), scheduled: None, cutoffs: None, physical: 8 },
        levels: Some(Levels { unscheduled: 4, scheduled: 4, cutoffs: vec![433, 2339, 6756], physical: 8, unscheduled_share: 0.3 }),
        overcommitment: degree,
        tail_boost: 0,
        resend_timeout: Time::from_ms(5),
        line_rate: Rate::from_gbps(10),
    }
}

fn msg(slot: u32, src: usize, dst: usize, size: u64) -> Message {
    Message { conn: ConnId { slot, gen: 0 }, class: ClassId::new(0), src: HostId::new(src), dst: HostId::new(dst), size, start: Time::ZERO }
}

/// The packet a transmit from `src` becomes on the wire.
fn packet(src: usize, t: &Transmit) -> Packet {
    Packet {
        conn: t.conn,
        src: HostId::new(src),
        dst: t.dst,
        class: t.class,
        wire_bytes: t.wire_bytes,
        header_bytes: (t.wire_bytes - t.payload) as u16,
        prio: t.prio.unwrap_or(0),
        flags: t.flags,
        hdr: t.hdr,
        int: None,
    }
}

fn drain(ep: &mut HomaEndpoint) -> Vec<Transmit> {
    let mut pool = Pool::default();
    std::iter::from_fn(|| ep.poll_transmit(Time::ZERO, &mut pool)).collect()
}

fn kinds(ts: &[Transmit]) -> Vec<Kind> {
    ts.iter().map(|t| Kind::decode(&t.hdr).expect("a Homa header")).collect()
}

fn completed(ep: &mut HomaEndpoint) -> Vec<ConnId> {
    std::iter::from_fn(|| ep.poll_event()).filter_map(|e| if let EndpointEvent::Completed(c) = e { Some(c) } else { None }).collect()
}

#[test]
fn a_sender_sends_its_unscheduled_bytes_at_once_and_then_waits() {
    let mut s = HomaEndpoint::new(cfg(None));
    let m = msg(0, 0, 1, 20_000);
    s.on_message(Time::ZERO, &m);
    let out = drain(&mut s);
    let ks = kinds(&out);
    assert_eq!(ks.len(), 7, "9,328 bytes: six packets of 1,442 and one of 676");
    let bytes: u64 = out.iter().map(|t| t.payload as u64).sum();
    assert_eq!(bytes, 9_328);
    assert!(out.iter().all(|t| t.wire_bytes <= 1538));
    // 20,000 bytes left is above the last cutoff: the lowest unscheduled level; the last
    // packets, with fewer bytes left, go no lower.
    assert_eq!(out[0].prio, Some(3));
    assert!(out.windows(2).all(|w| w[1].prio <= w[0].prio));
    // A grant lets one more packet go, at the level it names.
    s.on_packet(Time::ZERO, &m, &packet(1, &grant(&m, 9_328 + 1_456, 6)), None);
    let next = drain(&mut s);
    assert_eq!(kinds(&next), vec![Kind::Data { offset: 9_328, len: 1_456, unscheduled: 9_328, retransmit: false }]);
    assert_eq!(next[0].prio, Some(6));
}

fn grant(m: &Message, offset: u64, prio: u8) -> Transmit {
    Transmit {
        conn: m.conn,
        dst: m.src,
        class: m.class,
        hdr: Kind::Grant { offset, prio }.encode(),
        wire_bytes: 84,
        payload: 0,
        ecn: crate::net::packet::Ecn::NotEct,
        prio: Some(0),
        flags: crate::net::packet::Flags::empty(),
        int: None,
    }
}

/// Sends the whole exchange of one message between a sender and a receiver, packet by
/// packet, returning the grants the receiver sent.
fn exchange(s: &mut HomaEndpoint, r: &mut HomaEndpoint, m: &Message) -> Vec<Kind> {
    s.on_message(Time::ZERO, m);
    let mut grants = Vec::new();
    let mut in_flight: Vec<Transmit> = drain(s);
    while !in_flight.is_empty() {
        for t in std::mem::take(&mut in_flight) {
            r.on_packet(Time::ZERO, m, &packet(0, &t), None);
            for g in drain(r) {
                grants.push(Kind::decode(&g.hdr).unwrap());
                s.on_packet(Time::ZERO, m, &packet(1, &g), None);
            }
            in_flight.extend(drain(s));
        }
    }
    grants
}

#[test]
fn grants_keep_rtt_bytes_outstanding_and_complete_the_message() {
    let c = cfg(None);
    let (mut s, mut r) = (HomaEndpoint::new(c.clone()), HomaEndpoint::new(c));
    let m = msg(0, 0, 1, 100_000);
    let grants = exchange(&mut s, &mut r, &m);
    assert_eq!(completed(&mut r), vec![m.conn]);
    // One grant per scheduled packet (the steady state of §3.3): each adds one packet.
    let scheduled = (100_000u64 - 9_328).div_ceil(1_456);
    assert_eq!(grants.len() as u64, scheduled);
    let offsets: Vec<u64> = grants.iter().map(|g| if let Kind::Grant { offset, .. } = g { *offset } else { 0 }).collect();
    assert_eq!(offsets[0], 9_328 + 1_456);
    assert_eq!(*offsets.last().unwrap(), 100_000);
    // A lone message is granted at the lowest scheduled level (§3.4).
    assert!(grants.iter().all(|g| matches!(g, Kind::Grant { prio: 7, .. })));
}

#[test]
fn the_window_is_rtt_bytes_on_the_wire() {
    let c = cfg(None);
    let mut r = HomaEndpoint::new(c.clone());
    let m = msg(0, 0, 1, 100_000);
    let mut s = HomaEndpoint::new(c.clone());
    s.on_message(Time::ZERO, &m);
    let unscheduled = drain(&mut s);
    // The first packet arrives: 1,538 of the 10,000 unscheduled wire bytes are in, so
    // 8,462 are outstanding, below RTTbytes: one grant of one packet (9,998 after it).
    r.on_packet(Time::ZERO, &m, &packet(0, &unscheduled[0]), None);
    assert_eq!(kinds(&drain(&mut r)), vec![Kind::Grant { offset: 9_328 + 1_456, prio: 7 }]);
    // The second: 8,460 outstanding again, one more.
    r.on_packet(Time::ZERO, &m, &packet(0, &unscheduled[1]), None);
    assert_eq!(kinds(&drain(&mut r)), vec![Kind::Grant { offset: 9_328 + 2 * 1_456, prio: 7 }]);
}

#[test]
fn fewer_ungranted_bytes_get_the_higher_scheduled_level() {
    let c = cfg(None);
    let mut r = HomaEndpoint::new(c.clone());
    let (mut a, mut b) = (HomaEndpoint::new(c.clone()), HomaEndpoint::new(c));
    let long = msg(0, 0, 2, 200_000);
    let short = msg(1, 1, 2, 30_000);
    a.on_message(Time::ZERO, &long);
    b.on_message(Time::ZERO, &short);
    let (pa, pb) = (drain(&mut a), drain(&mut b));
    r.on_packet(Time::ZERO, &long, &packet(0, &pa[0]), None);
    assert_eq!(kinds(&drain(&mut r)), vec![Kind::Grant { offset: 9_328 + 1_456, prio: 7 }]);
    r.on_packet(Time::ZERO, &short, &packet(1, &pb[0]), None);
    // Two messages: the shorter takes level 6, the longer keeps 7 (it gets no new bytes
    // yet: its window is full).
    let g = drain(&mut r);
    assert_eq!(kinds(&g), vec![Kind::Grant { offset: 9_328 + 1_456, prio: 6 }]);
    assert_eq!(g[0].conn, short.conn);
    r.on_packet(Time::ZERO, &long, &packet(0, &pa[1]), None);
    let g = drain(&mut r);
    assert_eq!(kinds(&g), vec![Kind::Grant { offset: 9_328 + 2 * 1_456, prio: 7 }]);
    assert_eq!(g[0].conn, long.conn);
}

#[test]
fn a_receiver_grants_to_at_most_degree_senders() {
    let c = cfg(Some(2));
    let mut r = HomaEndpoint::new(c.clone());
    let msgs: Vec<Message> = (0..3).map(|i| msg(i, i as usize, 9, 50_000 + 10_000 * i as u64)).collect();
    let mut granted = Vec::new();
    for m in &msgs {
        let mut s = HomaEndpoint::new(c.clone());
        s.on_message(Time::ZERO, m);
        let first = drain(&mut s);
        r.on_packet(Time::ZERO, m, &packet(m.src.index(), &first[0]), None);
        granted.extend(drain(&mut r).into_iter().map(|t| t.conn));
    }
    // The third (most ungranted bytes) is not granted while two others are active.
    assert!(granted.contains(&msgs[0].conn) && granted.contains(&msgs[1].conn));
    assert!(!granted.contains(&msgs[2].conn));
    // Once the first is finished, the third becomes active.
    r.on_finished(msgs[0].conn);
    assert!(drain(&mut r).iter().any(|t| t.conn == msgs[2].conn));
}

#[test]
fn a_sender_sends_the_shortest_message_first_control_before_data() {
    let c = cfg(None);
    let mut s = HomaEndpoint::new(c);
    let long = msg(0, 0, 1, 5_000);
    let short = msg(1, 0, 2, 1_000);
    s.on_message(Time::ZERO, &long);
    s.on_message(Time::ZERO, &short);
    let out = drain(&mut s);
    let conns: Vec<ConnId> = out.iter().map(|t| t.conn).collect();
    assert_eq!(conns, vec![short.conn, long.conn, long.conn, long.conn, long.conn]);
}

#[test]
fn a_lost_packet_is_asked_for_again_after_the_timeout() {
    let c = cfg(None);
    let timeout = c.resend_timeout;
    let (mut s, mut r) = (HomaEndpoint::new(c.clone()), HomaEndpoint::new(c));
    let m = msg(0, 0, 1, 5_000);
    s.on_message(Time::ZERO, &m);
    let out = drain(&mut s);
    assert_eq!(out.len(), 4);
    for (i, t) in out.iter().enumerate() {
        if i != 2 {
            r.on_packet(Time::ZERO, &m, &packet(0, t), None);
        }
    }
    assert!(drain(&mut r).is_empty() && completed(&mut r).is_empty());
    // Ticks every quarter timeout: nothing before the timeout, a RESEND after it.
    let mut resend = None;
    for k in 1..=5u64 {
        let now = Time::from_ps(timeout.ps() / 4 * k);
        r.on_timer(now, super::endpoint_tick());
        let got = drain(&mut r);
        if k < 4 {
            assert!(got.is_empty(), "no RESEND before the timeout");
        } else if resend.is_none() {
            resend = got.into_iter().next();
        }
    }
    let resend = resend.expect("a RESEND after the timeout");
    assert_eq!(Kind::decode(&resend.hdr), Some(Kind::Resend { offset: 2 * 1_442, len: 1_442, prio: 0 }));
    s.on_packet(timeout, &m, &packet(1, &resend), None);
    let again = drain(&mut s);
    assert_eq!(kinds(&again), vec![Kind::Data { offset: 2 * 1_442, len: 1_442, unscheduled: 5_000, retransmit: true }]);
    r.on_packet(timeout, &m, &packet(0, &again[0]), None);
    assert_eq!(completed(&mut r), vec![m.conn]);
}

#[test]
fn a_sender_busy_with_shorter_messages_answers_busy() {
    let c = cfg(None);
    let mut s = HomaEndpoint::new(c);
    let long = msg(0, 0, 1, 50_000);
    s.on_message(Time::ZERO, &long);
    drain(&mut s);
    let short = msg(1, 0, 2, 40_000);
    s.on_message(Time::ZERO, &short);
    let resend = Transmit { hdr: Kind::Resend { offset: 0, len: 1_442, prio: 0 }.encode(), ..grant(&long, 0, 0) };
    s.on_packet(Time::ZERO, &long, &packet(1, &resend), None);
    let out = drain(&mut s);
    assert_eq!(Kind::decode(&out[0].hdr), Some(Kind::Busy));
    assert_eq!(out[0].dst, long.dst);
    // The retransmission still goes, after the shorter message's packets.
    let last_long = out.iter().rposition(|t| t.conn == long.conn).unwrap();
    assert!(out[1..last_long].iter().all(|t| t.conn == short.conn));
}
