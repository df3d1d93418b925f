//! The schedule driven by scripted arrivals: a hand-checked schedule, the greedy matching
//! against the authors' full recomputation after every event, conservation of packets,
//! bytes and link time.

use super::message::{Key, Msg, Pipe};
use super::schedule::Schedule;
use crate::measure::ideal::Hop;
use crate::measure::MessageRecord;
use crate::net::ids::{ClassId, HostId};
use crate::sim::{Rate, Time};
use crate::transport::Frames;
use rand::{Rng, SeedableRng};

/// Two hops of one byte per nanosecond: the sender's link (100 ns after it) and the
/// receiver's (50 ns after it).
fn hops() -> [Hop; 2] {
    [
        Hop { rate: Rate::from_gbps(8), delay: Time::from_ns(100) },
        Hop { rate: Rate::from_gbps(8), delay: Time::from_ns(50) },
    ]
}

/// A message of `size` bytes in packets of at most 1,000 (no headers), from `src` to
/// `dst`, arriving at `at_ns`.
fn msg(seq: u64, src: usize, dst: usize, size: u64, at_ns: u64) -> Msg {
    let full = Frames { count: (size - 1) / 1000, payload: 1000, wire: 1000 };
    let last = (size - full.count * 1000) as u32;
    let frames = vec![full, Frames { count: 1, payload: last, wire: last }];
    let rec = MessageRecord {
        id: seq,
        class: ClassId::new(0),
        src: HostId::new(src),
        dst: HostId::new(dst),
        size,
        start: Time::from_ns(at_ns),
        finish: Time::ZERO,
        ideal: Time::ZERO,
    };
    Msg::new(rec, seq, frames, Pipe::new(&hops()))
}

/// Feeds `arrivals` (in time order) and runs every end; returns the records by id.
fn run(
    sched: &mut Schedule,
    arrivals: Vec<Msg>,
    mut after_event: impl FnMut(&mut Schedule, Time),
) -> Vec<MessageRecord> {
    let mut pending = arrivals.into_iter().peekable();
    let mut out = Vec::new();
    loop {
        let a = pending.peek().map(|m| m.rec.start);
        let e = sched.next_end();
        let now = match (e.filter(|&e| a.is_none_or(|a| e <= a)), a) {
            (Some(e), _) => {
                out.push(sched.end(e));
                e
            }
            (None, Some(a)) => {
                sched.arrive(a, pending.next().expect("peeked"));
                a
            }
            (None, None) => break,
        };
        after_event(sched, now);
    }
    out.sort_by_key(|r| r.id);
    out
}

#[test]
fn a_shorter_message_takes_the_receiver_mid_packet_and_the_longer_resumes() {
    // Receiver 2; senders 0 and 1. m0: 0->2, 3,000 B at 0. m1: 1->2, 1,000 B at 500 ns,
    // takes the receiver from m0 halfway through its first packet. m2: 0->2, 1,500 B at
    // 700 ns, waits for m1 (fewer bytes left) although its sender is free; at 1,500 ns m1
    // ends and m2 (1,500 B left) goes before m0 (3,000 B); at 3,000 ns m0 resumes with
    // 500 ns of its first packet to go.
    let mut s = Schedule::new(3);
    let recs = run(&mut s, vec![msg(0, 0, 2, 3000, 0), msg(1, 1, 2, 1000, 500), msg(2, 0, 2, 1500, 700)], |_, _| {});
    let finish: Vec<u64> = recs.iter().map(|r| r.finish.ps() / 1000).collect();
    // m1: leaves at 1,500, second hop from 1,600 to 2,600, +50.
    // m2: packets leave at 2,500 and 3,000; second hop 2,600-3,600 and 3,600-4,100; +50.
    // m0: packets leave at 3,500, 4,500 and 5,500; second hop ends 4,600, 5,600, 6,600; +50.
    assert_eq!(finish, vec![6650, 2650, 4150]);
    assert_eq!(s.counts.preemptions, 1);
    assert_eq!(s.counts.sent.packets, 3 + 1 + 2);
    // Alone, m1 would take 1,000 + 100 + 1,000 + 50 ns: it did not wait.
    assert_eq!(recs[1].finish - recs[1].start, Time::from_ns(2150));
}

#[test]
fn messages_of_disjoint_pairs_run_at_once() {
    let mut s = Schedule::new(4);
    let recs = run(&mut s, vec![msg(0, 0, 1, 2000, 0), msg(1, 2, 3, 5000, 0)], |_, _| {});
    // Each alone: its packets back to back, then the second hop behind them.
    assert_eq!(recs[0].finish, Time::from_ns(2000 + 1000 + 100 + 50));
    assert_eq!(recs[1].finish, Time::from_ns(5000 + 1000 + 100 + 50));
    assert_eq!(s.counts.preemptions, 0);
}

/// The authors' `scheduleTransmission`: every active message by key, each taking its
/// sender's uplink and receiver's downlink if both are still free.
fn recomputed(active: &[(Key, usize, usize, bool)], hosts: usize) -> Vec<bool> {
    let (mut up, mut down) = (vec![false; hosts], vec![false; hosts]);
    active
        .iter()
        .map(|&(_, s, r, _)| {
            let take = !up[s] && !down[r];
            if take {
                (up[s], down[r]) = (true, true);
            }
            take
        })
        .collect()
}

/// Random messages among `hosts` hosts, `gap` ns apart on average: mostly small, a fifth
/// of 5 to 20 KB and one in fifty up to 200 KB (W3's shape, coarsely).
fn random_with(seed: u64, hosts: usize, n: usize, gap: u64) -> Vec<Msg> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut t = 0u64;
    (0..n as u64)
        .map(|i| {
            t += rng.random_range(0..2 * gap);
            let src = rng.random_range(0..hosts);
            let dst = (src + rng.random_range(1..hosts)) % hosts;
            let size = match rng.random_range(0..50) {
                0 => rng.random_range(20_000..200_000),
                1..=10 => rng.random_range(5_000..20_000),
                _ => rng.random_range(1..3_000),
            };
            msg(i, src, dst, size, t)
        })
        .collect()
}

fn random(seed: u64, hosts: usize, n: usize) -> Vec<Msg> {
    random_with(seed, hosts, n, 750)
}

#[test]
fn after_every_event_the_matching_is_the_authors_recomputation() {
    for seed in 0..20 {
        let hosts = 2 + seed as usize % 5;
        let mut s = Schedule::new(hosts);
        let mut checked = 0;
        run(&mut s, random(seed, hosts, 300), |s, now| {
            let active = s.snapshot(now);
            let want = recomputed(&active, hosts);
            for (i, &(key, src, dst, holds)) in active.iter().enumerate() {
                assert_eq!(holds, want[i], "seed {seed} at {now}: {key:?} {src}->{dst}");
                // SRPT: a waiting message has a link held by a message with fewer bytes left.
                if !holds {
                    let blocked = active.iter().any(|&(k, s2, d2, h)| h && k < key && (s2 == src || d2 == dst));
                    assert!(blocked, "seed {seed} at {now}: {key:?} waits for nothing");
                }
            }
            checked += 1;
        });
        assert_eq!(checked, 600, "every arrival and every end");
    }
}

#[test]
fn on_a_busy_fabric_of_many_hosts_the_matching_is_still_the_recomputation() {
    // 24 hosts nearly saturated: long waiting lists, chains of preemptions.
    let hosts = 24;
    let mut s = Schedule::new(hosts);
    let mut events = 0;
    run(&mut s, random_with(99, hosts, 4000, 250), |s, now| {
        let active = s.snapshot(now);
        let want = recomputed(&active, hosts);
        assert!(active.iter().zip(&want).all(|(a, &w)| a.3 == w), "at {now}");
        events += 1;
    });
    assert_eq!(events, 8000);
    assert!(s.counts.preemptions > 500, "{} preemptions", s.counts.preemptions);
}

#[test]
fn every_packet_byte_and_link_instant_is_sent_once() {
    let hosts = 5;
    let msgs = random(7, hosts, 400);
    let (bytes, wire, packets): (u64, u64, u64) = (
        msgs.iter().map(|m| m.rec.size).sum(),
        // Headers are 0 here: wire bytes = message bytes.
        msgs.iter().map(|m| m.rec.size).sum(),
        msgs.iter().map(|m| m.rec.size.div_ceil(1000)).sum(),
    );
    let link_time: u64 = msgs.iter().map(|m| m.to_send().ps()).sum();
    let mut s = Schedule::new(hosts);
    let recs = run(&mut s, msgs, |_, _| {});
    assert_eq!(recs.len(), 400);
    assert!(s.counts.preemptions > 0, "the workload preempts");
    assert_eq!((s.counts.sent.bytes, s.counts.sent.wire_bytes, s.counts.sent.packets), (bytes, wire, packets));
    // Each message held its links exactly as long as its packets take, preempted or not.
    assert_eq!(s.busy_total(), [link_time, link_time]);
    assert_eq!(s.active(), 0);
}

#[test]
fn a_message_is_never_faster_than_alone() {
    let hosts = 4;
    let mut s = Schedule::new(hosts);
    for r in run(&mut s, random(3, hosts, 500), |_, _| {}) {
        // Alone: its packets back to back on the first hop (1 ns per byte), the last one
        // then crossing the second hop: size + last packet + 150 ns.
        let last = (r.size - 1) % 1000 + 1;
        let alone = Time::from_ns(r.size + last + 150);
        assert!(r.finish - r.start >= alone, "{r:?}");
    }
}
