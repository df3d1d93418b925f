//! Which tailor wrote a file: its version, and the signature a file carries to say tailor
//! wrote it. A leaf module, so that `measure` (Parquet's `created_by`) and `output`
//! (`summary.json`'s `tailor_version`) both read it downhill; `output` re-exports both.

pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// How a file says tailor wrote it (as `tailor.outdir.SIGNATURE` in Python): Parquet's
/// `created_by`, HTML's generator tag, the plots' metadata.
pub const SIGNATURE: &str = "written by tailor";
