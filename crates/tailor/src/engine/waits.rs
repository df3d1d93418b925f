//! Where a message's packets waited (`[record] waits`, the Homa paper's Figure 14): at
//! every port a packet crossed, the time it waited behind a less important packet that
//! was already on the wire when it arrived (*preemption lag*: a link cannot take a packet
//! back) and the rest of its wait (*queueing*: behind packets of its own level or more
//! important ones, including ones that arrived after it).
//!
//! A message's first packet also waits at its sender, from the message's start until
//! its transport hands the packet over (a NIC that asks only when idle, `nic_depth = 0`,
//! keeps it there while another packet is on the link): lag while a less important
//! packet held the link, queueing after. Both columns count it.
//!
//! A port serves each of its queues in arrival order (FIFO, priority levels, per-class
//! queues: the scenario refuses the NIC that does not, and the overflow verdicts that
//! take a packet out of the middle of a queue), so a queue's arrivals are matched to its
//! departures in order. Each packet's waits add up along its path; a message gets those
//! of its packet that arrived last (its only one, for the short messages Figure 14 is
//! about), and `waits.csv` gets a row when the message's record is written.

use super::Simulation;
use crate::measure::MessageRecord;
use crate::net::ids::{ConnId, PortId};
use crate::net::packet::{Header, Packet, Priority};
use crate::sim::Time;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;
use std::io::{self, Write};

/// Waits of one packet or message: (preemption lag, queueing), in ps.
type Waits = (u64, u64);

pub struct Tracker {
    /// Per port: when its packet on the wire ends, and that packet's level.
    wire: Vec<(Time, Priority)>,
    /// Per port and queue: (arrival, preemption lag) of each packet waiting, in order.
    waiting: Vec<Vec<VecDeque<(Time, u64)>>>,
    /// Waits so far of each packet in the network, by message and header.
    packets: FxHashMap<(ConnId, Header), Waits>,
    /// Waits of the last packet that reached each active message's receiver.
    messages: FxHashMap<ConnId, Waits>,
    /// Messages whose first packet has not left their sender: when they started, and
    /// when the packet then on their sender's link ends and its level.
    starting: FxHashMap<ConnId, (Time, Time, Priority)>,
    out: Box<dyn Write + Send>,
    rows: u64,
    /// Class names, by class index.
    names: Vec<String>,
}

impl Tracker {
    pub fn new(ports: usize, names: Vec<String>, mut out: Box<dyn Write + Send>) -> io::Result<Tracker> {
        writeln!(out, "id,class,size_bytes,preemption_lag_ns,queueing_ns")?;
        Ok(Tracker {
            wire: vec![(Time::ZERO, 0); ports],
            waiting: vec![Vec::new(); ports],
            packets: FxHashMap::default(),
            messages: FxHashMap::default(),
            starting: FxHashMap::default(),
            out,
            rows: 0,
            names,
        })
    }

    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Message `conn` started at `now` at a host whose NIC is port `nic`.
    pub fn started_message(&mut self, conn: ConnId, nic: PortId, now: Time) {
        let (end, level) = self.wire[nic.index()];
        self.starting.insert(conn, (now, end, level));
    }

    /// A message's first packet left its transport at `now`: the time it waited at its
    /// sender is lag for as long as a less important packet held the link when it
    /// started, queueing for the rest (behind other messages' packets the transport chose
    /// first, or a packet of its level).
    pub fn emitted(&mut self, now: Time, pkt: &Packet) {
        let Some((start, end, level)) = self.starting.remove(&pkt.conn) else { return };
        let wait = (now - start).ps();
        let lag = if level > pkt.prio && end > start { (end.min(now) - start).ps() } else { 0 };
        let w = self.packets.entry((pkt.conn, pkt.hdr)).or_default();
        w.0 += lag;
        w.1 += wait - lag;
    }

    /// `pkt` joined queue `q` of port `p` at `now`.
    pub fn enqueued(&mut self, p: PortId, q: usize, now: Time, pkt: &Packet) {
        let (end, level) = self.wire[p.index()];
        let lag = if end > now && level > pkt.prio { (end - now).ps() } else { 0 };
        let queues = &mut self.waiting[p.index()];
        if queues.len() <= q {
            queues.resize_with(q + 1, VecDeque::new);
        }
        queues[q].push_back((now, lag));
    }

    /// `pkt` left queue `q` of port `p` at `now` and is on the wire until `end`.
    pub fn started(&mut self, p: PortId, q: usize, now: Time, end: Time, pkt: &Packet) {
        self.wire[p.index()] = (end, pkt.prio);
        let Some((arrived, lag)) = self.waiting[p.index()].get_mut(q).and_then(VecDeque::pop_front) else { return };
        let wait = (now - arrived).ps();
        let w = self.packets.entry((pkt.conn, pkt.hdr)).or_default();
        w.0 += lag;
        w.1 += wait - lag.min(wait);
    }

    /// `pkt` reached its receiver.
    pub fn delivered(&mut self, pkt: &Packet) {
        let w = self.packets.remove(&(pkt.conn, pkt.hdr)).unwrap_or_default();
        self.messages.insert(pkt.conn, w);
    }

    /// A packet that will not arrive (dropped).
    pub fn lost(&mut self, pkt: &Packet) {
        self.packets.remove(&(pkt.conn, pkt.hdr));
    }

    /// The message `conn` finished; its row, if it has a record.
    pub fn finished(&mut self, conn: ConnId, rec: Option<&MessageRecord>) -> io::Result<()> {
        let w = self.messages.remove(&conn).unwrap_or_default();
        self.starting.remove(&conn);
        let Some(r) = rec else { return Ok(()) };
        self.rows += 1;
        writeln!(self.out, "{},{},{},{},{}", r.id, self.names[r.class.index()], r.size, ns(w.0), ns(w.1))
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

fn ns(ps: u64) -> crate::measure::record::Ns {
    crate::measure::record::Ns(Time::from_ps(ps))
}

impl Simulation {
    /// Records every message's waits into `out` (`waits.csv`); `names` are the classes'.
    pub fn record_waits(&mut self, names: Vec<String>, out: Box<dyn Write + Send>) -> io::Result<()> {
        self.waits = Some(Tracker::new(self.net.ports.len(), names, out)?);
        Ok(())
    }

    /// Rows written to `waits.csv` so far, if recording.
    pub fn waits_rows(&self) -> Option<u64> {
        self.waits.as_ref().map(Tracker::rows)
    }
}
