//! The error of input that cannot be used, and exactly where it is wrong.
//!
//! A leaf type: the scenario reader, the transports' own tables and the engine's
//! `RunError` all name it, and none of them has to import another to do so.

use std::fmt;

/// A scenario that cannot be run, and exactly where it is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    pub file: String,
    /// Dotted key path; empty for errors about the whole file (syntax).
    pub path: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}: {}: {}", self.file, self.path, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}
