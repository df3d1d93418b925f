//! SLOs in a run: evaluated per class from the messages, with SWP's loss (eq. 1).

mod common;

#[test]
fn slo_verdicts_follow_the_measured_sli() {
    let dir = tempfile::tempdir().unwrap();
    let mut text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/quickstart.toml")).unwrap();
    // Replace the quickstart's own SLOs of the websearch class.
    let start = text.find("slo = [").expect("quickstart has SLOs");
    let end = start + text[start..].find("]\n").unwrap() + 2;
    text.replace_range(
        start..end,
        "slo = [{ sli = \"p99\", max_size = \"125KB\", threshold = 1000.0 }, { sli = \"p99\", min_size = \"125KB\", threshold = 1.0 }]\n",
    );
    let text = text.replacen(
        "messages = 3000",
        "messages = 3000\nslo = [{ sli = \"p50\", metric = \"latency\", threshold = \"1s\" }]",
        1,
    );
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

/// The exact nearest-rank percentile (or the mean) of `v`, as `measure::slo` defines the SLI.
fn sli(stat: &str, mut v: Vec<f64>) -> f64 {
    if stat == "mean" {
        return v.iter().sum::<f64>() / v.len() as f64;
    }
    let p: f64 = stat[1..].parse().unwrap();
    v.sort_by(f64::total_cmp);
    let rank = ((p * v.len() as f64 / 100.0 * 1e9).round() / 1e9).ceil().max(1.0) as usize;
    v[rank - 1]
}

/// Issue 24 item 2: a run cut by `[run] stop` counts its unfinished messages, per class and
/// per SLO, and a verdict it gives holds whatever they finish at. The run is continued past
/// the stop to the end: its finishes are one way the unfinished could finish (each at least
/// what it had accrued), and every verdict given at the stop must agree with the SLI computed
/// exactly over the same messages with those finishes.
#[test]
fn a_stopped_run_counts_its_unfinished_messages_and_judges_only_what_they_cannot_change() {
    use tailor::engine::{Progress, Simulation};
    use tailor::measure::record::MemorySink;
    let dir = tempfile::tempdir().unwrap();
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/quickstart.toml")).unwrap();
    let slos = "slo = [\n  { sli = \"p99\", max_size = \"125KB\", threshold = 4.0 },\n  { sli = \"p99\", min_size = \"125KB\", threshold = 20.0 },\n  \
                { sli = \"p50\", min_size = \"125KB\", threshold = 1000.0 },\n  { sli = \"p90\", threshold = 1.05 },\n  \
                { sli = \"mean\", threshold = 1000.0 },\n  { sli = \"mean\", min_size = \"1MB\", threshold = 1.01 },\n]\n";
    let start = text.find("slo = [").unwrap();
    let end = start + text[start..].find("]\n").unwrap() + 2;
    let mut text = text.clone();
    text.replace_range(start..end, slos);
    let sc = common::scenario(&text, dir.path());
    let sink = std::sync::Arc::new(std::sync::Mutex::new(MemorySink::default()));
    let mut sim = Simulation::new(sc.build(1).unwrap(), Box::new(common::SharedSink(sink.clone()))).unwrap();
    let stop = tailor::sim::Time::from_ns(80_000_000);
    sim.set_stop(Some(stop));
    sim.run(&mut |_: &Progress| true).unwrap();
    let at_stop = sim.report();
    let done_at_stop = sink.lock().unwrap().0.len();
    sim.set_stop(None);
    sim.run(&mut |_: &Progress| true).unwrap();
    let recs = std::mem::take(&mut sink.lock().unwrap().0);
    let (done, late): (Vec<_>, Vec<_>) =
        (recs[..done_at_stop].to_vec(), recs[done_at_stop..].iter().filter(|m| m.start <= stop).copied().collect());
    let m = &at_stop.messages;
    assert!(m.incomplete > 0 && m.completed > 0, "the stop leaves messages unfinished: {m:?}");
    assert_eq!(late.len() as u64, m.incomplete, "the continued run finishes exactly the unfinished");
    assert_eq!(m.incomplete_bytes, Some(late.iter().map(|r| r.size).sum()));
    let web = &at_stop.classes["websearch"];
    let late_web: Vec<_> = late.iter().filter(|r| r.class.index() == 0).collect();
    assert_eq!((web.incomplete, web.incomplete_bytes), (late_web.len() as u64, late_web.iter().map(|r| r.size).sum()));
    assert_eq!(
        web.incomplete + at_stop.classes["rpc"].incomplete,
        m.incomplete,
        "no warm-up: every unfinished message is a class's"
    );
    let stats = ["p99", "p99", "p50", "p90", "mean", "mean"];
    let mut seen = Vec::new();
    for (k, rep) in web.slo.iter().enumerate() {
        let in_range =
            |r: &&tailor::measure::MessageRecord| r.class.index() == 0 && sc.classes[0].slos[k].covers(r.size);
        assert_eq!(rep.count, done.iter().filter(in_range).count() as u64, "{}", rep.sli);
        assert_eq!(rep.incomplete, late.iter().filter(in_range).count() as u64, "{}", rep.sli);
        let all: Vec<f64> = done.iter().chain(&late).filter(in_range).map(|r| r.slowdown()).collect();
        let truth = sli(stats[k], all) <= rep.threshold;
        match rep.met {
            Some(met) => assert_eq!(met, truth, "{}: a verdict the unfinished could change ({rep:?})", rep.sli),
            None => assert!(
                rep.reason
                    .as_deref()
                    .is_some_and(|r| r.ends_with("needed") || rep.incomplete > 0 && r.ends_with("unfinished at stop")),
                "{rep:?}"
            ),
        }
        seen.push((rep.met, rep.incomplete > 0));
    }
    assert!(seen.contains(&(None, true)), "an SLO left open by its unfinished messages: {seen:?}");
    assert!(seen.contains(&(Some(false), true)), "an SLO its unfinished messages miss alone: {seen:?}");
    assert!(seen.contains(&(Some(true), true)), "an SLO met whatever its unfinished finish at: {seen:?}");
}
