//! The model's two forms and the advisor's two capacity readings (issue 25 items 4 and
//! 5; docs/model.md "The paper-literal form", docs/advisor.md "Capacity scaling: both
//! readings"): what both share, and where each reading moves only what it says.

mod common;

use std::sync::{Arc, Mutex};
use tailor::advisor::problem::Problem;
use tailor::advisor::recheck::network_at;
use tailor::advisor::HostScaling;
use tailor::measure::record::MemorySink;
use tailor::measure::{ClassSummary, MessageRecord, RecordSink, Recorder};
use tailor::model::{CcParams, FluidModel, Form, ModelConfig, ModelStats, Sharing};
use tailor::net::ids::{ClassId, HostId};
use tailor::net::topology::Shape;
use tailor::scenario::scope::Link;
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

fn msg(start_ns: u64, size: u64) -> MessageSpec {
    MessageSpec {
        id: None,
        start: Time::from_ns(start_ns),
        src: HostId::new(0),
        dst: HostId::new(1),
        size,
        class: ClassId::new(0),
        response: None,
        channel: None,
    }
}

/// One class's messages through the model with `cfg`: the records and the run's stats.
fn run(cfg: ModelConfig, msgs: Vec<MessageSpec>) -> (Vec<MessageRecord>, ModelStats) {
    let sink = Arc::new(Mutex::new(MemorySink::default()));
    let mut rec = Recorder::new(
        vec![ClassSummary::new("c0", vec![])],
        ClassSummary::new("all", vec![]),
        Time::ZERO,
        Box::new(Shared(sink.clone())),
    );
    let stats =
        FluidModel::new(cfg).run(vec![Box::new(List(msgs.into_iter())) as Box<dyn Source + Send>], &mut rec).unwrap();
    let out = std::mem::take(&mut sink.lock().unwrap().0);
    (out, stats)
}

#[test]
fn a_lone_flow_takes_exactly_its_ideal_in_both_forms() {
    let sizes = [1u64, 1_000, 100_000, 125_000, 125_001, 1_000_000, 30_000_000];
    for form in [Form::Calibrated, Form::Paper] {
        for cc in [CcParams::SWP_D, CcParams::SWP_H] {
            let cfg = ModelConfig {
                capacity_bps: 100e9,
                rtt: Time::from_us(10),
                cc,
                sharing: Sharing::Fifo,
                classes: 1,
                own_threshold: Vec::new(),
                form,
            };
            let msgs = sizes.iter().enumerate().map(|(i, &s)| msg(1_000_333 + i as u64 * 10_000_000, s)).collect();
            let (recs, _) = run(cfg, msgs);
            assert_eq!(recs.len(), sizes.len());
            for r in recs {
                // SWP-H aims at η = 90 %: its lone long flow settles below line rate.
                if cc.eta == 1.0 || r.size <= 125_000 {
                    assert!(
                        (r.slowdown() - 1.0).abs() < 1e-6,
                        "{form:?} {cc:?}: size {}: slowdown {}",
                        r.size,
                        r.slowdown()
                    );
                }
            }
        }
    }
}

/// A dumbbell: `left` senders, one receiver on the right, host links 100 Gbps (1 us),
/// the trunk at `trunk` (3 us): base RTT 10 us; DCTCP with one-BDP windows.
fn dumbbell(trunk: &str) -> String {
    format!(
        r#"
name = "forms-dumbbell"
[topology]
kind = "dumbbell"
left = 4
right = 1
host_link = {{ rate = "100Gbps", delay = "1us" }}
trunk = {{ rate = "{trunk}", delay = "3us" }}
[switch]
ecn_threshold = "100KB"
[transport]
kind = "dctcp"
init_cwnd = "bdp"
max_cwnd = "bdp"
[[class]]
name = "rpc"
sizes = "google"
arrival = "lognormal"
sigma = 1.5
rate = "10Gbps"
pattern = "n_to_1"
senders = "0..4"
receiver = 4
until = "2ms"
slo = [{{ sli = "p99", max_size = "125KB", threshold = 4.0 }}]
"#
    )
}

fn problem(text: &str, scaling: HostScaling) -> (tailor::scenario::Scenario, Problem) {
    let dir = tempfile::tempdir().unwrap();
    let sc = common::scenario(text, dir.path());
    let mut p = Problem::from_scenario(&sc, 1).unwrap();
    p.set_reading(&sc, Form::Calibrated, scaling).unwrap();
    (sc, p)
}

#[test]
fn a_dumbbell_incast_into_one_right_side_host_is_modelled_at_its_trunk() {
    let dir = tempfile::tempdir().unwrap();
    for (trunk, bps, r0) in [("100Gbps", 100e9, 1.0), ("25Gbps", 25e9, 4.0)] {
        let sc = common::scenario(&dumbbell(trunk), dir.path());
        let (cfg, b) = tailor::scenario::model::configure(&sc).unwrap();
        // Both the trunk and the receiver's link carry every message; on a tie the trunk,
        // where the queue builds first.
        assert_eq!(b.link, Link::Trunk, "{trunk}");
        assert_eq!(cfg.capacity_bps, bps);
        assert_eq!(cfg.rtt, Time::from_us(10), "host + trunk + host, both ways");
        assert_eq!(cfg.cc.r0, r0, "flows start at their host link's rate");
    }
}

#[test]
fn both_readings_agree_at_the_nominal_capacity() {
    let (sc, scaled) = problem(&dumbbell("100Gbps"), HostScaling::Scaled);
    let (_, fixed) = problem(&dumbbell("100Gbps"), HostScaling::Fixed);
    let c = scaled.nominal_bps();
    assert_eq!(scaled.config_at(Sharing::Fifo, c, vec![]), fixed.config_at(Sharing::Fifo, c, vec![]));
    assert_eq!(scaled.evaluate_all(Sharing::Fifo, c), fixed.evaluate_all(Sharing::Fifo, c));
    let (a, b) = (network_at(&sc, &scaled, 1, c).unwrap(), network_at(&sc, &fixed, 1, c).unwrap());
    assert_eq!(a.net.shape, b.net.shape);
    assert_eq!(format!("{:?}", a.transports), format!("{:?}", b.transports));
}

#[test]
fn fixed_keeps_r0_at_the_host_rate_below_it_and_scaled_moves_it_with_c() {
    let (_, scaled) = problem(&dumbbell("100Gbps"), HostScaling::Scaled);
    let (_, fixed) = problem(&dumbbell("100Gbps"), HostScaling::Fixed);
    let (f, s) = (fixed.config_at(Sharing::Fifo, 25e9, vec![]), scaled.config_at(Sharing::Fifo, 25e9, vec![]));
    assert_eq!((f.capacity_bps, s.capacity_bps), (25e9, 25e9));
    assert_eq!(f.cc.r0 * f.capacity_bps, 100e9, "fixed: R0 is the host link's 100 Gbps");
    assert_eq!(s.cc.r0 * s.capacity_bps, 25e9, "scaled: R0 is C");
    // A lone 100 KB flow: fixed sends all of it uncontrolled (min(S, R0·RTT) = min(100 KB,
    // 125 KB)) at 100 Gbps into 25 Gbps, a queue of 100 KB · (1 − 1/4); scaled sends at C
    // and queues nothing. Either way it completes at its ideal RTT + S / C.
    for (cfg, queue) in [(f, 75_000.0), (s, 0.0)] {
        let (recs, stats) = run(cfg, vec![msg(1_000, 100_000)]);
        assert!(
            (stats.max_queue_bytes - queue).abs() < 0.02 * 75_000.0,
            "max queue {} against {queue}",
            stats.max_queue_bytes
        );
        assert!((recs[0].slowdown() - 1.0).abs() < 1e-6, "slowdown {}", recs[0].slowdown());
    }
    // Above the host rate the receiver's own link is the bottleneck (every message goes to
    // it): the trunk's extra capacity is not usable.
    let above = fixed.config_at(Sharing::Fifo, 400e9, vec![]);
    assert_eq!((above.capacity_bps, above.cc.r0), (100e9, 1.0));
}

#[test]
fn the_recheck_at_fixed_scales_only_the_trunk() {
    let (sc, scaled) = problem(&dumbbell("100Gbps"), HostScaling::Scaled);
    let (_, fixed) = problem(&dumbbell("100Gbps"), HostScaling::Fixed);
    let nominal = network_at(&sc, &scaled, 1, 100e9).unwrap();
    let rates = |shape: &Shape| match shape {
        Shape::Dumbbell { host_link, trunk, .. } => (host_link.rate.bps(), trunk.rate.bps()),
        _ => unreachable!("a dumbbell"),
    };
    let f = network_at(&sc, &fixed, 1, 25e9).unwrap();
    assert_eq!(rates(&f.net.shape), (100_000_000_000, 25_000_000_000));
    assert_eq!(
        format!("{:?}", f.transports),
        format!("{:?}", nominal.transports),
        "windows stay at the host rate's BDP"
    );
    let s = network_at(&sc, &scaled, 1, 25e9).unwrap();
    assert_eq!(rates(&s.net.shape), (25_000_000_000, 25_000_000_000));
    assert_ne!(format!("{:?}", s.transports), format!("{:?}", nominal.transports), "windows follow the links");
}

#[test]
fn fixed_is_refused_without_a_bottleneck_link_of_its_own() {
    let star = dumbbell("100Gbps").replace(
        "kind = \"dumbbell\"\nleft = 4\nright = 1\nhost_link = { rate = \"100Gbps\", delay = \"1us\" }\ntrunk = { rate = \"100Gbps\", delay = \"3us\" }",
        "kind = \"star\"\nhosts = 5\nlink = { rate = \"100Gbps\", delay = \"2.5us\" }",
    );
    let dir = tempfile::tempdir().unwrap();
    let sc = common::scenario(&star, dir.path());
    let mut p = Problem::from_scenario(&sc, 1).unwrap();
    p.set_reading(&sc, Form::Calibrated, HostScaling::Scaled).expect("scaled reads any topology");
    match p.set_reading(&sc, Form::Calibrated, HostScaling::Fixed).unwrap_err() {
        tailor::engine::RunError::Scenario(e) => {
            assert_eq!(e.path, "topology.kind");
            for word in ["--host-scaling", "star", "accepted", "dumbbell"] {
                assert!(e.message.contains(word), "{word}: {}", e.message);
            }
        }
        e => panic!("{e}"),
    }
}
