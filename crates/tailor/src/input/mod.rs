//! Reading input: the located error type, a TOML table reader that knows where it is,
//! the units a value is written in (`"10Gbps"`, `"2us"`, `"64KB"`), and the bounded,
//! interruptible reading of the files a scenario names.
//!
//! A leaf below `scenario` and `transport`: each transport reads its own table with it
//! (its folder holds its schema), and the scenario reader assembles the whole file.

pub mod error;
pub mod files;
pub mod reader;
pub mod units;

pub use error::ScenarioError;
pub use reader::Table;
