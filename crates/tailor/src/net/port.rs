//! An egress port as a pipeline: admission -> markers -> scheduler (queues) -> markers
//! at departure -> link.
//!
//! Admission is a buffer policy (DESIGN.md): unlimited, a per-port byte limit with
//! drop-tail, or the switch's shared buffer with a dynamic threshold (Choudhury & Hahne:
//! a port may hold at most alpha times the free shared space), with per-class queue
//! limits on top. Its verdict on each arriving packet is one of [`Verdict`]: pass, drop,
//! trim (the payload is cut and the header forwarded, flagged, at the first priority
//! level: NDP, Handley et al. SIGCOMM 2017 §3.1) or evict (a queued packet that matters
//! less is dropped to make room: pFabric, Alizadeh et al. SIGCOMM 2013 §4.2). What the
//! buffer policy cannot take gets the port's [`Overflow`] verdict, unless an [`Admit`]
//! stage is installed, which decides itself. Markers see each admitted packet with the
//! backlog it found, and each departing packet ([`Departure`]: HPCC's INT stamp is such
//! a stage, `int::IntStamp`); the scheduler owns the queues and may answer "nothing
//! until t" (`Scheduler::wake_at`), after which the port wakes itself. The port itself
//! only counts: bytes, packets, drops, trims, marks, and the time-weighted queue.
//!
//! A port that trims is NDP's switch (§3.1): its buffer limit is the data queue's, and
//! packets without payload — control packets and the headers trimming leaves — queue
//! beside it, never meeting that limit (on a shared buffer they still need the memory).
//! So a header is never dropped where its payload was cut, nor at a later full port.

use super::ids::{LinkId, Node, PortId};
use super::int;
use super::marker::{Backlog, Departure, Marker, Stage};
use super::packet::{Flags, Packet};
use super::per_class::PerClass;
use super::sched::{Queues, Scheduler};
pub use crate::ids::PortRole;
use crate::sim::{Rate, Time};
use std::collections::VecDeque;

/// The buffer policy of one port.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Admission {
    Unlimited,
    /// Drop-tail when the port's queue would exceed this many bytes.
    PortLimit(u64),
    /// The owning switch's shared buffer, dynamic threshold `alpha`.
    Shared {
        alpha: f64,
    },
}

/// What a port does with a packet its buffer policy cannot take.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Overflow {
    /// Drop it (drop-tail).
    Drop,
    /// Cut its payload and queue the header at the first priority level; packets
    /// without payload are not held to the buffer limit (NDP's header queue, §3.1).
    Trim,
    /// As `Trim`, but half the time, at random, the newest data packet queued ahead is
    /// cut instead of the arriving one, when that makes room for it whole (NDP §3.1,
    /// against phase effects). Per-port limits only; the port's coin is a random stream
    /// named by its link (`Port::with_trim_stream`).
    TrimRandom,
    /// Drop queued packets that matter less (`Scheduler::evict_for`) until it fits, or
    /// drop it if none does.
    Evict,
}

/// Admission's verdict on one arriving packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Drop,
    Trim,
    Evict,
}

/// An admission stage: decides the verdict itself instead of the port's `Overflow`
/// rule. `fits` says whether the buffer policy would take the packet as it is.
pub trait Admit: Send {
    fn admit(&mut self, now: Time, pkt: &Packet, queues: &dyn Scheduler, fits: bool) -> Verdict;
}

/// A switch's shared packet memory.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedBuffer {
    pub capacity: u64,
    pub used: u64,
}

/// What a port counted. `repr(C)`, the fields every packet updates first (see `Port`).
#[derive(Clone, Debug, Default, PartialEq)]
#[repr(C)]
pub struct PortStats {
    /// Integral of the queue (bytes x ps), for the time-weighted mean.
    pub queue_area: u128,
    /// What admitted packets found queued ahead of them (not counting the packet on the
    /// wire): the sum, for the mean an arrival sees, and the largest (Homa Table 1).
    pub seen_queue_sum: u128,
    /// The same with the untransmitted rest of the packet on the wire added (the Homa
    /// authors' simulator's accounting, `DropTailQueue::enqueue`).
    pub seen_wire_sum: u128,
    pub seen_queue_max: u64,
    pub seen_wire_max: u64,
    pub enq_packets: u64,
    pub enq_bytes: u64,
    pub sent_packets: u64,
    pub sent_bytes: u64,
    pub busy_ps: u64,
    pub max_queue_bytes: u64,
    pub marks: u64,
    /// Bytes sent per traffic class (index = class).
    pub class_sent_bytes: PerClass,
    pub drop_packets: u64,
    pub drop_bytes: u64,
    /// Queued packets dropped to make room (a subset of the drops).
    pub evict_packets: u64,
    pub evict_bytes: u64,
    /// Packets whose payload this port cut, and the payload bytes cut.
    pub trim_packets: u64,
    pub trim_bytes: u64,
}

/// Laid out by hand, the fields every packet reads or writes first (`repr(C)` keeps the
/// order): on a fabric of a thousand hosts a port's lines are fetched from memory on
/// each packet, and spread over the struct in the compiler's order they were six lines a
/// packet (docs/performance.md, "A thousand hosts").
#[repr(C)]
pub struct Port {
    // Lines 0 to 2: what every packet reads and writes.
    sched: Queues,
    markers: Markers,
    pub owner: Node,
    /// When the packet on the wire ends.
    tx_end: Time,
    pub link: LinkId,
    /// The packet on the wire, if any (it is no longer in the queue).
    pub busy: bool,
    /// Whether any marker looks at departures.
    departures: bool,
    /// What holds the port's usual order, in one word so that a port with neither pays
    /// one test: the low byte, the PFC priorities it may not send (a bit each, set by a
    /// PAUSE from the far end of its link, `net::memory`); the high byte, the MAC control
    /// frames waiting in `control` to go before any packet.
    hold: u16,
    overflow: Overflow,
    last_change: Time,
    /// Picoseconds per byte when that is a whole number (100, 40, 10 Gbps ...): the
    /// serialization time is then a multiplication, not a 128-bit division.
    ps_per_byte: Option<u64>,
    admission: Admission,
    admit: Option<Box<dyn Admit>>,
    /// Bytes waiting in packets without payload (headers, control packets): a trimming
    /// port's buffer limit does not count them.
    bare_queued: u64,
    pub rate: Rate,
    // Then the class make-up (its first two classes are read by every packet).
    /// Bytes waiting per traffic class (index = class; a class never seen is absent):
    /// the class make-up of the queue, whatever queues the scheduler keeps.
    class_queued: PerClass,
    /// Per-class limits on the bytes in the class's queue (drop-tail), if any.
    queue_limits: Vec<Option<u64>>,
    pub stats: PortStats,
    pub role: PortRole,
    /// When the port has asked to be woken (its scheduler said "nothing until then").
    pub wake: Option<Time>,
    /// The coin of `Overflow::TrimRandom` (boxed: other ports pay one word for it).
    trim_coin: Option<Box<crate::sim::rng::Stream>>,
    /// MAC control frames to send before the next queued packet (`net::pfc`).
    control: VecDeque<Packet>,
}

/// What a held port sends next (`Port::held_next`).
enum Next {
    Control(Packet, Time),
    Packet(Packet),
    Nothing,
}

/// A port's marker stages in order. Most ports have one (ECN) or none: the first is held
/// in the port, so reaching it costs no line of a vector's own.
#[derive(Default)]
struct Markers {
    first: Option<Stage>,
    rest: Vec<Box<dyn Marker>>,
}

impl Markers {
    fn new(all: Vec<Box<dyn Marker>>) -> Markers {
        let mut all = all.into_iter();
        Markers { first: all.next().map(Stage::new), rest: all.collect() }
    }
    fn push(&mut self, m: Box<dyn Marker>) {
        match self.first {
            None => self.first = Some(Stage::new(m)),
            Some(_) => self.rest.push(m),
        }
    }
    fn iter_mut(&mut self) -> impl Iterator<Item = &mut (dyn Marker + 'static)> {
        self.first.iter_mut().map(|s| &mut **s).chain(self.rest.iter_mut().map(|b| &mut **b))
    }
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
        let ps_per_byte = 8_000_000_000_000u64.is_multiple_of(rate.bps()).then(|| 8_000_000_000_000u64 / rate.bps());
        Port {
            owner,
            link,
            rate,
            ps_per_byte,
            role,
            admission,
            queue_limits: Vec::new(),
            overflow: Overflow::Drop,
            admit: None,
            departures: markers.iter().any(|m| m.sees_departures()),
            markers: Markers::new(markers),
            sched: Queues::new(sched),
            busy: false,
            hold: 0,
            control: VecDeque::new(),
            tx_end: Time::ZERO,
            wake: None,
            stats: PortStats::default(),
            last_change: Time::ZERO,
            class_queued: PerClass::default(),
            bare_queued: 0,
            trim_coin: None,
        }
    }

    /// Limits the bytes each class may hold in its queue (None: no limit of its own).
    pub fn with_queue_limits(mut self, limits: Vec<Option<u64>>) -> Self {
        self.queue_limits = limits;
        self
    }

    /// Bytes waiting: queued packets and control frames (`send_control`).
    pub fn queued_bytes(&self) -> u64 {
        self.sched.bytes()
            + if self.hold >> 8 != 0 { self.control.iter().map(|f| f.wire_bytes as u64).sum() } else { 0 }
    }
    /// Packets waiting: queued packets and control frames.
    pub fn queued_packets(&self) -> usize {
        self.sched.len() + (self.hold >> 8) as usize
    }
    /// Bytes of class `class` waiting (they sum to `queued_bytes`).
    pub fn queued_class_bytes(&self, class: usize) -> u64 {
        self.class_queued.get(class)
    }

    /// What the buffer policy cannot take gets this verdict (default: drop).
    pub fn with_overflow(mut self, overflow: Overflow) -> Self {
        self.overflow = overflow;
        self
    }

    /// The coin of a port whose overflow is `TrimRandom`: the run's stream named by the
    /// port's link (nothing otherwise).
    pub fn with_trim_stream(mut self, seed: u64) -> Self {
        self.set_overflow(self.overflow, seed);
        self
    }

    /// Gives a built port `overflow`, with its coin from `seed` if it needs one (the
    /// `overflow` mechanism installs itself so: `net::overflow`).
    pub fn set_overflow(&mut self, overflow: Overflow, seed: u64) {
        self.overflow = overflow;
        self.trim_coin = None;
        if overflow == Overflow::TrimRandom {
            self.trim_coin = Some(Box::new(crate::sim::rng::stream(seed, &format!("trim/link{}", self.link.index()))));
        }
    }

    /// What it does with a packet its buffer policy cannot take.
    pub fn overflow(&self) -> Overflow {
        self.overflow
    }

    /// Whether it trims (NDP's switch, §3.1).
    fn trims(&self) -> bool {
        matches!(self.overflow, Overflow::Trim | Overflow::TrimRandom)
    }

    /// Installs an admission stage that decides every verdict.
    pub fn set_admit(&mut self, admit: Box<dyn Admit>) {
        self.admit = Some(admit);
    }

    /// Adds a marker stage after the existing ones.
    pub fn push_marker(&mut self, m: Box<dyn Marker>) {
        self.departures |= m.sees_departures();
        self.markers.push(m);
    }

    /// Whether a marker stage of the port looks at departures (a phantom queue does).
    pub fn marks_departures(&self) -> bool {
        self.departures
    }

    /// Replaces every marker stage with `m` (a phantom queue takes over a port's marking:
    /// HULL §2.1).
    pub fn replace_markers(&mut self, m: Box<dyn Marker>) {
        self.departures = m.sees_departures();
        self.markers = Markers::new(vec![m]);
    }

    /// Replaces the scheduler of an empty port.
    pub fn set_scheduler(&mut self, sched: Box<dyn Scheduler>) {
        assert!(self.sched.is_empty() && !self.busy, "a scheduler is replaced only on an idle, empty port");
        self.sched = Queues::new(sched);
    }

    /// Puts a scheduler in front of an empty port's own (`wrap` gets the old one: HULL's
    /// pacer keeps it as its bypass queue).
    pub fn wrap_scheduler(&mut self, wrap: impl FnOnce(Box<dyn Scheduler>) -> Box<dyn Scheduler>) {
        assert!(self.sched.is_empty() && !self.busy, "a scheduler is replaced only on an idle, empty port");
        let own = std::mem::replace(&mut self.sched, Queues::Fifo(Default::default()));
        self.sched = Queues::new(wrap(own.into_box()));
    }

    /// A packet reached the host this NIC port belongs to (`Scheduler::observe_arrival`).
    pub fn observe_arrival(&mut self, now: Time, pkt: &Packet) {
        self.sched.observe_arrival(now, pkt);
    }

    /// The port's queues, read-only.
    pub fn scheduler(&self) -> &dyn Scheduler {
        &*self.sched
    }

    /// Runs admission and the markers; queues the packet if admitted (whole or trimmed).
    /// Every packet that leaves the port here — the arriving one if dropped, queued ones
    /// if evicted — is pushed on `dropped` (the caller frees what they hold). Returns
    /// true if the arriving packet was queued.
    pub fn offer(
        &mut self,
        now: Time,
        mut pkt: Packet,
        mut shared: Option<&mut SharedBuffer>,
        dropped: &mut Vec<Packet>,
    ) -> bool {
        let backlog = Backlog { port: self.sched.bytes(), queue: self.sched.queue_bytes_of(&pkt) };
        if self.trims() && pkt.payload() == 0 {
            // NDP's header queue (§3.1): nothing to trim, and the data limit is not its.
            if self.take_space(&pkt, shared) {
                self.enqueue(now, pkt, backlog);
                return true;
            }
            self.stats.drop_packets += 1;
            self.stats.drop_bytes += pkt.wire_bytes as u64;
            dropped.push(pkt);
            return false;
        }
        let fits = self.fits(&pkt, backlog, shared.as_deref_mut());
        if fits && self.admit.is_none() {
            // The common case, without the verdict machinery.
            self.enqueue(now, pkt, backlog);
            return true;
        }
        let verdict = match self.admit.as_mut() {
            Some(a) => a.admit(now, &pkt, &*self.sched, fits),
            None if fits => Verdict::Pass,
            None => match self.overflow {
                Overflow::Drop => Verdict::Drop,
                Overflow::Trim | Overflow::TrimRandom => Verdict::Trim,
                Overflow::Evict => Verdict::Evict,
            },
        };
        if fits && verdict != Verdict::Pass {
            // The policy's yes took shared space the stage's verdict does not use as is.
            if let (Admission::Shared { .. }, Some(buf)) = (self.admission, shared.as_deref_mut()) {
                buf.used -= pkt.wire_bytes as u64;
            }
        }
        let queued = match verdict {
            Verdict::Pass => fits || self.take_space(&pkt, shared.as_deref_mut()),
            Verdict::Drop => false,
            Verdict::Trim => self.cut_tail_for(now, &pkt) || self.trim(&mut pkt, shared.as_deref_mut()),
            Verdict::Evict => self.evict_for(now, &pkt, shared, dropped),
        };
        if !queued {
            self.stats.drop_packets += 1;
            self.stats.drop_bytes += pkt.wire_bytes as u64;
            dropped.push(pkt);
            return false;
        }
        // The backlog it found, unless the queue changed under it (evictions, trimming).
        let backlog = match verdict {
            Verdict::Pass => backlog,
            _ => Backlog { port: self.sched.bytes(), queue: self.sched.queue_bytes_of(&pkt) },
        };
        self.enqueue(now, pkt, backlog);
        true
    }

    /// Whether the buffer policy and the queue limits take `pkt`; on the shared buffer
    /// a yes also takes its space.
    fn fits(&self, pkt: &Packet, backlog: Backlog, shared: Option<&mut SharedBuffer>) -> bool {
        let size = pkt.wire_bytes as u64;
        let queue_full = self
            .queue_limits
            .get(pkt.class.index())
            .copied()
            .flatten()
            .is_some_and(|limit| backlog.queue + size > limit);
        // A trimming port's limit is its data queue's (the headers beside it do not count).
        let port = if self.trims() { backlog.port - self.bare_queued } else { backlog.port };
        !queue_full && self.admits(port, size, shared)
    }

    /// Space for a packet an admission stage passes although the policy would not:
    /// taken from the shared buffer if there is one and it has the bytes.
    fn take_space(&self, pkt: &Packet, shared: Option<&mut SharedBuffer>) -> bool {
        match (self.admission, shared) {
            (Admission::Shared { .. }, Some(buf)) => {
                let size = pkt.wire_bytes as u64;
                let ok = size <= buf.capacity - buf.used;
                if ok {
                    buf.used += size;
                }
                ok
            }
            _ => true,
        }
    }

    /// Cuts the payload; the header joins the first level. False (drop it) if there is
    /// no payload to cut (an `Admit` stage's verdict on a bare packet) or the shared
    /// buffer cannot hold even the header.
    fn trim(&mut self, pkt: &mut Packet, shared: Option<&mut SharedBuffer>) -> bool {
        if pkt.payload() == 0 || pkt.is_trimmed() {
            return false;
        }
        let header = Self::header_of(pkt);
        if !self.take_space(&header, shared) {
            return false;
        }
        self.stats.trim_packets += 1;
        self.stats.trim_bytes += pkt.payload() as u64;
        *pkt = header;
        true
    }

    /// What trimming leaves of a packet: its headers, flagged, at the first level.
    fn header_of(pkt: &Packet) -> Packet {
        let mut header = *pkt;
        header.wire_bytes -= pkt.payload();
        header.prio = 0;
        header.flags.insert(Flags::TRIMMED);
        header
    }

    /// `TrimRandom`'s other choice (NDP §3.1): on heads of the port's coin, the newest
    /// packet of the queue `pkt` joins is cut instead, if cutting it makes room for
    /// `pkt` whole; its header joins the first level. True if it did (then `pkt` fits).
    fn cut_tail_for(&mut self, now: Time, pkt: &Packet) -> bool {
        use rand::Rng;
        let Some(coin) = self.trim_coin.as_mut() else { return false };
        let Admission::PortLimit(limit) = self.admission else { return false };
        if !coin.random_bool(0.5) {
            return false;
        }
        let Some(tail) = self.sched.pop_tail(pkt) else { return false };
        // Cut, the tail leaves the data queue whole: its header queues beside it.
        let data = self.sched.bytes() - self.bare_queued;
        if tail.payload() == 0 || data + pkt.wire_bytes as u64 > limit {
            // Back where it was: the tail of its queue.
            self.sched.enqueue(now, tail);
            return false;
        }
        self.account_queue(now);
        self.class_queued.sub(tail.class.index(), tail.wire_bytes as u64);
        self.stats.trim_packets += 1;
        self.stats.trim_bytes += tail.payload() as u64;
        let header = Self::header_of(&tail);
        let backlog = Backlog { port: self.sched.bytes(), queue: self.sched.queue_bytes_of(&header) };
        self.enqueue(now, header, backlog);
        // Its packet was counted as enqueued when it arrived.
        self.stats.enq_packets -= 1;
        self.stats.enq_bytes -= header.wire_bytes as u64;
        true
    }

    /// Evicts queued packets that matter less until `pkt` fits (its space then taken).
    fn evict_for(
        &mut self,
        now: Time,
        pkt: &Packet,
        mut shared: Option<&mut SharedBuffer>,
        dropped: &mut Vec<Packet>,
    ) -> bool {
        loop {
            let Some(victim) = self.sched.evict_for(pkt) else { return false };
            self.account_queue(now);
            let size = victim.wire_bytes as u64;
            if let (Admission::Shared { .. }, Some(buf)) = (self.admission, shared.as_deref_mut()) {
                buf.used -= size;
            }
            self.class_queued.sub(victim.class.index(), size);
            if victim.payload() == 0 {
                self.bare_queued -= size;
            }
            self.stats.drop_packets += 1;
            self.stats.drop_bytes += size;
            self.stats.evict_packets += 1;
            self.stats.evict_bytes += size;
            dropped.push(victim);
            let backlog = Backlog { port: self.sched.bytes(), queue: self.sched.queue_bytes_of(pkt) };
            if self.fits(pkt, backlog, shared.as_deref_mut()) {
                return true;
            }
        }
    }

    /// Marks and queues an admitted packet.
    fn enqueue(&mut self, now: Time, mut pkt: Packet, backlog: Backlog) {
        let size = pkt.wire_bytes as u64;
        for m in self.markers.iter_mut() {
            if m.on_enqueue(now, backlog, &mut pkt) {
                self.stats.marks += 1;
            }
        }
        self.account_queue(now);
        let found = self.sched.bytes();
        self.stats.seen_queue_sum += found as u128;
        self.stats.seen_queue_max = self.stats.seen_queue_max.max(found);
        let on_wire = if self.busy && self.tx_end > now {
            ((self.tx_end - now).ps() as u128 * self.rate.bps() as u128 / 8_000_000_000_000) as u64
        } else {
            0
        };
        self.stats.seen_wire_sum += (found + on_wire) as u128;
        self.stats.seen_wire_max = self.stats.seen_wire_max.max(found + on_wire);
        let c = pkt.class.index();
        self.class_queued.add(c, size);
        if pkt.payload() == 0 {
            self.bare_queued += size;
        }
        self.sched.enqueue(now, pkt);
        self.stats.enq_packets += 1;
        self.stats.enq_bytes += size;
        self.stats.max_queue_bytes = self.stats.max_queue_bytes.max(self.sched.bytes());
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
    /// serialization time, and runs the departure markers. The caller schedules the end
    /// of its transmission (or, if none is ready although packets wait, the wake-up at
    /// `wake_at`).
    pub fn start_next(
        &mut self,
        now: Time,
        id: PortId,
        shared: Option<&mut SharedBuffer>,
        int: &mut int::Pool,
    ) -> Option<(Packet, Time)> {
        if self.busy {
            return None;
        }
        self.account_queue(now);
        let mut pkt = match self.hold {
            0 => self.sched.dequeue(now)?,
            _ => match self.held_next(now) {
                Next::Control(frame, ser) => return Some((frame, ser)),
                Next::Packet(p) => p,
                Next::Nothing => return None,
            },
        };
        if let (Admission::Shared { .. }, Some(buf)) = (self.admission, shared) {
            buf.used -= pkt.wire_bytes as u64;
        }
        let ser = self.begin(now, pkt.wire_bytes as u64);
        let c = pkt.class.index();
        self.class_queued.sub(c, pkt.wire_bytes as u64);
        if pkt.payload() == 0 {
            self.bare_queued -= pkt.wire_bytes as u64;
        }
        self.stats.class_sent_bytes.add(c, pkt.wire_bytes as u64);
        if self.departures {
            let mut dep = Departure {
                port: id,
                rate: self.rate,
                tx_bytes: self.stats.sent_bytes - pkt.wire_bytes as u64,
                queues: &*self.sched,
                int,
            };
            for m in self.markers.iter_mut().filter(|m| m.sees_departures()) {
                if m.on_dequeue(now, &mut dep, &mut pkt) {
                    self.stats.marks += 1;
                }
            }
        }
        Some((pkt, ser))
    }

    /// Sends `frame`, a MAC control frame, ahead of every queued packet once the frame on
    /// the wire is out; no pause holds it (IEEE 802.1Qbb's PAUSE, `net::pfc`).
    #[cold]
    pub fn send_control(&mut self, frame: Packet) {
        assert!(self.control.len() < u8::MAX as usize, "control frames wait at a port whose link never sends");
        self.control.push_back(frame);
        self.hold += 1 << 8;
    }

    /// The PFC priorities it may not send (a bit each).
    pub fn paused(&self) -> u8 {
        self.hold as u8
    }

    /// Holds (`true`) or releases PFC priority `priority`.
    pub fn hold_priority(&mut self, priority: u8, hold: bool) {
        let bit = 1u16 << priority;
        self.hold = if hold { self.hold | bit } else { self.hold & !bit };
    }

    /// The next thing to send when something holds the usual order: a control frame
    /// first (sent here), else a packet of a priority not paused. Cold: most runs pause
    /// nothing, and the hot `start_next` stays small.
    #[cold]
    #[inline(never)]
    fn held_next(&mut self, now: Time) -> Next {
        if self.hold >> 8 != 0 {
            let (frame, ser) = self.start_control(now);
            return Next::Control(frame, ser);
        }
        self.sched.dequeue_unpaused(now, self.hold as u8).map_or(Next::Nothing, Next::Packet)
    }

    fn start_control(&mut self, now: Time) -> (Packet, Time) {
        let frame = self.control.pop_front().expect("a control frame waits");
        self.hold -= 1 << 8;
        (frame, self.begin(now, frame.wire_bytes as u64))
    }

    /// The link takes a frame of `bytes` at `now`: counted, and its serialization time.
    #[inline(always)]
    fn begin(&mut self, now: Time, bytes: u64) -> Time {
        self.busy = true;
        self.stats.sent_packets += 1;
        self.stats.sent_bytes += bytes;
        let ser = self.ser(bytes);
        self.stats.busy_ps += ser.ps();
        self.tx_end = now + ser;
        ser
    }

    /// Replaces its buffer policy (PFC's switch memory admits instead, `net::pfc`).
    pub fn set_admission(&mut self, admission: Admission) {
        self.admission = admission;
    }

    /// When a port with packets waiting but none ready will have one.
    pub fn wake_at(&self, now: Time) -> Option<Time> {
        // A paused port is woken by the end of its pause (`net::pfc`).
        if self.busy || self.sched.is_empty() || self.hold as u8 != 0 {
            return None;
        }
        self.sched.wake_at(now)
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
