//! The advisor on the fast model (SWP §3.3, §5.2): the baseline evaluation is the class
//! alone at its share, capacity searches agree where they must, weights beat FIFO on a
//! tight SLO next to a bursty class, and an advice is a deterministic function of the
//! scenario and its seed.

mod common;

use tailor::advisor::capacity::{min_capacity, SearchOptions};
use tailor::advisor::optimizer::Evaluator;
use tailor::advisor::problem::{ModelEvaluator, Problem};
use tailor::advisor::recheck::{recheck, Setting};
use tailor::advisor::{advise, Event, Mode, Request, Strategy};
use tailor::model::Sharing;

const NET: &str = r#"
name = "advisor-test"
[topology]
kind = "star"
hosts = 9
link = { rate = "100Gbps", delay = "2.5us" }
[switch]
scheduler = "drr"
ecn_threshold = "100KB"
[transport]
kind = "dctcp"
init_cwnd = "bdp"
max_cwnd = "bdp"
"#;

const RPC: &str = r#"
[[class]]
name = "rpc"
sizes = "google"
arrival = "lognormal"
sigma = 2.0
load = 0.1
pattern = "n_to_1"
senders = "0..4"
receiver = 8
until = "6ms"
start = "1ms"
slo = [{ sli = "p99", max_size = "125KB", threshold = 3.0 }]
"#;

const BULK: &str = r#"
[[class]]
name = "bulk"
sizes = "hadoop"
arrival = "lognormal"
sigma = 1.5
load = 0.6
pattern = "n_to_1"
senders = "4..8"
receiver = 8
until = "6ms"
start = "1ms"
slo = [
  { sli = "p99", max_size = "125KB", threshold = 8.0 },
  { sli = "p99", min_size = "125KB", threshold = 16.0 },
]
"#;

fn problem(classes: &[&str]) -> (tailor::scenario::Scenario, Problem) {
    let dir = tempfile::tempdir().unwrap();
    let sc = common::scenario(&format!("{NET}{}", classes.concat()), dir.path());
    let p = Problem::from_scenario(&sc, 1).unwrap();
    (sc, p)
}

fn quiet() -> impl FnMut(&tailor::advisor::Event) -> bool {
    |_| true
}

#[test]
fn the_baseline_is_the_class_alone_served_at_its_share() {
    let (_, p) = problem(&[RPC, BULK]);
    let eval = ModelEvaluator { problem: &p, capacity_bps: 100e9, per_flow_fair: false };
    // The whole link against nobody is the class alone on a FIFO link.
    let alone = p.evaluate(&[1], Sharing::Fifo, 100e9)[0].loss;
    assert!((eval.baseline_loss(1, 1.0) - alone).abs() < 1e-12);
    // Less share, more loss: the baseline search relies on it.
    let l: Vec<f64> = [1.0, 0.9, 0.8, 0.7].iter().map(|&w| eval.baseline_loss(1, w)).collect();
    assert!(l.windows(2).all(|x| x[1] > x[0]), "{l:?}");
    // The bulk class cannot meet its SLOs with less of the link than it offers. Its draw
    // offers 54.3 % of the link over its 5 ms (`load = 0.6` is the generator's mean), so
    // the share below it is 0.5: 0.55 was asserted here until the model's recalibration
    // (issue 25, docs/model.md), after which the class meets its SLOs at 55 % by a hair
    // (p99 7.98 against 8), at 98.7 % utilization.
    assert!(eval.baseline_loss(1, 0.5) > 0.0);
}

#[test]
fn with_one_class_every_discipline_needs_the_same_capacity() {
    let (_, p) = problem(&[RPC]);
    let opts = SearchOptions { tolerance: 0.02, ..SearchOptions::default() };
    let cap = |s| min_capacity(&p, s, &opts, &mut quiet()).unwrap().capacity_bps.expect("feasible");
    let fifo = cap(Strategy::SharedFifo);
    // One class: weights are [1], priority has one level, static is the class alone.
    for s in [Strategy::Weights, Strategy::Priority, Strategy::Static] {
        assert_eq!(cap(s), fifo, "{s:?}");
    }
    // The answer is feasible and the search saw an infeasible capacity within tolerance.
    assert!(p.evaluate_all(Sharing::Fifo, fifo)[0].met);
    let below = fifo * (1.0 - 2.0 * opts.tolerance);
    assert!(!p.evaluate_all(Sharing::Fifo, below)[0].met, "{fifo} is not the least capacity");
    assert!(fifo > p.offered_bps(), "a bursty class needs more than its mean rate");
}

#[test]
fn weights_need_less_capacity_than_fifo_next_to_a_bursty_class() {
    let (_, p) = problem(&[RPC, BULK]);
    let opts = SearchOptions { tolerance: 0.03, ..SearchOptions::default() };
    let run = |s| min_capacity(&p, s, &opts, &mut quiet()).unwrap();
    let fifo = run(Strategy::SharedFifo).capacity_bps.unwrap();
    let drr = run(Strategy::Weights);
    let c = drr.capacity_bps.unwrap();
    assert!(c < 0.8 * fifo, "SWP weights {c} vs FIFO {fifo}");
    let w = drr.weights.unwrap();
    assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    assert!(drr.verdicts.iter().all(|v| v.met));
    // At that capacity FIFO misses: the weights are what meets the SLOs.
    assert!(p.evaluate_all(Sharing::Fifo, c).iter().any(|v| !v.met));
}

#[test]
fn advice_is_a_deterministic_function_of_scenario_and_seed() {
    let (sc, _) = problem(&[RPC, BULK]);
    let req = Request {
        mode: Mode::Weights { fair: Some(false) },
        recheck: true,
        search: SearchOptions::default(),
        form: Default::default(),
        host_scaling: Default::default(),
    };
    let strip = |r: tailor::advisor::Report| {
        let mut v = serde_json::to_value(&r).unwrap();
        let o = v.as_object_mut().unwrap();
        o.remove("model_seconds");
        o.remove("packet_seconds");
        v
    };
    let a = strip(advise(&sc, 3, &req, &mut quiet()).unwrap());
    let b = strip(advise(&sc, 3, &req, &mut quiet()).unwrap());
    assert_eq!(a, b);
    let w = &a["weights"];
    assert_eq!(w["strategy"], "drr");
    assert!(w["packet"].as_array().unwrap().len() == 2, "re-checked on the packet engine");
    let c = strip(advise(&sc, 4, &req, &mut quiet()).unwrap());
    assert_ne!(a["weights"]["baselines"], c["weights"]["baselines"], "another seed, other traffic");
}

#[test]
fn the_packet_recheck_replays_exactly_the_scenarios_messages() {
    // Re-checking FIFO at the scenario's own capacity is the scenario's own packet run.
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{NET}{RPC}{BULK}").replace("scheduler = \"drr\"", "scheduler = \"fifo\"");
    let sc = common::scenario(&text, dir.path());
    let p = Problem::from_scenario(&sc, 1).unwrap();
    let v = recheck(&sc, &p, 1, &Setting::Fifo, 100e9, &mut || true).unwrap();
    let (sim, _) = common::run(&sc, 1);
    let report = sim.report();
    for c in &v {
        assert_eq!(c.slo, report.classes[&c.class].slo, "{}", c.class);
    }
}

#[test]
fn the_advisor_needs_an_slo_on_every_class() {
    let s = refused(&format!("{NET}{RPC}{}", BULK.split("slo = [").next().unwrap()));
    assert_eq!(s.path, "class[1].slo");
    assert!(s.message.contains("\"bulk\" has no SLO"), "{}", s.message);
}

/// The scenario error with which the advisor refuses `text`.
fn refused(text: &str) -> tailor::scenario::ScenarioError {
    let dir = tempfile::tempdir().unwrap();
    match Problem::from_scenario(&common::scenario(text, dir.path()), 1).unwrap_err() {
        tailor::engine::RunError::Scenario(s) => s,
        other => panic!("{other}"),
    }
}

#[test]
fn strict_priority_puts_the_tightest_slo_first() {
    let (_, p) = problem(&[BULK, RPC]);
    assert_eq!(tailor::advisor::capacity::priority_levels(&p), vec![1, 0]);
}

/// Rate-defined classes (the traffic does not depend on the link) for re-checks at another
/// capacity.
fn by_rate(link: &str, transport: &str) -> String {
    format!("{NET}{RPC}{BULK}")
        .replace("rate = \"100Gbps\"", &format!("rate = \"{link}\""))
        .replace("load = 0.1", "rate = \"5Gbps\"")
        .replace("load = 0.6", "rate = \"25Gbps\"")
        .replace("kind = \"dctcp\"\ninit_cwnd = \"bdp\"\nmax_cwnd = \"bdp\"", transport)
}

#[test]
fn a_recheck_at_another_capacity_is_the_scenario_written_at_that_capacity() {
    // Re-checking a 50 Gbps scenario at 100 Gbps scales every link and the windows that
    // follow the link (DCTCP's BDP window; HPCC's window, step, line rate and T), so it
    // agrees with the same traffic in a scenario written at 100 Gbps.
    for transport in ["kind = \"dctcp\"\ninit_cwnd = \"bdp\"\nmax_cwnd = \"bdp\"", "kind = \"hpcc\""] {
        let dir = tempfile::tempdir().unwrap();
        let slow = common::scenario(&by_rate("50Gbps", transport), dir.path());
        let fast = common::scenario(&by_rate("100Gbps", transport), dir.path());
        let p = Problem::from_scenario(&slow, 1).unwrap();
        let scaled = recheck(&slow, &p, 1, &Setting::Fifo, 100e9, &mut || true).unwrap();
        let direct =
            recheck(&fast, &Problem::from_scenario(&fast, 1).unwrap(), 1, &Setting::Fifo, 100e9, &mut || true).unwrap();
        let at_50 = recheck(&slow, &p, 1, &Setting::Fifo, 50e9, &mut || true).unwrap();
        for ((s, d), h) in scaled.iter().zip(&direct).zip(&at_50) {
            for ((a, b), c) in s.slo.iter().zip(&d.slo).zip(&h.slo) {
                let (a, b, c) = (a.value.unwrap(), b.value.unwrap(), c.value.unwrap());
                assert!((a / b - 1.0).abs() < 0.05, "{transport}: {}: scaled {a} vs written at 100 Gbps {b}", s.class);
                assert!(c > a, "{transport}: {}: half the capacity is slower ({c} vs {a})", s.class);
            }
        }
    }
}

#[test]
fn a_class_with_nothing_to_measure_is_refused() {
    let text = format!("{NET}{RPC}{BULK}").replace(
        "{ sli = \"p99\", max_size = \"125KB\", threshold = 3.0 }",
        "{ sli = \"p99\", min_size = \"1GB\", threshold = 3.0 }",
    );
    let s = refused(&text);
    assert_eq!(s.path, "class[0].slo");
    assert!(s.message.contains("no message of class \"rpc\""), "{}", s.message);
}

#[test]
fn an_observer_stops_the_search_during_the_baselines() {
    let (sc, _) = problem(&[RPC, BULK]);
    let mut seen = Vec::new();
    let req = Request {
        mode: Mode::Weights { fair: None },
        recheck: true,
        search: SearchOptions::default(),
        form: Default::default(),
        host_scaling: Default::default(),
    };
    let r = advise(&sc, 1, &req, &mut |e: &Event| {
        seen.push(format!("{e:?}"));
        !matches!(e, Event::Baselines { round: 2, .. })
    });
    assert!(matches!(r, Err(tailor::engine::RunError::Cancelled)));
    assert_eq!(seen.len(), 3, "stopped at the third baseline round: {seen:?}");
}
