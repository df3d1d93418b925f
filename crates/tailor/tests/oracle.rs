//! The SRPT oracle end to end (docs/oracle.md): it runs the packet engine's messages,
//! a lone message meets its ideal exactly, it is a lower bound of Homa on the same
//! messages, a receiver's link never idles while a message waits for it, runs repeat,
//! and what it cannot stand for is refused with the key that says why.

mod common;

use std::sync::{Arc, Mutex};
use tailor::engine::RunError;
use tailor::measure::record::MemorySink;
use tailor::measure::{MessageRecord, RecordSink};
use tailor::output::Summary;
use tailor::scenario::Scenario;
use tailor::sim::{Rate, Time};

/// A leaf-spine of 3 racks of 8 hosts under 2 spines, not oversubscribed, with the Homa
/// paper's switch and host delays (scenarios/homa/w3-80.toml, smaller).
const FABRIC: &str =
    common::homa_fabric!(3, 8, 2, "scheduler = \"priority\"\npriority_levels = 8\n", "nic_depth = 0\n");

const HOMA: &str =
    "[transport]\nkind = \"homa\"\nrtt_bytes = \"10000B\"\nunscheduled_levels = 4\nresend_timeout = \"off\"\n";

/// Two classes (W3's small messages and W5's large ones) among all 24 hosts.
fn workload(load_w3: f64, load_w5: f64, until: &str) -> String {
    format!(
        "[[class]]\nname = \"w3\"\nsizes = \"w3\"\nload = {load_w3}\narrival = \"poisson\"\npattern = \"all_to_all\"\nuntil = \"{until}\"\n\
         [[class]]\nname = \"w5\"\nsizes = \"w5\"\nload = {load_w5}\narrival = \"poisson\"\npattern = \"all_to_all\"\nuntil = \"{until}\"\n"
    )
}

struct Shared(Arc<Mutex<MemorySink>>);

impl RecordSink for Shared {
    fn record(&mut self, rec: &MessageRecord, name: &str) -> std::io::Result<()> {
        self.0.lock().unwrap().record(rec, name)
    }
}

fn oracle(sc: &Scenario, seed: u64) -> Result<(Summary, Vec<MessageRecord>), RunError> {
    let sink = Arc::new(Mutex::new(MemorySink::default()));
    let summary = tailor::output::simulate_oracle(sc, seed, Box::new(Shared(sink.clone())), &mut |_| true)?;
    let mut recs = std::mem::take(&mut sink.lock().unwrap().0);
    recs.sort_by_key(|r| r.id);
    Ok((summary, recs))
}

fn packet(sc: &Scenario, seed: u64) -> Vec<MessageRecord> {
    let (_, mut recs) = common::run(sc, seed);
    recs.sort_by_key(|r| r.id);
    recs
}

#[test]
fn it_runs_the_packet_engines_messages_under_the_same_ids() {
    let dir = tempfile::tempdir().unwrap();
    let sc = common::scenario(&format!("{FABRIC}{HOMA}{}", workload(0.4, 0.2, "1ms")), dir.path());
    let (summary, o) = oracle(&sc, 3).unwrap();
    let p = packet(&sc, 3);
    assert!(o.len() > 1000 && o.len() == p.len(), "{} oracle, {} packet", o.len(), p.len());
    let what = |r: &MessageRecord| (r.id, r.class, r.src, r.dst, r.size, r.start, r.ideal);
    assert!(o.iter().map(what).eq(p.iter().map(what)), "same ids, classes, endpoints, sizes, starts and ideals");
    assert_eq!(summary.report.messages.generated, o.len() as u64);
    assert_eq!(summary.report.messages.incomplete, 0);
}

#[test]
fn a_lone_message_meets_its_ideal_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let sizes = [1, 100, 1_442, 1_443, 9_328, 9_329, 10_784, 100_000, 1_000_000];
    // A trace has no size distribution to derive Homa's cutoffs from: one unscheduled level.
    let homa = HOMA.replace("unscheduled_levels = 4", "unscheduled_levels = 1");
    for (transport, net) in [(homa.as_str(), FABRIC), ("[transport]\nkind = \"raw\"\n", FABRIC)] {
        for (src, dst) in [(0, 1), (0, 9), (23, 5)] {
            let sc = common::lone(dir.path(), &format!("{net}{transport}"), src, dst, &sizes);
            let (_, recs) = oracle(&sc, 1).unwrap();
            assert_eq!(recs.len(), sizes.len());
            for r in &recs {
                assert_eq!(r.latency(), r.ideal, "{transport}: {src}->{dst}, {} bytes", r.size);
            }
        }
    }
}

/// Mean and p99 of the slowdowns of `recs` with sizes in `(lo, hi]`.
fn stats(recs: &[MessageRecord], lo: u64, hi: u64) -> (usize, f64, f64) {
    let mut s: Vec<f64> = recs.iter().filter(|r| r.size > lo && r.size <= hi).map(|r| r.slowdown()).collect();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    (n, s.iter().sum::<f64>() / n as f64, s[(n * 99).div_ceil(100) - 1])
}

#[test]
fn it_is_a_lower_bound_of_homa_on_the_same_messages() {
    let dir = tempfile::tempdir().unwrap();
    let sc = common::scenario(&format!("{FABRIC}{HOMA}{}", workload(0.35, 0.35, "3ms")), dir.path());
    let (_, o) = oracle(&sc, 5).unwrap();
    let p = packet(&sc, 5);
    assert_eq!(o.len(), p.len());
    assert!(o.iter().all(|r| r.slowdown() >= 1.0), "never faster than alone");
    // Per message it is not: greedy SRPT makes a message wait for every shorter one at its
    // ends, which Homa may serve later (its receivers grant a few senders at once, its
    // priorities are coarser) — a few per cent of messages finish sooner under Homa.
    let later = o.iter().zip(&p).filter(|(a, b)| a.finish > b.finish).count();
    assert!((later as f64) < 0.1 * o.len() as f64, "{later} of {} later than under Homa", o.len());
    // By size — one packet, up to RTTbytes, beyond — the mean is below Homa's; so is the
    // tail of the messages that SRPT serves first. (The tail of large ones need not be: on
    // the paper's fabric both the authors' oracle and tailor's are above Homa there,
    // docs/oracle.md; here they are below, by 1 %.)
    for (lo, hi) in [(0, 1_442), (1_442, 10_000), (10_000, u64::MAX)] {
        let (n, om, o99) = stats(&o, lo, hi);
        let (_, pm, p99) = stats(&p, lo, hi);
        assert!(n >= 100, "{n} messages in ({lo}, {hi}]");
        assert!(om <= pm, "({lo}, {hi}]: oracle mean {om:.3}, homa {pm:.3}");
        assert!(hi > 1_442 || o99 <= p99, "({lo}, {hi}]: oracle p99 {o99:.3}, homa {p99:.3}");
    }
}

#[test]
fn a_receivers_link_never_idles_while_a_message_waits_for_it() {
    // Incast on a star with raw packets of 1,000 B and no headers: the receiver's link is
    // the one server and, whatever order SRPT picks, it works whenever a message waits.
    // So each message's last packet leaves when the work-conserving recursion says the
    // work ends. (Sizes are whole packets, so a last packet never queues behind its own
    // message's longer one: it is delivered one packet time after it left.)
    let dir = tempfile::tempdir().unwrap();
    let mut text = "[topology]\nkind = \"star\"\nhosts = 9\nlink = { rate = \"10Gbps\" }\n\
                    [transport]\nkind = \"raw\"\nmss = \"1000B\"\nheader = \"0B\"\n"
        .to_string();
    for (size, load) in [("1KB", 0.4), ("5KB", 0.2), ("20KB", 0.3)] {
        text += &format!(
            "[[class]]\nname = \"s{size}\"\nsizes_fixed = \"{size}\"\nload = {load}\narrival = \"poisson\"\n\
             pattern = \"n_to_1\"\nsenders = \"0..8\"\nreceiver = 8\nmessages = 1000\n"
        );
    }
    let sc = common::scenario(&text, dir.path());
    let (summary, recs) = oracle(&sc, 2).unwrap();
    assert_eq!(recs.len(), 3000);
    assert!(summary.oracle.as_ref().unwrap().preemptions > 100, "SRPT preempts");
    let packet = Rate::from_gbps(10).ser(1000);
    let mut by_start = recs.clone();
    by_start.sort_by_key(|r| (r.start, r.id));
    let (mut free, mut idle_ends) = (Time::ZERO, Vec::new());
    for r in &by_start {
        if r.start > free && free > Time::ZERO {
            idle_ends.push(free);
        }
        free = free.max(r.start) + Time::from_ps(packet.ps() * (r.size / 1000));
    }
    idle_ends.push(free);
    // The end of every busy period is some message's last departure, and no departure
    // falls in an idle period.
    let mut left: Vec<Time> = recs.iter().map(|r| r.finish - packet).collect();
    left.sort();
    for end in &idle_ends {
        assert!(left.binary_search(end).is_ok(), "a busy period ends at {end} with no departure");
    }
    assert_eq!(*left.last().unwrap(), free);
    // SRPT: the 1 KB messages wait for one another only, the 20 KB ones for everything.
    let small = recs.iter().filter(|r| r.size == 1000).map(|r| r.slowdown()).fold(0.0, f64::max);
    let large = recs.iter().filter(|r| r.size == 20_000).map(|r| r.slowdown()).fold(0.0, f64::max);
    assert!(small < large, "{small} vs {large}");
}

#[test]
fn the_same_scenario_and_seed_give_the_same_records() {
    let dir = tempfile::tempdir().unwrap();
    let sc = common::scenario(&format!("{FABRIC}{HOMA}{}", workload(0.5, 0.3, "1ms")), dir.path());
    let (a, ra) = oracle(&sc, 9).unwrap();
    let (b, rb) = oracle(&sc, 9).unwrap();
    assert_eq!(ra, rb);
    assert_eq!((a.report.overall.slowdown.p99, a.report.events), (b.report.overall.slowdown.p99, b.report.events));
    let (_, rc) = oracle(&sc, 10).unwrap();
    assert_ne!(ra, rc, "another seed, other messages");
}

#[test]
fn a_stop_leaves_what_is_not_delivered_by_then_incomplete() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{FABRIC}{HOMA}[run]\nstop = \"1ms\"\n{}", workload(0.5, 0.3, "2ms"));
    let sc = common::scenario(&text, dir.path());
    let (s, recs) = oracle(&sc, 4).unwrap();
    let (sim, _) = common::run(&sc, 4);
    assert_eq!(s.report.messages.generated, sim.generated(), "what starts by the stop");
    assert!(recs.iter().all(|r| r.finish <= Time::from_ms(1)));
    assert!(s.report.messages.incomplete > 0 && s.report.messages.incomplete_bytes > Some(0));
    assert_eq!(s.report.sim_ns, 1e6);
    // Issue 24 item 2: the classes count what the stop left (no warm-up here: all of it).
    let classes = s.report.classes.values();
    assert_eq!(classes.clone().map(|c| c.incomplete).sum::<u64>(), s.report.messages.incomplete);
    assert_eq!(Some(classes.map(|c| c.incomplete_bytes).sum::<u64>()), s.report.messages.incomplete_bytes);
}

/// The error of running `text` on the oracle: (key path, message).
fn refused(text: &str) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let sc = common::scenario(text, dir.path());
    match oracle(&sc, 1) {
        Err(RunError::Scenario(e)) => (e.path, e.message),
        other => panic!("not refused: {:?}", other.map(|(s, _)| s.report.messages)),
    }
}

#[test]
fn what_it_cannot_stand_for_is_refused_with_its_key() {
    let one = "[[class]]\nname = \"w3\"\nsizes = \"w3\"\nload = 0.5\narrival = \"poisson\"\npattern = \"all_to_all\"\nuntil = \"1ms\"\n";
    let (path, msg) = refused(&format!("{}{HOMA}{one}", FABRIC.replace("spines = 2", "spines = 1")));
    assert_eq!(path, "topology.spines");
    assert!(msg.contains("oversubscribed") && msg.contains("40 Gbps up for 80 Gbps"), "{msg}");
    let (path, msg) = refused(&format!(
        "{}{HOMA}{one}",
        FABRIC
            .replace("fabric_link = { rate = \"40Gbps\" }", "fabric_link = { rate = \"5Gbps\" }")
            .replace("spines = 2", "spines = 16")
    ));
    assert_eq!(path, "topology.fabric_link", "{msg}");
    let (path, msg) = refused(&format!("{FABRIC}[transport]\nkind = \"dctcp\"\n{one}"));
    assert_eq!(path, "class[0]");
    assert!(msg.contains("\"dctcp\"") && msg.contains("one of raw, udp, homa"), "{msg}");
    let (path, _) = refused(&format!("{FABRIC}{HOMA}{one}response = \"echo\"\n"));
    assert_eq!(path, "class[0].response");
    let (path, _) = refused(&format!("{FABRIC}{HOMA}[record]\nqueues = \"10us\"\n{one}"));
    assert_eq!(path, "record.queues");
}
