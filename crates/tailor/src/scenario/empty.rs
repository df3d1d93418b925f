//! Refusing a scenario whose summaries would hold no message.
//!
//! A run that summarises nothing used to print slowdowns of 0.00 and exit 0. What can be
//! decided from the scenario is decided when it is read, so `tailor check` and `tailor
//! run` refuse it alike, naming the key that makes it empty: `run.stop = "0ns"`, a
//! warm-up not before the stop, a class whose `until` is not after its `start`, or
//! whose messages all start after the stop or inside the warm-up, a trace with no row
//! of its class. Traces are read whole for this ([`trace::scan`], the replay's own
//! reader), so every row `run` would refuse is refused here too.
//!
//! What only the run can tell (every message of a `messages = N` class finishing inside
//! the warm-up, or none finishing before the stop) is [`check_result`], applied to the
//! run's report: the run then fails with the same kind of error instead of printing zeros.

use super::units::show_time;
use super::{ClassKind, Scenario, ScenarioError};
use crate::engine::report::RunReport;
use crate::sim::Time;
use crate::workload::{trace, WorkloadError};

/// When the messages of one class start: from `first` to `last` (None: no bound).
struct Window {
    first: Time,
    last: Option<Time>,
}

impl Scenario {
    fn error(&self, path: &str, message: String) -> ScenarioError {
        ScenarioError { file: self.file.clone(), path: path.to_string(), message }
    }

    /// Reads every trace whole (keeping what it found in `traces`) and refuses a
    /// scenario that offers no message to summarise.
    pub(super) fn check_offered(&mut self) -> Result<(), ScenarioError> {
        self.check_run_window()?;
        for i in 0..self.classes.len() {
            let (w, scan) = self.window(i)?;
            self.check_class(i, &w)?;
            self.traces.push(scan);
        }
        Ok(())
    }

    fn check_run_window(&self) -> Result<(), ScenarioError> {
        let Some(stop) = self.stop else { return Ok(()) };
        if stop == Time::ZERO {
            return Err(self.error(
                "run.stop",
                "\"0ns\" stops the run before any message starts; accepted: a positive time".into(),
            ));
        }
        if self.warmup >= stop {
            return Err(self.error(
                "run.warmup",
                format!(
                    "{} is not before run.stop {}, so every message would be left out of the summaries; accepted: a warm-up shorter than run.stop",
                    show_time(self.warmup),
                    show_time(stop)
                ),
            ));
        }
        Ok(())
    }

    /// The start times of class `i`'s messages; a trace is read whole (and validated)
    /// here, and what was found returned beside them.
    fn window(&self, i: usize) -> Result<(Window, Option<trace::Scan>), ScenarioError> {
        let c = &self.classes[i];
        match &c.kind {
            ClassKind::Generated { start, until, .. } => {
                if let Some(u) = until.filter(|u| u <= start) {
                    return Err(self.error(
                        &format!("class[{i}].until"),
                        format!(
                            "{} is not after the class's start {}, so it generates no message; accepted: a time after start",
                            show_time(u),
                            show_time(*start)
                        ),
                    ));
                }
                Ok((Window { first: *start, last: *until }, None))
            }
            ClassKind::Trace { file, receiver } => {
                let n = self.net.shape.host_count();
                let s = trace::scan(file, &c.name, *receiver, n).map_err(|e| self.trace_error(i, e))?;
                let Some(first) = s.first_start else {
                    let what = match s.file_rows {
                        0 => "has no rows".to_string(),
                        n => format!(
                            "has {n} row{} but none of class \"{}\" (its class column)",
                            if n == 1 { "" } else { "s" },
                            c.name
                        ),
                    };
                    return Err(self.error(
                        &format!("class[{i}].trace"),
                        format!(
                            "{} {what}, so the class sends no message; accepted: a trace with a row of the class",
                            file.display()
                        ),
                    ));
                };
                let last = s.last_start;
                Ok((Window { first, last }, Some(s)))
            }
        }
    }

    /// A trace's error, located: a row's at the trace file, line and column; a missing
    /// default receiver at the class's key; an unreadable file at `class[i].trace`.
    fn trace_error(&self, i: usize, e: WorkloadError) -> ScenarioError {
        match e {
            WorkloadError::Trace { file, line, column, msg } => {
                let path = if column.is_empty() { format!("line {line}") } else { format!("line {line}, {column}") };
                ScenarioError { file, path, message: msg }
            }
            WorkloadError::Spec { key, msg } => self.error(&format!("class[{i}].{key}"), msg),
            other => self.error(&format!("class[{i}].trace"), other.to_string()),
        }
    }

    fn check_class(&self, i: usize, w: &Window) -> Result<(), ScenarioError> {
        let trace = matches!(self.classes[i].kind, ClassKind::Trace { .. });
        if let Some(stop) = self.stop.filter(|&s| w.first >= s) {
            let (key, what) = if trace {
                (
                    "run.stop".to_string(),
                    format!("{} is not after class[{i}]'s first message, at {}", show_time(stop), show_time(w.first)),
                )
            } else {
                (
                    format!("class[{i}].start"),
                    format!("{} is not before run.stop {}", show_time(w.first), show_time(stop)),
                )
            };
            return Err(self.error(
                &key,
                format!("{what}, so the class sends nothing before the run stops; accepted: a start before the stop"),
            ));
        }
        match w.last {
            Some(last) if self.warmup > Time::ZERO && (last < self.warmup || !trace && last <= self.warmup) => {
                let (key, what) = if trace {
                    (
                        "run.warmup".to_string(),
                        format!(
                            "{} is after class[{i}]'s last message, at {}",
                            show_time(self.warmup),
                            show_time(last)
                        ),
                    )
                } else {
                    (
                        format!("class[{i}].until"),
                        format!("{} is not after run.warmup {}", show_time(last), show_time(self.warmup)),
                    )
                };
                Err(self.error(
                    &key,
                    format!("{what}, so every message of the class starts inside the warm-up and none is summarised; accepted: a warm-up that ends before the class's last message"),
                ))
            }
            _ => Ok(()),
        }
    }
}

/// Refuses a finished run whose summaries hold no message: it fails naming the key that
/// emptied it (`run.stop` when nothing completed by the stop, a class's `until` when no
/// message started before it, `run.warmup` when everything that completed started
/// inside the warm-up) rather than printing statistics of nothing.
pub fn check_result(sc: &Scenario, report: &RunReport) -> Result<(), ScenarioError> {
    let m = &report.messages;
    if report.overall.slowdown.count > 0 {
        return Ok(());
    }
    if m.completed > 0 {
        return Err(sc.error(
            "run.warmup",
            format!(
                "all {} messages that completed started inside the warm-up ({}), so none is summarised; accepted: a shorter warm-up, or more messages",
                m.completed,
                show_time(sc.warmup)
            ),
        ));
    }
    if m.generated == 0 {
        if let Some((i, until)) = sc.classes.iter().enumerate().find_map(|(i, c)| match c.kind {
            ClassKind::Generated { until: Some(u), .. } => Some((i, u)),
            _ => None,
        }) {
            return Err(sc.error(
                &format!("class[{i}].until"),
                format!(
                    "no message started by {} (gaps are drawn at random), so there is nothing to summarise; accepted: a later until, or a higher load",
                    show_time(until)
                ),
            ));
        }
    }
    let (path, by) = match sc.stop {
        Some(stop) => ("run.stop", format!(" by {}", show_time(stop))),
        None => ("class", String::new()),
    };
    Err(sc.error(
        path,
        format!(
            "no message completed{by} ({} started), so there is nothing to summarise; accepted: {}",
            m.generated,
            if sc.stop.is_some() { "a later stop" } else { "a scenario whose messages complete" }
        ),
    ))
}
