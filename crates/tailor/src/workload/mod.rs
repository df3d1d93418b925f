//! Workloads: the messages a run offers to the network, drawn lazily.
//!
//! A traffic class is a [`Source`] of [`MessageSpec`]s in non-decreasing start order.
//! Two kinds exist: [`Generated`] draws sizes ([`sizes`]), gaps ([`arrivals`]) and
//! endpoints ([`pattern`]) from three independent random streams of the run seed, and
//! [`Trace`] replays a CSV file (e.g. the ns-3 anchor's `workload.csv`). Neither holds
//! more than one message at a time, so a run of 10 million messages costs no memory
//! (DESIGN.md, "Workloads are lazy").
//!
//! The shipped size tables and their provenance are in the repository's `workloads/`
//! directory ([`workloads_dir`], [`builtin`]).

pub mod arrivals;
pub mod builtin;
pub mod cdf;
pub mod closed;
pub mod generated;
pub mod pattern;
pub mod sizes;
pub mod trace;

pub use arrivals::{Arrival, Gaps};
pub use builtin::{builtin, builtin_names, load_builtin, workloads_dir};
pub use closed::{ClosedLoop, ClosedSpec};
pub use generated::{GenSpec, Generated};
pub use pattern::{Endpoints, Pattern};
pub use sizes::{Cdf, Interpolation, SizeDist};
pub use trace::{Scan, Trace};

use crate::ids::{ClassId, HostId};
use crate::sim::Time;

/// One message to send: `size` bytes from `src` to `dst`, handed to the sender's
/// transport at `start`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct MessageSpec {
    /// The message's own id (a trace's `flow_id`); None: the engine numbers it.
    pub id: Option<u64>,
    pub start: Time,
    pub src: HostId,
    pub dst: HostId,
    pub size: u64,
    pub class: ClassId,
    /// For a request of an RPC class: the size of the response its arrival triggers.
    pub response: Option<u64>,
    /// The persistent connection it goes on (`transport::Message::channel`).
    pub channel: Option<crate::ids::Channel>,
}

/// Why a workload could not be read or built. Every variant names the file and line, or
/// the scenario key, it is about.
#[derive(thiserror::Error, Debug)]
pub enum WorkloadError {
    #[error("{file}: line {line}: {msg}")]
    Cdf { file: String, line: usize, msg: String },
    #[error("{file}: {msg}")]
    CdfFile { file: String, msg: String },
    /// A trace row (or its header, line 1) at fault; `column` is empty when the row as a
    /// whole is (a short row).
    #[error("{file}: line {line}{}: {msg}", at_column(.column))]
    Trace { file: String, line: u64, column: &'static str, msg: String },
    #[error("{file}: {source}")]
    Io { file: String, source: std::io::Error },
    #[error("{key}: {msg}")]
    Spec { key: String, msg: String },
    /// A file that cannot be an input (special, too large, a line too long), with what
    /// is accepted (`input::files::Refused`).
    #[error("{0}")]
    Refused(String),
    #[error("unknown workload \"{name}\"; accepted: {accepted}")]
    UnknownBuiltin { name: String, accepted: String },
}

fn at_column(column: &str) -> String {
    if column.is_empty() {
        String::new()
    } else {
        format!(", {column}")
    }
}

/// A lazy source of messages in non-decreasing start order (never all in memory).
pub trait Source {
    /// The next message, `Ok(None)` once the source is exhausted (or, for a closed-loop
    /// source, until an RPC it issued is done).
    fn next_message(&mut self) -> Result<Option<MessageSpec>, WorkloadError>;
    /// An RPC this source issued from `client` is done at `at` (its response arrived
    /// whole). True if the source may have a message again (a closed loop's next
    /// request); open-loop sources do not listen and say false.
    fn rpc_done(&mut self, client: HostId, at: Time) -> bool {
        let _ = (client, at);
        false
    }
}

impl<S: Source + ?Sized> Source for Box<S> {
    fn next_message(&mut self) -> Result<Option<MessageSpec>, WorkloadError> {
        (**self).next_message()
    }
    fn rpc_done(&mut self, client: HostId, at: Time) -> bool {
        (**self).rpc_done(client, at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The engine keeps classes as `Box<dyn Source + Send>` (runs go to worker threads).
    #[test]
    fn sources_are_send() {
        fn send<T: Send>() {}
        send::<Generated>();
        send::<Trace>();
        send::<Box<dyn Source + Send>>();
    }
}
