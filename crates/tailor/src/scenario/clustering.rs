//! `[decomposed]`: options of the decomposed estimator (docs/decomposed.md,
//! "Clustering"). `cluster` is the tolerance of Parsimon's link clustering (§3.5): links
//! whose loads and message-size and arrival-gap distributions are all within that
//! fraction of a representative's are not simulated but take its delays. Without it (or
//! with "off") every loaded link is simulated. `feedback` (default true) runs the second
//! pass over the host uplinks ("Method", point 5); false leaves the first pass's delays.
//! A packet run ignores the table.

use super::reader::{ScenarioError, Table};
use toml::Value;

/// The largest tolerance accepted: beyond it a link's load could be twice its
/// representative's, which is no longer "alike".
pub const MAX_TOLERANCE: f64 = 0.5;

/// `[decomposed]`: the clustering tolerance (`cluster`), None for no clustering; and
/// whether the second pass runs (`feedback`).
pub fn parse(table: Option<Table>) -> Result<(Option<f64>, bool), ScenarioError> {
    let Some(mut t) = table else { return Ok((None, true)) };
    let eps = match t.peek("cluster") {
        Some(Value::String(_)) => {
            t.choice("cluster", &["off"])?;
            None
        }
        _ => match t.float("cluster", 0.0, MAX_TOLERANCE)? {
            Some(0.0) => {
                let accepted = format!("accepted: \"off\" or a number above 0 up to {MAX_TOLERANCE}");
                return Err(t.error("cluster", format!("0 clusters nothing; {accepted}")));
            }
            e => e,
        },
    };
    let feedback = t.boolean("feedback")?.unwrap_or(true);
    t.finish()?;
    Ok((eps, feedback))
}
