//! `[run]`: when a run stops, what it leaves out as warm-up, its size bins and its memory
//! limit (docs/scenario.md).

use super::classes;
use crate::input::reader::Table;
use crate::input::ScenarioError;
use crate::sim::Time;

/// The keys of `[run]`.
pub(super) struct RunKeys {
    pub stop: Option<Time>,
    pub warmup: Time,
    pub bins: Option<Vec<u64>>,
    pub memory_limit: Option<u64>,
}

pub(super) fn run_keys(root: &mut Table) -> Result<RunKeys, ScenarioError> {
    let Some(mut r) = root.table("run")? else {
        return Ok(RunKeys { stop: None, warmup: Time::ZERO, bins: None, memory_limit: None });
    };
    let keys = RunKeys {
        stop: r.time("stop")?,
        warmup: r.time("warmup")?.unwrap_or(Time::ZERO),
        bins: classes::bins(&mut r)?,
        memory_limit: memory_limit(&mut r)?,
    };
    r.finish()?;
    Ok(keys)
}

/// `[run] memory_limit`: a size of at least 1 MB.
fn memory_limit(r: &mut Table) -> Result<Option<u64>, ScenarioError> {
    match r.size("memory_limit")? {
        Some(b) if b < 1_000_000 => {
            Err(r.error("memory_limit", format!("\"{b}B\" is too small; accepted: a size of at least \"1MB\"")))
        }
        v => Ok(v),
    }
}
