//! Streaming measurement: one record per completed message, written as it completes,
//! and online histograms for the summaries. Memory is bounded by the number of classes
//! and bins, never by the number of messages.

pub mod ideal;
pub mod record;
pub mod slo;
pub mod stats;
pub mod summary;

pub use record::{MessageRecord, RecordSink};
pub use stats::SlowdownStats;
pub use summary::{ClassSummary, Recorder};
