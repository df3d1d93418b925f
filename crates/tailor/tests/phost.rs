//! pHost end to end: lone messages meet their ideal exactly on the Homa paper's fabric;
//! a loaded small fabric completes every message with bytes conserved and each packet at
//! the level pHost gives it; finite buffers drop and pHost recovers; bad keys are named.

mod common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use tailor::net::marker::{Backlog, Departure, Marker};
use tailor::net::packet::Packet;
use tailor::sim::Time;
use tailor::transport::phost::Kind;

/// The fabric of the Homa paper's Figure 11 (scenarios/homa/phost-w3-80.toml).
const FABRIC: &str =
    common::homa_fabric!(9, 16, 4, "scheduler = \"priority\"\npriority_levels = 2\n", "nic_depth = 0\n");
/// The same with 2 racks of 8 hosts under 2 spines.
const SMALL: &str = common::homa_fabric!(2, 8, 2, "scheduler = \"priority\"\npriority_levels = 2\n", "nic_depth = 0\n");

const SIZES: [u64; 10] = [1, 100, 1_460, 1_461, 5_000, 10_220, 10_221, 20_000, 100_000, 1_000_000];

#[test]
fn a_lone_message_meets_its_ideal_exactly_on_every_path() {
    let dir = tempfile::tempdir().unwrap();
    // The BDP computed from the fabric (7 packets), the scenarios' explicit 7, and the pHost
    // simulator's variant: free tokens for short messages only (longer ones wait for
    // their first token), a token clock that sleeps until a timeout when idle.
    let simulator = "free_tokens_to = \"short_messages\"\nidle_wakeup = \"timeouts\"";
    for transport in ["", "free_tokens = 7\ntoken_window = 7", simulator] {
        for (src, dst) in [(0, 1), (0, 17), (143, 5)] {
            let net = format!("{FABRIC}\n[transport]\nkind = \"phost\"\n{transport}");
            let (sim, recs) = common::run(&common::lone(dir.path(), &net, src, dst, &SIZES), 1);
            assert_eq!(recs.len(), SIZES.len());
            for r in &recs {
                assert_eq!(r.finish - r.start, r.ideal, "{transport:?}: {src}->{dst}, {} bytes", r.size);
            }
            let c = |k: &str| sim.report().transport_counters.get(k).unwrap();
            assert_eq!((c("tokens_wasted"), c("retransmitted_packets"), c("duplicate_packets")), (0, 0, 0));
        }
    }
}

#[test]
fn the_ideal_of_a_small_message_is_its_rts_then_its_packet() {
    let dir = tempfile::tempdir().unwrap();
    let net = format!("{FABRIC}\n[transport]\nkind = \"phost\"\n");
    let (_, recs) = common::run(&common::lone(dir.path(), &net, 0, 17, &[1]), 1);
    // 84 bytes each (40 of headers, padded to the minimum frame): the RTS's 67.2 ns first,
    // then the packet's 67.2 ns per 10 Gbps hop and 16.8 ns per 40 Gbps hop, 1 us after the
    // NIC, 250 ns per switch, 0.5 us at the receiver.
    assert_eq!(recs[0].ideal, Time::from_ps(67_200 + 2 * 67_200 + 2 * 16_800 + 1_000_000 + 3 * 250_000 + 500_000));
}

/// At every switch port departure: control packets and packets sent on free tokens at
/// level 0, packets sent on tokens at level 1, nothing else.
struct Levels {
    per_level: Arc<[AtomicU64; 2]>,
    wrong: Arc<AtomicU64>,
}

impl Marker for Levels {
    fn on_enqueue(&mut self, _now: Time, _b: Backlog, _p: &mut Packet) -> bool {
        false
    }
    fn on_dequeue(&mut self, _now: Time, _d: &mut Departure, pkt: &mut Packet) -> bool {
        let want = match Kind::decode(&pkt.hdr) {
            Some(Kind::Data { free: false, .. }) => 1,
            Some(_) => 0,
            None => 9,
        };
        if want as u8 != pkt.prio {
            self.wrong.fetch_add(1, Ordering::Relaxed);
        } else {
            self.per_level[want].fetch_add(1, Ordering::Relaxed);
        }
        false
    }
    fn sees_departures(&self) -> bool {
        true
    }
}

fn loaded(extra_switch: &str, until: &str, transport: &str) -> String {
    format!(
        "{}\n[transport]\nkind = \"phost\"\n{transport}\n[[class]]\nname = \"w3\"\nsizes = \"w3\"\narrival = \"poisson\"\nload = 0.6\n\
         load_basis = \"wire\"\npattern = \"all_to_all\"\nuntil = \"{until}\"\n",
        SMALL.replace("priority_levels = 2\n", &format!("priority_levels = 2\n{extra_switch}"))
    )
}

#[test]
fn a_loaded_fabric_completes_every_message_with_bytes_conserved() {
    let dir = tempfile::tempdir().unwrap();
    let sc = common::scenario(&loaded("", "2ms", ""), dir.path());
    let sink = Box::new(tailor::measure::record::MemorySink::default());
    let mut sim = tailor::engine::Simulation::new(sc.build(1).unwrap(), sink).unwrap();
    let per_level = Arc::new([AtomicU64::new(0), AtomicU64::new(0)]);
    let wrong = Arc::new(AtomicU64::new(0));
    for p in sim.net.ports.iter_mut().filter(|p| p.role != tailor::net::port::PortRole::HostNic) {
        p.push_marker(Box::new(Levels { per_level: per_level.clone(), wrong: wrong.clone() }));
    }
    sim.run(&mut |_| true).unwrap();
    let r = sim.report();
    assert_eq!(r.messages.incomplete, 0);
    assert!(r.messages.completed > 1_000, "{}", r.messages.completed);
    let l = sim.ledger();
    assert!(l.balances() && l.in_flight == (0, 0), "{l:?}");
    assert_eq!(l.dropped, (0, 0));
    assert_eq!(wrong.load(Ordering::Relaxed), 0, "a packet at the wrong level");
    assert!(per_level.iter().all(|c| c.load(Ordering::Relaxed) > 10_000), "{per_level:?}");
    let c = |k: &str| r.transport_counters.get(k).unwrap();
    // Nothing is lost: every token arrives but those whose message completed on the way,
    // and every token received is spent, or expires, or is left when its message completes.
    assert!(c("tokens_received") <= c("tokens_sent") && c("tokens_received") * 100 > c("tokens_sent") * 99);
    assert!(c("scheduled_packets") + c("tokens_wasted") == c("tokens_received"), "{:?}", r.transport_counters);
    assert_eq!(c("rts"), r.messages.generated);
    assert!(c("free_packets") <= 7 * r.messages.generated);
    // Short messages ride the free tokens at the high level: near their ideal.
    let short = &r.overall.bins[0];
    assert!(short.upper_bytes.is_some_and(|u| u <= 1_460), "{:?}", short);
    assert!(
        short.slowdown.p50.is_some_and(|p| p < 1.3),
        "median slowdown of one-packet messages {:?}",
        short.slowdown.p50
    );
}

#[test]
fn drops_in_finite_buffers_are_recovered() {
    let dir = tempfile::tempdir().unwrap();
    let text = loaded("buffer = \"per_port\"\nbuffer_size = \"12KB\"\n", "1ms", "rts_timeout = \"100us\"");
    let (sim, recs) = common::run(&common::scenario(&text, dir.path()), 3);
    let r = sim.report();
    assert!(r.network.drops > 50, "the small buffers drop packets: {}", r.network.drops);
    assert_eq!(r.messages.incomplete, 0, "every message completes");
    assert_eq!(recs.len() as u64, r.messages.generated);
    let l = sim.ledger();
    assert!(l.balances() && l.in_flight == (0, 0), "{l:?}");
    let c = |k: &str| r.transport_counters.get(k).unwrap();
    assert!(c("retransmitted_packets") > 0, "{:?}", r.transport_counters);
}

#[test]
fn bad_keys_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let bad = |transport: &str, switch: &str| {
        let text = loaded("", "1ms", transport).replace("scheduler = \"priority\"\npriority_levels = 2\n", switch);
        tailor::scenario::Scenario::parse(&text, "t.toml", dir.path()).unwrap_err().to_string()
    };
    let fifo = bad("", "");
    assert!(fifo.contains("transport.priority_levels") && fifo.contains("do not queue by priority"), "{fifo}");
    let one = bad("", "scheduler = \"priority\"\npriority_levels = 1\n");
    assert!(one.contains("transport.priority_levels") && one.contains("keep 1 level"), "{one}");
    // One level runs anywhere.
    let anywhere =
        loaded("", "1ms", "priority_levels = 1").replace("scheduler = \"priority\"\npriority_levels = 2\n", "");
    tailor::scenario::Scenario::parse(&anywhere, "t.toml", dir.path()).unwrap();
    let e = bad("priority_levels = 3", "");
    assert!(e.contains("transport.priority_levels") && e.contains("1 to 2"), "{e}");
    let ok = "scheduler = \"priority\"\npriority_levels = 2\n";
    let e = bad("token_expiry = 0", ok);
    assert!(e.contains("transport.token_expiry") && e.contains("full-packet times"), "{e}");
    let e = bad("downgrade_timeout = \"soon\"", ok);
    assert!(e.contains("transport.downgrade_timeout"), "{e}");
    let e = bad("token_window = 0", ok);
    assert!(e.contains("transport.token_window"), "{e}");
    let e = bad("rts_timeout = \"never\"", ok);
    assert!(e.contains("transport.rts_timeout") && e.contains("\"off\""), "{e}");
    let e = bad("idle_wakeup = \"never\"", ok);
    assert!(e.contains("transport.idle_wakeup") && e.contains("\"timeouts\""), "{e}");
    let e = bad("free_tokens_to = \"all\"", ok);
    assert!(e.contains("transport.free_tokens_to") && e.contains("\"short_messages\""), "{e}");
    let e = bad("free_token = 3", ok);
    assert!(e.contains("free_token"), "{e}");
}
