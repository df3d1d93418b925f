//! The fast model against closed forms (SWP §4): a lone flow takes exactly its ideal,
//! equal long flows share the link equally, classes share it by weight.

mod common;

use std::sync::{Arc, Mutex};
use tailor::measure::record::MemorySink;
use tailor::measure::{ClassSummary, MessageRecord, RecordSink, Recorder};
use tailor::model::{CcParams, FluidModel, Form, ModelConfig, Sharing};
use tailor::net::ids::{ClassId, HostId};
use tailor::sim::Time;
use tailor::workload::{MessageSpec, Source, WorkloadError};

struct List(std::vec::IntoIter<MessageSpec>);

impl Source for List {
    fn next_message(&mut self) -> Result<Option<MessageSpec>, WorkloadError> {
        Ok(self.0.next())
    }
}

struct Shared(Arc<Mutex<MemorySink>>);

impl RecordSink for Shared {
    fn record(&mut self, r: &MessageRecord, n: &str) -> std::io::Result<()> {
        self.0.lock().unwrap().record(r, n)
    }
}

fn msg(class: usize, start_ns: u64, size: u64) -> MessageSpec {
    MessageSpec {
        id: None,
        start: Time::from_ns(start_ns),
        src: HostId::new(0),
        dst: HostId::new(1),
        size,
        class: ClassId::new(class),
        response: None,
        channel: None,
    }
}

/// 100 Gbps, 10 us RTT, SWP-D.
fn run(sharing: Sharing, classes: Vec<Vec<MessageSpec>>) -> Vec<MessageRecord> {
    let cfg = ModelConfig {
        capacity_bps: 100e9,
        rtt: Time::from_us(10),
        cc: CcParams::SWP_D,
        sharing,
        classes: classes.len(),
        own_threshold: Vec::new(),
        form: Form::Calibrated,
    };
    let sink = Arc::new(Mutex::new(MemorySink::default()));
    let summaries = (0..classes.len()).map(|k| ClassSummary::new(&format!("c{k}"), vec![])).collect();
    let mut rec =
        Recorder::new(summaries, ClassSummary::new("all", vec![]), Time::ZERO, Box::new(Shared(sink.clone())));
    let sources: Vec<Box<dyn Source + Send>> =
        classes.into_iter().map(|v| Box::new(List(v.into_iter())) as Box<dyn Source + Send>).collect();
    FluidModel::new(cfg).run(sources, &mut rec).unwrap();
    let out = std::mem::take(&mut sink.lock().unwrap().0);
    out
}

#[test]
fn a_lone_flow_takes_exactly_rtt_plus_size_over_capacity() {
    // One flow at a time, 10 ms apart, arriving mid-step.
    let sizes = [1u64, 1_000, 100_000, 124_999, 125_000, 125_001, 1_000_000, 30_000_000];
    let msgs: Vec<MessageSpec> =
        sizes.iter().enumerate().map(|(i, &s)| msg(0, 1_000_333 + i as u64 * 10_000_000, s)).collect();
    let recs = run(Sharing::Fifo, vec![msgs]);
    assert_eq!(recs.len(), sizes.len());
    for r in recs {
        let ideal_ns = 10_000.0 + r.size as f64 * 0.08;
        assert!((r.ideal.as_ns_f64() - ideal_ns).abs() < 1e-3);
        assert!((r.slowdown() - 1.0).abs() < 1e-6, "size {}: slowdown {}", r.size, r.slowdown());
    }
}

#[test]
fn equal_long_flows_share_the_link_equally() {
    let n = 4u64;
    let size = 20_000_000u64;
    let msgs: Vec<MessageSpec> = (0..n).map(|i| msg(0, 1000 + i, size)).collect();
    let recs = run(Sharing::Fifo, vec![msgs]);
    let fct: Vec<f64> = recs.iter().map(|r| r.latency().as_ns_f64()).collect();
    let (lo, hi) = (fct.iter().copied().fold(f64::MAX, f64::min), fct.iter().copied().fold(0.0, f64::max));
    assert!((hi - lo) / hi < 0.01, "completion times differ: {fct:?}");
    // Together they need n S / C; equal sharing means none finishes much earlier.
    let together_ns = (n * size) as f64 * 0.08;
    assert!(hi > together_ns && hi < 1.05 * together_ns, "{hi} vs {together_ns}");
}

#[test]
fn classes_share_the_link_by_weight_when_backlogged() {
    // Weights 1 : 3, one 20 MB flow each: under exact weighted sharing class 1 runs at
    // 3C/4 until done (4/3 S/C), then class 0 (which had S/3) finishes the rest alone:
    // 2 S/C. With equal weights both would take 2 S/C. DCTCP marked on the port's backlog
    // does not share exactly: class 0's queue gets class 1's flow marked too, and a lone
    // flow regrows its window by a segment per RTT after a cut. The packet engine, same
    // two flows (DRR 1 : 3, K = 100 KB, windows of one BDP): class 1 in 1.114 x 4/3 S/C,
    // class 0 in 1.054 x 2 S/C. The model matched GPS within 3 % until its recalibration
    // (issue 25, docs/model.md: additive increase), now 1.050 and 1.083.
    let s = 20_000_000u64;
    let recs = run(
        Sharing::Weighted { weights: vec![1.0, 3.0], per_flow_fair: false },
        vec![vec![msg(0, 1000, s)], vec![msg(1, 1000, s)]],
    );
    let fct = |c: usize| recs.iter().find(|r| r.class.index() == c).unwrap().latency().as_ns_f64();
    let sc = s as f64 * 0.08;
    let (one, zero) = (fct(1) / (4.0 / 3.0 * sc), fct(0) / (2.0 * sc));
    // Never faster than exact sharing; class 1 far nearer its 3/4 share than an equal one
    // (1.5), and class 0 done near 2 S/C, as on the packet engine.
    assert!((1.0..1.15).contains(&one), "class 1: {} vs {}", fct(1), 4.0 / 3.0 * sc);
    assert!((1.0..1.12).contains(&zero), "class 0: {} vs {}", fct(0), 2.0 * sc);
}

#[test]
fn hierarchical_fair_queueing_lets_a_short_flow_pass_a_queue() {
    // Eight 2 MB flows arrive together: their uncontrolled first RTT (8 x 125 KB at line
    // rate) builds a queue of about 875 KB. A 10 KB flow arriving into it waits behind all
    // of it under FIFO (about 70 us); with per-flow fair queueing it gets a ninth of the
    // link at once.
    let mut msgs: Vec<MessageSpec> = (0..8).map(|i| msg(0, 1_000_000 + i, 2_000_000)).collect();
    msgs.push(msg(0, 1_012_000, 10_000));
    let fifo = run(Sharing::Weighted { weights: vec![1.0], per_flow_fair: false }, vec![msgs.clone()]);
    let fair = run(Sharing::Weighted { weights: vec![1.0], per_flow_fair: true }, vec![msgs]);
    let sd = |recs: &[MessageRecord]| recs.iter().find(|r| r.size == 10_000).unwrap().slowdown();
    assert!(sd(&fifo) > 5.0, "fifo: {}", sd(&fifo));
    assert!(sd(&fair) < 2.0, "fair queueing: {}", sd(&fair));
}

#[test]
fn a_scenario_runs_on_the_model_engine_in_the_packet_engines_format() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/swp/websearch-30.toml");
    let sc = tailor::scenario::Scenario::load(&path).unwrap();
    let cfg = tailor::scenario::model::config(&sc).unwrap();
    assert_eq!(cfg.capacity_bps, 100e9);
    assert_eq!(cfg.rtt, Time::from_us(10));
    assert_eq!(cfg.cc.q0, 100_000.0, "q0 is the switches' ECN threshold");
    let tmp = tempfile::tempdir().unwrap();
    let s =
        tailor::output::run_engine_to_dir(&sc, 1, &tmp.path().join("m"), tailor::output::Engine::Model, &mut |_| true)
            .unwrap();
    assert_eq!(s.engine, "model");
    assert_eq!(s.model.as_ref().unwrap().bottleneck, "the link into host 64");
    assert_eq!((s.report.messages.generated, s.report.messages.completed), (2000, 2000));
    let csv = std::fs::read_to_string(tmp.path().join("m/messages.csv")).unwrap();
    assert_eq!(csv.lines().count(), 2001);
    assert!(s.report.classes["websearch"].slowdown.p50.unwrap() >= 1.0);
}

#[test]
fn the_model_refuses_a_transport_it_does_not_model() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/swp/websearch-30.toml"))
        .unwrap()
        .replace("kind = \"dctcp\"", "kind = \"tcp\"")
        .replace("dctcp_g = 0.0625\n", "");
    let sc = common::scenario(&text, dir.path());
    let err = tailor::scenario::model::config(&sc).unwrap_err();
    assert_eq!(err.path, "transport.kind");
}

/// PL2's ToR agents and closed-loop classes have no fluid counterpart: refused at the
/// key, with what would run them.
#[test]
fn the_model_refuses_pl2_agents_and_closed_loops() {
    let dir = tempfile::tempdir().unwrap();
    let base =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/swp/websearch-30.toml")).unwrap();
    let sc = common::scenario(&base.replacen("[switch]", "[switch]\npl2 = {}", 1), dir.path());
    let err = tailor::scenario::model::config(&sc).unwrap_err();
    assert_eq!(err.path, "switch.pl2", "{err}");
    assert!(err.message.contains("accepted: --engine packet"), "{err}");
    let closed = base
        .replacen("load = 0.30\n", "outstanding = 4\nresponse = \"echo\"\n", 1)
        .replacen("arrival = \"lognormal\"\nsigma = 2.0\n", "", 1)
        .replacen("exact_load = true\n", "", 1);
    let sc = common::scenario(&closed, dir.path());
    let err = tailor::scenario::model::config(&sc).unwrap_err();
    assert_eq!(err.path, "class[0].outstanding", "{err}");
}

/// Trimming and eviction act on single packets in a full buffer; the model's queues are
/// fluid and unbounded, so it refuses them at the key rather than run as if they were off
/// (it ran them as drop-tail before they were a registered mechanism). "drop", the
/// default spelled out, is no mechanism and runs.
#[test]
fn the_model_refuses_trimming_and_eviction() {
    let dir = tempfile::tempdir().unwrap();
    let base =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/swp/websearch-30.toml")).unwrap();
    let with = |keys: &str| common::scenario(&base.replacen("[switch]", &format!("[switch]\n{keys}"), 1), dir.path());
    for keys in ["overflow = \"trim\"", "scheduler = \"priority\"\noverflow = \"evict\""] {
        let err = tailor::scenario::model::config(&with(keys)).unwrap_err();
        assert_eq!(err.path, "switch.overflow", "{keys}: {err}");
        assert!(err.message.ends_with("accepted: --engine packet, or overflow = \"drop\""), "{err}");
    }
    tailor::scenario::model::config(&with("overflow = \"drop\"")).unwrap();
}

#[test]
fn the_model_engine_and_the_advisor_refuse_traffic_without_one_bottleneck() {
    // websearch-30 with its incast turned into all-to-all traffic: no one link to model.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/swp/websearch-30.toml"))
        .unwrap()
        .replace("pattern = \"n_to_1\"", "pattern = \"all_to_all\"\nslo = [{ sli = \"p99\", threshold = 3.0 }]")
        .replace("receiver = 64\n", "")
        .replace("senders = \"0..64\"\n", "");
    let sc = common::scenario(&text, dir.path());
    let out = dir.path().join("m");
    let err =
        tailor::output::run_engine_to_dir(&sc, 1, &out, tailor::output::Engine::Model, &mut |_| true).unwrap_err();
    let tailor::engine::RunError::Scenario(e) = err else { panic!("a scenario error: {err}") };
    assert_eq!(e.path, "class[0].pattern");
    assert!(e.message.starts_with("\"all_to_all\" spreads traffic over many links (to 65 receivers)"), "{}", e.message);
    assert!(!out.exists(), "nothing written");
    let req = tailor::advisor::Request {
        mode: tailor::advisor::Mode::Weights { fair: None },
        recheck: false,
        search: Default::default(),
        form: Form::Calibrated,
        host_scaling: tailor::advisor::HostScaling::Scaled,
    };
    let err = tailor::advisor::advise(&sc, 1, &req, &mut |_| true).unwrap_err();
    assert!(matches!(err, tailor::engine::RunError::Scenario(e) if e.path == "class[0].pattern"));
}

#[test]
fn a_class_against_backlogged_others_is_served_at_its_share() {
    // A lone 20 MB flow holding a quarter of the weight: S / (C/4) after its first RTT,
    // and its slowdown is against the whole link's ideal.
    let s = 20_000_000u64;
    let recs = run(Sharing::Backlogged { share: 0.25, per_flow_fair: false }, vec![vec![msg(0, 1000, s)]]);
    let fct = recs[0].latency().as_ns_f64();
    let expect = 4.0 * s as f64 * 0.08;
    assert!((fct / expect - 1.0).abs() < 0.03, "{fct} vs {expect}");
    assert!((recs[0].slowdown() - 4.0).abs() < 0.15, "{}", recs[0].slowdown());
}
