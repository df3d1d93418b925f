//! The capacity search on a small two-class star: an answer above FIFO is checked and
//! fixed, and feasibility does not fall as the capacity rises (`above_fifo` tests the check
//! itself).

use super::*;

const SCENARIO: &str = r#"
name = "capacity-test"
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

pub(super) fn problem() -> Problem {
    let dir = std::env::temp_dir();
    let sc = crate::scenario::Scenario::parse(SCENARIO, "test.toml", &dir).unwrap_or_else(|e| panic!("{e}"));
    Problem::from_scenario(&sc, 1).unwrap()
}

pub(super) fn quiet() -> impl FnMut(&Event) -> bool {
    |_| true
}

#[test]
fn a_weighted_answer_above_fifo_is_reported_grid_checked_and_fixed() {
    let p = problem();
    let fifo =
        min_capacity(&p, Strategy::SharedFifo, &SearchOptions::default(), &mut quiet()).unwrap().capacity_bps.unwrap();
    // A crippled optimizer (no baseline search: equal weights, one evaluation, no
    // restarts) needs more than FIFO here; unchecked, that answer stands silently.
    let weak = Options { baseline_steps: 0, max_iterations: 1, restarts: false, ..Options::default() };
    let unchecked = SearchOptions { optimizer: weak, fifo_check: false, ..SearchOptions::default() };
    let a = min_capacity(&p, Strategy::Weights, &unchecked, &mut quiet()).unwrap();
    let first = a.capacity_bps.unwrap();
    assert!(first > fifo, "weights {first} vs FIFO {fifo}: the case this test needs");
    assert_eq!(a.above_fifo, None);
    // Checked: the grid at FIFO's capacity finds weights, and the search below it.
    let b =
        min_capacity(&p, Strategy::Weights, &SearchOptions { fifo_check: true, ..unchecked }, &mut quiet()).unwrap();
    let check = b.above_fifo.as_ref().expect("reported");
    assert_eq!((check.fifo_bps, check.search_bps), (fifo, Some(first)));
    assert!(check.grid_points >= 100 && check.grid_met > 0 && check.best_worst_loss <= 0.0, "{check:?}");
    assert!(check.fixed);
    let c = b.capacity_bps.unwrap();
    assert!(c <= fifo, "{c} after the check vs FIFO {fifo}");
    assert!(b.verdicts.iter().all(|v| v.met));
    let w = b.weights.unwrap();
    assert!(p.evaluate_all(Sharing::Weighted { weights: w, per_flow_fair: false }, c).iter().all(|v| v.met));
    // The default search needs no check here.
    let d = min_capacity(&p, Strategy::Weights, &SearchOptions::default(), &mut quiet()).unwrap();
    assert!(d.capacity_bps.unwrap() < fifo && d.above_fifo.is_none());
}

#[test]
fn feasibility_does_not_fall_as_the_capacity_rises() {
    let p = problem();
    let opts = SearchOptions::default();
    for s in [Strategy::Weights, Strategy::WeightsFq] {
        let a = min_capacity(&p, s, &opts, &mut quiet()).unwrap();
        let c = a.capacity_bps.unwrap();
        // Every capacity the search tried above its answer met.
        assert!(a.probes.iter().filter(|x| x.capacity_bps >= c).all(|x| x.feasible), "{s:?}: {:?}", a.probes);
        // Up a ladder above the answer, each rung starts from the weights that met below it.
        let mut met = vec![(c, a.weights.clone().unwrap())];
        for f in [1.02, 1.05, 1.1, 1.25, 1.5, 2.0] {
            let t = probe_weights(&p, s, c * f, &met, &opts, &mut quiet()).unwrap();
            assert!(t.feasible, "{s:?} at {f} x {c}: {:?}", t.verdicts);
            met.push((c * f, t.weights.unwrap()));
        }
    }
}
