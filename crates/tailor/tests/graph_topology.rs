//! A topology read from an edge list (`kind = "graph"`, docs/scenario.md "Graph
//! topologies"): a fat-tree written as a graph runs the same bytes as the fat-tree; a ring,
//! which no parameterised shape describes, routes over its shortest arcs and delivers
//! every byte; a file that is wrong is refused at its line.

mod common;

use std::fmt::Write;
use std::path::Path;
use tailor::scenario::Scenario;

/// The k = 4 fat-tree's cables in the order `topology::build` wires them: the cores are
/// switches 0-3, then each pod's two ToRs and two aggregation switches; a ToR's hosts,
/// then its up-links; then each aggregation switch's links to its two cores.
fn fat_tree_k4() -> String {
    let mut s = String::from("# the k = 4 fat-tree of fat_tree(k = 4)\n");
    let (host, fabric) = ("10Gbps 1us", "10Gbps 1us");
    for p in 0..4 {
        let (tors, aggs) = ([4 + 4 * p, 5 + 4 * p], [6 + 4 * p, 7 + 4 * p]);
        for (t, tor) in tors.iter().enumerate() {
            for i in 0..2 {
                writeln!(s, "h{} s{tor} {host}", (p * 2 + t) * 2 + i).unwrap();
            }
            for a in aggs {
                writeln!(s, "s{tor} s{a}   {fabric}  # up").unwrap();
            }
        }
        for (j, a) in aggs.iter().enumerate() {
            for c in [2 * j, 2 * j + 1] {
                writeln!(s, "s{a} s{c} {fabric}").unwrap();
            }
        }
    }
    s
}

const REST: &str = r#"
[switch]
ecn_threshold = "30KB"
buffer = "shared"
buffer_size = "2MB"
[transport]
kind = "dctcp"
[[class]]
name = "c"
sizes = "hadoop"
arrival = "poisson"
load = 0.5
pattern = "all_to_all"
until = "3ms"
"#;

fn run(dir: &Path, topology: &str, out: &str) -> Vec<u8> {
    let sc = Scenario::parse(&format!("name = \"g\"\n{topology}\n{REST}"), "g.toml", dir).unwrap();
    let out = dir.join(out);
    tailor::output::run_to_dir(&sc, 3, &out, &mut |_| true).unwrap();
    let messages = std::fs::read(out.join("messages.csv")).unwrap();
    assert!(messages.len() > 5_000, "a run of some hundred messages");
    [messages, std::fs::read(out.join("ports.csv")).unwrap()].concat()
}

#[test]
fn a_fat_tree_written_as_a_graph_runs_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ft.graph"), fat_tree_k4()).unwrap();
    let tree = r#"[topology]
kind = "fat_tree"
k = 4
host_link = { rate = "10Gbps", delay = "1us" }
fabric_link = { rate = "10Gbps", delay = "1us" }"#;
    let graph = "[topology]\nkind = \"graph\"\nfile = \"ft.graph\"";
    assert_eq!(run(dir.path(), tree, "tree"), run(dir.path(), graph, "graph"));
}

/// Six switches in a ring, two hosts on each; the cables between switches alternate
/// 40 and 100 Gbps.
fn ring() -> String {
    let mut s = String::new();
    for sw in 0..6 {
        writeln!(s, "s{sw} h{} 10Gbps 1us\nh{} s{sw} 10Gbps 1us", 2 * sw, 2 * sw + 1).unwrap();
    }
    for sw in 0..6 {
        let rate = if sw % 2 == 0 { "40Gbps" } else { "100Gbps" };
        writeln!(s, "s{sw} s{} {rate} 2us", (sw + 1) % 6).unwrap();
    }
    s
}

#[test]
fn a_ring_routes_over_its_shortest_arcs_and_delivers_every_message() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ring.graph"), ring()).unwrap();
    let text = format!("name = \"ring\"\n[topology]\nkind = \"graph\"\nfile = \"ring.graph\"\n{REST}");
    let sc = common::scenario(&text, dir.path());
    let out = dir.path().join("r");
    tailor::output::run_to_dir(&sc, 1, &out, &mut |_| true).unwrap();
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let m = &summary["messages"];
    assert!(m["generated"].as_u64().unwrap() > 100, "{m}");
    assert_eq!(m["generated"], m["completed"], "{m}");
    // Every switch-to-switch port joins two switches of tier 0: a trunk.
    let ports = std::fs::read_to_string(out.join("ports.csv")).unwrap();
    let roles: std::collections::BTreeSet<&str> = ports
        .lines()
        .skip(1)
        .filter_map(|l| l.split(',').find(|f| ["host_nic", "to_host", "trunk", "up", "down"].contains(f)))
        .collect();
    assert_eq!(roles.into_iter().collect::<Vec<_>>(), ["host_nic", "to_host", "trunk"]);
    let net = tailor::net::topology::build(&sc.net);
    // h0 (s0) to h6 (s3): three hops either way, both arcs candidates at s0; h0 to h2 (s1): one arc.
    let hops = |a: usize, b: usize, key| {
        net.path(tailor::net::ids::HostId::new(a), tailor::net::ids::HostId::new(b), key).len()
    };
    assert!((0..64).all(|k| hops(0, 6, k) == 5));
    assert!((0..64).all(|k| hops(0, 2, k) == 3));
    let firsts: std::collections::HashSet<_> =
        (0..64).map(|k| net.path(tailor::net::ids::HostId::new(0), tailor::net::ids::HostId::new(6), k)[1]).collect();
    assert_eq!(firsts.len(), 2, "ECMP uses both arcs of the ring");
}

#[test]
fn a_wrong_graph_is_refused_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("h0 s0 10Gbps 1us\nh1 x0 10Gbps 1us\n", "line 2", "\"x0\" is not a host or a switch"),
        ("h0 s0 10Gbps 1us\nh1 s0 10Gbps\n", "line 2", "has 3 fields"),
        ("h0 s0 10Gbps 1us\nh0 s1 10Gbps 1us\nh1 s1 10Gbps 1us\n", "line 2", "second cable (its first is on line 1)"),
        ("h0 s0 10Gbps 1us\nh1 s0 40Gbps 1us\n", "line 2", "one rate for every host's cable"),
        ("h0 s0 10Gbps 1us\nh1 s2 10Gbps 1us\ns0 s2 10Gbps 1us\n", "", "no cable of s1"),
        ("h0 s0 10Gbps 1us\nh1 s1 10Gbps 1us\n", "", "no path joins h0 to h1"),
        ("h0 s0 10Gbps 1us\nh1 s0 10Gbps 1us\ns0 s0 10Gbps 1us\n", "line 3", "joins s0 to itself"),
        ("h0 h1 10Gbps 1us\n", "line 1", "joins two hosts"),
        ("h0 s0 10Gbps 1us\nh1 s0 10Gbps 1us\ns1 s2 10Gbps 1us\n", "", "s1 is joined to no host"),
        ("h0 s0 fast 1us\n", "line 1", "\"fast\" is not a rate"),
    ];
    for (text, at, said) in cases {
        std::fs::write(dir.path().join("bad.graph"), text).unwrap();
        let e = Scenario::parse(
            &format!("name = \"g\"\n[topology]\nkind = \"graph\"\nfile = \"bad.graph\"\n{REST}"),
            "g.toml",
            dir.path(),
        )
        .unwrap_err();
        assert!(e.file.ends_with("bad.graph") && e.path == at && e.message.contains(said), "{text:?}: {e}");
        assert!(e.message.contains("accepted"), "{e}");
    }
    let e =
        Scenario::parse("name = \"g\"\n[topology]\nkind = \"graph\"\nfile = \"none.graph\"\n", "g.toml", dir.path())
            .unwrap_err();
    assert_eq!((e.file.as_str(), e.path.as_str()), ("g.toml", "topology.file"), "{e}");
}
