//! Whether a scenario's horizon gives each SLO the messages its statistic needs to be a
//! result, estimated before anything runs (docs/advisor.md, "Too few messages to judge").
//!
//! A pN is judged only with `samples_needed(N)` messages in its size range (p99: 100;
//! `measure::slo`, docs/results.md "SLO verdicts"); SWP §5.2 judges the messages up to the
//! BDP and above it apart, and the ranges above it are rare. Per SLO of a generated class
//! with an open-loop rate, the expected count is the share of the class's size
//! distribution in the SLO's range (as the engine samples it, `SizeDist::expect`) times
//! its mean arrival rate (the engine's own `mean_gap_ns`) times the time its messages are
//! counted: from the later of its `start` and the run's warm-up to the earlier of its
//! `until`, the run's `stop` and the arrival of its last message (`messages`). The mean,
//! not a bound: a bursty class (log-normal σ = 2) falls short of it often; the advisor
//! refuses what fails even in the mean. Trace classes, closed loops and responses are not
//! estimated (their counts are not known ahead of the run).

use crate::scenario::classes::{ClassKind, Offered};
use crate::scenario::Scenario;
use crate::workload::generated::mean_gap_ns;
use serde::Serialize;

/// One SLO's expected count of messages over the scenario's horizon.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Expected {
    pub class: String,
    /// The class's position and the SLO's among its SLOs (`class[i].slo[j]`).
    pub class_index: usize,
    pub slo_index: usize,
    /// "p99 slowdown of messages in (125000 B, inf]".
    pub sli: String,
    /// The share of the class's messages in the SLO's range.
    pub share: f64,
    /// Messages in range per second (the class's mean rate times the share).
    pub per_s: f64,
    /// When its messages start being counted, and stop arriving (ns).
    pub from_ns: f64,
    pub to_ns: f64,
    /// What ends the window: "until", "stop" or "messages".
    pub limited_by: &'static str,
    pub expected: f64,
    pub needed: u64,
    /// The class's `until` (ns, absolute as the file writes it) whose window would hold
    /// `needed` messages in the mean (None: no message falls in the range).
    pub until_needed_ns: Option<f64>,
}

/// Every SLO of a generated open-loop class (its window ends: an `until`, a `stop` or a
/// `messages` count, as the scenario reader requires), in class order.
pub fn expected_counts(sc: &Scenario) -> Vec<Expected> {
    let mut out = Vec::new();
    for (i, c) in sc.classes.iter().enumerate() {
        let ClassKind::Generated { sizes, offered, pattern, count, until, start, wire_load, .. } = &c.kind else {
            continue;
        };
        let (load, rate) = match offered {
            Offered::Rate(r) => (1.0, *r),
            Offered::Load(l) => (*l, sc.reference_rate(pattern)),
            Offered::Closed { .. } => continue,
        };
        let gap_ns = mean_gap_ns(sc.mean_bytes(i, *wire_load), load, rate.bps());
        if !(gap_ns.is_finite() && gap_ns > 0.0) {
            continue;
        }
        let start_ns = start.as_ns_f64();
        let from_ns = start_ns.max(sc.warmup.as_ns_f64());
        let ends = [
            (until.map(|t| t.as_ns_f64()), "until"),
            (sc.stop.map(|t| t.as_ns_f64()), "stop"),
            (count.map(|n| start_ns + n as f64 * gap_ns), "messages"),
        ];
        let Some((to_ns, limited_by)) =
            ends.iter().filter_map(|&(t, why)| t.map(|t| (t, why))).min_by(|a, b| a.0.total_cmp(&b.0))
        else {
            continue; // no end (the scenario reader refuses it; kept for a caller's own scenario)
        };
        for (j, slo) in c.slos.iter().enumerate() {
            let share = sizes.expect(|s| if slo.covers(s) { 1.0 } else { 0.0 });
            let per_s = share / gap_ns * 1e9;
            let needed = slo.stat.samples_needed();
            out.push(Expected {
                class: c.name.clone(),
                class_index: i,
                slo_index: j,
                sli: slo.describe(),
                share,
                per_s,
                from_ns,
                to_ns,
                limited_by,
                expected: per_s * ((to_ns - from_ns).max(0.0) / 1e9),
                needed,
                until_needed_ns: (per_s > 0.0).then(|| from_ns + needed as f64 / per_s * 1e9),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn scenario(class: &str, run: &str) -> Scenario {
        let text = format!(
            r#"name = "t"
{run}
[topology]
kind = "star"
hosts = 3
link = {{ rate = "10Gbps" }}
[transport]
kind = "raw"
[[class]]
name = "x"
sizes_fixed = "1000B"
arrival = "poisson"
pattern = "n_to_1"
senders = "0..2"
receiver = 2
slo = [{{ sli = "p99", threshold = 5.0 }}, {{ sli = "p99", min_size = "1000B", threshold = 5.0 }}]
{class}
"#
        );
        Scenario::resolve_text(&text, "t.toml", Path::new("."), &[]).unwrap().scenario
    }

    #[test]
    fn the_count_is_the_rate_in_range_times_the_counted_window() {
        // 8 Gbps of 1000 B messages: 1e6 per second; counted from the warm-up (2 ms) to until (12 ms).
        let e = expected_counts(&scenario(
            "rate = \"8Gbps\"\nstart = \"1ms\"\nuntil = \"12ms\"",
            "[run]\nwarmup = \"2ms\"",
        ));
        assert_eq!(e.len(), 2);
        assert!((e[0].expected - 10_000.0).abs() < 1e-6 && e[0].needed == 100 && e[0].limited_by == "until");
        assert!((e[0].until_needed_ns.unwrap() - 2.1e6).abs() < 1e-3);
        // No message is above 1000 B: none expected, no horizon gives one.
        assert_eq!((e[1].expected, e[1].until_needed_ns), (0.0, None));
    }

    #[test]
    fn a_load_a_stop_and_a_message_count_end_the_window() {
        // load 0.4 of the receiver's 10 Gbps: 0.5e6 messages per second.
        let e = expected_counts(&scenario("load = 0.4\nuntil = \"10ms\"", "[run]\nstop = \"4ms\""));
        assert!((e[0].expected - 2_000.0).abs() < 1e-6 && e[0].limited_by == "stop");
        let e = expected_counts(&scenario("load = 0.4\nmessages = 300", ""));
        assert!((e[0].expected - 300.0).abs() < 1e-6 && e[0].limited_by == "messages");
    }
}
