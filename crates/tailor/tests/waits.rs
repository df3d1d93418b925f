//! `[record] waits` (the Homa paper's Figure 14): a packet's wait at a port splits into
//! preemption lag (behind a less important packet already on the wire) and queueing (the
//! rest), checked on exchanges whose every instant is known.

mod common;

use std::io::Write;
use std::sync::{Arc, Mutex};

/// A writer the test reads back.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Two one-packet messages to host 2 through one switch: `bulk` (1,500 bytes on the wire,
/// 1.2 us at 10 Gbps) from host 0 at 1 ms, then `short` (140 bytes) from host 1 at
/// 1 ms + `after_ns`, at the levels given. Returns waits.csv's rows (class, lag, queueing).
fn run(bulk_level: u8, short_level: u8, after_ns: u64) -> Vec<(String, f64, f64)> {
    let dir = tempfile::tempdir().unwrap();
    let trace = |name: &str, src: usize, size: u64, at: u64| {
        let p = dir.path().join(format!("{name}.csv"));
        std::fs::write(&p, format!("flow_id,sender,receiver,size_bytes,start_ns\n0,{src},2,{size},{at}\n")).unwrap();
        p.display().to_string()
    };
    let text = format!(
        "[topology]\nkind = \"star\"\nhosts = 3\nlink = {{ rate = \"10Gbps\", delay = \"1us\" }}\n\
         [switch]\nscheduler = \"priority\"\n[transport]\nkind = \"raw\"\nmss = \"1460B\"\nheader = \"40B\"\n\
         [record]\nwaits = true\n\
         [[class]]\nname = \"bulk\"\ntrace = \"{}\"\npriority = {bulk_level}\n\
         [[class]]\nname = \"short\"\ntrace = \"{}\"\npriority = {short_level}\n",
        trace("bulk", 0, 1_460, 1_000_000),
        trace("short", 1, 100, 1_000_000 + after_ns),
    );
    let sc = common::scenario(&text, dir.path());
    let out = Shared::default();
    let sink = Box::new(tailor::measure::record::MemorySink::default());
    let mut sim = tailor::engine::Simulation::new(sc.build(1).unwrap(), sink).unwrap();
    sim.record_waits(vec!["bulk".into(), "short".into()], Box::new(out.clone())).unwrap();
    sim.run(&mut |_| true).unwrap();
    let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("id,class,size_bytes,preemption_lag_ns,queueing_ns"));
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[1].to_string(), f[3].parse().unwrap(), f[4].parse().unwrap())
        })
        .collect()
}

fn short(rows: &[(String, f64, f64)]) -> (f64, f64) {
    let r = rows.iter().find(|r| r.0 == "short").expect("the short message has a row");
    (r.1, r.2)
}

#[test]
fn a_packet_behind_a_less_important_one_on_the_wire_waits_preemption_lag() {
    // bulk reaches the switch at 1,002.2 us and is on the wire to host 2 until 1,003.4 us;
    // short, sent 1.5 us later, reaches the switch at 1,002.612 us: 788 ns of lag.
    let rows = run(7, 0, 1_500);
    assert_eq!(rows.len(), 2);
    assert_eq!(short(&rows), (788.0, 0.0));
    let bulk = rows.iter().find(|r| r.0 == "bulk").unwrap();
    assert_eq!((bulk.1, bulk.2), (0.0, 0.0), "bulk found everything idle");
}

#[test]
fn a_packet_behind_one_of_its_own_level_waits_queueing() {
    let rows = run(0, 0, 1_500);
    assert_eq!(short(&rows), (0.0, 788.0));
    // Behind a more important one: queueing too.
    assert_eq!(short(&run(0, 3, 1_500)), (0.0, 788.0));
}

#[test]
fn a_packet_that_finds_the_port_idle_does_not_wait() {
    // Sent after bulk has left the switch.
    assert_eq!(short(&run(7, 0, 3_000)), (0.0, 0.0));
}
