//! Streaming measurement: one record per completed message, written as it completes,
//! and online histograms for the summaries; optionally, queue occupancy (`queues`) and
//! the run's progress (`progress`: generated, completed, delivered bytes) sampled over
//! time, also streamed. Memory is bounded by the number of classes, bins and
//! sampled ports, never by the number of messages or samples.

pub mod counters;
pub mod ideal;
pub mod parquet;
pub mod progress;
pub mod queues;
pub mod record;
pub mod slo;
pub mod stats;
pub mod summary;

pub use record::{MessageRecord, RecordSink};
pub use stats::SlowdownStats;
pub use summary::{ClassSummary, Recorder};
