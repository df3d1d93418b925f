//! `[advise]`: the transport advisor's table (docs/advisor.md, "Which transport meets my
//! SLO?"), checked by the strict reader like every other table, so that a typo in it is
//! refused by `tailor run` and `tailor check` as by `tailor advise`.
//!
//! ```toml
//! [advise]
//! transports = ["dctcp"]           # the default of --transports
//! seeds = 3                        # seeds per load
//! loads = [0.1, 0.9]               # the search's bounds on the total offered load
//! tolerance = 0.02                 # stop when passing and failing loads are this close
//!
//! [advise.candidate.dctcp]
//! transport = { kind = "dctcp", init_cwnd = "bdp" }   # replaces [transport] whole
//! switch = { ecn_threshold = "65KB" }                  # sets these keys of [switch]
//! ```
//!
//! Here are the table's keys and values, and each candidate's shape and transport kind
//! (the registry's, `transport::registry`); the keys inside a candidate's `transport`,
//! `switch`, `host` and `routing` are read when the advisor applies the candidate to the
//! scenario, by the readers of those tables. A run does not use `[advise]`, and
//! `Resolved` leaves it out of what identifies a run. The Python advisor
//! (`tailor/transport_advisor/candidates.py`) reads the values this has accepted.

use super::reader::{type_name, Table};
use super::ScenarioError;
use crate::transport::registry;
use toml::Value;

/// The most seeds per load (each is a run at every load probed).
pub const MAX_SEEDS: i64 = 100;
/// The bisection's tolerance, as a load: at least, at most.
pub const TOLERANCE: (f64, f64) = (0.001, 0.5);
/// A candidate's keys: the scenario tables it sets, and whether its transport's needs are set.
pub const CANDIDATE_KEYS: &[&str] = &["transport", "switch", "host", "routing", "defaults"];

/// A candidate's or transport's name: it names files and scenarios, so letters, digits,
/// `_` and `-`, at most 40.
fn is_name(s: &str) -> bool {
    (1..=40).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Float(f) if f.is_finite() => Some(*f),
        Value::Integer(i) => Some(*i as f64),
        _ => None,
    }
}

/// Checks a scenario's `[advise]` table (absent: nothing to check).
pub fn check(t: Option<Table>) -> Result<(), ScenarioError> {
    let Some(mut t) = t else { return Ok(()) };
    let candidates = candidates(&mut t)?;
    t.get("seeds", |v| match v.as_integer() {
        Some(n) if (1..=MAX_SEEDS).contains(&n) => Ok(()),
        _ => Err(format!("{v} is out of range; accepted: an integer from 1 to {MAX_SEEDS} (seeds per load)")),
    })?;
    let loads =
        t.get("loads", |v| match v.as_array().map(|a| a.iter().map(number).collect::<Vec<_>>()).as_deref() {
            Some(&[Some(lo), Some(hi)]) if 0.0 < lo && lo < hi => Ok((lo, hi)),
            _ => Err(format!("{v} is not accepted; accepted: two loads [LO, HI] with 0 < LO < HI")),
        })?;
    let (lo, hi) = TOLERANCE;
    let tolerance = t.get("tolerance", |v| match number(v) {
        Some(x) if (lo..=hi).contains(&x) => Ok(x),
        _ => Err(format!("{v} is out of range; accepted: a load from {lo} to {hi}")),
    })?;
    if let (Some((lo, hi)), Some(tol)) = (loads, tolerance) {
        if tol >= hi - lo {
            return Err(t.error(
                "tolerance",
                format!("{tol} is not below the width of advise.loads {lo}-{hi}; accepted: a tolerance below HI - LO"),
            ));
        }
    }
    t.get("transports", |v| transports(v, &candidates))?;
    t.finish()
}

/// `transports`: distinct names, each the registry's or a candidate's.
fn transports(v: &Value, candidates: &[String]) -> Result<(), String> {
    let names: Option<Vec<&str>> = v.as_array().and_then(|a| a.iter().map(Value::as_str).collect());
    let names = match names {
        Some(n) if !n.is_empty() => n,
        _ => return Err(format!("is {}; accepted: a non-empty array of names such as [\"homa\"]", type_name(v))),
    };
    let build = registry::names();
    for (i, name) in names.iter().enumerate() {
        if !is_name(name) {
            return Err(format!("\"{name}\" is not a name; accepted: letters, digits, _ and -"));
        }
        if names[..i].contains(name) {
            return Err("a name is given twice; accepted: distinct names".into());
        }
        if !build.contains(name) && !candidates.iter().any(|c| c == name) {
            let defined = if candidates.is_empty() {
                " (none defined)".to_string()
            } else {
                format!(": {}", candidates.join(", "))
            };
            return Err(format!(
                "unknown transport \"{name}\"; accepted: the transports of this build ({}) or a candidate of \
                 [advise.candidate]{defined}",
                build.join(", ")
            ));
        }
    }
    Ok(())
}

/// `[advise.candidate.NAME]`: each a table of [`CANDIDATE_KEYS`] with a transport this
/// build has. Returns the names.
fn candidates(t: &mut Table) -> Result<Vec<String>, ScenarioError> {
    let Some(c) = t.table("candidate")? else { return Ok(Vec::new()) };
    let v = t.peek("candidate").and_then(Value::as_table).expect("table() read a table");
    let mut names = Vec::new();
    for (name, body) in v {
        let at = |key: &str| if key.is_empty() { name.clone() } else { format!("{name}.{key}") };
        if !is_name(name) {
            return Err(c.error(&at(""), "is not a name; accepted: letters, digits, _ and - (at most 40)"));
        }
        let Some(body) = body.as_table() else {
            let sections = CANDIDATE_KEYS[..4].join(", ");
            return Err(c.error(&at(""), format!("is {}; accepted: a table with {sections} tables", type_name(body))));
        };
        for (key, value) in body {
            match key.as_str() {
                "defaults" if value.as_bool().is_none() => {
                    let what = "accepted: true or false (whether the transport's needs are set)";
                    return Err(c.error(&at(key), format!("is {}; {what}", type_name(value))));
                }
                "defaults" => {}
                k if CANDIDATE_KEYS.contains(&k) && !value.is_table() => {
                    let what = format!("accepted: a table of [{k}] keys");
                    return Err(c.error(&at(key), format!("is {}; {what}", type_name(value))));
                }
                k if CANDIDATE_KEYS.contains(&k) => {}
                _ => {
                    let accepted = CANDIDATE_KEYS.join(", ");
                    return Err(c.error(&at(key), format!("unknown key; accepted keys here: {accepted}")));
                }
            }
        }
        // Its transport's kind is its name unless its `transport` table says another.
        let kind = body.get("transport").and_then(|tr| tr.get("kind"));
        let build = registry::names();
        let known = match kind {
            None => build.contains(&name.as_str()),
            Some(k) => k.as_str().is_some_and(|k| build.contains(&k)),
        };
        if !known {
            let given = kind.map_or(format!("\"{name}\""), Value::to_string);
            return Err(c.error(
                &at("transport.kind"),
                format!("unknown transport {given}; accepted: the transports of this build: {}", build.join(", ")),
            ));
        }
        names.push(name.clone());
    }
    Ok(names)
}
