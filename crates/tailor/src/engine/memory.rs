//! The guard that stops a run before it takes more memory than it may (docs/scenario.md,
//! "Memory"; docs/performance.md, "Where tailor runs out").
//!
//! A scenario is refused before it runs when its estimate does not fit
//! (`scenario::capacity`), but the estimate is an expectation: an incast, a load above
//! what the fabric carries, or a transport whose windows grow without bound can hold far
//! more packets and messages than it expects. The guard reads the process's resident
//! memory (`/proc/self/statm`, one small read) where the loop reports progress (every
//! 2^16 events, as the stall watchdog does) and ends the run with [`Exceeded`] once it is
//! over the limit, long before the machine swaps: at a thousand hosts 2^16 events are a
//! few milliseconds of computing, in which a run allocates megabytes, not gigabytes. It
//! only reads, so a run under its limit computes exactly what it computed without it.

use crate::net::Network;
use crate::sim::Time;

/// The memory limit a run is held to, and how the limit was chosen (for the message); and
/// the least memory the machine must keep available ([`Floor`]).
#[derive(Clone, Debug, Default)]
pub struct Guard {
    limit: Option<Limit>,
    floor: Option<Floor>,
}

/// The machine's side: a limit on one process does not keep several runs at once (a
/// sweep's points, other users) from taking the machine's memory together, so the run
/// also stops when the memory the machine has available falls under `bytes`.
#[derive(Clone, Debug)]
pub struct Floor {
    pub bytes: u64,
    /// Reads the memory available now (`scenario::memory::here`, from the caller: the
    /// engine reads no scenario).
    pub available: fn() -> Option<u64>,
}

/// A limit on the process's resident memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limit {
    pub bytes: u64,
    /// Where the limit comes from ("[run] memory_limit", "80 % of the memory available
    /// when the run started").
    pub source: String,
}

/// A run stopped for taking more memory than its limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exceeded {
    pub at: Time,
    pub events: u64,
    /// Resident memory when stopped, bytes.
    pub used: u64,
    pub limit: Limit,
    pub active: u64,
    /// Packets held in port queues, on links and in hosts' stages.
    pub queued: u64,
    /// Set when it was the machine that ran short: what it had available, and the floor.
    pub machine: Option<(u64, u64)>,
}

impl Guard {
    /// A guard holding the run to `limit` (None: no check).
    pub fn new(limit: Option<Limit>) -> Guard {
        Guard { limit, floor: None }
    }

    /// This guard, also stopping the run when the machine's available memory falls under
    /// `floor`.
    pub fn with_floor(self, floor: Floor) -> Guard {
        Guard { floor: Some(floor), ..self }
    }

    /// Called every 2^16 events: Err when the process holds more than the limit, or the
    /// machine has less available than the floor.
    pub fn check(&self, now: Time, events: u64, active: usize, net: &Network) -> Result<(), Exceeded> {
        let Some(limit) = &self.limit else { return Ok(()) };
        let Some(used) = resident() else { return Ok(()) };
        let short = self.floor.as_ref().and_then(|f| (f.available)().filter(|a| *a < f.bytes).map(|a| (a, f.bytes)));
        if used <= limit.bytes && short.is_none() {
            return Ok(());
        }
        let (active, queued) = (active as u64, queued(net));
        Err(Exceeded { at: now, events, used, limit: limit.clone(), active, queued, machine: short })
    }
}

/// Packets the network holds: in port queues, on the wires, in hosts' transmit and
/// receive stages.
pub fn queued(net: &Network) -> u64 {
    let ports: usize = net.ports.iter().map(|p| p.queued_packets()).sum();
    let links: usize = net.links.iter().map(|l| l.on_wire()).sum();
    let hosts: usize = net.hosts.iter().map(|h| h.tx_pipe.len() + h.rx_pipe.len()).sum();
    (ports + links + hosts) as u64
}

/// This process's resident memory in bytes (Linux: `/proc/self/statm`'s second field, in
/// pages), or None where the system does not say.
pub fn resident() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * page_size())
}

fn page_size() -> u64 {
    #[cfg(unix)]
    {
        // SAFETY: sysconf only reads system configuration.
        let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        if size > 0 {
            return size as u64;
        }
    }
    4096
}

impl std::fmt::Display for Exceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let why = match self.machine {
            Some((available, floor)) => format!(
                "the machine had {} available, under the {} a run keeps free (other processes took it), while the run \
                 held {} of its limit of {} ({})",
                gb(available),
                gb(floor),
                gb(self.used),
                gb(self.limit.bytes),
                self.limit.source
            ),
            None => format!(
                "it held {} of memory, over its limit of {} ({})",
                gb(self.used),
                gb(self.limit.bytes),
                self.limit.source
            ),
        };
        write!(
            f,
            "the run was stopped at {:.3} ms of simulated time ({} events): {why}, with {} messages active and {} \
             packets queued in the network; nothing was written. \
             accepted: a higher limit ([run] memory_limit or --memory-limit) where the machine has it, \
             or less in flight (a lower load, fewer hosts, a bounded NIC queue: [host] buffer)",
            self.at.as_secs_f64() * 1e3,
            self.events,
            self.active,
            self.queued,
        )
    }
}

/// Bytes for a person: "1.23 GB" or "45.6 MB".
pub fn gb(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.2} GB", b / 1e9)
    } else {
        format!("{:.1} MB", b / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_has_a_resident_size() {
        let r = resident().expect("Linux says");
        assert!(r > 1 << 20 && r < 1 << 40, "{r}");
    }

    #[test]
    fn sizes_read_for_a_person() {
        assert_eq!(gb(1_234_000_000), "1.23 GB");
        assert_eq!(gb(45_600_000), "45.6 MB");
    }
}
