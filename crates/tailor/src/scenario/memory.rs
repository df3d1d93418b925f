//! The memory a run may take here, for the gate that refuses a topology too large to build
//! (`network::check_fits`, docs/scenario.md "Topology size").
//!
//! The gate compares the network's estimate with the memory *available* now — Linux's
//! `MemAvailable` (/proc/meminfo: free memory plus the caches the kernel can drop), or
//! what a cgroup limit leaves (`memory.max − memory.current`), whichever is lower — and
//! not with the machine's total: on a machine whose other processes hold half its memory,
//! the total lets through a run that the kernel then kills. Only a share of it is offered
//! (`USABLE`): the estimate covers the network before the first packet, and the
//! messages in flight, the records and the Python process come on top.
//! Where the system says nothing, the machine's physical memory stands in.

/// The share of the available memory a network's estimate may take (the rest is kept for
/// what the estimate leaves out and for the rest of the machine).
pub const USABLE: f64 = 0.8;

/// What the system says about memory, in bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Memory {
    /// Available to a new process now (MemAvailable, less under a cgroup limit).
    pub available: u64,
}

impl Memory {
    /// The most a network's estimate may need here.
    pub fn usable(self) -> u64 {
        (self.available as f64 * USABLE) as u64
    }
}

/// This machine's memory as the system reports it now, or None where it says nothing.
pub fn here() -> Option<Memory> {
    const CGROUP: [(&str, &str); 2] = [
        ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
        ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"),
    ];
    let read = |p: &str| std::fs::read_to_string(p).ok();
    // "max" (v2) or a huge number (v1) when unlimited: either way no tighter bound.
    let cgroup = CGROUP.iter().find_map(|(max, cur)| cgroup_left(&read(max)?, read(cur).as_deref()));
    let system = read("/proc/meminfo").as_deref().and_then(mem_available).or_else(physical);
    let available = match (system, cgroup) {
        (Some(s), Some(c)) => Some(s.min(c)),
        (s, c) => s.or(c),
    }?;
    Some(Memory { available })
}

/// `MemAvailable` of a /proc/meminfo text, in bytes.
pub fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find_map(|l| l.strip_prefix("MemAvailable:"))?;
    let kb = line.trim().strip_suffix("kB")?.trim().parse::<u64>().ok()?;
    kb.checked_mul(1024)
}

/// What a cgroup's limit leaves, from its limit file and (if readable) its usage file.
fn cgroup_left(max: &str, current: Option<&str>) -> Option<u64> {
    let max = max.trim().parse::<u64>().ok()?;
    let used = current.and_then(|c| c.trim().parse::<u64>().ok()).unwrap_or(0);
    Some(max.saturating_sub(used))
}

/// This machine's physical memory in bytes, where the system says.
fn physical() -> Option<u64> {
    #[cfg(unix)]
    {
        // SAFETY: sysconf only reads system configuration.
        let (pages, size) = unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
        if pages > 0 && size > 0 {
            return Some(pages as u64 * size as u64);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const MEMINFO: &str =
        "MemTotal:       24684084 kB\nMemFree:        22334656 kB\nMemAvailable:   12000000 kB\nBuffers: 1 kB\n";

    #[test]
    fn available_is_read_from_meminfo_not_the_total() {
        assert_eq!(mem_available(MEMINFO), Some(12_000_000 * 1024));
        assert_eq!(mem_available("MemTotal: 5 kB\n"), None);
    }

    #[test]
    fn a_cgroup_leaves_its_limit_less_its_usage() {
        assert_eq!(cgroup_left("1000\n", Some("300\n")), Some(700));
        assert_eq!(cgroup_left("max\n", Some("300\n")), None);
        assert_eq!(cgroup_left("100", Some("300")), Some(0));
    }

    #[test]
    fn only_a_share_of_the_available_memory_is_offered() {
        assert_eq!(Memory { available: 10_000 }.usable(), 8_000);
    }

    #[test]
    fn this_machine_reports_some_memory() {
        let m = here().expect("Linux says");
        assert!(m.available > 0);
    }
}
