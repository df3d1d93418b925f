//! HULL (Alizadeh et al., NSDI 2012) on the packet engine: phantom queues leave
//! bandwidth headroom (§2.1, §3.1).

mod common;

use tailor::engine::report::PortRow as PortReport;

/// Two long DCTCP flows into one receiver of a 10 Gbps star, marked either by the real
/// queue at `marking` or by a phantom queue: the receiver's switch port after 30 ms.
fn two_long_flows(marking: &str) -> PortReport {
    two_long_flows_with(marking, "").0
}

/// As `two_long_flows`, with `[host]` keys; also the run's report.
fn two_long_flows_with(marking: &str, host: &str) -> (PortReport, tailor::engine::report::RunReport) {
    let dir = tempfile::tempdir().unwrap();
    let trace = "flow_id,sender,receiver,size_bytes,start_ns\n0,0,2,1000000000,0\n1,1,2,1000000000,1000\n";
    std::fs::write(dir.path().join("long.csv"), trace).unwrap();
    let text = format!(
        r#"
[run]
stop = "30ms"
[topology]
kind = "star"
hosts = 3
link = {{ rate = "10Gbps", delay = "5us" }}
[switch]
{marking}
[host]
{host}
[transport]
kind = "dctcp"
init_cwnd = 10
[[class]]
name = "long"
trace = "long.csv"
"#
    );
    let sc = common::scenario(&text, dir.path());
    let (sim, _) = common::run(&sc, 1);
    let port =
        sim.ports().into_iter().filter(|p| p.role == "to_host").max_by_key(|p| p.sent_bytes).expect("the bottleneck");
    (port, sim.report())
}

/// §3.1, Fig. 2: with a phantom queue draining at γ = 0.9 the flows are held below γ·C
/// (DCTCP's rate fluctuations cost a few percent more) and the real queue stays near
/// empty, where marking on the real queue at 30 KB fills the link and keeps ~30 KB queued.
#[test]
fn a_phantom_queue_caps_utilization_below_its_drain_rate_and_empties_the_real_queue() {
    let pq = two_long_flows(r#"phantom = { drain = 0.9, threshold = "6KB" }"#);
    let real = two_long_flows(r#"ecn_threshold = "30KB""#);
    eprintln!(
        "phantom: utilization {:.3}, mean queue {:.0} B, marks {}; real: {:.3}, {:.0} B",
        pq.utilization, pq.mean_queue_bytes, pq.ecn_marks, real.utilization, real.mean_queue_bytes
    );
    assert!(real.utilization > 0.98, "DCTCP-30K fills the link: {}", real.utilization);
    assert!(pq.utilization < 0.9 && pq.utilization > 0.75, "held below the drain rate: {}", pq.utilization);
    assert!(pq.ecn_marks > 0);
    assert!(pq.mean_queue_bytes < real.mean_queue_bytes / 10.0, "{} vs {}", pq.mean_queue_bytes, real.mean_queue_bytes);
}

/// §4.2: the pacer associates the long flows on their ECN-Echo ACKs and paces them; the
/// phantom queue still holds them below its drain rate.
#[test]
fn the_pacer_associates_marked_flows_and_paces_them() {
    let (pq, report) = two_long_flows_with(r#"phantom = { drain = 0.9, threshold = "6KB" }"#, r#"pacer = "ns2""#);
    // summary.json's network.pacer: the pacer mechanism's own counters (`net::mechanism`).
    let pacer = report.network.mechanisms.get("pacer").expect("pacer counters");
    let count = |k: &str| pacer.iter().find(|(n, _)| *n == k).and_then(|(_, v)| v.as_u64()).expect(k);
    eprintln!("paced: utilization {:.3}, mean queue {:.0} B; {pacer:?}", pq.utilization, pq.mean_queue_bytes);
    assert!(count("associations") >= 2, "both long flows are associated: {pacer:?}");
    // The receiver's ACKs bypass its pacer; the senders' data is nearly all paced.
    assert!(count("paced_bytes") as f64 > 0.9 * pq.sent_bytes as f64, "most data is paced once associated: {pacer:?}");
    assert!(pq.utilization < 0.9 && pq.utilization > 0.75, "{}", pq.utilization);
}

/// The ACK ratio (bytes acknowledged per ACK) of one long TCP flow between two hosts at
/// 10 Gbps with receive interrupt coalescing at `rx_frames` (§4.1, Table 2).
fn ack_ratio(rx_frames: u32) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let trace = "flow_id,sender,receiver,size_bytes,start_ns\n0,0,1,50000000,0\n";
    std::fs::write(dir.path().join("one.csv"), trace).unwrap();
    let text = format!(
        r#"
[topology]
kind = "star"
hosts = 2
link = {{ rate = "10Gbps", delay = "2us" }}
[host]
rx_frames = {rx_frames}
rx_usecs = "100us"
[transport]
kind = "tcp"
init_cwnd = 10
delayed_ack = true
[[class]]
name = "one"
trace = "one.csv"
"#
    );
    let sc = common::scenario(&text, dir.path());
    let (sim, recs) = common::run(&sc, 1);
    assert_eq!(recs.len(), 1, "the flow completes");
    let c = sim.report().transport_counters;
    c.get("acked_bytes").unwrap() as f64 / c.get("acks").unwrap() as f64
}

/// Table 2: the ACK ratio grows with rx-frames (11.4 KB at 2, 12.2 KB at 8, 16.5 KB at 32,
/// 64 KB at 128 on the paper's 10 Gbps NICs), because a batch handed up at once is
/// acknowledged by one ACK of up to 64 KB (GRO).
#[test]
fn interrupt_coalescing_raises_the_ack_ratio_with_rx_frames() {
    let ratios: Vec<(u32, f64)> = [1, 2, 8, 32, 128].iter().map(|&f| (f, ack_ratio(f))).collect();
    eprintln!("ACK ratio by rx_frames: {ratios:?}");
    let mss = 1448.0;
    // One frame per interrupt: delayed ACKs, one ACK every two segments.
    assert!((ratios[0].1 - 2.0 * mss).abs() < 0.1 * mss, "{ratios:?}");
    // Two frames per interrupt are what delayed ACKs acknowledge anyway.
    assert!((ratios[1].1 - ratios[0].1).abs() < 1.0, "{ratios:?}");
    for w in ratios[1..].windows(2) {
        assert!(w[1].1 > w[0].1, "the ratio grows with rx_frames: {ratios:?}");
    }
    // 8 frames: one ACK per batch of 8 segments; 128 frames: GRO's 64 KB ceiling.
    assert!((ratios[2].1 - 8.0 * mss).abs() < 0.15 * 8.0 * mss, "{ratios:?}");
    assert!(ratios[4].1 > 50_000.0 && ratios[4].1 <= 65_536.0, "{ratios:?}");
}

/// Switch latency as a measured quantity: every packet's wait at the bottleneck
/// (`[record] sojourn`) and a periodic probe class's wait at each port it crosses.
fn waits_run() -> tailor::engine::Simulation {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"
[run]
stop = "200ms"
[topology]
kind = "star"
hosts = 33
link = { rate = "10Gbps", delay = "1us" }
[record]
sojourn = "to_host"
[transport]
kind = "raw"
[[class]]
name = "bg"
sizes_fixed = "1400B"
arrival = "poisson"
load = 0.5
pattern = "n_to_1"
senders = "0..31"
receiver = 32
[[class]]
name = "probe"
probe = true
sizes_fixed = "1400B"
arrival = "periodic"
rate = "112Mbps"
pattern = "n_to_1"
senders = [31]
receiver = 32
"#;
    let sc = common::scenario(text, dir.path());
    common::run(&sc, 1).0
}

/// Little's law ties the recorded waits to the port's own queue integral (two
/// independent measurements), and with Poisson arrivals of one size the port is close to
/// M/D/1: mean wait ρ·S / (2(1 − ρ)). Probes see every port they cross once per packet.
#[test]
fn recorded_waits_obey_littles_law_and_m_d_1_and_probes_see_each_port() {
    let sim = waits_run();
    let ports = sim.ports();
    let port = ports.iter().filter(|p| p.role == "to_host").max_by_key(|p| p.sent_bytes).unwrap();
    let s = port.sojourn.clone().expect("recorded");
    let span_s = sim.now().as_secs_f64();
    let rate = port.sent_packets as f64 / span_s;
    let pkt = port.sent_bytes as f64 / port.sent_packets as f64;
    let service_us = pkt * 8.0 / 10e9 * 1e6;
    let little_us = port.mean_queue_bytes / pkt / rate * 1e6;
    let rho = port.utilization;
    let md1_us = rho * service_us / (2.0 * (1.0 - rho));
    eprintln!("waits: mean {:.4} us, Little {little_us:.4} us, M/D/1 {md1_us:.4} us (rho {rho:.3}); {s:?}", s.mean_us);
    assert_eq!(s.count, port.sent_packets);
    assert!((s.mean_us - little_us).abs() < 0.01 * little_us, "Little's law: {} vs {little_us}", s.mean_us);
    assert!((s.mean_us - md1_us).abs() < 0.1 * md1_us, "M/D/1: {} vs {md1_us}", s.mean_us);
    assert!(s.p50_us <= s.p90_us && s.p90_us <= s.p99_us && s.p99_us <= s.max_us);
    let report = sim.report();
    let probes: Vec<_> = report.probes.iter().filter(|p| p.class == "probe").collect();
    assert_eq!(probes.len(), 2, "the probe's NIC and the receiver's switch port: {probes:?}");
    let nic = probes.iter().find(|p| p.role == "host_nic").unwrap();
    let sw = probes.iter().find(|p| p.role == "to_host").unwrap();
    assert!(
        nic.waits.count - sw.waits.count <= 1,
        "every probe packet crosses both (the last may be on its way at the stop)"
    );
    assert!(sw.waits.count > 1_900, "10,000 probes a second for 200 ms: {}", sw.waits.count);
    // A probe arrives at a time unrelated to the Poisson traffic: it sees the time-average
    // wait, which M/D/1 also gives (PASTA).
    assert!((sw.waits.mean_us - md1_us).abs() < 0.15 * md1_us, "probe {} vs M/D/1 {md1_us}", sw.waits.mean_us);
}

/// Mean completion time of `n` Poisson flows of exponential sizes (mean 100 KB) at load
/// `rho` of 1 Gbps, through a dumbbell trunk of `trunk_mbps` Mb/s, shared fairly per flow
/// (hierarchical scheduling: per-flow fair queueing; NICs round robin; no congestion
/// control, so the trunk is a packetized processor-sharing server).
fn ps_mean_fct(rho: f64, trunk_mbps: u64) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        r#"
[topology]
kind = "dumbbell"
left = 32
right = 1
host_link = {{ rate = "1Gbps", delay = "100ns" }}
trunk = {{ rate = "{trunk_mbps}Mbps", delay = "100ns" }}
[switch]
scheduler = "hierarchical"
[host]
nic = "round_robin"
[transport]
kind = "raw"
[[class]]
name = "flows"
sizes_exponential_mean = "100KB"
arrival = "poisson"
rate = "{}Mbps"
pattern = "n_to_1"
senders = "0..32"
receiver = 32
messages = 6000
"#,
        (rho * 1000.0).round()
    );
    let sc = common::scenario(&text, dir.path());
    let (_, recs) = common::run(&sc, 7);
    assert_eq!(recs.len(), 6000);
    recs.iter().map(|r| (r.finish - r.start).as_secs_f64()).sum::<f64>() / recs.len() as f64
}

/// §3.2, eq. 1–3: in an M/G/1-PS queue the mean completion time is x / (C(1 − ρ)), so
/// giving away bandwidth (capacity γC) slows flows down by SD = (1 − ρ)/(γ − ρ): at
/// γ = 0.8, 1.33 / 1.5 / 2 for ρ = 0.2 / 0.4 / 0.6. The same flows (same seed) run at C and
/// at γC; their mean completion times' ratio is within 8 % of eq. 3 (packetization, the
/// sender NICs' own serialization and 6,000 flows' sampling account for the rest).
#[test]
fn bandwidth_headroom_slows_flows_down_as_m_g_1_ps_predicts() {
    for (rho, paper) in [(0.2, 1.33), (0.4, 1.5), (0.6, 2.0)] {
        let full = ps_mean_fct(rho, 1000);
        let headroom = ps_mean_fct(rho, 800);
        let sd = headroom / full;
        let theory = (1.0 - rho) / (0.8 - rho);
        eprintln!(
            "rho {rho}: FCT {:.1} us at C, {:.1} us at 0.8C: SD {sd:.3}, eq. 3 {theory:.3} (paper {paper})",
            full * 1e6,
            headroom * 1e6
        );
        assert!((sd - theory).abs() < 0.08 * theory, "rho {rho}: SD {sd:.3} vs eq. 3 {theory:.3}");
        // Eq. 1 itself: E[x] / (C(1 − ρ)), 800 µs / (1 − ρ) for 100 KB at 1 Gbps.
        let eq1 = 800e-6 / (1.0 - rho);
        assert!((full - eq1).abs() < 0.1 * eq1, "rho {rho}: mean FCT {full} vs eq. 1 {eq1}");
    }
}

/// The sender NIC's largest queue after slow start (sampled every microsecond from 5 ms on)
/// with one long DCTCP flow over 10 Gbps whose window (100 segments) is below the path's
/// BDP (about 250 KB), so the window, not the link, limits it and nothing else queues at
/// the NIC: with or without LSO and coalescing.
fn nic_burst(host: &str, lso: &str) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("one.csv"), "flow_id,sender,receiver,size_bytes,start_ns\n0,0,1,8000000,0\n")
        .unwrap();
    let text = format!(
        r#"
[record]
queues = "1us"
queue_ports = [0]
[topology]
kind = "star"
hosts = 2
link = {{ rate = "10Gbps", delay = "50us" }}
[host]
{host}
[transport]
kind = "dctcp"
init_cwnd = 10
max_cwnd = 100
{lso}
[[class]]
name = "one"
trace = "one.csv"
"#
    );
    let sc = common::scenario(&text, dir.path());
    let out = dir.path().join("out");
    tailor::output::run_engine_to_dir(&sc, 1, &out, tailor::output::Engine::Packet, &mut |_| true).unwrap();
    let text = std::fs::read_to_string(out.join("queues.csv")).unwrap();
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let ns: f64 = f[0].parse().ok()?;
            (ns >= 5e6).then(|| f[2].parse::<u64>().unwrap())
        })
        .max()
        .unwrap()
}

/// §2.3, §4.1: LSO sends of up to 64 KB (45 segments of 1,502 B on the wire) leave the
/// NIC back to back at line rate, so with ACKs batched by interrupt coalescing the
/// sender's NIC holds bursts of one or two such sends at once (measured: 124,666 B, 83
/// segments); ACK-clocked without them, nothing waits behind the packet on the wire.
#[test]
fn lso_with_coalesced_acks_puts_64kb_bursts_on_the_wire() {
    let bursty = nic_burst("rx_frames = 32\nrx_usecs = \"100us\"", "lso = \"64KB\"");
    let smooth = nic_burst("", "");
    eprintln!("largest NIC queue after slow start: {bursty} B with LSO and coalescing, {smooth} B without");
    assert!((40 * 1502..=2 * 45 * 1502).contains(&bursty), "{bursty}");
    assert!(smooth <= 3 * 1502, "{smooth}");
}

/// The completion times (ms) of two 10 MB DCTCP flows into one receiver on HULL's 1 Gbps
/// testbed hosts (LSO, interrupt coalescing, software delays), the second starting 19 ms
/// after the first, with the switch port marking as `marking` and the hosts' `pacer`.
fn two_large_flows(marking: &str, pacer: &str) -> (f64, f64) {
    let dir = tempfile::tempdir().unwrap();
    let trace = "flow_id,sender,receiver,size_bytes,start_ns\n0,0,2,10000000,0\n1,1,2,10000000,19000000\n";
    std::fs::write(dir.path().join("two.csv"), trace).unwrap();
    let text = format!(
        r#"
[topology]
kind = "star"
hosts = 3
link = {{ rate = "1Gbps", delay = "1us" }}
[switch]
{marking}
[host]
tx_delay = "10us"
rx_delay = "15us"
rx_frames = 8
rx_usecs = "50us"
{pacer}
[transport]
kind = "dctcp"
lso = "64KB"
delayed_ack = true
max_cwnd = 181
[[class]]
name = "two"
trace = "two.csv"
"#
    );
    let sc = common::scenario(&text, dir.path());
    let (_, recs) = common::run(&sc, 1);
    assert_eq!(recs.len(), 2, "both flows complete");
    let ms = |i: usize| {
        recs.iter().find(|r| r.start.ps() / 1_000_000_000 == 19 * i as u64).unwrap().latency().as_secs_f64() * 1e3
    };
    (ms(0), ms(1))
}

/// §6.2.1 (Fig. 11): "pacing lowers both the switch latency and the FCT of large flows".
/// Two 10 MB flows share the receiver's link, then the second runs alone: paced, it must
/// get the link back as the first ends and finish about when it does unpaced. (Before the
/// pacer received the host's bytes at the line rate, eq. 4's filter, fed whole LSO bursts
/// in one interval and clamped at the line rate, held the lone flow near 750 Mbps with a
/// growing backlog: 187 ms against 150 ms unpaced.)
#[test]
fn pacing_does_not_slow_a_large_flow_left_alone_on_the_link() {
    for marking in [r#"ecn_threshold = "6KB""#, r#"phantom = { drain = "950Mbps", threshold = "1KB" }"#] {
        let (a0, b0) = two_large_flows(marking, "");
        let (a1, b1) = two_large_flows(marking, r#"pacer = "testbed""#);
        eprintln!("{marking}: unpaced {a0:.1} / {b0:.1} ms, paced {a1:.1} / {b1:.1} ms");
        assert!(b1 < 1.05 * b0, "{marking}: the second flow paced {b1:.1} ms against {b0:.1} unpaced");
        assert!(a1 < 1.05 * a0, "{marking}: the first flow paced {a1:.1} ms against {a0:.1} unpaced");
    }
}
