//! The one mapping from engine errors to Python exceptions.
//!
//! The exception classes live in Python (`tailor.errors`) so that they can be caught,
//! subclassed and documented there; this module only instantiates them, passing every
//! field as data (file, key path, message) rather than one formatted string
//! (STYLE.md, "Errors and the Python boundary"; polars `polars-python/src/error.rs`).

use pyo3::prelude::*;
use tailor::engine::RunError;
use tailor::scenario::ScenarioError;
use tailor::workload::WorkloadError;

/// Everything the bindings can fail with before it becomes a Python exception.
pub enum Error {
    Scenario(ScenarioError),
    Workload(WorkloadError),
    Io(std::io::Error),
    Cancelled,
    /// A run stopped for making no progress (`tailor::engine::stall`).
    Stalled(tailor::engine::stall::Stall),
    /// A run stopped for holding more memory than its limit (`tailor::engine::memory`).
    Memory(tailor::engine::memory::Exceeded),
    /// A run stopped at a PFC deadlock (`tailor::engine::pfc`).
    Deadlock(tailor::engine::control::Deadlocked),
    /// An exception raised by Python code the engine called back (the progress
    /// callback, or a signal handler such as Ctrl-C's): re-raised unchanged.
    Python(PyErr),
}

impl From<ScenarioError> for Error {
    fn from(e: ScenarioError) -> Self {
        Error::Scenario(e)
    }
}

impl From<RunError> for Error {
    fn from(e: RunError) -> Self {
        match e {
            RunError::Workload(w) => Error::Workload(w),
            RunError::Io(io) => Error::Io(io),
            RunError::Cancelled => Error::Cancelled,
            RunError::Scenario(s) => Error::Scenario(s),
            RunError::Stalled(s) => Error::Stalled(s),
            RunError::Memory(m) => Error::Memory(m),
            RunError::Deadlock(d) => Error::Deadlock(d),
        }
    }
}

impl Error {
    /// The Python exception for this error: an instance of a `tailor.errors` class.
    pub fn into_py_err(self, py: Python<'_>) -> PyErr {
        let made = match self {
            Error::Python(e) => return e,
            Error::Scenario(e) => raise(py, "ScenarioError", (e.file, e.path, e.message)),
            Error::Workload(e) => raise(py, "WorkloadError", (e.to_string(),)),
            Error::Io(e) => raise(py, "RunError", (e.to_string(), format!("{:?}", e.kind()))),
            Error::Cancelled => raise(py, "Cancelled", ("the run was cancelled by the caller",)),
            Error::Stalled(s) => {
                let (from, to) = (s.from.as_secs_f64(), s.to.as_secs_f64());
                raise(py, "Stalled", (s.to_string(), from, to, s.events, s.active))
            }
            Error::Memory(m) => raise(py, "MemoryExceeded", (m.to_string(), m.used, m.limit.bytes, m.active, m.queued)),
            Error::Deadlock(d) => {
                let ports: Vec<usize> = d.stuck.ports.iter().map(|p| p.index()).collect();
                raise(py, "Deadlock", (d.to_string(), d.stuck.at.as_secs_f64(), d.stuck.priority, ports, d.active))
            }
        };
        made.unwrap_or_else(|import_failed| import_failed)
    }
}

/// Instantiates `tailor.errors.<name>(*args)` as a `PyErr`.
fn raise<'py, A>(py: Python<'py>, name: &str, args: A) -> PyResult<PyErr>
where
    A: pyo3::call::PyCallArgs<'py>,
{
    let class = py.import("tailor.errors")?.getattr(name)?;
    Ok(PyErr::from_value(class.call1(args)?))
}
