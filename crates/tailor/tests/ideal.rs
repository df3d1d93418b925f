//! A lone message in an empty network takes exactly its analytic ideal: slowdown 1
//! (DESIGN.md, "Ideal latency and slowdown"; docs/ideal-latency.md).

mod common;

const SIZES: [u64; 15] = [
    1, 100, 1447, 1448, 1449, 2896, 10_000, 50_000, 100_000, 125_000, 200_000, 1_000_000, 5_000_000, 10_000_000,
    30_000_000,
];

fn check(topology: &str, extra: &str, transport: &str, src: usize, dst: usize) {
    let dir = tempfile::tempdir().unwrap();
    let trace = common::lone_trace(dir.path(), &SIZES, src, dst, 10_000_000);
    let text = format!("{topology}\n{extra}\n{transport}\n[[class]]\nname = \"lone\"\ntrace = \"{trace}\"\n");
    let sc = common::scenario(&text, dir.path());
    let (_, recs) = common::run(&sc, 1);
    assert_eq!(recs.len(), SIZES.len());
    for r in &recs {
        assert_eq!(
            r.latency(),
            r.ideal,
            "size {} on {topology} / {transport}: {} vs ideal {}",
            r.size,
            r.latency(),
            r.ideal
        );
        assert_eq!(r.slowdown(), 1.0);
    }
}

const STAR: &str = "[topology]\nkind = \"star\"\nhosts = 4\nlink = { rate = \"100Gbps\", delay = \"2.5us\" }";
const DUMBBELL: &str = "[topology]\nkind = \"dumbbell\"\nleft = 2\nright = 2\nhost_link = { rate = \"100Gbps\", delay = \"1us\" }\ntrunk = { rate = \"40Gbps\", delay = \"3us\" }";
const LEAF_SPINE: &str = "[topology]\nkind = \"leaf_spine\"\nracks = 2\nhosts_per_rack = 2\nspines = 2\nhost_link = { rate = \"10Gbps\", delay = \"1us\" }\nfabric_link = { rate = \"40Gbps\", delay = \"1us\" }";
const DCTCP: &str = "[transport]\nkind = \"dctcp\"\ninit_cwnd = \"bdp\"";
const TCP_HANDSHAKE: &str = "[transport]\nkind = \"tcp\"\ninit_cwnd = \"bdp\"\nhandshake = true";
const RAW: &str = "[transport]\nkind = \"raw\"";
const DELAYS: &str = "[switch]\ndelay = \"250ns\"\n[host]\ntx_delay = \"1.5us\"\nrx_delay = \"700ns\"";

#[test]
fn star_dctcp() {
    check(STAR, "", DCTCP, 0, 3);
}

#[test]
fn three_hop_path_with_a_slower_trunk() {
    check(DUMBBELL, "", DCTCP, 0, 3);
}

#[test]
fn three_hop_path_with_switch_and_host_delays_and_handshake() {
    check(DUMBBELL, DELAYS, TCP_HANDSHAKE, 1, 2);
}

#[test]
fn leaf_spine_cross_rack_and_same_rack() {
    check(LEAF_SPINE, DELAYS, DCTCP, 0, 3);
    check(LEAF_SPINE, "", DCTCP, 0, 1);
}

/// `completion = "delivery"`: the ideal is the last byte's arrival (the handshake's round
/// trip before it), and a lone message meets it exactly too.
#[test]
fn tcp_completing_at_delivery_meets_its_ideal() {
    let delivery = |t: &str| format!("{t}\ncompletion = \"delivery\"");
    check(DUMBBELL, DELAYS, &delivery(TCP_HANDSHAKE), 1, 2);
    check(STAR, "", &delivery(DCTCP), 0, 3);
    check(LEAF_SPINE, DELAYS, &delivery("[transport]\nkind = \"cubic\"\ninit_cwnd = \"bdp\""), 0, 3);
}

#[test]
fn raw_transport_on_three_hops() {
    check(DUMBBELL, DELAYS, RAW, 0, 2);
}

const HPCC: &str = "[transport]\nkind = \"hpcc\"";

/// HPCC starts at line rate with a line-rate window (W_init = line rate × T), so a lone
/// message that fits in the first window meets the ideal exactly (the 42-byte INT header
/// is on every packet and in the ideal). A longer one is held at HPCC's target
/// utilization η from the second round trip on, so its slowdown tends to 1/η; on the
/// dumbbell the line-rate start overfills the slower trunk and the cut that follows
/// costs a few round trips (1 MB: 1.087).
fn check_hpcc(topology: &str, extra: &str, src: usize, dst: usize) {
    let dir = tempfile::tempdir().unwrap();
    let trace = common::lone_trace(dir.path(), &SIZES, src, dst, 10_000_000);
    let text = format!("{topology}\n{extra}\n{HPCC}\n[[class]]\nname = \"lone\"\ntrace = \"{trace}\"\n");
    let sc = common::scenario(&text, dir.path());
    let tcp = sc.transport_of(0).as_any().downcast_ref::<tailor::transport::tcp::Config>().expect("hpcc runs over tcp");
    let w_init = match tcp.flavor {
        tailor::transport::tcp::Flavor::Hpcc(p) => p.w_init,
        f => panic!("{f:?}"),
    };
    let (_, recs) = common::run(&sc, 1);
    assert_eq!(recs.len(), SIZES.len());
    for r in &recs {
        if r.size <= w_init {
            assert_eq!(r.latency(), r.ideal, "size {} (W_init {w_init}) on {topology}", r.size);
        } else {
            assert!(r.slowdown() >= 1.0 && r.slowdown() <= 1.1, "size {}: slowdown {}", r.size, r.slowdown());
        }
    }
    let longest = recs.iter().max_by_key(|r| r.size).unwrap();
    assert!((longest.slowdown() - 1.0 / 0.95).abs() < 0.002, "30 MB at eta: slowdown {}", longest.slowdown());
}

#[test]
fn hpcc_star_and_three_hops_with_delays() {
    check_hpcc(STAR, "", 0, 3);
    check_hpcc(DUMBBELL, DELAYS, 1, 2);
}
