//! A property of the newer key families (Homa, pFabric, pHost, PIAS, NDP, RDS, PL2, phantom
//! queues, the pacer, interrupt coalescing, persistent connections, receive windows, RFC 3168 ECN, closed loops,
//! probes):
//! a value a key's type allows (inside its documented bounds) is either refused when the scenario is read (a
//! `ScenarioError`, as a combination of keys may be), or the scenario runs — without a
//! panic, without getting stuck (the engine's no-progress watchdog, with tight limits),
//! every message complete, none faster than its ideal latency.
//!
//! Each example draws a family, a subset of its keys and a value for each: one of the
//! range's edges half of the time, otherwise log-uniform inside it; unbounded ranges are
//! drawn up to a large value. The scenarios are small (4 hosts, 24 messages) and the seed
//! is fixed, so the test is deterministic and takes seconds (and it found nothing more
//! over 200 examples per family with seeds 7 and 99). What it found, each now refused
//! where the scenario is read (the named tests below):
//! - Homa `unscheduled_bytes = "0B"` (and `incast_unscheduled = "0B"` for a marked
//!   request's response) panicked: "a ready message has a packet";
//! - a pFabric packet (`mss` + `header`) larger than the switch buffer was dropped at
//!   every try and resent at every timeout, without end;
//! - a PL2 `threshold` below `unsolicited_below + burst - 1` dropped bursts that their
//!   GRT said had passed: never resent, their messages never completed.

mod common;

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use tailor::engine::stall::Watch;
use tailor::engine::{RunError, Simulation};
use tailor::scenario::Scenario;
use tailor::sim::Time;

/// How a key's value is drawn: its accepted range, as the scenario reader states it.
#[derive(Clone, Copy)]
enum G {
    Int(i64, i64),
    Float(f64, f64),
    /// Bytes.
    Size(u64, u64),
    /// Picoseconds.
    Time(u64, u64),
    /// One of these TOML literals.
    Lit(&'static [&'static str]),
    /// The generator, or (one time in five) one of these literals.
    Or(&'static G, &'static [&'static str]),
    /// An increasing array of up to `n` sizes in the range.
    Sizes(u64, u64, usize),
}

const MS: u64 = 1_000_000_000;
const US: u64 = 1_000_000;
const GB: u64 = 1_000_000_000;

/// A key of a family: the table it goes in, its name and its range.
type Key = (&'static str, &'static str, G);

struct Family {
    name: &'static str,
    /// Entries every example of the family has (table, key, TOML value); an empty key
    /// opens the table only.
    base: &'static [(&'static str, &'static str, &'static str)],
    keys: &'static [Key],
}

const PRIORITY8: [(&str, &str, &str); 2] =
    [("switch", "scheduler", "\"priority\""), ("switch", "priority_levels", "8")];
const SMALL_BUFFER: [(&str, &str, &str); 2] =
    [("switch", "buffer", "\"per_port\""), ("switch", "buffer_size", "\"20KB\"")];
/// An incast into a small buffer, so that Homa's, pHost's and RDS's unscheduled bursts
/// overflow it.
const INCAST: [(&str, &str, &str); 3] =
    [("class", "pattern", "\"n_to_1\""), ("class", "receiver", "3"), ("class", "sizes_exponential_mean", "\"30KB\"")];
const DCTCP: (&str, &str, &str) = ("transport", "kind", "\"dctcp\"");
const LOAD: (&str, &str, &str) = ("class", "load", "0.6");
const ARRIVAL: (&str, &str, &str) = ("class", "arrival", "\"poisson\"");

const FAMILIES: &[Family] = &[
    Family {
        name: "homa",
        base: &[PRIORITY8[0], PRIORITY8[1], ("transport", "kind", "\"homa\""), LOAD, ARRIVAL],
        keys: &[
            ("transport", "rtt_bytes", G::Size(1538, GB)),
            ("transport", "unscheduled_bytes", G::Size(0, GB)),
            ("transport", "priority_levels", G::Int(1, 8)),
            ("transport", "unscheduled_levels", G::Int(1, 7)),
            ("transport", "scheduled_levels", G::Int(1, 7)),
            ("transport", "unscheduled_cutoffs", G::Sizes(0, 100_000, 4)),
            ("transport", "overcommitment", G::Or(&G::Int(1, 1 << 20), &["\"unlimited\""])),
            ("transport", "tail_boost", G::Size(0, GB)),
            ("transport", "resend_timeout", G::Or(&G::Time(US, 1_000 * MS), &["\"off\""])),
            ("transport", "incast_threshold", G::Int(1, 1 << 30)),
            ("transport", "incast_unscheduled", G::Size(0, GB)),
            ("host", "nic_depth", G::Int(0, 1 << 20)),
        ],
    },
    Family {
        // Small buffers: drops, and the RESEND and probe paths that recover them.
        name: "homa_lossy",
        base: &[
            PRIORITY8[0],
            PRIORITY8[1],
            SMALL_BUFFER[0],
            SMALL_BUFFER[1],
            ("transport", "kind", "\"homa\""),
            LOAD,
            ARRIVAL,
            INCAST[0],
            INCAST[1],
            INCAST[2],
        ],
        keys: &[
            ("transport", "rtt_bytes", G::Size(1538, 1_000_000)),
            ("transport", "overcommitment", G::Or(&G::Int(1, 1 << 20), &["\"unlimited\""])),
            ("transport", "resend_timeout", G::Time(US, 100 * MS)),
            ("transport", "priority_levels", G::Int(1, 8)),
            ("host", "nic_depth", G::Int(0, 1 << 20)),
        ],
    },
    Family {
        name: "phost_lossy",
        base: &[
            ("switch", "scheduler", "\"priority\""),
            ("switch", "priority_levels", "2"),
            SMALL_BUFFER[0],
            SMALL_BUFFER[1],
            ("transport", "kind", "\"phost\""),
            LOAD,
            ARRIVAL,
            INCAST[0],
            INCAST[1],
            INCAST[2],
        ],
        keys: &[
            ("transport", "free_tokens", G::Int(0, 1 << 20)),
            ("transport", "token_window", G::Int(1, 1 << 20)),
            ("transport", "resend_timeout", G::Or(&G::Float(1e-3, 1e4), &["\"10us\"", "\"1ns\""])),
            ("transport", "rts_timeout", G::Time(US, 100 * MS)),
            ("transport", "idle_wakeup", G::Lit(&["\"arrivals\"", "\"timeouts\""])),
        ],
    },
    Family {
        name: "rds_lossy",
        base: &[
            SMALL_BUFFER[0],
            SMALL_BUFFER[1],
            ("transport", "kind", "\"rds\""),
            LOAD,
            ARRIVAL,
            INCAST[0],
            INCAST[1],
            INCAST[2],
        ],
        keys: &[
            ("transport", "blind", G::Size(1538, 1_000_000)),
            ("transport", "grant_packets", G::Int(1, 1024)),
            ("transport", "resend_timeout", G::Time(US, 100 * MS)),
            ("transport", "overcommitment", G::Int(1, 1 << 20)),
        ],
    },
    Family {
        name: "pfabric",
        base: &[
            ("switch", "scheduler", "\"rank\""),
            ("switch", "overflow", "\"evict\""),
            ("switch", "buffer", "\"per_port\""),
            ("switch", "buffer_size", "\"36KB\""),
            ("host", "nic_depth", "0"),
            ("transport", "kind", "\"pfabric\""),
            LOAD,
            ARRIVAL,
        ],
        keys: &[
            ("transport", "mss", G::Size(1, 1 << 20)),
            ("transport", "header", G::Size(0, 65_535)),
            ("transport", "init_cwnd", G::Or(&G::Int(1, 1_000_000), &["\"bdp\""])),
            ("transport", "max_cwnd", G::Or(&G::Int(1, 1_000_000), &["\"bdp\""])),
            ("transport", "rto", G::Time(100_000, 1_000 * MS)),
            ("transport", "probe_after", G::Or(&G::Int(1, 1_000_000), &["\"off\""])),
        ],
    },
    Family {
        name: "phost",
        base: &[
            ("switch", "scheduler", "\"priority\""),
            ("switch", "priority_levels", "2"),
            ("transport", "kind", "\"phost\""),
            LOAD,
            ARRIVAL,
        ],
        keys: &[
            ("transport", "priority_levels", G::Int(1, 2)),
            ("transport", "free_tokens", G::Int(0, 1 << 20)),
            ("transport", "token_window", G::Int(1, 1 << 20)),
            ("transport", "token_expiry", G::Or(&G::Float(1e-3, 1e4), &["\"2us\"", "\"1ns\""])),
            ("transport", "downgrade_timeout", G::Or(&G::Float(1e-3, 1e4), &["\"20us\"", "\"1ns\""])),
            ("transport", "resend_timeout", G::Or(&G::Float(1e-3, 1e4), &["\"10us\"", "\"1ns\""])),
            ("transport", "rts_timeout", G::Or(&G::Time(US, 1_000 * MS), &["\"off\""])),
            ("transport", "free_tokens_to", G::Lit(&["\"every_message\"", "\"short_messages\""])),
            ("transport", "idle_wakeup", G::Lit(&["\"arrivals\"", "\"timeouts\""])),
        ],
    },
    Family {
        name: "pias",
        base: &[
            PRIORITY8[0],
            PRIORITY8[1],
            ("switch", "ecn_threshold", "\"30KB\""),
            ("transport", "kind", "\"pias\""),
            LOAD,
            ARRIVAL,
        ],
        keys: &[
            ("transport", "priority_levels", G::Int(1, 8)),
            ("transport", "thresholds", G::Sizes(1, 1_000_000, 7)),
            ("transport", "packet_level", G::Lit(&["\"first_byte\"", "\"last_byte\""])),
            ("transport", "dctcp_g", G::Float(1e-6, 1.0)),
            ("transport", "dctcp_initial_alpha", G::Float(0.0, 1.0)),
            ("transport", "min_rto", G::Time(US, 1_000 * MS)),
        ],
    },
    Family {
        name: "ndp",
        base: &[
            ("switch", "scheduler", "\"priority\""),
            ("switch", "priority_levels", "2"),
            ("switch", "overflow", "\"trim\""),
            ("switch", "buffer", "\"per_port\""),
            ("switch", "buffer_size", "\"12KB\""),
            ("transport", "kind", "\"ndp\""),
            LOAD,
            ARRIVAL,
        ],
        keys: &[("transport", "window", G::Size(1538, GB)), ("transport", "rto", G::Time(US, 1_000 * MS))],
    },
    Family {
        name: "rds",
        base: &[("transport", "kind", "\"rds\""), LOAD, ARRIVAL],
        keys: &[
            ("transport", "blind", G::Size(1538, GB)),
            ("transport", "grant_packets", G::Int(1, 1024)),
            ("transport", "resend_timeout", G::Time(US, 1_000 * MS)),
            ("transport", "overcommitment", G::Int(1, 1 << 20)),
        ],
    },
    Family {
        name: "pl2",
        base: &[
            ("switch", "scheduler", "\"priority\""),
            ("switch.pl2", "", ""),
            ("host", "nic", "\"priority\""),
            ("transport", "kind", "\"pl2\""),
            // TCP without congestion control recovers the bursts that contention at the
            // ToR drops (docs/pl2.md, "T"); over raw they are lost by design.
            ("transport.over", "kind", "\"tcp\""),
            ("transport.over", "congestion_control", "\"off\""),
            ("transport", "mtu", "\"1502B\""),
            LOAD,
            ARRIVAL,
        ],
        keys: &[
            ("transport", "burst", G::Int(1, 1024)),
            ("transport", "unsolicited_below", G::Int(0, 1 << 20)),
            ("transport", "recent", G::Time(0, 1_000 * MS)),
            ("transport", "threads", G::Int(1, 4096)),
            ("transport", "mtu", G::Size(64, 1 << 16)),
            ("transport", "host_delay", G::Or(&G::Time(0, MS), &["\"prototype_hw\"", "\"prototype_sw\""])),
            ("switch.pl2", "threshold", G::Int(1, 1 << 30)),
            ("switch.pl2", "control_bytes", G::Size(64, 1500)),
            ("switch.pl2", "priority", G::Int(0, 7)),
        ],
    },
    Family {
        name: "phantom",
        base: &[DCTCP, ("switch.phantom", "drain", "0.95"), LOAD, ARRIVAL],
        keys: &[
            ("switch.phantom", "drain", G::Or(&G::Float(1e-3, 1.0), &["\"1Gbps\"", "\"99Gbps\""])),
            ("switch.phantom", "threshold", G::Size(0, GB)),
            ("switch.phantom", "roles", G::Lit(&["[\"to_host\"]"])),
        ],
    },
    Family {
        name: "pacer",
        base: &[DCTCP, ("host.pacer", "preset", "\"testbed\""), ("class", "load", "0.006"), ARRIVAL],
        keys: &[
            ("host.pacer", "preset", G::Lit(&["\"testbed\"", "\"ns2\""])),
            ("host.pacer", "interval", G::Time(US, 100 * MS)),
            ("host.pacer", "eta", G::Float(0.0, 1.0)),
            ("host.pacer", "beta", G::Float(0.0, 1e9)),
            ("host.pacer", "p_assoc", G::Float(0.0, 1.0)),
            ("host.pacer", "idle", G::Time(0, 1_000 * MS)),
            ("host.pacer", "bucket", G::Size(64, GB)),
            ("host.pacer", "table", G::Int(1, 1 << 20)),
        ],
    },
    Family {
        name: "coalescing",
        base: &[DCTCP, ("host", "rx_frames", "32"), ("host", "rx_usecs", "\"100us\""), LOAD, ARRIVAL],
        keys: &[
            ("host", "rx_frames", G::Int(1, 1 << 16)),
            ("host", "rx_usecs", G::Time(0, 1_000 * MS)),
            ("transport", "lso", G::Size(1, GB)),
        ],
    },
    Family {
        name: "connections",
        base: &[DCTCP, ("class", "connections", "4"), LOAD, ARRIVAL],
        keys: &[
            ("class", "connections", G::Int(1, 1 << 16)),
            ("class", "connection_choice", G::Lit(&["\"random\"", "\"idle\"", "\"available\""])),
            ("transport", "restart_after_idle", G::Lit(&["true", "false"])),
            ("transport", "coalesce", G::Lit(&["\"nagle\"", "\"off\""])),
            ("transport", "lso", G::Size(1, GB)),
        ],
    },
    Family {
        name: "receive_window",
        base: &[
            ("transport", "kind", "\"tcp\""),
            ("transport", "lso", "\"64KB\""),
            ("transport.rwnd", "autotune", "true"),
            ("class", "connections", "2"),
            LOAD,
            ARRIVAL,
        ],
        keys: &[
            ("transport.rwnd", "autotune", G::Lit(&["true", "false"])),
            ("transport.rwnd", "cwnd_limited", G::Lit(&["\"burst\"", "\"tso\""])),
            ("transport.rwnd", "initial", G::Size(1, 1 << 30)),
            ("transport.rwnd", "max", G::Size(1, 2 << 30)),
            ("transport.rwnd", "clock", G::Time(1_000, 1_000 * MS)),
        ],
    },
    Family {
        name: "rfc3168_ecn",
        base: &[
            ("transport", "kind", "\"tcp\""),
            ("transport", "ecn", "\"rfc3168\""),
            ("switch", "ecn_threshold", "\"6KB\""),
            LOAD,
            ARRIVAL,
        ],
        keys: &[
            ("transport", "kind", G::Lit(&["\"tcp\"", "\"cubic\""])),
            ("transport", "ecn", G::Lit(&["\"off\"", "\"rfc3168\""])),
            ("transport", "delayed_ack", G::Lit(&["true", "false"])),
            ("switch", "ecn_threshold", G::Size(0, GB)),
            ("switch.phantom", "drain", G::Float(1e-3, 1.0)),
        ],
    },
    Family {
        name: "closed_loop",
        base: &[DCTCP, ("class", "outstanding", "2"), ("class", "response", "\"echo\"")],
        keys: &[("class", "outstanding", G::Int(1, 1 << 20)), ("class", "think", G::Time(0, 1_000 * MS))],
    },
    Family {
        name: "closed_loop_homa",
        base: &[PRIORITY8[0], PRIORITY8[1], ("transport", "kind", "\"homa\""), ("class", "outstanding", "2")],
        keys: &[
            ("class", "outstanding", G::Int(1, 1 << 20)),
            ("class", "think", G::Time(0, 1_000 * MS)),
            ("class", "response_sizes_fixed", G::Size(1, 1_000_000)),
            ("class", "response", G::Lit(&["\"echo\""])),
            ("transport", "incast_threshold", G::Int(1, 1 << 30)),
            ("transport", "incast_unscheduled", G::Size(0, GB)),
        ],
    },
    Family {
        name: "probes",
        base: &[
            DCTCP,
            LOAD,
            ARRIVAL,
            ("probe", "probe", "true"),
            ("probe", "arrival", "\"poisson\""),
            ("probe", "load", "0.01"),
            ("probe", "sizes_fixed", "\"64B\""),
            ("probe", "pattern", "\"n_to_1\""),
        ],
        keys: &[
            ("probe", "receiver", G::Int(0, 3)),
            ("probe", "sizes_fixed", G::Size(1, 100_000)),
            ("probe", "load", G::Float(1e-6, 0.3)),
        ],
    },
];

/// The tables in the order they are written; `class` and `probe` are `[[class]]`.
const TABLES: [&str; 10] = [
    "switch",
    "switch.phantom",
    "switch.pl2",
    "host",
    "host.pacer",
    "transport",
    "transport.over",
    "transport.rwnd",
    "class",
    "probe",
];

const MESSAGES: u64 = 24;
/// Events after which a run is stopped. A run that stops progressing (no message
/// completed, no byte delivered for 200 us and 500,000 events: `engine::stall`) before
/// is a failure; one still progressing at the cap is only slow (1-byte packets).
const MAX_EVENTS: u64 = 4_000_000;

fn draw(g: G, rng: &mut Pcg64) -> String {
    // Log-uniform on [lo, hi] (lo may be 0), or an edge half of the time.
    fn pick(lo: u64, hi: u64, rng: &mut Pcg64) -> u64 {
        match rng.random_range(0..4) {
            0 => lo,
            1 => hi,
            _ => {
                let (a, b) = ((lo.max(1) as f64).ln(), (hi as f64).ln());
                ((a + rng.random::<f64>() * (b - a)).exp().round() as u64).clamp(lo, hi)
            }
        }
    }
    match g {
        G::Int(lo, hi) => pick(lo as u64, hi as u64, rng).to_string(),
        G::Float(lo, hi) => match rng.random_range(0..4) {
            0 => format!("{lo:?}"),
            1 => format!("{hi:?}"),
            _ => format!("{:?}", lo + rng.random::<f64>() * (hi - lo)),
        },
        G::Size(lo, hi) => format!("\"{}B\"", pick(lo, hi, rng)),
        G::Time(lo, hi) => format!("\"{}ps\"", pick(lo, hi, rng)),
        G::Lit(xs) => xs[rng.random_range(0..xs.len())].to_string(),
        G::Or(_, xs) if rng.random_range(0..5) == 0 => xs[rng.random_range(0..xs.len())].to_string(),
        G::Or(g, _) => draw(*g, rng),
        G::Sizes(lo, hi, n) => {
            let mut v: Vec<u64> = (0..rng.random_range(0..=n)).map(|_| pick(lo, hi, rng)).collect();
            v.sort_unstable();
            v.dedup();
            format!("[{}]", v.iter().map(|b| format!("\"{b}B\"")).collect::<Vec<_>>().join(", "))
        }
    }
}

/// The scenario text of `entries` (table, key, value), later entries replacing earlier.
fn text(entries: &[(&str, &str, String)]) -> String {
    let mut s =
        String::from("[topology]\nkind = \"star\"\nhosts = 4\nlink = { rate = \"100Gbps\", delay = \"1us\" }\n");
    // The class's defaults, which a family's entries replace.
    let defaults = [
        ("class", "sizes_exponential_mean", "\"8KB\"".to_string()),
        ("class", "pattern", "\"all_to_all\"".to_string()),
    ];
    let entries: Vec<_> = defaults.iter().chain(entries).collect();
    for table in TABLES {
        let mine: Vec<_> = entries.iter().filter(|e| e.0 == table).collect();
        match table {
            "class" => s += "[[class]]\nname = \"c\"\n",
            "probe" if !mine.is_empty() => s += "[[class]]\nname = \"probe\"\n",
            _ if mine.is_empty() => continue,
            _ => s += &format!("[{table}]\n"),
        }
        if matches!(table, "class" | "probe") {
            s += &format!("messages = {MESSAGES}\n");
        }
        for (i, (_, key, value)) in mine.iter().enumerate() {
            // The last entry of a key wins: drawn values replace the base's.
            if !key.is_empty() && !mine[i + 1..].iter().any(|e| e.1 == *key) {
                s += &format!("{key} = {value}\n");
            }
        }
    }
    s
}

/// Runs one scenario: None if it is refused or runs as it should, else what went wrong.
fn check(text: &str, dir: &std::path::Path) -> Option<String> {
    let sc = match Scenario::parse(text, "k.toml", dir) {
        Err(e) if e.to_string().contains("k.toml: ") => return None,
        Err(e) => return Some(format!("a refusal that names no key: {e}")),
        Ok(sc) => sc,
    };
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let sink = std::sync::Arc::new(std::sync::Mutex::new(tailor::measure::record::MemorySink::default()));
        let mut sim = Simulation::new(sc.build(1).expect("builds"), Box::new(Shared(sink.clone()))).expect("starts");
        sim.set_stall_watch(Watch::with_limits(Time::from_us(200), 500_000));
        let r = sim.run(&mut |p| p.events < MAX_EVENTS);
        let recs = std::mem::take(&mut sink.lock().unwrap().0);
        (r, sim.active_messages(), recs)
    }));
    match run {
        Err(panic) => Some(format!("panics: {}", panic_text(&panic))),
        // Still progressing at the cap (1-byte packets make millions of events): slow, not stuck.
        Ok((Err(RunError::Cancelled), ..)) => None,
        Ok((Err(RunError::Stalled(s)), ..)) => Some(format!("stops progressing: {s}")),
        Ok((Err(e), ..)) => Some(format!("fails: {e}")),
        Ok((Ok(()), active, _)) if active > 0 => Some(format!("ends with {active} messages incomplete")),
        Ok((Ok(()), _, recs)) => recs
            .iter()
            .find(|r| r.latency() < r.ideal)
            .map(|r| format!("message {} of {} B took {} but its ideal is {}", r.id, r.size, r.latency(), r.ideal)),
    }
}

struct Shared(std::sync::Arc<std::sync::Mutex<tailor::measure::record::MemorySink>>);

impl tailor::measure::RecordSink for Shared {
    fn record(&mut self, rec: &tailor::measure::MessageRecord, name: &str) -> std::io::Result<()> {
        self.0.lock().unwrap().record(rec, name)
    }
}

fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default()
}

/// Keys that are only accepted beside another, and a value for that one.
const NEEDS: &[(&str, &str, &str)] = &[("incast_unscheduled", "incast_threshold", "2")];

/// Examples per family.
const EXAMPLES: usize = 60;

#[test]
fn values_inside_the_accepted_ranges_are_refused_or_run_correctly() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Pcg64::seed_from_u64(24);
    let mut failures = Vec::new();
    for family in FAMILIES {
        let (mut ran, mut refused) = (0, String::new());
        for _ in 0..EXAMPLES {
            let mut entries: Vec<(&str, &str, String)> =
                family.base.iter().map(|&(t, k, v)| (t, k, v.to_string())).collect();
            let mut drawn: Vec<(&str, &str, String)> = Vec::new();
            for &(t, k, g) in family.keys {
                if rng.random_bool(0.4) {
                    drawn.push((t, k, draw(g, &mut rng)));
                }
            }
            // A key that is only read beside another brings it along.
            for &(key, needs, value) in NEEDS {
                if drawn.iter().any(|d| d.1 == key) && !drawn.iter().any(|d| d.1 == needs) {
                    drawn.push(("transport", needs, value.to_string()));
                }
            }
            entries.extend(drawn.iter().cloned());
            let text = text(&entries);
            match Scenario::parse(&text, "k.toml", dir.path()) {
                Ok(_) => ran += 1,
                Err(e) => refused += &format!("\n  {e}"),
            }
            if let Some(what) = check(&text, dir.path()) {
                let values: Vec<String> = drawn.iter().map(|(t, k, v)| format!("{t}.{k} = {v}")).collect();
                failures.push(format!("{}: {}: {what}", family.name, values.join(", ")));
            }
        }
        // Refusals alone would make the property vacuous (Homa's levels and cut-offs
        // must agree with each other, so many of its combinations are refused).
        assert!(
            ran * 3 >= EXAMPLES,
            "{}: only {ran} of {EXAMPLES} examples were accepted; the last refusal: {refused}",
            family.name
        );
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

/// The scenario of `family`'s base with `extra` entries.
fn with(family: &str, extra: &[(&'static str, &'static str, &str)]) -> String {
    let f = FAMILIES.iter().find(|f| f.name == family).expect("a family");
    let mut entries: Vec<(&str, &str, String)> = f.base.iter().map(|&(t, k, v)| (t, k, v.to_string())).collect();
    entries.extend(extra.iter().map(|&(t, k, v)| (t, k, v.to_string())));
    text(&entries)
}

fn refusal(text: &str) -> tailor::scenario::ScenarioError {
    Scenario::parse(text, "k.toml", std::path::Path::new(".")).expect_err("refused")
}

/// Found by the property: Homa with `unscheduled_bytes = "0B"` panicked ("a ready message
/// has a packet"); so did a marked request's response with `incast_unscheduled = "0B"`.
#[test]
fn homa_refuses_zero_unscheduled_bytes_and_runs_with_one() {
    let e = refusal(&with("homa", &[("transport", "unscheduled_bytes", "\"0B\"")]));
    assert_eq!(e.path, "transport.unscheduled_bytes");
    assert!(
        e.message.starts_with("is 0B: a message's first packet announces it")
            && e.message.ends_with("accepted: at least \"1B\""),
        "{e}"
    );
    let e = refusal(&with(
        "homa",
        &[("transport", "incast_threshold", "1"), ("transport", "incast_unscheduled", "\"0B\"")],
    ));
    assert_eq!(e.path, "transport.incast_unscheduled");
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(check(&with("homa", &[("transport", "unscheduled_bytes", "\"1B\"")]), dir.path()), None);
    let incast = [
        ("transport", "incast_threshold", "1"),
        ("transport", "incast_unscheduled", "\"1B\""),
        ("class", "response", "\"echo\""),
    ];
    assert_eq!(check(&with("homa", &incast), dir.path()), None);
}

/// Found by the property: a pFabric packet larger than the switch buffer was dropped at
/// every try and sent again at every timeout, without end.
#[test]
fn pfabric_refuses_a_packet_larger_than_the_switch_buffer() {
    let e = refusal(&with("pfabric", &[("transport", "mss", "\"36000B\"")]));
    assert_eq!(e.path, "transport.mss");
    assert!(e.message.contains("full packet of 36078 B (mss + header), above the switch buffer of 36000 B"), "{e}");
    let e = refusal(&with("pfabric", &[("transport", "header", "\"65535B\"")]));
    assert_eq!(e.path, "transport.header");
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(check(&with("pfabric", &[("transport", "mss", "\"35922B\"")]), dir.path()), None);
}

/// Found by the property: with [switch] pl2 threshold T below t + K − 1, a burst granted
/// just below t was dropped by the ToR and never resent; over raw its message never
/// completed and the run ended quietly with messages incomplete.
#[test]
fn pl2_refuses_a_threshold_below_t_plus_k() {
    let e = refusal(&with("pl2", &[("switch.pl2", "threshold", "1")]));
    assert_eq!(e.path, "switch.pl2.threshold");
    assert!(
        e.message
            .starts_with("unsolicited_below (t = 15) + burst (K = 4) - 1 = 18 is above [switch] pl2 threshold (T = 1)"),
        "{e}"
    );
    let e = refusal(&with("pl2", &[("transport", "unsolicited_below", "600")]));
    assert_eq!(e.path, "transport.unsolicited_below");
    let e = refusal(&with("pl2", &[("transport", "burst", "600")]));
    assert_eq!(e.path, "transport.burst");
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(check(&with("pl2", &[("switch.pl2", "threshold", "18")]), dir.path()), None);
}

/// The receive window's table refuses what Linux's auto-tuning cannot be: a first window
/// below one segment, a ceiling whose 3/4 is below it, an unknown field, a non-table, an
/// unknown cwnd-limited rule and Linux's rule under segmentation offload without it.
#[test]
fn receive_window_refuses_bad_values_by_name() {
    for (extra, path, says) in [
        (("transport.rwnd", "initial", "\"100B\""), "transport.rwnd.initial", "from one segment"),
        (("transport.rwnd", "max", "\"64KB\""), "transport.rwnd.max", "3/4 of it at least initial"),
        (("transport.rwnd", "clock", "\"0ns\""), "transport.rwnd.clock", "\"1ms\" at HZ = 1000"),
        (
            ("transport.rwnd", "autotun", "true"),
            "transport.rwnd.autotun",
            "accepted keys here: autotune, clock, cwnd_limited, initial, max",
        ),
        (("transport.rwnd", "cwnd_limited", "\"linux\""), "transport.rwnd.cwnd_limited", "\"burst\""),
    ] {
        let e = refusal(&with("receive_window", &[extra]));
        assert_eq!(e.path, path, "{e}");
        assert!(e.to_string().contains(says), "{e}");
    }
    // Linux's rule under segmentation offload needs segmentation offload.
    let text = with("receive_window", &[("transport.rwnd", "cwnd_limited", "\"tso\"")]).replace("lso = \"64KB\"\n", "");
    let e = refusal(&text);
    assert_eq!(e.path, "transport.rwnd.cwnd_limited", "{e}");
    assert!(e.to_string().contains("without lso"), "{e}");
    let text = with("receive_window", &[])
        .replace("[transport.rwnd]\nautotune = true\n", "")
        .replace("kind = \"tcp\"", "kind = \"tcp\"\nrwnd = 5");
    let e = refusal(&text);
    assert_eq!(e.path, "transport.rwnd", "{e}");
}
