//! An egress port as a pipeline: admission -> markers -> scheduler (queues) -> link.
//!
//! Admission is a buffer policy (DESIGN.md): unlimited, a per-port byte limit with
//! drop-tail, or the switch's shared buffer with a dynamic threshold (Choudhury & Hahne:
//! a port may hold at most alpha times the free shared space). Markers see each admitted
//! packet with the backlog it found; the scheduler owns the queues. The port itself only
//! counts: bytes, packets, drops, marks, and the time-weighted queue.

use super::ids::{LinkId, Node};
use super::marker::{Backlog, Marker};
use super::packet::Packet;
use super::sched::Scheduler;
use crate::sim::{Rate, Time};

/// What a port is in the topology, for reports (`ports.csv`) and per-role settings.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum PortRole {
    HostNic,
    /// Switch port towards a host (the last hop).
    ToHost,
    /// Switch port towards a switch one tier up (ToR -> spine, edge -> agg, agg -> core).
    Up,
    /// Switch port towards a switch one tier down.
    Down,
    /// The bottleneck between the two switches of a dumbbell.
    Trunk,
}

impl PortRole {
    pub fn name(self) -> &'static str {
        match self {
            PortRole::HostNic => "host_nic",
            PortRole::ToHost => "to_host",
            PortRole::Up => "up",
            PortRole::Down => "down",
            PortRole::Trunk => "trunk",
        }
    }
}

/// The buffer policy of one port.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Admission {
    Unlimited,
    /// Drop-tail when the port's queue would exceed this many bytes.
    PortLimit(u64),
    /// The owning switch's shared buffer, dynamic threshold `alpha`.
    Shared { alpha: f64 },
}

/// A switch's shared packet memory.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedBuffer {
    pub capacity: u64,
    pub used: u64,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct PortStats {
    pub enq_packets: u64,
    pub enq_bytes: u64,
    pub drop_packets: u64,
    pub drop_bytes: u64,
    pub marks: u64,
    pub sent_packets: u64,
    pub sent_bytes: u64,
    pub max_queue_bytes: u64,
    /// Integral of the queue (bytes x ps), for the time-weighted mean.
    pub queue_area: u128,
    pub busy_ps: u64,
    /// Bytes sent per traffic class (index = class).
    pub class_sent_bytes: Vec<u64>,
}

pub struct Port {
    pub owner: Node,
    pub link: LinkId,
    pub rate: Rate,
    /// Picoseconds per byte when that is a whole number (100, 40, 10 Gbps ...): the
    /// serialization time is then a multiplication, not a 128-bit division.
    ps_per_byte: Option<u64>,
    pub role: PortRole,
    admission: Admission,
    /// Per-class limits on the bytes in the class's queue (drop-tail), if any.
    queue_limits: Vec<Option<u64>>,
    markers: Vec<Box<dyn Marker>>,
    sched: Box<dyn Scheduler>,
    /// The packet on the wire, if any (it is no longer in the queue).
    pub busy: bool,
    pub stats: PortStats,
    last_change: Time,
    /// Bytes waiting per traffic class (index = class; a class never seen is absent):
    /// the class make-up of the queue, whatever queues the scheduler keeps.
    class_queued: Vec<u64>,
}

impl Port {
    pub fn new(
        owner: Node,
        link: LinkId,
        rate: Rate,
        role: PortRole,
        admission: Admission,
        markers: Vec<Box<dyn Marker>>,
        sched: Box<dyn Scheduler>,
    ) -> Port {
        let ps_per_byte = (8_000_000_000_000u64 % rate.bps() == 0).then(|| 8_000_000_000_000u64 / rate.bps());
        Port {
            owner,
            link,
            rate,
            ps_per_byte,
            role,
            admission,
            queue_limits: Vec::new(),
            markers,
            sched,
            busy: false,
            stats: PortStats::default(),
            last_change: Time::ZERO,
            class_queued: Vec::new(),
        }
    }

    /// Limits the bytes each class may hold in its queue (None: no limit of its own).
    pub fn with_queue_limits(mut self, limits: Vec<Option<u64>>) -> Self {
        self.queue_limits = limits;
        self
    }

    pub fn queued_bytes(&self) -> u64 {
        self.sched.bytes()
    }
    pub fn queued_packets(&self) -> usize {
        self.sched.len()
    }
    /// Bytes of class `class` waiting (they sum to `queued_bytes`).
    pub fn queued_class_bytes(&self, class: usize) -> u64 {
        self.class_queued.get(class).copied().unwrap_or(0)
    }

    /// Runs admission and the markers; queues the packet if admitted. Returns false if
    /// the packet was dropped.
    pub fn offer(&mut self, now: Time, mut pkt: Packet, shared: Option<&mut SharedBuffer>) -> bool {
        let size = pkt.wire_bytes as u64;
        let backlog = Backlog { port: self.sched.bytes(), queue: self.sched.queue_bytes(pkt.class) };
        let queue_full = self
            .queue_limits
            .get(pkt.class.index())
            .copied()
            .flatten()
            .is_some_and(|limit| backlog.queue + size > limit);
        if queue_full || !self.admits(backlog.port, size, shared) {
            self.stats.drop_packets += 1;
            self.stats.drop_bytes += size;
            return false;
        }
        for m in &mut self.markers {
            if m.on_enqueue(now, backlog, &mut pkt) {
                self.stats.marks += 1;
            }
        }
        self.account_queue(now);
        let c = pkt.class.index();
        if self.class_queued.len() <= c {
            self.class_queued.resize(c + 1, 0);
        }
        self.class_queued[c] += size;
        self.sched.enqueue(now, pkt);
        self.stats.enq_packets += 1;
        self.stats.enq_bytes += size;
        self.stats.max_queue_bytes = self.stats.max_queue_bytes.max(self.sched.bytes());
        true
    }

    fn admits(&self, backlog: u64, size: u64, shared: Option<&mut SharedBuffer>) -> bool {
        match self.admission {
            Admission::Unlimited => true,
            Admission::PortLimit(limit) => backlog + size <= limit,
            Admission::Shared { alpha } => {
                let buf = shared.expect("a shared-buffer port belongs to a switch with a buffer");
                let free = buf.capacity - buf.used;
                let ok = size <= free && (backlog + size) as f64 <= alpha * free as f64;
                if ok {
                    buf.used += size;
                }
                ok
            }
        }
    }

    /// Time to serialize `bytes` on this port's link (exact, as `Rate::ser`).
    pub fn ser(&self, bytes: u64) -> Time {
        match self.ps_per_byte {
            Some(k) => Time::from_ps(bytes * k),
            None => self.rate.ser(bytes),
        }
    }

    /// Takes the next packet for the wire, if the port is idle and has one, with its
    /// serialization time. The caller schedules the end of its transmission.
    pub fn start_next(&mut self, now: Time, shared: Option<&mut SharedBuffer>) -> Option<(Packet, Time)> {
        if self.busy {
            return None;
        }
        self.account_queue(now);
        let pkt = self.sched.dequeue(now)?;
        if let (Admission::Shared { .. }, Some(buf)) = (self.admission, shared) {
            buf.used -= pkt.wire_bytes as u64;
        }
        self.busy = true;
        self.stats.sent_packets += 1;
        self.stats.sent_bytes += pkt.wire_bytes as u64;
        let ser = self.ser(pkt.wire_bytes as u64);
        self.stats.busy_ps += ser.ps();
        let c = pkt.class.index();
        self.class_queued[c] -= pkt.wire_bytes as u64;
        if self.stats.class_sent_bytes.len() <= c {
            self.stats.class_sent_bytes.resize(c + 1, 0);
        }
        self.stats.class_sent_bytes[c] += pkt.wire_bytes as u64;
        Some((pkt, ser))
    }

    fn account_queue(&mut self, now: Time) {
        let dt = now.ps() - self.last_change.ps();
        self.stats.queue_area += self.sched.bytes() as u128 * dt as u128;
        self.last_change = now;
    }

    /// Brings the queue integral up to `now` (before reading the statistics).
    pub fn settle(&mut self, now: Time) {
        self.account_queue(now);
    }
}
