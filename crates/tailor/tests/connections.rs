//! Persistent connections (`[[class]] connections`, HULL §6.2): a class's messages
//! between two hosts share a few TCP connections; a connection serves its messages in
//! order and keeps its congestion state from one message to the next.

mod common;

use tailor::measure::MessageRecord;

/// A generated class of `n` messages of `size` from host 0 to host 1, `gap` apart
/// (periodic), on `connections` connections (None: one per message).
fn periodic(
    n: u64,
    size: &str,
    gap_rate: &str,
    connections: Option<u32>,
) -> (Vec<MessageRecord>, tailor::engine::report::RunReport) {
    periodic_with(n, size, gap_rate, connections.map_or(String::new(), |c| format!("connections = {c}")))
}

fn periodic_with(
    n: u64,
    size: &str,
    gap_rate: &str,
    conn: String,
) -> (Vec<MessageRecord>, tailor::engine::report::RunReport) {
    periodic_tcp(n, size, gap_rate, conn, "")
}

fn periodic_tcp(
    n: u64,
    size: &str,
    gap_rate: &str,
    conn: String,
    tcp: &str,
) -> (Vec<MessageRecord>, tailor::engine::report::RunReport) {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        r#"
[topology]
kind = "star"
hosts = 2
link = {{ rate = "10Gbps", delay = "2us" }}
[transport]
kind = "dctcp"
init_cwnd = 2
{tcp}
[[class]]
name = "c"
sizes_fixed = "{size}"
arrival = "periodic"
rate = "{gap_rate}"
pattern = "n_to_1"
senders = [0]
receiver = 1
messages = {n}
{conn}
"#
    );
    let sc = common::scenario(&text, dir.path());
    let (sim, mut recs) = common::run(&sc, 1);
    recs.sort_by_key(|r| r.start);
    (recs, sim.report())
}

/// A connection keeps its window: the second and later 100 KB messages on one warm
/// connection skip slow start (init_cwnd 2), so they finish faster than on fresh ones.
#[test]
fn a_persistent_connection_keeps_its_congestion_window() {
    // 100 KB every 500 µs: each message is done long before the next.
    let (fresh, _) = periodic(5, "100KB", "1600Mbps", None);
    let (warm, _) = periodic(5, "100KB", "1600Mbps", Some(1));
    let fct = |r: &MessageRecord| (r.finish - r.start).as_secs_f64() * 1e6;
    eprintln!("fresh: {:?}", fresh.iter().map(fct).collect::<Vec<_>>());
    eprintln!("warm:  {:?}", warm.iter().map(fct).collect::<Vec<_>>());
    assert_eq!(fct(&fresh[0]), fct(&warm[0]), "the first message opens the connection either way");
    for k in 1..5 {
        assert!(
            fct(&warm[k]) < 0.9 * fct(&fresh[k]),
            "message {k}: warm {} vs fresh {}",
            fct(&warm[k]),
            fct(&fresh[k])
        );
    }
}

/// With `restart_after_idle` (RFC 2861, Linux's default), a connection idle for longer
/// than its RTO starts the next message from the initial window, as a fresh one does;
/// without it (the test above) the warm window is kept.
#[test]
fn a_connection_idle_past_its_rto_restarts_from_the_initial_window() {
    // 500 µs between messages, an RTO of about 100 µs: every reuse follows a long idle.
    let rto = "min_rto = \"100us\"\ninitial_rto = \"100us\"";
    let (fresh, _) = periodic_tcp(3, "100KB", "1600Mbps", String::new(), rto);
    let (restart, _) =
        periodic_tcp(3, "100KB", "1600Mbps", "connections = 1".into(), &format!("{rto}\nrestart_after_idle = true"));
    let (warm, _) = periodic_tcp(3, "100KB", "1600Mbps", "connections = 1".into(), rto);
    let fct = |r: &MessageRecord| (r.finish - r.start).as_secs_f64();
    for k in 1..3 {
        assert_eq!(fct(&restart[k]), fct(&fresh[k]), "message {k} restarts as a fresh connection");
        assert!(fct(&warm[k]) < 0.9 * fct(&restart[k]), "message {k}: kept window is faster");
    }
}

/// A connection serves its messages in order: a message behind a larger one on the same
/// connection finishes after it (head-of-line blocking), where on its own connection it
/// would finish first.
#[test]
fn a_persistent_connection_serves_messages_in_order() {
    // Two messages 1 µs apart: 4 MB then 4 MB; with one connection the second waits.
    let (own, _) = periodic(2, "4MB", "32000Tbps", None);
    let (shared, report) = periodic(2, "4MB", "32000Tbps", Some(1));
    assert!(shared[1].finish > shared[0].finish, "in order on one connection");
    let second = |r: &[MessageRecord]| (r[1].finish - r[1].start).as_secs_f64();
    // Alone, the two share the link; behind the first, the second takes about as long as
    // both together.
    assert!(second(&shared) >= 0.95 * second(&own), "{} vs {}", second(&shared), second(&own));
    // Every byte of both messages was acknowledged once on the one connection.
    assert_eq!(report.transport_counters.get("acked_bytes"), Some(8_000_000));
}

/// A pool (`connection_choice = "idle"`): a message takes an idle connection, so the
/// second of two back-to-back messages does not wait behind the first, and a later one
/// reuses a warm connection.
#[test]
fn a_pool_takes_an_idle_connection_and_reuses_warm_ones() {
    let (own, _) = periodic(2, "4MB", "32000Tbps", None);
    let (pool, _) = periodic_with(2, "4MB", "32000Tbps", "connections = 4\nconnection_choice = \"idle\"".into());
    let fct = |r: &MessageRecord| (r.finish - r.start).as_secs_f64();
    assert!((fct(&pool[1]) - fct(&own[1])).abs() < 0.02 * fct(&own[1]), "{} vs {}", fct(&pool[1]), fct(&own[1]));
    // Spaced out, every message after the first finds connection 0 idle and warm.
    let (fresh, _) = periodic(5, "100KB", "1600Mbps", None);
    let (warm, _) = periodic_with(5, "100KB", "1600Mbps", "connections = 4\nconnection_choice = \"idle\"".into());
    for k in 1..5 {
        assert!(fct(&warm[k]) < 0.9 * fct(&fresh[k]), "message {k}");
    }
}

/// An RPC class on 16 connections per pair, many clients and servers: every RPC
/// completes, the ledgers balance, and a second run is identical.
#[test]
fn rpcs_on_sixteen_connections_per_pair_complete_and_repeat_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"
[topology]
kind = "leaf_spine"
racks = 2
hosts_per_rack = 4
spines = 2
host_link = { rate = "10Gbps", delay = "1us" }
fabric_link = { rate = "10Gbps", delay = "1us" }
[switch]
ecn_threshold = "30KB"
[transport]
kind = "dctcp"
[[class]]
name = "rpc"
sizes_fixed = "200B"
response_sizes_fixed = "50KB"
arrival = "poisson"
load = 0.3
pattern = "all_to_all"
messages = 3000
connections = 16
"#;
    let sc = common::scenario(text, dir.path());
    let (sim, recs) = common::run(&sc, 4);
    assert_eq!(recs.len(), 3000);
    let l = sim.ledger();
    assert!(l.balances() && l.in_flight == (0, 0), "{l:?}");
    let (_, again) = common::run(&sc, 4);
    assert_eq!(recs, again);
}

/// A connection is a byte stream (`coalesce = "nagle"`, the default): 2,000 messages of
/// 200 B at 8 Gbps on one connection share segments, so the 10 Gbps link carries them in
/// far fewer packets and bytes than one packet per message (`"off"`), every payload byte
/// is acknowledged exactly once, every message completes, in order, and coalescing does
/// not make them later.
#[test]
fn small_messages_on_one_connection_share_segments() {
    let run = |coalesce: &str| {
        periodic_tcp(2000, "200B", "8Gbps", "connections = 1".into(), &format!("coalesce = \"{coalesce}\""))
    };
    let (nagle, rn) = run("nagle");
    let (off, ro) = run("off");
    let c = |r: &tailor::engine::report::RunReport, k: &str| r.transport_counters.get(k).unwrap_or(0);
    for (recs, r) in [(&nagle, &rn), (&off, &ro)] {
        assert_eq!(recs.len(), 2000);
        assert_eq!(c(r, "acked_bytes"), 400_000, "each payload byte acknowledged once");
        assert_eq!(c(r, "retransmits"), 0);
        assert!(recs.windows(2).all(|w| w[1].finish >= w[0].finish), "in order on one connection");
    }
    assert_eq!(c(&ro, "data_packets"), 2000, "off: one segment per message");
    assert!(c(&rn, "data_packets") < 1000, "nagle: {} segments for 2,000 messages", c(&rn, "data_packets"));
    let mean = |recs: &[MessageRecord]| {
        recs.iter().map(|r| (r.finish - r.start).as_secs_f64()).sum::<f64>() / recs.len() as f64
    };
    assert!(mean(&nagle) < mean(&off), "{} vs {}", mean(&nagle), mean(&off));
}

/// A bad value names the key and what is accepted.
#[test]
fn coalesce_takes_nagle_or_off() {
    let dir = tempfile::tempdir().unwrap();
    let text = "[topology]\nkind = \"star\"\nhosts = 2\nlink = { rate = \"10Gbps\" }\n[transport]\nkind = \"tcp\"\ncoalesce = \"yes\"\n[[class]]\nname = \"c\"\nsizes_fixed = \"1KB\"\narrival = \"poisson\"\nload = 0.1\npattern = \"all_to_all\"\nmessages = 1\n";
    let err = tailor::scenario::Scenario::parse(text, "c.toml", dir.path()).expect_err("refused");
    assert_eq!(err.path, "transport.coalesce");
    assert!(err.message.contains("accepted: \"nagle\", \"off\""), "{}", err.message);
}

/// A pool of workers (`connection_choice = "available"`, PL2 §F.3's generator): three
/// 1 MB messages 1 ns apart on two connections. The first two take a connection each; the
/// third finds both still sending, waits (`connection_waits` counts it), and takes the
/// first that has sent everything. With four connections nothing waits. Every message
/// completes and each byte is acknowledged once.
#[test]
fn an_available_worker_takes_each_message_and_the_rest_wait() {
    for (n, waits) in [(2, 1), (4, 0)] {
        let conn = format!("connections = {n}\nconnection_choice = \"available\"");
        let (recs, r) = periodic_with(3, "1MB", "8000Tbps", conn);
        assert_eq!(recs.len(), 3);
        assert_eq!(r.transport_counters.get("connection_waits"), Some(waits), "{n} connections");
        assert_eq!(r.transport_counters.get("acked_bytes"), Some(3_000_000));
    }
    // Without a pool's waiting, the counter is not reported.
    let (_, r) = periodic(3, "1MB", "8000Tbps", Some(2));
    assert_eq!(r.transport_counters.get("connection_waits"), None);
}

/// TCP (congestion control off) over PL2 with a pool of workers: 3 senders each hand
/// W3's mostly sub-segment messages at 80 % of the receiver's link to 11 workers, each
/// with its own connection. Messages share segments (fewer than 0.95 times the segments
/// of random choice without coalescing, the earlier behaviour: one or more per message;
/// 8,973 against 9,884 in this short run),
/// nothing is dropped, every message completes, and a second run is identical.
#[test]
fn tcp_over_pl2_with_available_workers_coalesces_and_completes() {
    let text = |choice: &str, coalesce: &str| {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/pl2-tcp-connections.toml");
        let base = std::fs::read_to_string(path).unwrap();
        base.replace("stop = \"1ms\"", "stop = \"3ms\"")
            .replace("until = \"1ms\"", &format!("until = \"1ms\"\nconnection_choice = \"{choice}\""))
            .replace("min_rto = \"1ms\" }", &format!("min_rto = \"1ms\", coalesce = \"{coalesce}\" }}"))
    };
    let dir = tempfile::tempdir().unwrap();
    let run = |choice: &str, coalesce: &str| common::run(&common::scenario(&text(choice, coalesce), dir.path()), 1);
    let (sim, recs) = run("available", "nagle");
    let r = sim.report();
    let generated = r.messages.generated;
    assert!(generated > 1000, "{generated}");
    assert_eq!(recs.len() as u64, generated, "every message completes");
    assert_eq!(r.network.drops, 0);
    // Segments of new data (retransmissions aside: PL2's resent unsolicited bursts
    // arrive twice, and their duplicate ACKs trigger some).
    let fresh = |r: &tailor::engine::report::RunReport| {
        r.transport_counters.get("data_packets").unwrap() - r.transport_counters.get("retransmits").unwrap()
    };
    assert!(sim.ledger().balances());
    let (_, again) = run("available", "nagle");
    assert_eq!(recs, again);
    let (sim_old, old) = run("random", "off");
    let r_old = sim_old.report();
    assert_eq!(old.len() as u64, generated);
    assert!(fresh(&r_old) >= generated, "off: a segment or more per message");
    assert!(
        (fresh(&r) as f64) < 0.95 * fresh(&r_old) as f64,
        "{} segments against {} without coalescing",
        fresh(&r),
        fresh(&r_old)
    );
}
