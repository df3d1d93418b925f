//! PL2 (Le et al.) on the packet engine: the ToR's timeslot reservations make a rack
//! lossless for a transport with no congestion control (§D, §F.4), scheduled bursts meet
//! almost no queue, and unsolicited bursts pass below t and are resent above it (§D.4).

mod common;

use tailor::engine::report::RunReport;

/// The paper's rack in small: `hosts` hosts on one 100 Gbps switch with a 2 MB shared
/// buffer, `[transport]` as given, `n` senders offering line rate each of 6 KiB messages
/// (4 packets) to host `n` for `stop`.
fn incast(hosts: usize, n: usize, transport: &str, stop: &str) -> RunReport {
    incast_at(hosts, n, transport, stop, Load { gbps: 100, size: "6KiB" }, Rack::PROTOTYPE)
}

/// What each sender offers: a rate of messages of one size.
struct Load {
    gbps: usize,
    size: &'static str,
}

/// The rack's delays: links, the switch, the hosts' software (each way).
struct Rack {
    link: &'static str,
    switch: &'static str,
    host: &'static str,
}

impl Rack {
    /// About the prototype's: 1 µs NIC to NIC for an RSV and its GRT, 2 µs from software.
    const PROTOTYPE: Rack = Rack { link: "320ns", switch: "347ns", host: "500ns" };
    /// No delay anywhere: eq. 2's estimate is exact and no burst is late.
    const IDEAL: Rack = Rack { link: "0ns", switch: "0ns", host: "0ns" };
}

/// `incast` with each sender offering `load` in a rack with `rack`'s delays.
fn incast_at(hosts: usize, n: usize, transport: &str, stop: &str, load: Load, rack: Rack) -> RunReport {
    let (gbps, size) = (load.gbps, load.size);
    let Rack { link, switch, host: host_delay } = rack;
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        r#"
[run]
stop = "{stop}"
[topology]
kind = "star"
hosts = {hosts}
link = {{ rate = "100Gbps", delay = "{link}" }}
[switch]
pl2 = {{}}
delay = "{switch}"
scheduler = "priority"
buffer = "shared"
buffer_size = "2MB"
[host]
nic = "priority"
tx_delay = "{host_delay}"
rx_delay = "{host_delay}"
[transport]
{transport}
[[class]]
name = "incast"
sizes_fixed = "{size}"
arrival = "periodic"
rate = "{rate}Gbps"
pattern = "n_to_1"
senders = "0..{n}"
receiver = {n}
messages = 100000
"#,
        rate = gbps * n
    );
    let sc = common::scenario(&text, dir.path());
    let (sim, _) = common::run(&sc, 1);
    let ledger = sim.ledger();
    assert!(ledger.balances(), "packets and bytes are conserved: {ledger:?}");
    sim.report()
}

const RAW: &str = r#"kind = "raw"
mss = "1500B"
header = "18B""#;
const RAW_OVER_PL2: &str = r#"kind = "pl2"
over = { kind = "raw", mss = "1500B", header = "18B" }
threads = 12"#;

fn agent(r: &RunReport, name: &str) -> u64 {
    let pl2 = r.network.mechanisms.get("pl2").expect("network.pl2");
    pl2.iter()
        .find(|(n, _)| *n == name)
        .and_then(|(_, v)| v.as_u64())
        .unwrap_or_else(|| panic!("no counter pl2.{name}"))
}

/// §F.4: raw Ethernet from n senders at line rate into one receiver overflows the buffer
/// and loses packets; over PL2 the same traffic loses nothing, for every n up to the
/// switch's other ports, and still carries most of the line rate.
#[test]
fn an_incast_of_raw_ethernet_over_pl2_drops_nothing_up_to_the_port_count() {
    let hosts = 8;
    for n in 1..hosts {
        let pl2 = incast(hosts, n, RAW_OVER_PL2, "300us");
        let delivered = pl2.messages.completed;
        eprintln!(
            "n = {n}: PL2 drops {}, max queue {} B, {} messages, utilization {:.2}; reservations up to {}",
            pl2.network.drops,
            pl2.network.max_queue_bytes,
            delivered,
            pl2.network.utilization,
            agent(&pl2, "max_reservation")
        );
        assert_eq!(pl2.network.drops, 0, "n = {n}: no buffer overflow and no unsolicited copy dropped at T");
        assert!(pl2.network.utilization > 0.7, "n = {n}: the receiver's link stays busy: {}", pl2.network.utilization);
        assert!(pl2.network.max_queue_bytes < 200_000, "n = {n}: the queue stays below the paper's 200 KiB");
        if n >= 2 {
            let raw = incast(hosts, n, RAW, "300us");
            assert!(raw.network.drops > 0, "n = {n}: raw Ethernet alone overflows the buffer");
        }
    }
}

/// In an ideal rack (no delays, so eq. 2's estimate is exact and no burst is late; one
/// thread per sender, so an RSV never waits behind data) bursts scheduled from one RSV
/// each arrive in their timeslots: the receiver's port holds at most one burst besides
/// the packet on the wire, at any load up to line rate.
#[test]
fn scheduled_bursts_meet_at_most_one_burst_of_queue() {
    let scheduled = RAW_OVER_PL2.replace("threads = 12", "threads = 1\nunsolicited_below = 0");
    for (n, gbps) in [(2, 45), (4, 25), (7, 14), (7, 100)] {
        let r = incast_at(8, n, &scheduled, "1ms", Load { gbps, size: "6000B" }, Rack::IDEAL);
        eprintln!(
            "n = {n}, {gbps} Gbps each: max queue {} B, utilization {:.2}",
            r.network.max_queue_bytes, r.network.utilization
        );
        assert_eq!(agent(&r, "unsolicited_packets"), 0);
        assert!(r.network.max_queue_bytes <= 5 * 1_518, "n = {n}: {} B queued", r.network.max_queue_bytes);
    }
}

/// §D.4: a lone sender's bursts after its first GRT go unsolicited (its timeslots stay
/// below t); under a heavy incast the GRTs come back above t and bursts are resent at
/// their timeslots.
#[test]
fn unsolicited_bursts_below_t_and_resends_above_it() {
    // Messages of 16 packets, 4 bursts, every 48 µs: the first burst of each waits for its
    // GRT (the last one is older than `recent`), the other three go unsolicited.
    let alone = incast_at(4, 1, RAW_OVER_PL2, "2ms", Load { gbps: 4, size: "24000B" }, Rack::PROTOTYPE);
    let c = &alone.transport_counters;
    let (bursts, unsolicited) = (c.get("pl2_bursts").unwrap(), c.get("pl2_unsolicited_bursts").unwrap());
    let messages = alone.messages.completed;
    eprintln!("alone: {unsolicited} of {bursts} bursts unsolicited, {messages} messages");
    assert_eq!(bursts, 4 * messages);
    assert_eq!(unsolicited, 3 * messages, "all but each message's first burst");
    assert_eq!(c.get("pl2_resent_bursts"), Some(0));

    let small_t = incast(8, 7, &format!("{RAW_OVER_PL2}\nunsolicited_below = 40"), "200us");
    let c = &small_t.transport_counters;
    eprintln!(
        "7-way, t = 40: {} unsolicited, {} resent; switch dropped {} unsolicited packets",
        c.get("pl2_unsolicited_bursts").unwrap(),
        c.get("pl2_resent_bursts").unwrap(),
        agent(&small_t, "unsolicited_drops")
    );
    assert!(c.get("pl2_resent_bursts").unwrap() > 0, "GRTs above t have bursts resent");
}
