//! `NetSpec::memory_bytes`, the estimate a scenario is refused by when it cannot fit,
//! against the heap bytes `topology::build` and the mechanisms' installation after it
//! really allocate (counted by this test binary's allocator): never below them, and not more than twice them (the rest is the
//! allocator's own overhead, which the estimate covers).
//!
//! One test in this binary, so no other test's allocations are counted.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use tailor::net::mechanism::Standalone;
use tailor::scenario::Scenario;

struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(l.size(), Relaxed) + l.size();
        PEAK.fetch_max(live, Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Relaxed);
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

const TOPOLOGIES: [&str; 4] = [
    "kind = \"star\"\nhosts = 2048\nlink = { rate = \"100Gbps\" }",
    "kind = \"dumbbell\"\nleft = 1000\nright = 24\nhost_link = { rate = \"100Gbps\" }\ntrunk = { rate = \"100Gbps\" }",
    "kind = \"leaf_spine\"\nracks = 32\nhosts_per_rack = 64\nspines = 16\nhost_link = { rate = \"100Gbps\" }\nfabric_link = { rate = \"100Gbps\" }",
    "kind = \"fat_tree\"\nk = 16\nhost_link = { rate = \"100Gbps\" }\nfabric_link = { rate = \"100Gbps\" }",
];

const SWITCHES: [&str; 4] = [
    "",
    "[switch]\necn_threshold = \"60KB\"\nbuffer = \"shared\"\nbuffer_size = \"2MB\"\nscheduler = \"hierarchical\"\n",
    "[switch]\nscheduler = \"drr\"\necn_threshold = \"60KB\"\n",
    "[switch]\nscheduler = \"strict_priority\"\nbuffer = \"per_port\"\nbuffer_size = \"1MB\"\n",
];

/// A graph (`kind = "graph"`): 64 ToRs of 16 hosts, each wired to 4 of 16 spines and to
/// the next ToR, so its routing table is no tree's.
fn graph_file(dir: &Path) -> String {
    let mut text = String::new();
    for t in 0..64 {
        for h in 0..16 {
            text += &format!("h{} s{t} 100Gbps 1us\n", t * 16 + h);
        }
        for k in 0..4 {
            text += &format!("s{t} s{} 100Gbps 1us\n", 64 + (t * 3 + k * 5) % 16);
        }
        text += &format!("s{t} s{} 100Gbps 1us\n", (t + 1) % 64);
    }
    std::fs::write(dir.join("g.graph"), text).unwrap();
    "kind = \"graph\"\nfile = \"g.graph\"".into()
}

fn scenario(topology: &str, switch: &str, classes: usize, dir: &Path) -> Scenario {
    let mut text = format!("[topology]\n{topology}\n{switch}[transport]\nkind = \"raw\"\n");
    for c in 0..classes {
        text += &format!(
            "[[class]]\nname = \"c{c}\"\nsizes_fixed = \"1KB\"\narrival = \"poisson\"\nload = 0.1\n\
             pattern = \"all_to_all\"\nmessages = 10\necn_threshold = \"10KB\"\nqueue_limit = \"100KB\"\n"
        );
    }
    Scenario::parse(&text, "t.toml", dir).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_estimate_covers_what_a_build_allocates_and_at_most_twice_that() {
    let dir = tempfile::tempdir().unwrap();
    let graph = graph_file(dir.path());
    for topology in TOPOLOGIES.iter().copied().chain([graph.as_str()]) {
        for switch in SWITCHES {
            for classes in [1, 8] {
                let sc = scenario(topology, switch, classes, dir.path());
                let base = LIVE.load(Relaxed);
                PEAK.store(base, Relaxed);
                let mut net = Standalone::new(tailor::net::topology::build(&sc.net));
                tailor::net::mechanism::install(&sc.net, &mut net);
                let net = net.network;
                let used = (PEAK.load(Relaxed) - base) as u64;
                let estimate = sc.net.memory_bytes(sc.classes.len());
                let what = format!("{} ports, {switch:?}, {classes} classes", net.ports.len());
                assert!(used <= estimate, "{what}: built with {used} B, estimated {estimate} B");
                assert!(estimate <= 2 * used, "{what}: built with {used} B, estimated {estimate} B");
            }
        }
    }
}
