//! NDP end to end (docs/ndp.md): lone messages meet their ideal on the Homa paper's fabric,
//! an incast through a trimming switch is trimmed, NACKed and pulled fairly to the end,
//! a loaded leaf-spine run completes every message and accounts for every byte, and a
//! switch memory too small even for headers is recovered from by the timeout.

mod common;

use tailor::scenario::Scenario;

/// The fabric of the Homa paper's Figure 11 with NDP's switches (scenarios/homa/ndp-*.toml).
const FABRIC: &str = common::homa_fabric!(
    9,
    16,
    4,
    "scheduler = \"priority\"\npriority_levels = 2\nbuffer = \"per_port\"\nbuffer_size = \"12304B\"\noverflow = \"trim_random\"\n",
    "nic_depth = 0\n"
);

fn lone(dir: &std::path::Path, transport: &str, src: usize, dst: usize, sizes: &[u64]) -> Scenario {
    common::lone(dir, &format!("{FABRIC}\n[transport]\nkind = \"ndp\"\n{transport}"), src, dst, sizes)
}

/// Around the first window (7 packets: 10,094 bytes), short last packets, and large ones.
const SIZES: [u64; 11] = [1, 100, 1_442, 1_443, 5_000, 10_094, 10_095, 20_000, 100_000, 1_000_000, 2_500_000];

#[test]
fn a_lone_message_meets_its_ideal_exactly_on_every_path() {
    let dir = tempfile::tempdir().unwrap();
    // The window the Homa authors used and the one computed from the fabric (9,680 B: also
    // 7 packets); same rack and across racks.
    for transport in ["window = \"10000B\"", ""] {
        for (src, dst) in [(0, 1), (0, 17), (143, 5)] {
            let sc = lone(dir.path(), transport, src, dst, &SIZES);
            let (sim, recs) = common::run(&sc, 1);
            assert_eq!(recs.len(), SIZES.len());
            for r in &recs {
                assert_eq!(r.finish - r.start, r.ideal, "{transport}: {src}->{dst}, {} bytes", r.size);
            }
            let c = sim.report().transport_counters;
            assert_eq!((c.get("nacks"), c.get("timeouts")), (Some(0), Some(0)));
        }
    }
}

/// 16 senders start a 200 KB message each to one host at once, through one switch with
/// an 8-packet data queue (§3.1, §3.3).
fn incast(dir: &std::path::Path, switch: &str, transport: &str) -> Scenario {
    let mut trace = String::from("flow_id,sender,receiver,size_bytes,start_ns\n");
    for s in 0..16 {
        trace += &format!("{s},{s},16,200000,1000000\n");
    }
    let path = dir.join("incast.csv");
    std::fs::write(&path, trace).unwrap();
    let text = format!(
        "[topology]\nkind = \"star\"\nhosts = 17\nlink = {{ rate = \"10Gbps\", delay = \"1us\" }}\n\
         [switch]\nscheduler = \"priority\"\npriority_levels = 2\noverflow = \"trim\"\n{switch}\n\
         [host]\nnic_depth = 0\n[transport]\nkind = \"ndp\"\n{transport}\n[[class]]\nname = \"incast\"\ntrace = \"{}\"\n",
        path.display()
    );
    common::scenario(&text, dir)
}

#[test]
fn an_incast_is_trimmed_nacked_and_shared_fairly_to_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let sc = incast(dir.path(), "buffer = \"per_port\"\nbuffer_size = \"12304B\"", "");
    let (sim, recs) = common::run(&sc, 1);
    let r = sim.report();
    let l = sim.ledger();
    assert_eq!(recs.len(), 16, "every message completes");
    // The 16 first windows (112 packets) overflow the 8-packet queue; every trimmed
    // header reaches the receiver and is NACKed; nothing is dropped.
    assert!(l.trimmed.0 > 50, "{l:?}");
    assert_eq!(r.transport_counters.get("nacks"), Some(l.trimmed.0));
    assert_eq!(r.network.drops, 0);
    assert!(l.balances() && l.in_flight == (0, 0), "sent = delivered + dropped + trimmed: {l:?}");
    let c = |k: &str| r.transport_counters.get(k).unwrap();
    assert_eq!((c("timeouts"), c("repulls"), c("duplicate_packets")), (0, 0, 0));
    // Fair sharing (§3.3): pulled round robin, the 16 equal messages finish together, and
    // the downlink stayed busy: the last ends within 5 % of the time the bytes take.
    let first = recs.iter().map(|r| r.finish).min().unwrap();
    let last = recs.iter().map(|r| r.finish).max().unwrap();
    let start = recs[0].start;
    assert!(
        (last - first).ps() * 20 < (last - start).ps(),
        "finishes spread over {} of {}",
        last - first,
        last - start
    );
    let bytes = 16 * (200_000u64.div_ceil(1_442) * 96 + 200_000);
    let busy = tailor::sim::Rate::from_gbps(10).ser(bytes);
    assert!((last - start).ps() < busy.ps() * 105 / 100, "{} for {busy} of bytes", last - start);
}

/// A shared switch memory too small for the incast's headers drops some (the one way
/// a header is lost, docs/ndp.md); the timeout recovers every message.
#[test]
fn headers_lost_when_switch_memory_runs_out_are_recovered_by_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let sc = incast(dir.path(), "buffer = \"shared\"\nbuffer_size = \"3KB\"", "rto = \"100us\"");
    let (sim, recs) = common::run(&sc, 1);
    let r = sim.report();
    let l = sim.ledger();
    assert!(r.network.drops > 0, "the memory overflows: {l:?}");
    assert_eq!(recs.len(), 16, "every message completes");
    assert!(l.balances() && l.in_flight == (0, 0), "{l:?}");
    assert!(r.transport_counters.get("timeouts").unwrap() > 0, "{:?}", r.transport_counters);
}

/// W3 on a small leaf-spine at 70 % for 1 ms.
fn loaded(dir: &std::path::Path) -> Scenario {
    let text = FABRIC.replace("racks = 9\nhosts_per_rack = 16\nspines = 4", "racks = 4\nhosts_per_rack = 4\nspines = 2")
        + "[transport]\nkind = \"ndp\"\nwindow = \"10000B\"\n[[class]]\nname = \"w3\"\nsizes = \"w3\"\narrival = \"poisson\"\n\
           load = 0.7\npattern = \"all_to_all\"\nuntil = \"1ms\"\n";
    common::scenario(&text, dir)
}

#[test]
fn a_loaded_fabric_completes_every_message_accounts_for_every_byte_and_repeats_itself() {
    let dir = tempfile::tempdir().unwrap();
    let sc = loaded(dir.path());
    let (sim, recs) = common::run(&sc, 7);
    let r = sim.report();
    let l = sim.ledger();
    assert!(recs.len() > 1_000, "{}", recs.len());
    assert_eq!(r.messages.incomplete, 0);
    assert!(l.trimmed.0 > 0, "a loaded fabric trims: {l:?}");
    assert_eq!(r.network.drops, 0, "a trimming fabric with per-port buffers drops nothing");
    assert!(l.balances() && l.in_flight == (0, 0), "{l:?}");
    let c = |k: &str| r.transport_counters.get(k).unwrap();
    assert_eq!(c("nacks"), l.trimmed.0, "one NACK per trimmed header");
    assert_eq!(c("retransmitted_packets"), c("nacks"), "one retransmission per NACK");
    assert_eq!((c("timeouts"), c("duplicate_packets")), (0, 0));
    // Data never held beyond the 8 packets of a port (headers queue beside it).
    let rows = sim.ports();
    assert!(
        rows.iter().filter(|p| p.role != "host_nic").all(|p| p.max_queue_bytes < 8 * 1_538 + 64 * 96),
        "a port's queue"
    );
    // The same seed gives the same run.
    let (_, again) = common::run(&sc, 7);
    assert_eq!(recs, again);
}

#[test]
fn bad_ndp_tables_name_the_key_and_the_accepted_values() {
    let dir = tempfile::tempdir().unwrap();
    let fabric =
        FABRIC.replace("racks = 9\nhosts_per_rack = 16\nspines = 4", "racks = 2\nhosts_per_rack = 2\nspines = 1");
    let class = "[[class]]\nname = \"m\"\nsizes_fixed = \"1KB\"\nload = 0.1\npattern = \"all_to_all\"\nmessages = 10\n";
    let cases = [
        (
            fabric.replace("scheduler = \"priority\"\npriority_levels = 2\n", ""),
            "",
            "transport.kind",
            "[switch] scheduler = \"priority\" with priority_levels >= 2",
        ),
        (fabric.replace("priority_levels = 2", "priority_levels = 1"), "", "transport.kind", "priority_levels >= 2"),
        (fabric.clone(), "window = \"1000B\"", "transport.window", "accepted: at least \"1538B\""),
        (fabric.clone(), "rto = \"100ns\"", "transport.rto", "accepted: a time of at least \"1us\""),
        (
            fabric.clone(),
            "resend_timeout = \"1ms\"",
            "transport.resend_timeout",
            "accepted keys here: kind, rto, window",
        ),
    ];
    for (net, transport, key, accepted) in cases {
        let text = format!("{net}\n[transport]\nkind = \"ndp\"\n{transport}\n{class}");
        let e = Scenario::parse(&text, "test.toml", dir.path()).err().unwrap_or_else(|| panic!("{key} accepted"));
        assert_eq!(e.path, key, "{e}");
        assert!(e.message.contains(accepted), "{key}: {e}");
    }
}
