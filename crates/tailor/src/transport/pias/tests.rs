//! Scripted exchanges: a sending and a receiving PIAS endpoint driven by hand, packets
//! carried between them without a network. Each test states the levels PIAS §4.1's
//! tagging must give (and Homa §5.2's change where it applies).

use super::{Config, PacketLevel, PiasEndpoint, Source, Tagger};
use crate::net::ids::{ClassId, ConnId, HostId};
use crate::net::packet::Ecn;
use crate::sim::Time;
use crate::transport::tcp::{self, Segment};
use crate::transport::test_support::{drain, packet};
use crate::transport::{Endpoint, EndpointEvent, Message, TimerKey, Transmit, Transport};

const MSS: u32 = 1_000;

fn cfg(thresholds: &[u64], packet_level: PacketLevel, init_cwnd: u32) -> Config {
    let tcp = tcp::Config {
        flavor: tcp::Flavor::Dctcp { g: 1.0 / 16.0, initial_alpha: 1.0 },
        rfc3168: false,
        mss: MSS,
        header: 40,
        init_cwnd,
        max_cwnd: None,
        delayed_ack: false,
        delack_timeout: Time::from_us(10),
        min_rto: Time::from_us(200),
        initial_rto: Time::from_us(200),
        rto_granularity: Time::from_ps(1),
        handshake: false,
        prr: tcp::cc::PrrVariant::Rfc6937,
        dupack_threshold: None,
        lso: None,
        restart_after_idle: false,
        coalesce: true,
        rwnd: None,
        dsack: false,
        completion: tcp::Completion::Ack,
    };
    Config { tcp, levels: 8, packet_level, thresholds: Some((thresholds.to_vec(), Source::Given)) }
}

fn msg(size: u64) -> Message {
    Message {
        conn: ConnId { slot: 1, gen: 0 },
        class: ClassId::new(0),
        src: HostId::new(0),
        dst: HostId::new(1),
        size,
        start: Time::ZERO,
        rpc: Default::default(),
        channel: None,
    }
}

/// (offset, level) of each data packet.
fn levels(ts: &[Transmit]) -> Vec<(u64, u8)> {
    ts.iter()
        .map(|t| match Segment::decode(&t.hdr) {
            Some(Segment::Data { seq, .. }) => (seq, t.prio.unwrap()),
            other => panic!("expected data, got {other:?}"),
        })
        .collect()
}

fn events(ep: &mut dyn Endpoint) -> (Vec<(TimerKey, Time)>, Vec<ConnId>) {
    let (mut timers, mut done) = (Vec::new(), Vec::new());
    while let Some(e) = ep.poll_event() {
        match e {
            EndpointEvent::Timer(k, at) => timers.push((k, at)),
            EndpointEvent::Completed(c) => done.push(c),
            other => unreachable!("PIAS completes at its receiver, so it reports no {other:?}"),
        }
    }
    (timers, done)
}

/// PIAS §4.1: level 0 for the first bytes, one level lower each time the bytes sent
/// before a packet reach a threshold — exactly at it, not a byte earlier.
#[test]
fn a_message_is_demoted_exactly_as_its_bytes_cross_each_threshold() {
    let c = cfg(&[3_000, 5_000, 9_000], PacketLevel::FirstByte, 20);
    let mut ep = c.endpoint(HostId::new(0));
    ep.on_message(Time::ZERO, &msg(12_500));
    let got = levels(&drain(ep.as_mut(), Time::ZERO));
    let want: Vec<(u64, u8)> =
        [0, 0, 0, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3].iter().enumerate().map(|(i, &l)| (i as u64 * 1_000, l)).collect();
    assert_eq!(got, want);
    // A threshold inside a packet: PIAS sends the packet at its first byte's level.
    let t = Tagger { thresholds: vec![2_500], packet_level: PacketLevel::FirstByte };
    assert_eq!((t.data_level(2_000, MSS), t.data_level(3_000, MSS)), (0, 1));
    assert_eq!((t.byte_level(2_499), t.byte_level(2_500)), (0, 1));
}

/// Homa §5.2: "we changed PIAS to use the lower of these priority levels" when several
/// thresholds fall within one packet — its last byte's level.
#[test]
fn the_homa_change_sends_a_packet_at_the_lowest_level_of_its_bytes() {
    let thresholds = [100, 200, 300];
    for (size, first, last) in [(100, 0, 0), (101, 0, 1), (250, 0, 2), (300, 0, 2), (301, 0, 3), (1_000, 0, 3)] {
        for (pl, want) in [(PacketLevel::FirstByte, first), (PacketLevel::LastByte, last)] {
            let mut ep = cfg(&thresholds, pl, 10).endpoint(HostId::new(0));
            ep.on_message(Time::ZERO, &msg(size));
            assert_eq!(levels(&drain(ep.as_mut(), Time::ZERO)), vec![(0, want)], "{size} B, {pl:?}");
        }
    }
    // Later packets: the one straddling 2,500 goes a level lower than PIAS sends it; those
    // within a level (6,000..6,999 ends below 7,000) go where PIAS sends them.
    let t = Tagger { thresholds: vec![2_500, 7_000], packet_level: PacketLevel::LastByte };
    assert_eq!([0, 1_000, 2_000, 3_000, 6_000, 7_000].map(|s| t.data_level(s, MSS)), [0, 0, 1, 1, 1, 2]);
}

/// ACKs go at the highest level, the receiver completes the message when it has the
/// last byte (one-way delivery), and the sender is told to forget it.
#[test]
fn acks_go_at_level_zero_and_the_receiver_completes_the_message() {
    let c = cfg(&[1_500], PacketLevel::FirstByte, 10);
    let (mut s, mut r) = (c.endpoint(HostId::new(0)), c.endpoint(HostId::new(1)));
    let m = msg(3_000);
    s.on_message(Time::ZERO, &m);
    let data = drain(s.as_mut(), Time::ZERO);
    assert_eq!(levels(&data), vec![(0, 0), (1_000, 0), (2_000, 1)]);
    // Each packet is followed by a poll, as the engine does without interrupt coalescing
    // (three packets handed up at once would be acknowledged once: GRO).
    let mut acks = Vec::new();
    for (i, d) in data.iter().enumerate() {
        r.on_packet(Time::from_us(5), &m, &packet(0, d), None);
        let (_, done) = events(r.as_mut());
        assert_eq!(done, if i == 2 { vec![m.conn] } else { vec![] }, "after packet {i}");
        acks.extend(drain(r.as_mut(), Time::from_us(5)));
    }
    assert_eq!(acks.len(), 3);
    assert!(acks.iter().all(|a| matches!(Segment::decode(&a.hdr), Some(Segment::Ack { .. })) && a.prio == Some(0)));
    assert_eq!(events(s.as_mut()).1, vec![], "the sender does not report it too");
    for a in &acks {
        s.on_packet(Time::from_us(9), &m, &packet(1, a), None);
    }
    assert_eq!(events(s.as_mut()).1, vec![], "a PIAS message is the receiver's to complete");
    // A marked segment's ACK echoes ECE, at level 0 all the same.
    let c2 = cfg(&[], PacketLevel::FirstByte, 10);
    let mut r2 = c2.endpoint(HostId::new(1));
    let mut p = packet(0, &data[0]);
    p.set_ecn(Ecn::Ce);
    r2.on_packet(Time::ZERO, &m, &p, None);
    let a = drain(r2.as_mut(), Time::ZERO);
    assert!(matches!(Segment::decode(&a[0].hdr), Some(Segment::Ack { ece: true, .. })) && a[0].prio == Some(0));
}

/// A retransmission carries the same bytes, so it goes at the level of their offset
/// (PIAS's ns-2 code tags by sequence number), not at the level the message has reached.
#[test]
fn a_retransmitted_segment_keeps_the_level_of_its_bytes() {
    let c = cfg(&[2_000, 4_000], PacketLevel::FirstByte, 6);
    let mut s = c.endpoint(HostId::new(0));
    let m = msg(6_000);
    s.on_message(Time::ZERO, &m);
    assert_eq!(
        levels(&drain(s.as_mut(), Time::ZERO)),
        vec![(0, 0), (1_000, 0), (2_000, 1), (3_000, 1), (4_000, 2), (5_000, 2)]
    );
    let (timers, _) = events(s.as_mut());
    let &(key, at) = timers.last().expect("the RTO is armed");
    s.on_timer(at, key);
    // Nothing was acknowledged: go back to the first byte, at level 0 again.
    assert_eq!(levels(&drain(s.as_mut(), at)), vec![(0, 0)]);
}

/// The level counters of `summary.json` count data packets per level in use.
#[test]
fn counters_show_the_demotion() {
    let c = cfg(&[3_000, 5_000, 9_000], PacketLevel::FirstByte, 20);
    let mut ep = PiasEndpoint::new(tcp::TcpEndpoint::new(c.tcp, HostId::new(0)).completing_at_receiver(), c.tagger());
    ep.on_message(Time::ZERO, &msg(12_500));
    drain(&mut ep, Time::ZERO);
    let mut out = crate::transport::Counters::default();
    ep.counters(&mut out);
    let per: Vec<Option<u64>> = (0..5).map(|l| out.get(&format!("data_packets_level_{l}"))).collect();
    assert_eq!(per, vec![Some(3), Some(2), Some(4), Some(4), None]);
    assert_eq!(out.get("data_packets"), Some(0), "TCP counts a sender's packets once it is done");
}

/// The table reads every DCTCP key (PIAS is DCTCP underneath) and its own three.
#[test]
fn the_registry_lists_every_dctcp_key_and_pias_own() {
    let keys = super::ENTRY.keys;
    assert!(tcp::DCTCP_KEYS.iter().all(|k| keys.contains(k)), "{keys:?}");
    assert_eq!(keys.len(), tcp::DCTCP_KEYS.len() + 3);
    assert!(["priority_levels", "thresholds", "packet_level"].iter().all(|k| keys.contains(k)));
}
