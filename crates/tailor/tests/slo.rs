//! SLOs in a run: evaluated per class from the messages, with SWP's loss (eq. 1).

mod common;

#[test]
fn slo_verdicts_follow_the_measured_sli() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/quickstart.toml")).unwrap();
    // Replace the quickstart's own SLOs of the websearch class.
    let start = text.find("slo = [").expect("quickstart has SLOs");
    let end = start + text[start..].find("]\n").unwrap() + 2;
    text.replace_range(
        start..end,
        "slo = [{ sli = \"p99\", max_size = \"125KB\", threshold = 1000.0 }, { sli = \"p99\", min_size = \"125KB\", threshold = 1.0 }]\n",
    );
    let text = text.replacen("messages = 3000", "messages = 3000\nslo = [{ sli = \"p50\", metric = \"latency\", threshold = \"1s\" }]", 1);
    let sc = common::scenario(&text, dir.path());
    let (sim, recs) = common::run(&sc, 1);
    let r = sim.report();
    let web = &r.classes["websearch"];
    assert_eq!(web.slo.len(), 2);
    let small = recs.iter().filter(|m| m.class.index() == 0 && m.size <= 125_000).count() as u64;
    assert_eq!(web.slo[0].count, small);
    assert_eq!(web.slo[0].met, Some(true), "a loose bound is met");
    assert_eq!(web.slo[1].met, Some(false), "slowdown 1.0 at p99 for large flows is not");
    let (v, t) = (web.slo[1].value.unwrap(), web.slo[1].threshold);
    assert!((web.slo[1].loss.unwrap() - (v - t) / t).abs() < 1e-12);
    assert_eq!(web.slo_loss, web.slo[1].loss, "the class loss is its worst SLO's");
    let rpc = &r.classes["rpc"];
    assert_eq!(rpc.slo[0].met, Some(true));
    assert!(rpc.slo_loss.unwrap() < -0.99, "p50 latency far below one second");
}
