//! The pacer on scripted inputs: eq. 4 step by step, association and its timeout on
//! scripted ACKs, and paced output at the bucket's rate.

use super::*;
use crate::net::ids::ClassId;
use crate::net::packet::Header;
use crate::net::sched::Fifo;

fn conn(i: u32) -> ConnId {
    ConnId { slot: i, gen: 0 }
}

fn pkt(c: u32, bytes: u32) -> Packet {
    Packet::scripted(conn(c), ClassId::new(0), bytes, Header::default())
}

fn echo(c: u32) -> Packet {
    let mut p = pkt(c, 64);
    p.flags.insert(Flags::ECHO);
    p
}

fn pacer(spec: PacerSpec) -> Pacer {
    Pacer::new(spec, Rate::from_gbps(1), Box::new(Fifo::default()), crate::sim::rng::stream(1, "test"))
}

const ALWAYS: PacerSpec = PacerSpec { p_assoc: 1.0, ..PacerSpec::TESTBED };

/// Eq. 4 by hand: three packets enter the bucket at t = 0 and stay (nothing dequeues),
/// so M_r = 4,500 B in the first interval and 0 after, and Q_tb = 4,500 B throughout.
#[test]
fn the_rate_follows_equation_4_on_a_scripted_input() {
    let mut p = pacer(ALWAYS);
    p.observe(Time::ZERO, &echo(1));
    for _ in 0..3 {
        p.enqueue(Time::ZERO, pkt(1, 1_500));
    }
    let s = ALWAYS;
    let tr = s.interval.as_secs_f64();
    let mut r = 1e9 / 8.0;
    let mut m = 4_500.0;
    for k in 1..=5u64 {
        p.advance(Time::from_ps(s.interval.ps() * k));
        r = ((1.0 - s.eta) * r + s.eta * m / tr + s.beta * 4_500.0).min(1e9 / 8.0);
        m = 0.0;
        assert!((p.est.rate - r).abs() < 1e-6 * r, "update {k}: {} vs {r}", p.est.rate);
    }
    // Many intervals later (the closed form): R → β·Q/η.
    p.advance(Time::from_ms(50));
    let fixed = s.beta * 4_500.0 / s.eta;
    assert!((p.est.rate - fixed).abs() < 1e-3 * fixed, "{} vs {fixed}", p.est.rate);
}

/// The closed form across a long quiet stretch equals the updates one by one.
#[test]
fn skipping_idle_updates_matches_stepping_them() {
    let mut fast = pacer(ALWAYS);
    let mut slow = pacer(ALWAYS);
    for p in [&mut fast, &mut slow] {
        p.observe(Time::ZERO, &echo(1));
        p.enqueue(Time::ZERO, pkt(1, 1_500));
    }
    let end = Time::from_us(64 * 1_000 + 10);
    fast.advance(end);
    for k in 1..=1_000u64 {
        slow.advance(Time::from_us(64 * k));
    }
    slow.advance(end);
    assert!((fast.est.rate - slow.est.rate).abs() < 1e-6 * slow.est.rate, "{} vs {}", fast.est.rate, slow.est.rate);
    assert_eq!(fast.est.next_update(), slow.est.next_update());
}

#[test]
fn only_ecn_echo_associates_and_an_idle_flow_is_forgotten_after_t_i() {
    let mut p = pacer(ALWAYS);
    p.observe(Time::ZERO, &pkt(1, 64)); // a plain ACK
    p.enqueue(Time::ZERO, pkt(1, 1_500));
    assert_eq!((p.stats.bypass_packets, p.paced.len()), (1, 0), "not associated without ECE");
    p.observe(Time::ZERO, &echo(1));
    p.enqueue(Time::from_ms(1), pkt(1, 1_500));
    assert_eq!(p.paced.len(), 1, "associated by an ECN-Echo ACK");
    // A packet 9 ms later keeps it (T_i = 10 ms since the last one) ...
    p.enqueue(Time::from_ms(10), pkt(1, 1_500));
    assert_eq!(p.paced.len(), 2);
    // ... and 10.001 ms of silence ends it.
    p.enqueue(Time::from_ms(20) + Time::from_us(1), pkt(1, 1_500));
    assert_eq!(p.paced.len(), 2);
    assert_eq!(p.stats.bypass_packets, 2);
}

#[test]
fn a_full_table_associates_no_new_flow_until_an_entry_expires() {
    let mut p = pacer(PacerSpec { table: 2, ..ALWAYS });
    for c in 1..=3 {
        p.observe(Time::ZERO, &echo(c));
    }
    assert_eq!(p.stats.associations, 2);
    p.observe(Time::from_ms(11), &echo(3));
    assert_eq!(p.stats.associations, 3, "the two idle entries expired");
}

/// p_a = 1/8: about one flow in eight is associated by its first ECN-Echo ACK.
#[test]
fn association_is_sampled_with_probability_p_a() {
    let mut p = pacer(PacerSpec { table: 1 << 20, ..PacerSpec::TESTBED });
    let n = 8_000;
    for c in 0..n {
        p.observe(Time::ZERO, &echo(c));
    }
    let share = p.stats.associations as f64 / n as f64;
    assert!((share - 0.125).abs() < 0.02, "{share}");
}

/// A paced backlog leaves at the bucket's rate: with β = 0 and η = 0 the rate stays at
/// its start, so a 3 KB bucket lets two packets out at once and spaces the rest by
/// 1,500 B at that rate.
#[test]
fn paced_packets_leave_at_the_bucket_rate_after_the_depth() {
    let spec = PacerSpec { eta: 0.0, beta: 0.0, ..ALWAYS };
    let mut p =
        Pacer::new(spec, Rate::from_bps(100_000_000), Box::new(Fifo::default()), crate::sim::rng::stream(1, "t"));
    p.observe(Time::ZERO, &echo(1));
    for _ in 0..6 {
        p.enqueue(Time::ZERO, pkt(1, 1_500));
    }
    let mut now = Time::ZERO;
    let mut sent = Vec::new();
    while sent.len() < 6 {
        match p.dequeue(now) {
            Some(_) => sent.push(now),
            None => now = p.wake_at(now).expect("a wake-up while packets wait"),
        }
    }
    // 100 Mbps = 12.5 MB/s: 1,500 B every 120 µs after the two the bucket held.
    assert_eq!(sent[0], Time::ZERO);
    assert_eq!(sent[1], Time::ZERO);
    for w in sent[1..].windows(2) {
        let gap = (w[1] - w[0]).ps() as f64 / 1e6;
        assert!((gap - 120.0).abs() < 0.01, "gap {gap} us");
    }
    // A bypassing packet is not held behind the bucket.
    p.enqueue(now, pkt(2, 1_500));
    assert!(p.dequeue(now).is_some());
}

/// After a long idle stretch the rate has decayed to almost nothing: a packet that then
/// arrives waits for the next update (β·Q raises the rate), never for a time that would
/// overflow, and leaves.
#[test]
fn a_packet_after_a_long_idle_stretch_waits_for_the_next_update_and_leaves() {
    let mut p = pacer(ALWAYS);
    p.observe(Time::ZERO, &echo(1));
    p.enqueue(Time::ZERO, pkt(1, 1_500));
    assert!(p.dequeue(Time::ZERO).is_some());
    // Ten seconds idle: R = (1 − η)^156250 × line ≈ 0.
    let t = Time::from_ms(10_000);
    p.enqueue(t, pkt(1, 1_500));
    p.enqueue(t, pkt(1, 1_500));
    p.enqueue(t, pkt(1, 1_500));
    let mut now = t;
    let mut out = 0;
    for _ in 0..10_000 {
        if p.dequeue(now).is_some() {
            out += 1;
            if out == 3 {
                break;
            }
            continue;
        }
        let next = p.wake_at(now).expect("a wake-up while packets wait");
        assert!(next > now && next <= now + ALWAYS.interval, "woken by the next update at the latest");
        now = next;
    }
    assert_eq!(out, 3, "the backlog drains once β·Q has raised the rate");
}

/// Drives a pacer on a 1 Gbps link: `bursts(k)` gives the packets (flow, bytes) the host
/// hands over at once at the k-th multiple of `period`; a packet the pacer releases holds
/// the link for its serialization. Returns (the time-average backlog of the bucket over
/// the second half, the bytes sent over the second half) after `end`.
fn drive(p: &mut Pacer, period: Time, end: Time, bursts: impl Fn(u64) -> Vec<(u32, u32)>) -> (f64, u64) {
    let line_ps_per_byte = 8_000; // 1 Gbps
    let half = Time::from_ps(end.ps() / 2);
    let (mut now, mut link_free, mut k) = (Time::ZERO, Time::ZERO, 0u64);
    let (mut last, mut q_integral, mut sent) = (Time::ZERO, 0.0, 0u64);
    while now < end {
        if now >= half {
            q_integral += p.paced_bytes as f64 * (now - last.max(half)).as_secs_f64();
        }
        last = now;
        let next_burst = Time::from_ps(period.ps() * k);
        if now >= next_burst {
            for (c, b) in bursts(k) {
                p.enqueue(now, pkt(c, b));
            }
            k += 1;
        }
        if now >= link_free {
            if let Some(out) = p.dequeue(now) {
                link_free = now + Time::from_ps(out.wire_bytes as u64 * line_ps_per_byte);
                if now >= half {
                    sent += out.wire_bytes as u64;
                }
            }
        }
        let mut next = Time::from_ps(period.ps() * k);
        if !p.is_empty() {
            next = next.min(if now >= link_free {
                p.wake_at(now).expect("a wake-up while packets wait")
            } else {
                link_free
            });
        }
        now = next;
    }
    (q_integral / (end - half).as_secs_f64(), sent)
}

/// Footnote 2 of §4.2: paced flows at a fixed rate R* leave eq. 4 at R = R* with no
/// backlog. A host paces 800 Mbps handed over as 45 KB LSO bursts, one every 450 µs. The
/// pacer receives a burst at the line rate (it counts the bytes it receives from the
/// host, which cannot come faster), so the filter averages the true rate: a burst paced
/// at R* drains over its period, 22.5 KB on average. A filter fed the whole burst in one
/// interval is clamped at the line rate and underestimates R*; the backlog then grows
/// until β·Q makes up the difference (340 KB here before the pacer received at the line
/// rate).
#[test]
fn a_fixed_rate_in_bursts_settles_at_that_rate_with_the_backlog_of_one_burst() {
    let mut p = pacer(ALWAYS);
    p.observe(Time::ZERO, &echo(1));
    let (q, sent) = drive(&mut p, Time::from_us(450), Time::from_ms(200), |_| vec![(1, 1_500); 30]);
    let rate_mbps = sent as f64 * 8.0 / 0.1 / 1e6;
    eprintln!("mean backlog {q:.0} B, sent {rate_mbps:.1} Mbps, R {:.1} Mbps", p.rate_bps() / 1e6);
    assert!((rate_mbps - 800.0).abs() < 8.0, "the paced output is the input's 800 Mbps: {rate_mbps}");
    assert!(q < 30_000.0, "the backlog is the burst being paced, about 22.5 KB on average: {q:.0} B");
}

/// §4.2: the pacer "counts the number of bytes it receives from the host", the host's
/// aggregate rate, paced or not. A flow sends 600 Mbps unpaced for 10 ms and is then
/// associated: its first paced packets meet the host's rate, not a rate that decayed
/// towards zero because nothing was paced before.
#[test]
fn the_rate_counts_every_byte_from_the_host_so_a_newly_paced_flow_meets_its_own_rate() {
    let mut p = pacer(ALWAYS);
    // 1,500 B every 20 µs: 600 Mbps, bypassing (not associated yet).
    drive(&mut p, Time::from_us(20), Time::from_ms(10), |_| vec![(1, 1_500)]);
    assert_eq!(p.stats.paced_packets, 0);
    let t = Time::from_ms(10);
    p.observe(t, &echo(1));
    p.enqueue(t, pkt(1, 1_500));
    let mbps = p.rate_bps() / 1e6;
    assert!((mbps - 600.0).abs() < 60.0, "the rate at association is the host's 600 Mbps: {mbps:.1}");
}

/// `[host] pacer` and `rx_frames` / `rx_usecs` are read by their own mechanisms, in the
/// registry's order with the keys that turned them on, and installed after the build: a
/// pacer at every NIC at the host link's rate in front of the NIC's own queue (whose
/// arrivals it then watches), and a coalescing stage on every host's receive side.
#[test]
fn host_keys_are_read_by_their_mechanisms_and_installed_at_every_host() {
    use crate::net::mechanism::{parse_section, Section};
    use crate::net::topology::{self, tests::link, Shape};
    let doc: toml::Table = "pacer = \"ns2\"\nrx_usecs = \"20us\"\nrx_frames = 8\n".parse().unwrap();
    let mut host = Table::root("s.toml", &doc);
    let shape = Shape::Star { hosts: 3, link: link(10) };
    let settings = parse_section(Section::Host, &mut host, &shape).unwrap();
    host.finish().unwrap();
    let keys: Vec<(&str, &str)> = settings.iter().map(|s| (s.name, s.key.as_str())).collect();
    assert_eq!(keys, [("pacer", "host.pacer"), ("coalescing", "host.rx_frames")]);
    let mut spec = topology::tests::spec(shape);
    spec.mechanisms = settings;
    assert_eq!(spec.setting::<PacerSpec>(), Some(&PacerSpec::NS2));
    let mut net = crate::net::mechanism::Standalone::new(topology::build(&spec));
    assert!(net.network.hosts.iter().all(|h| !h.watches_arrivals && h.rx_stages.is_empty()), "build places neither");
    crate::net::mechanism::install(&spec, &mut net);
    for h in &net.network.hosts {
        let pacer = net.network.ports[h.nic.index()].scheduler().as_any().and_then(|a| a.downcast_ref::<Pacer>());
        assert_eq!(pacer.map(|p| p.rate_bps()), Some(10e9), "a pacer at the line rate");
        assert!(h.watches_arrivals);
        assert_eq!(h.rx_stages.len(), 1);
    }
}
