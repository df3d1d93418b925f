//! The HPCC authors' ns-3 programs' FCT file (`fct.txt` in the result directory with
//! `[record] fct = true`; `tailor run --fct-out FILE` copies it out), so that their
//! analysis scripts (`fct_analysis.py`) read tailor's results unchanged: one line per
//! completed message, in the order they completed,
//!
//! `sip dip sport dport size start_ns fct_ns standalone_fct_ns`
//!
//! - `sip`, `dip`: the programs' host addresses, 11.x.y.1 for host i = 256·x + y, as eight
//!   hex digits (`0b000001` + 0x10000·(i / 256) + 0x100·(i mod 256));
//! - `sport`: 10000 upwards per sender and receiver pair, in the order the messages
//!   started (their per-pair port counter);
//! - `dport`: the number after `dport` in the class's name when it has one (what `tailor
//!   import hpcc-ns3` names the classes of a flow file), else 100 (their traffic
//!   generator's);
//! - `fct_ns`: from the start to the completion tailor records (the RDMA NIC's: the
//!   sender's last ACK, as theirs);
//! - `standalone_fct_ns`: their ideal, not tailor's: the pair's base RTT, 2 × the path's
//!   link delays plus one payload's transmission per hop, plus the message's bytes with
//!   48 B of headers per packet at the path's slowest rate, in integer nanoseconds as
//!   they compute it.

use crate::measure::{MessageRecord, RecordSink};
use crate::net::Network;
use crate::scenario::Scenario;
use crate::sim::Time;
use std::collections::HashMap;
use std::io::{self, Write};
use std::sync::{Arc, Mutex};

/// What the file needs of a completed message.
#[derive(Copy, Clone, Debug)]
pub struct Row {
    id: u64,
    class: usize,
    src: usize,
    dst: usize,
    size: u64,
    start: Time,
    finish: Time,
}

/// A record sink that passes every record on and keeps the rows of the FCT file.
pub struct Keeping {
    pub inner: Box<dyn RecordSink>,
    pub rows: Arc<Mutex<Vec<Row>>>,
}

impl RecordSink for Keeping {
    fn record(&mut self, r: &MessageRecord, class_name: &str) -> io::Result<()> {
        let row = Row {
            id: r.id,
            class: r.class.index(),
            src: r.src.index(),
            dst: r.dst.index(),
            size: r.size,
            start: r.start,
            finish: r.finish,
        };
        self.rows.lock().expect("not poisoned").push(row);
        self.inner.record(r, class_name)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// The programs' address of host `i`.
pub fn address(i: usize) -> u32 {
    0x0b00_0001 + (i / 256) as u32 * 0x1_0000 + (i % 256) as u32 * 0x100
}

/// The `dport` a class's name gives (`…dport200` → 200), else 100.
pub fn dport(class: &str) -> u32 {
    class.rfind("dport").and_then(|i| class[i + 5..].parse().ok()).unwrap_or(100)
}

/// Their ideal FCT (ns) of `size` bytes from `src` to `dst`, with `payload` bytes per packet.
pub fn standalone(net: &Network, src: usize, dst: usize, size: u64, payload: u64) -> u64 {
    let path = crate::transport::path::Path::between(
        net,
        crate::net::ids::HostId::new(src),
        crate::net::ids::HostId::new(dst),
    );
    let delay: u64 = path.fwd.iter().map(|h| h.delay.ps() / 1_000).sum();
    let tx: u64 = path.fwd.iter().map(|h| payload * 1_000_000_000 * 8 / h.rate.bps()).sum();
    let bw = path.fwd.iter().map(|h| h.rate.bps()).min().expect("a path has hops");
    let total = size + ((size.max(1) - 1) / payload + 1) * 48;
    2 * delay + tx + total * 8_000_000_000 / bw
}

/// Writes the rows as the programs' FCT file.
pub fn write(net: &Network, sc: &Scenario, rows: &[Row], out: &mut dyn Write) -> io::Result<()> {
    let mut by_start: Vec<&Row> = rows.iter().collect();
    by_start.sort_by_key(|r| (r.start, r.id));
    let mut next: HashMap<(usize, usize), u32> = HashMap::new();
    let mut sport: HashMap<u64, u32> = HashMap::with_capacity(rows.len());
    for r in by_start {
        let n = next.entry((r.src, r.dst)).or_insert(10_000);
        sport.insert(r.id, *n);
        *n += 1;
    }
    let mut ideal: HashMap<(usize, usize, u64, usize), u64> = HashMap::new();
    for r in rows {
        let class = &sc.classes[r.class];
        let payload = sc.transports[class.transport].segment_payload();
        let standalone = *ideal
            .entry((r.src, r.dst, r.size, r.class))
            .or_insert_with(|| standalone(net, r.src, r.dst, r.size, payload));
        writeln!(
            out,
            "{:08x} {:08x} {} {} {} {} {} {}",
            address(r.src),
            address(r.dst),
            sport[&r.id],
            dport(&class.name),
            r.size,
            r.start.ps() / 1_000,
            (r.finish - r.start).ps() / 1_000,
            standalone
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_and_ports_are_the_programs() {
        assert_eq!(format!("{:08x}", address(0)), "0b000001");
        assert_eq!(format!("{:08x}", address(1)), "0b000101");
        assert_eq!(format!("{:08x}", address(257)), "0b010101");
        assert_eq!((dport("flows_pg3_dport200"), dport("web"), dport("dportx")), (200, 100, 100));
    }
}
