//! The size tables tailor ships, by name, and where to find them.
//!
//! The files live in the repository's `workloads/` directory (its README lists each
//! file's source, mean and default reading; each file's header carries its provenance).
//! A name maps to a file and to the reading of the simulator that published the table:
//! linear for HPCC's and pFabric's tables (HPCC `traffic_gen`, PIAS ns-2
//! `INTER_INTEGRAL`), step for Homa's W1–W5 (HomaSimulation OMNeT++).

use std::path::{Path, PathBuf};

use super::sizes::{Cdf, Interpolation};
use super::WorkloadError;

use Interpolation::{Linear, Step};

/// (name, file, default reading). Short names first, then each file's own stem.
const BUILTINS: &[(&str, &str, Interpolation)] = &[
    ("websearch", "hpcc_websearch.cdf", Linear),
    ("hadoop", "hpcc_fb_hadoop.cdf", Linear),
    ("google", "hpcc_google_rpc2008.cdf", Linear),
    ("alistorage", "alistorage2019.cdf", Linear),
    ("w1", "w1_memcached.cdf", Step),
    ("w2", "w2_search.cdf", Step),
    ("w3", "w3_google_all.cdf", Step),
    ("w4", "w4_hadoop.cdf", Step),
    ("w5", "w5_websearch.cdf", Step),
    ("pfabric_websearch", "pfabric_websearch.cdf", Linear),
    ("hpcc_websearch", "hpcc_websearch.cdf", Linear),
    ("hpcc_fb_hadoop", "hpcc_fb_hadoop.cdf", Linear),
    ("hpcc_google_rpc2008", "hpcc_google_rpc2008.cdf", Linear),
    ("alistorage2019", "alistorage2019.cdf", Linear),
    ("w1_memcached", "w1_memcached.cdf", Step),
    ("w2_search", "w2_search.cdf", Step),
    ("w3_google_all", "w3_google_all.cdf", Step),
    ("w4_hadoop", "w4_hadoop.cdf", Step),
    ("w5_websearch", "w5_websearch.cdf", Step),
];

const NAMES: &[&str] = &[
    "websearch",
    "hadoop",
    "google",
    "alistorage",
    "w1",
    "w2",
    "w3",
    "w4",
    "w5",
    "pfabric_websearch",
    "hpcc_websearch",
    "hpcc_fb_hadoop",
    "hpcc_google_rpc2008",
    "alistorage2019",
    "w1_memcached",
    "w2_search",
    "w3_google_all",
    "w4_hadoop",
    "w5_websearch",
];

/// The file (in [`workloads_dir`]) and default reading of a built-in workload.
pub fn builtin(name: &str) -> Option<(&'static str, Interpolation)> {
    BUILTINS.iter().find(|(n, _, _)| *n == name).map(|&(_, f, i)| (f, i))
}

/// Every name [`builtin`] accepts.
pub fn builtin_names() -> &'static [&'static str] {
    NAMES
}

/// Load a built-in table with its default reading, or `interp` if given.
pub fn load_builtin(name: &str, interp: Option<Interpolation>) -> Result<Cdf, WorkloadError> {
    let (file, default) = builtin(name)
        .ok_or_else(|| WorkloadError::UnknownBuiltin { name: name.to_string(), accepted: NAMES.join(", ") })?;
    Cdf::load(&workloads_dir().join(file), interp.unwrap_or(default))
}

/// A file every shipped directory holds; it tells `workloads/` apart from unrelated
/// directories of the same name.
const MARKER: &str = "hpcc_websearch.cdf";

/// The directory of the shipped `.cdf` files, in this order:
/// 1. the environment variable `TAILOR_WORKLOADS`, if set and non-empty (taken as given,
///    so that a wrong value shows up in the error naming the file, not as a silent fallback);
/// 2. the first `workloads/` holding the shipped tables found walking up from the current
///    directory (running from anywhere inside a checkout);
/// 3. `<crate>/../../workloads` from the crate's build-time manifest directory (tests, and
///    binaries run from outside the checkout on the machine that built them);
/// 4. `workloads` relative to the current directory.
pub fn workloads_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("TAILOR_WORKLOADS").filter(|v| !v.is_empty()) {
        return PathBuf::from(dir);
    }
    let from_cwd = std::env::current_dir().ok().and_then(|cwd| find_upwards(&cwd));
    let from_crate = || find_upwards(Path::new(env!("CARGO_MANIFEST_DIR")));
    from_cwd.or_else(from_crate).unwrap_or_else(|| PathBuf::from("workloads"))
}

fn find_upwards(start: &Path) -> Option<PathBuf> {
    start.ancestors().map(|a| a.join("workloads")).find(|d| d.join(MARKER).is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_loads() {
        for name in builtin_names() {
            let cdf = load_builtin(name, None).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(cdf.mean() > 0.0);
        }
        assert_eq!(BUILTINS.len(), NAMES.len());
    }

    #[test]
    fn defaults_follow_the_publishing_simulator() {
        assert_eq!(builtin("websearch"), Some(("hpcc_websearch.cdf", Linear)));
        assert_eq!(builtin("w3"), Some(("w3_google_all.cdf", Step)));
        assert_eq!(builtin("nope"), None);
        let e = load_builtin("nope", None).unwrap_err().to_string();
        assert!(e.contains("w5_websearch"), "{e}");
    }
}
