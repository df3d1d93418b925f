//! What a message takes alone beyond its ideal (`decomposed::solo`): the rounds its window
//! needs before it fills the pipe, taken off each link's delay and added back once.

mod common;

use std::sync::{Arc, Mutex};
use tailor::decomposed::{self, Bench};
use tailor::ids::ClassId;
use tailor::measure::record::MemorySink;
use tailor::net::port::PortRole;
use tailor::sim::Time;

/// The k = 8 fat-tree of docs/decomposed.md's "Accuracy" (100 Gbps, 1 us links, DCTCP,
/// initial window 10 segments of 1,448 B), its messages from `msgs.csv`.
const FAT_TREE: &str = "name = \"ft\"\nseed = 1\n\
    [topology]\nkind = \"fat_tree\"\nk = 8\n\
    host_link = { rate = \"100Gbps\", delay = \"1us\" }\nfabric_link = { rate = \"100Gbps\", delay = \"1us\" }\n\
    [switch]\necn_threshold = \"100KB\"\n\
    [transport]\nkind = \"dctcp\"\nmss = \"1448B\"\nheader = \"54B\"\ninit_cwnd = 10\n\
    [[class]]\nname = \"w\"\ntrace = \"msgs.csv\"\n";

/// Messages of 1 to 3,000 packets, each alone (1 ms apart), between hosts in one rack, one
/// pod and two pods.
fn alone_csv() -> String {
    let mut csv = String::from("flow_id,sender,size_bytes,start_ns,receiver\n");
    let sizes = [1_000u64, 14_480, 14_481, 30_000, 60_000, 150_000, 400_000, 4_000_000];
    for (k, (size, dst)) in sizes.iter().flat_map(|s| [1usize, 5, 127].map(|d| (*s, d))).enumerate() {
        csv += &format!("{},0,{size},{},{dst}\n", k + 1, k as u64 * 1_000_000);
    }
    csv
}

#[test]
fn a_message_alone_is_estimated_as_the_packet_engine_runs_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("msgs.csv"), alone_csv()).unwrap();
    let sc = common::scenario(FAT_TREE, dir.path());
    let sink = Arc::new(Mutex::new(MemorySink::default()));
    tailor::output::simulate_decomposed(&sc, 1, Box::new(common::SharedSink(sink.clone())), &mut |_| true, None)
        .unwrap();
    let mut d = std::mem::take(&mut sink.lock().unwrap().0);
    let (_, mut p) = common::run(&sc, 1);
    d.sort_by_key(|r| r.id);
    p.sort_by_key(|r| r.id);
    assert_eq!(d.len(), 24);
    for (d, p) in d.iter().zip(&p) {
        // Alone, a message's latency is its ideal and the rounds its window needs. Before
        // those rounds were taken off each link, a message of 30 KB across two pods (six
        // links) was estimated at 2.8 times the packet engine's latency, 60 KB at 3.3.
        let (est, exact) = (d.latency().ps() as f64, p.latency().ps() as f64);
        assert!(
            (est / exact - 1.0).abs() < 0.05,
            "message {} of {} B to host {}: estimated {:.2} us, packet engine {:.2} us",
            d.id,
            d.size,
            d.dst.index(),
            est / 1e6,
            exact / 1e6
        );
    }
}

#[test]
fn the_part_alone_is_a_round_trip_per_round_and_stops_growing_once_the_pipe_is_full() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("msgs.csv"), alone_csv()).unwrap();
    let sc = common::scenario(FAT_TREE, dir.path());
    let (plan, tpl, _) = decomposed::plan(sc.build(1).unwrap()).unwrap();
    let c = ClassId::new(0);
    let up = plan.links.iter().find(|l| l.role == PortRole::Up).expect("a ToR uplink");
    for one_way in [2u64, 6] {
        let delay = Time::from_us(one_way);
        for bench in [Bench::path(&tpl, delay), Bench::of(up, decomposed::EDGE_SPEEDUP, delay.ps() as f64)] {
            let extra = |packets: u64| tpl.solo.extra(&tpl, bench, c, packets * 1448).unwrap();
            // The initial window (10 segments) goes at once: nothing beyond the ideal.
            assert_eq!(extra(10), Time::ZERO, "{bench:?}");
            // One segment more waits for the first ACK: about a round trip.
            let rtt = 2 * delay.ps();
            let one = extra(11).ps();
            assert!(one > rtt * 7 / 10 && one < rtt * 13 / 10, "{bench:?}: {one} ps against a round trip of {rtt}");
            let steps: Vec<Time> = [11, 30, 31, 100, 300, 1000, 3000, 8000].map(extra).to_vec();
            assert!(steps.windows(2).all(|w| w[0] <= w[1]), "{bench:?}: {steps:?}");
            // Between the grid's points and beyond the cap, within 5 % of the message
            // simulated alone at its own size (or 1 us where the part is small).
            for packets in [777, 2762, 6000, 20_700] {
                let size = packets * 1448 - 100;
                let sim = decomposed::Solo::simulate(&tpl, bench, c, size).unwrap().ps() as f64;
                let got = tpl.solo.extra(&tpl, bench, c, size).unwrap().ps() as f64;
                assert!((got - sim).abs() < (0.05 * sim).max(1e6), "{bench:?}, {size} B: {got} ps, simulated {sim} ps");
            }
        }
    }
}
