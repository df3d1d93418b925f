//! The host logic against scripted GRTs: bursts of K with one RSV each, eq. 2's wait,
//! Algorithm 3's unsolicited bursts and their resend, one RSV per thread.

use super::{Config, HostDelay, Pl2Endpoint};
use crate::net::ids::{ClassId, ConnId, HostId};
use crate::net::packet::{Flags, Packet};
use crate::net::pl2::Control;
use crate::sim::{Rate, Time};
use crate::transport::test_support::drain;
use crate::transport::{Endpoint, EndpointEvent, Message, Rpc, Transmit};
use std::sync::Arc;

const SLOT_NS: u64 = 120;

fn config(threads: u32) -> Config {
    let over = Arc::new(crate::transport::raw::Config { name: "raw", mtu_payload: 1_500, header: 0 });
    Config {
        over,
        burst: 4,
        unsolicited_below: 15,
        recent: Time::from_us(4),
        threads,
        slot: Time::from_ns(SLOT_NS),
        rate: Rate::from_gbps(100),
        tx_delay: Time::ZERO,
        control_bytes: 64,
        control_priority: 0,
        host_delay: HostDelay::Fixed(Time::ZERO),
        rack: Arc::from(vec![0u32; 4]),
        seed: 1,
    }
}

fn message(slot: u32, dst: usize, packets: u64) -> Message {
    Message {
        conn: ConnId { slot, gen: 0 },
        class: ClassId::new(0),
        src: HostId::new(0),
        dst: HostId::new(dst),
        size: packets * 1_500,
        start: Time::ZERO,
        rpc: Rpc::OneWay,
        channel: None,
    }
}

/// Its timers (and completions are none on a sender).
fn timers(ep: &mut Pl2Endpoint) -> Vec<Time> {
    std::iter::from_fn(|| ep.poll_event())
        .map(|e| match e {
            EndpointEvent::Timer(_, at) => at,
            other => panic!("a sender reported {other:?}"),
        })
        .collect()
}

fn rsv_demand(t: &Transmit) -> Option<u32> {
    match Control::decode(&t.hdr) {
        Some(Control::Rsv { demand }) => Some(demand),
        _ => None,
    }
}

/// The GRT the switch would send for `msg`.
fn grt(ep: &mut Pl2Endpoint, now: Time, msg: &Message, send: u32, recv: u32) {
    let mut p = Packet::scripted(msg.conn, msg.class, 64, Control::Grt { send, recv }.encode());
    p.src = msg.dst;
    p.dst = msg.src;
    ep.on_packet(now, msg, &p, None);
}

/// The thread's next timer fires.
fn fire(ep: &mut Pl2Endpoint, at: Time) {
    ep.on_timer(at, crate::sim::TimerKey::new(1 << 63));
}

#[test]
fn a_message_goes_in_bursts_of_k_each_after_its_own_rsv_and_grt() {
    // t = 0: no burst goes unsolicited.
    let mut ep = Pl2Endpoint::new(Config { unsolicited_below: 0, ..config(1) }, HostId::new(0));
    let m = message(1, 1, 10);
    ep.on_message(Time::ZERO, &m);
    let mut now = Time::ZERO;
    let mut bursts = Vec::new();
    for round in 0..3 {
        let out = drain(&mut ep, now);
        assert_eq!(out.len(), 1, "round {round}: one RSV and nothing else before the GRT");
        let demand = rsv_demand(&out[0]).expect("an RSV");
        assert_eq!((out[0].wire_bytes, out[0].prio, out[0].dst), (64, Some(0), HostId::new(1)));
        now += Time::from_us(2);
        grt(&mut ep, now, &m, 0, 0);
        let data = drain(&mut ep, now);
        assert_eq!(data.len() as u32, demand);
        assert!(data.iter().all(|p| p.flags.contains(Flags::RESERVED) && p.prio == Some(1) && p.payload == 1_500));
        bursts.push(demand);
        // The send returns once the burst has left the NIC (4 × 120 ns at 100 Gbps).
        let t = timers(&mut ep);
        assert_eq!(t, vec![now + Time::from_ns(SLOT_NS * demand as u64)]);
        now = t[0];
        fire(&mut ep, now);
    }
    assert_eq!(bursts, vec![4, 4, 2]);
    assert!(drain(&mut ep, now).is_empty());
}

/// Eq. 2: chosen = max(send, recv) = 30 timeslots; the exchange took 2 µs; nothing is
/// pending in the NIC: the burst waits 30 × 120 ns − 2 µs = 1.6 µs.
#[test]
fn the_burst_waits_for_its_chosen_timeslot_less_the_exchange() {
    let mut ep = Pl2Endpoint::new(config(1), HostId::new(0));
    let m = message(1, 1, 4);
    ep.on_message(Time::ZERO, &m);
    assert_eq!(drain(&mut ep, Time::ZERO).len(), 1);
    let now = Time::from_us(2);
    grt(&mut ep, now, &m, 10, 30);
    assert!(drain(&mut ep, now).is_empty(), "held until its timeslot");
    let at = now + Time::from_ns(30 * SLOT_NS) - Time::from_us(2);
    assert_eq!(timers(&mut ep), vec![at]);
    fire(&mut ep, at - Time::from_ps(1));
    assert!(drain(&mut ep, at - Time::from_ps(1)).is_empty(), "an early timer releases nothing");
    fire(&mut ep, at);
    assert_eq!(drain(&mut ep, at).len(), 4);
}

/// Algorithm 3: after a recent GRT below t for the same receiver, the next burst leaves
/// with its RSV, unsolicited; a GRT above t has it sent again at its timeslot, one at or
/// below t does not.
#[test]
fn unsolicited_bursts_below_t_and_the_resend_above_it() {
    let mut ep = Pl2Endpoint::new(config(1), HostId::new(0));
    let m = message(1, 1, 12);
    ep.on_message(Time::ZERO, &m);
    assert_eq!(drain(&mut ep, Time::ZERO).len(), 1);
    let mut now = Time::from_us(2);
    grt(&mut ep, now, &m, 3, 5);
    assert_eq!(drain(&mut ep, now).len(), 4);
    now = timers(&mut ep)[0];
    fire(&mut ep, now);
    // chosen 5 < t = 15, 0.48 µs ago: the second burst goes at once.
    let out = drain(&mut ep, now);
    assert_eq!(rsv_demand(&out[0]), Some(4));
    assert_eq!(out.len(), 5);
    assert!(out[1..].iter().all(|p| p.flags.contains(Flags::UNSOLICITED)));
    // Its GRT comes back at 20 > t: the burst is sent again, scheduled, at its slot.
    now += Time::from_us(2);
    grt(&mut ep, now, &m, 20, 0);
    let at = now + Time::from_ns(20 * SLOT_NS) - Time::from_us(2);
    assert_eq!(timers(&mut ep), vec![at]);
    fire(&mut ep, at);
    let resent = drain(&mut ep, at);
    assert_eq!(resent.len(), 4);
    assert!(resent.iter().all(|p| p.flags.contains(Flags::RESERVED)));
    assert_eq!(resent[0].hdr, out[1].hdr, "the same packets again");
    now = timers(&mut ep)[0];
    fire(&mut ep, now);
    // The last GRT chose 20 > t: the third burst waits for its own GRT.
    let out = drain(&mut ep, now);
    assert_eq!(out.len(), 1);
    now += Time::from_us(2);
    grt(&mut ep, now, &m, 0, 0);
    assert_eq!(drain(&mut ep, now).len(), 4);
}

#[test]
fn no_unsolicited_burst_after_an_old_grt_or_for_another_receiver() {
    for (gap, dst) in [(Time::from_us(5), 1), (Time::ZERO, 2)] {
        let mut ep = Pl2Endpoint::new(config(1), HostId::new(0));
        let (a, b) = (message(1, 1, 4), message(2, dst, 4));
        ep.on_message(Time::ZERO, &a);
        assert_eq!(drain(&mut ep, Time::ZERO).len(), 1);
        let now = Time::from_us(2);
        grt(&mut ep, now, &a, 0, 0);
        assert_eq!(drain(&mut ep, now).len(), 4);
        let free = timers(&mut ep)[0];
        fire(&mut ep, free);
        let now = free + gap;
        ep.on_message(now, &b);
        assert_eq!(drain(&mut ep, now).len(), 1, "gap {gap}, receiver {dst}: only the RSV");
    }
}

/// At most one RSV per thread: three messages on two threads give two RSVs; the third
/// message waits for a thread.
#[test]
fn each_thread_has_at_most_one_rsv_outstanding() {
    let mut ep = Pl2Endpoint::new(config(2), HostId::new(0));
    let ms = [message(1, 1, 2), message(2, 2, 2), message(3, 3, 2)];
    for m in &ms {
        ep.on_message(Time::ZERO, m);
    }
    let out = drain(&mut ep, Time::ZERO);
    assert_eq!(out.iter().filter_map(rsv_demand).count(), 2);
    assert_eq!(out.iter().map(|p| p.conn.slot).collect::<Vec<_>>(), vec![1, 2]);
    let now = Time::from_us(2);
    grt(&mut ep, now, &ms[0], 0, 0);
    assert_eq!(drain(&mut ep, now).len(), 2);
    let free = timers(&mut ep)[0];
    fire(&mut ep, free);
    let out = drain(&mut ep, free);
    assert_eq!((out.len(), out[0].conn.slot), (1, 3), "the freed thread takes the third message");
}

/// Eq. 2's pending bytes: what the NIC still has to send is taken off the wait.
#[test]
fn bytes_pending_in_the_nic_shorten_the_wait() {
    let mut ep = Pl2Endpoint::new(config(2), HostId::new(0));
    let (a, b) = (message(1, 1, 4), message(2, 2, 4));
    ep.on_message(Time::ZERO, &a);
    ep.on_message(Time::ZERO, &b);
    assert_eq!(drain(&mut ep, Time::ZERO).len(), 2);
    let now = Time::from_us(2);
    grt(&mut ep, now, &a, 0, 0);
    assert_eq!(drain(&mut ep, now).len(), 4);
    // 4 × 1,500 B = 480 ns are in the NIC; b's GRT chose 40 slots = 4.8 µs.
    grt(&mut ep, now, &b, 40, 0);
    let at = now + Time::from_ns(40 * SLOT_NS) - Time::from_us(2) - Time::from_ns(4 * SLOT_NS);
    assert!(timers(&mut ep).contains(&at));
}

/// Messages on one persistent connection are one byte stream: one thread sends them, in
/// order, though another thread is idle (a TCP stream split over threads would reorder).
#[test]
fn a_persistent_connection_stays_on_one_thread() {
    let mut ep = Pl2Endpoint::new(config(2), HostId::new(0));
    let (mut a, mut b) = (message(1, 1, 2), message(2, 1, 2));
    a.channel = Some(crate::transport::Channel::Fixed(0));
    b.channel = Some(crate::transport::Channel::Fixed(0));
    ep.on_message(Time::ZERO, &a);
    ep.on_message(Time::ZERO, &b);
    let out = drain(&mut ep, Time::ZERO);
    assert_eq!(out.len(), 1, "one RSV: the second message waits behind the first on its thread");
    assert_eq!(out[0].conn.slot, 1);
    // A message of its own goes to the idle thread.
    ep.on_message(Time::ZERO, &message(3, 1, 2));
    let out = drain(&mut ep, Time::ZERO);
    assert_eq!((out.len(), out[0].conn.slot), (1, 3));
}
