//! PL2's ToR agent (Le et al., "PL2: Towards Predictable Low Latency in Rack-Scale
//! Networks": Algorithm 2, §D.1-D.2, §D.4) and its RSV/GRT control packets.
//!
//! The switch keeps, per port, the timeslots reserved and not yet used on the way in
//! (`inReservation`, the port the sender is on) and on the way out (`outReservation`,
//! the receiver's port). An RSV asking for `demand` timeslots from `src` to `dst` is
//! answered with a GRT carrying both counters as they were (`sendTimeslot`,
//! `recvTimeslot`), and both grow by the demand; every scheduled data packet takes one
//! from each (lines 13-15). A timeslot is one MTU's transmission at the port's rate; the
//! host turns the two counters into a waiting time (`transport::pl2`). The counters are
//! queue lengths in timeslots, not clock readings: the prototype keeps them in two 32-bit
//! register arrays updated in one pipeline stage (§E).
//!
//! Where a packet gives its timeslots back the paper leaves open (Algorithm 2 takes both
//! in one branch). tailor takes the input port's as the packet arrives (it has crossed
//! the sender's link) and the output port's as it leaves the output queue (§D.1: a
//! timeslot is "the time it takes to transmit an MTU sized packet out of a buffer"), so
//! `outReservation` counts the packets queued at the port as well as those still coming.
//! Taken at arrival, it would not see a queue that formed: every later reservation would
//! be made as if the port were empty, a queue that forms would stand for as long as the
//! port stays booked, and unsolicited bursts (whose slots are given back as soon as they
//! arrive) would keep finding timeslots below t however long the queue grew
//! (docs/pl2.md measures both).
//!
//! Unsolicited bursts (§D.4) pass and use the slots their RSV reserved, unless the
//! reservations at either port exceed the threshold T (≫ t), in which case the switch
//! drops them: the sender resends them at their scheduled time when the GRT says so.
//! The paper does not give T; `Pl2Switch::threshold` says what tailor chooses.
//!
//! A resent burst (Algorithm 3 line 18: its GRT came back above t) carries both flags.
//! Its unsolicited copy may have passed — then the copy used the slots and the resent
//! packets must not give them back a second time (§D.4's duplicates) — or been dropped,
//! and then the resent packets use them. The switch cannot tell one burst from another,
//! so it counts the unsolicited packets it dropped at each port and lets as many resent
//! packets give a slot back there: every reservation is given back exactly once, and the
//! counters neither drift towards zero (a schedule that forgets queued packets) nor grow
//! without end. The paper does not say how its prototype does this; docs/pl2.md says
//! what drifting counters did. Packets the hosts did not schedule (control packets,
//! traffic leaving the rack) pass untouched and are only counted.

use super::agent::{Ingress, SwitchAgent};
use super::ids::{HostId, SwitchId};
use super::mechanism::{own_table, Configured, Context, Installer, Keys, Mechanism, Parsed, Section};
use super::packet::{Flags, Header, Packet, Priority};
use super::sched::priority::MAX_LEVELS;
use super::topology::{NetSpec, Shape};
use crate::input::Table;
use crate::sim::{Time, TimerKey};
use std::collections::VecDeque;
use std::sync::Arc;

/// `[switch] pl2`: the ToR agent's settings.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Pl2Switch {
    /// T: an unsolicited packet is dropped when the reservations at its input or output
    /// port exceed this many timeslots. The paper gives only T ≫ t = 15, and expects an
    /// unsolicited burst whose GRT comes back above t to arrive twice rather than be
    /// dropped ("since T ≫ t, it is also possible that both the unsolicited and scheduled
    /// packets arrive", §D.4). tailor's default, 512 timeslots (768 KB at 1,500 B, half a
    /// port's share of the rack's buffer), is about 34 t and twice the 240 slots the
    /// paper's rack can book at one port (5 senders × 12 threads × one RSV of K = 4
    /// outstanding each, §D.2.1). At 64 (an earlier default) the incast reproduction's
    /// start, 12 threads per sender beginning within a few µs, had unsolicited bursts
    /// sent on 1-2 µs old GRTs meet 70-186 booked slots and be dropped (docs/pl2.md).
    pub threshold: u32,
    /// Bytes on the wire of an RSV and a GRT (64 B Ethernet control frames, §E).
    pub control_bytes: u32,
    /// Their priority level (the highest: 802.1q, §2 footnote 1).
    pub priority: Priority,
}

impl Default for Pl2Switch {
    fn default() -> Self {
        Pl2Switch { threshold: 512, control_bytes: 64, priority: 0 }
    }
}

/// The switch processing delay the prototype measured with PL2 on (median 347 ns, §E):
/// `[switch] delay`'s default when `pl2` is set.
pub const PROTOTYPE_SWITCH_DELAY: Time = Time::from_ns(347);

/// A PL2 control packet, in the header's words: word 0 holds the tag 0x80 in its low
/// byte and the kind above it; an RSV's demand is in word 1; a GRT's two timeslots in
/// words 1 and 2.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Control {
    /// Reserve `demand` timeslots (the packets of one burst, at most K).
    Rsv { demand: u32 },
    /// The timeslots reserved: at the sender's input port and the receiver's output port.
    Grt { send: u32, recv: u32 },
}

const TAG: u64 = 0x80;

impl Control {
    pub fn encode(self) -> Header {
        match self {
            Control::Rsv { demand } => Header([TAG | 1 << 8, demand as u64, 0]),
            Control::Grt { send, recv } => Header([TAG | 2 << 8, send as u64, recv as u64]),
        }
    }
    pub fn decode(h: &Header) -> Option<Control> {
        if h.0[0] & 0xff != TAG {
            return None;
        }
        match h.0[0] >> 8 {
            1 => Some(Control::Rsv { demand: h.0[1] as u32 }),
            2 => Some(Control::Grt { send: h.0[1] as u32, recv: h.0[2] as u32 }),
            _ => None,
        }
    }
}

/// What a ToR agent saw (summed over agents into `summary.json`'s `network.pl2`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct AgentStats {
    pub rsv: u64,
    pub scheduled_packets: u64,
    pub unsolicited_packets: u64,
    pub unsolicited_drops: u64,
    /// Packets no reservation covers (control packets, inter-rack traffic).
    pub unscheduled_packets: u64,
    /// The largest reservation counter seen (timeslots).
    pub max_reservation: u32,
}

/// Algorithm 2 in one ToR switch.
pub struct TorAgent {
    spec: Pl2Switch,
    /// Per host (the switch port it is on): inReservation and outReservation.
    in_res: Vec<u32>,
    out_res: Vec<u32>,
    /// Unsolicited packets dropped at each input and output port whose slots a resent
    /// packet has yet to give back.
    dropped_in: Vec<u32>,
    dropped_out: Vec<u32>,
    out: VecDeque<Packet>,
    pub stats: AgentStats,
}

impl TorAgent {
    /// The agent of a ToR in a network of `hosts` hosts (its own are among them).
    pub fn new(spec: Pl2Switch, hosts: usize) -> TorAgent {
        TorAgent {
            spec,
            in_res: vec![0; hosts],
            out_res: vec![0; hosts],
            dropped_in: vec![0; hosts],
            dropped_out: vec![0; hosts],
            out: VecDeque::new(),
            stats: AgentStats::default(),
        }
    }

    /// The counters of the port `h` is on: (inReservation, outReservation).
    pub fn reservations(&self, h: HostId) -> (u32, u32) {
        (self.in_res[h.index()], self.out_res[h.index()])
    }

    /// Lines 7-12: the GRT for an RSV, both counters advanced by its demand.
    fn reserve(&mut self, rsv: &Packet, demand: u32) -> Packet {
        let (src, dst) = (rsv.src.index(), rsv.dst.index());
        let send = self.in_res[src];
        self.in_res[src] = send.saturating_add(demand);
        let recv = self.out_res[dst];
        self.out_res[dst] = recv.saturating_add(demand);
        self.stats.rsv += 1;
        self.stats.max_reservation = self.stats.max_reservation.max(self.in_res[src]).max(self.out_res[dst]);
        let mut grt = *rsv;
        grt.src = rsv.dst;
        grt.dst = rsv.src;
        grt.wire_bytes = self.spec.control_bytes;
        grt.header_bytes = self.spec.control_bytes as u16;
        grt.prio = self.spec.priority;
        grt.rank = 0;
        grt.flags = Flags::empty();
        grt.hdr = Control::Grt { send, recv }.encode();
        grt.int = None;
        grt
    }

    /// Line 15: a scheduled packet arrived: it has used its timeslot on the sender's link
    /// (a resent one only in place of a dropped unsolicited one).
    fn arrived(&mut self, pkt: &Packet) {
        let src = pkt.src.index();
        if resent(pkt) && !take(&mut self.dropped_in[src]) {
            return;
        }
        self.in_res[src] = self.in_res[src].saturating_sub(1);
    }
}

/// Whether a packet uses timeslots its sender reserved.
fn scheduled(pkt: &Packet) -> bool {
    pkt.flags.contains(Flags::RESERVED) || pkt.flags.contains(Flags::UNSOLICITED)
}

/// A resent packet (Algorithm 3 line 18) carries both flags.
fn resent(pkt: &Packet) -> bool {
    pkt.flags.contains(Flags::RESERVED.with(Flags::UNSOLICITED))
}

/// Takes one from a count of dropped packets, if there is one.
fn take(count: &mut u32) -> bool {
    let some = *count > 0;
    *count -= u32::from(some);
    some
}

impl SwitchAgent for TorAgent {
    fn on_arrival(&mut self, _now: Time, _switch: SwitchId, pkt: &mut Packet) -> Ingress {
        if let Some(Control::Rsv { demand }) = Control::decode(&pkt.hdr) {
            let grt = self.reserve(pkt, demand);
            self.out.push_back(grt);
            return Ingress::Consume;
        }
        if pkt.flags.contains(Flags::RESERVED) {
            self.stats.scheduled_packets += 1;
            self.arrived(pkt);
        } else if pkt.flags.contains(Flags::UNSOLICITED) {
            let (src, dst) = (pkt.src.index(), pkt.dst.index());
            if self.in_res[src].max(self.out_res[dst]) > self.spec.threshold {
                self.stats.unsolicited_drops += 1;
                self.dropped_in[src] += 1;
                self.dropped_out[dst] += 1;
                return Ingress::Drop;
            }
            self.stats.unsolicited_packets += 1;
            self.arrived(pkt);
        } else {
            self.stats.unscheduled_packets += 1;
        }
        Ingress::Forward
    }

    /// Line 14: a scheduled packet leaves the output queue: its timeslot there is used.
    fn on_departure(&mut self, _now: Time, _switch: SwitchId, pkt: &Packet) {
        let dst = pkt.dst.index();
        if scheduled(pkt) && (!resent(pkt) || take(&mut self.dropped_out[dst])) {
            self.out_res[dst] = self.out_res[dst].saturating_sub(1);
        }
    }

    /// The agent arms no timers.
    fn on_timer(&mut self, _now: Time, _key: TimerKey) {}

    fn poll_emit(&mut self) -> Option<Packet> {
        self.out.pop_front()
    }

    fn poll_timer(&mut self) -> Option<(TimerKey, Time)> {
        None
    }
}

/// The registry's entry (`net::mechanism`): `[switch] pl2` puts a [`TorAgent`] in every
/// ToR.
pub const MECHANISM: Mechanism = Mechanism {
    name: "pl2",
    about: "PL2's timeslot reservations in the ToR switches",
    used: |_| None,
    model_refuses: Some(
        "the model has no switch agents to hand out timeslots (PL2); accepted: --engine packet, or no pl2",
    ),
    oracle_refuses: None,
    decomposed_refuses: Some("a ToR's reservations span every link of its rack, and the decomposition simulates each link alone; accepted: --engine packet, or no pl2"),
    install: None,
    keys: &[Keys { section: Section::Switch, keys: &["pl2"], parse }],
    link_keys: None,
    marks_at: None,
    report: Some(report),
};

/// What the ToR agents saw, summed (the largest reservation: the largest any saw):
/// summary.json's `network.pl2`, absent without PL2.
fn report(ran: &super::mechanism::Ran) -> Option<super::mechanism::Fields> {
    let tors =
        ran.agents.iter().flatten().filter_map(|a| (a.as_ref() as &dyn std::any::Any).downcast_ref::<TorAgent>());
    let mut all: Option<AgentStats> = None;
    for s in tors.map(|t| t.stats) {
        let a = all.get_or_insert_with(Default::default);
        a.rsv += s.rsv;
        a.scheduled_packets += s.scheduled_packets;
        a.unsolicited_packets += s.unsolicited_packets;
        a.unsolicited_drops += s.unsolicited_drops;
        a.unscheduled_packets += s.unscheduled_packets;
        a.max_reservation = a.max_reservation.max(s.max_reservation);
    }
    let a = all?;
    Some(vec![
        ("rsv", a.rsv.into()),
        ("scheduled_packets", a.scheduled_packets.into()),
        ("unsolicited_packets", a.unsolicited_packets.into()),
        ("unsolicited_drops", a.unsolicited_drops.into()),
        ("unscheduled_packets", a.unscheduled_packets.into()),
        ("max_reservation", a.max_reservation.into()),
    ])
}

/// `[switch] pl2`: PL2's ToR agent, `{}` for the defaults.
fn parse(t: &mut Table, _shape: &Shape) -> Parsed {
    let mut p = own_table(t, "pl2")?;
    let d = Pl2Switch::default();
    let spec = Pl2Switch {
        threshold: p.int("threshold", 1, 1 << 30)?.map_or(d.threshold, |n| n as u32),
        control_bytes: match p.size("control_bytes")? {
            None => d.control_bytes,
            Some(b) if (64..=1_500).contains(&b) => b as u32,
            Some(_) => {
                return Err(p.error(
                    "control_bytes",
                    "is out of range; accepted: \"64B\" (an Ethernet control frame, the prototype's) to \"1500B\"",
                ))
            }
        },
        priority: p.int("priority", 0, MAX_LEVELS as i64 - 1)?.map_or(d.priority, |n| n as u8),
    };
    p.finish()?;
    Ok(Arc::new(spec))
}

impl Configured for Pl2Switch {
    fn install(&self, _net: &NetSpec, into: &mut dyn Installer) {
        let hosts = into.network().hosts.len();
        for s in 0..into.network().switches.len() {
            if into.network().switches[s].tier == 0 {
                into.set_agent(SwitchId::new(s), Box::new(TorAgent::new(*self, hosts)));
            }
        }
    }

    /// With PL2 on, the prototype's switch took 347 ns (median, §E).
    fn switch_delay(&self) -> Option<Time> {
        Some(PROTOTYPE_SWITCH_DELAY)
    }

    /// RSVs leave the NIC and GRTs the switch at PL2's level; a priority queue files a
    /// level it does not keep at its lowest, silently, so a level past the ports' is refused.
    fn check(&self, with: &Context) -> Result<(), (String, String)> {
        match with.levels {
            Some(levels) if self.priority as usize >= levels => Err((
                "switch.pl2.priority".into(),
                format!(
                    "{} is not a level of {levels}; accepted: 0 to {} (priority_levels sets how many)",
                    self.priority,
                    levels - 1
                ),
            )),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::ids::{ClassId, ConnId};

    fn packet(src: usize, dst: usize, hdr: Header, flags: Flags) -> Packet {
        let mut p = Packet::scripted(ConnId { slot: 0, gen: 0 }, ClassId::new(0), 1_500, hdr);
        p.src = HostId::new(src);
        p.dst = HostId::new(dst);
        p.flags = flags;
        p
    }
    fn rsv(src: usize, dst: usize, demand: u32) -> Packet {
        packet(src, dst, Control::Rsv { demand }.encode(), Flags::empty())
    }
    fn data(src: usize, dst: usize) -> Packet {
        packet(src, dst, Header::default(), Flags::RESERVED)
    }

    /// Sends `p` through the agent (a forwarded packet also leaves its output queue);
    /// the GRT it answered with, if any.
    fn arrive(a: &mut TorAgent, mut p: Packet) -> (Ingress, Option<Control>) {
        let v = a.on_arrival(Time::ZERO, SwitchId::new(0), &mut p);
        if v == Ingress::Forward {
            a.on_departure(Time::ZERO, SwitchId::new(0), &p);
        }
        let grt = a.poll_emit();
        if let Some(g) = grt {
            assert_eq!(
                (g.src, g.dst, g.wire_bytes, g.prio),
                (p.dst, p.src, 64, 0),
                "a GRT goes back to the RSV's sender"
            );
        }
        (v, grt.and_then(|g| Control::decode(&g.hdr)))
    }

    /// Algorithm 2 against a sequence worked by hand: Figure 4's example (H1 → H2 finds
    /// timeslot 4 on H1's input and 5 on H2's output) and what follows.
    #[test]
    fn algorithm_2_on_a_hand_worked_sequence_of_rsvs() {
        let mut a = TorAgent::new(Pl2Switch::default(), 4);
        // H1 already has 4 slots booked towards H3, H2's output 5 slots from H0 and H3.
        assert_eq!(arrive(&mut a, rsv(1, 3, 4)), (Ingress::Consume, Some(Control::Grt { send: 0, recv: 0 })));
        assert_eq!(arrive(&mut a, rsv(0, 2, 4)), (Ingress::Consume, Some(Control::Grt { send: 0, recv: 0 })));
        assert_eq!(arrive(&mut a, rsv(3, 2, 1)), (Ingress::Consume, Some(Control::Grt { send: 0, recv: 4 })));
        assert_eq!(a.reservations(HostId::new(1)), (4, 0));
        assert_eq!(a.reservations(HostId::new(2)), (0, 5));
        // Figure 4: H1's RSV for H2 gets sendTimeslot 4 and recvTimeslot 5 (the host sends
        // at max = 5), and both counters grow by its demand.
        assert_eq!(arrive(&mut a, rsv(1, 2, 2)), (Ingress::Consume, Some(Control::Grt { send: 4, recv: 5 })));
        assert_eq!(a.reservations(HostId::new(1)), (6, 0));
        assert_eq!(a.reservations(HostId::new(2)), (0, 7));
        // Lines 13-15: each scheduled packet takes one slot from its input and its output.
        for _ in 0..3 {
            assert_eq!(arrive(&mut a, data(1, 3)), (Ingress::Forward, None));
        }
        assert_eq!(a.reservations(HostId::new(1)), (3, 0));
        assert_eq!(a.reservations(HostId::new(3)), (1, 1));
        assert_eq!(arrive(&mut a, rsv(1, 2, 4)), (Ingress::Consume, Some(Control::Grt { send: 3, recv: 7 })));
        // A packet that was not scheduled leaves the counters alone.
        arrive(&mut a, packet(0, 2, Header::default(), Flags::empty()));
        assert_eq!(a.reservations(HostId::new(2)), (0, 11));
        // A counter never goes below zero.
        for _ in 0..3 {
            arrive(&mut a, data(3, 0));
        }
        assert_eq!(a.reservations(HostId::new(3)), (0, 1));
        assert_eq!(a.stats.rsv, 5);
        assert_eq!(a.stats.scheduled_packets, 6);
        assert_eq!(a.stats.unscheduled_packets, 1);
        assert_eq!(a.stats.max_reservation, 11);
    }

    /// A scheduled packet gives its input slot back as it arrives, its output slot as it
    /// leaves the output queue: queued packets still count on the output port.
    #[test]
    fn the_output_port_counts_packets_until_they_leave_its_queue() {
        let mut a = TorAgent::new(Pl2Switch::default(), 2);
        arrive(&mut a, rsv(0, 1, 4));
        let mut queued = Vec::new();
        for _ in 0..3 {
            let mut p = data(0, 1);
            assert_eq!(a.on_arrival(Time::ZERO, SwitchId::new(0), &mut p), Ingress::Forward);
            queued.push(p);
        }
        assert_eq!((a.reservations(HostId::new(0)).0, a.reservations(HostId::new(1)).1), (1, 4));
        for p in &queued {
            a.on_departure(Time::ZERO, SwitchId::new(0), p);
        }
        assert_eq!(a.reservations(HostId::new(1)).1, 1);
        // Packets nobody scheduled leave the counters alone on the way out too.
        a.on_departure(Time::ZERO, SwitchId::new(0), &packet(0, 1, Header::default(), Flags::empty()));
        assert_eq!(a.reservations(HostId::new(1)).1, 1);
    }

    /// §D.4: unsolicited packets pass (using their slots) while both ports are booked for
    /// at most T slots, and are dropped beyond.
    #[test]
    fn unsolicited_packets_pass_below_the_threshold_and_are_dropped_above() {
        let spec = Pl2Switch { threshold: 8, ..Pl2Switch::default() };
        let mut a = TorAgent::new(spec, 3);
        let unsolicited = |s, d| packet(s, d, Header::default(), Flags::UNSOLICITED);
        arrive(&mut a, rsv(0, 2, 4));
        assert_eq!(arrive(&mut a, unsolicited(0, 2)).0, Ingress::Forward);
        assert_eq!(a.reservations(HostId::new(2)), (0, 3));
        arrive(&mut a, rsv(1, 2, 4));
        arrive(&mut a, rsv(1, 2, 4));
        assert_eq!(a.reservations(HostId::new(2)), (0, 11));
        assert_eq!(arrive(&mut a, unsolicited(0, 2)).0, Ingress::Drop);
        assert_eq!(a.reservations(HostId::new(2)), (0, 11), "a dropped packet uses no slot");
        assert_eq!((a.stats.unsolicited_packets, a.stats.unsolicited_drops), (1, 1));
    }

    /// A resent burst gives back only the slots its dropped unsolicited copy left: with
    /// the copy passed, the counters stay where the copy left them.
    #[test]
    fn a_resent_packet_gives_back_a_slot_only_for_a_dropped_copy() {
        let spec = Pl2Switch { threshold: 4, ..Pl2Switch::default() };
        let resend = |s, d| packet(s, d, Header::default(), Flags::RESERVED.with(Flags::UNSOLICITED));
        let unsolicited = |s, d| packet(s, d, Header::default(), Flags::UNSOLICITED);
        let mut a = TorAgent::new(spec, 3);
        arrive(&mut a, rsv(0, 2, 2));
        arrive(&mut a, unsolicited(0, 2));
        arrive(&mut a, unsolicited(0, 2));
        assert_eq!(a.reservations(HostId::new(2)), (0, 0));
        arrive(&mut a, resend(0, 2));
        arrive(&mut a, resend(0, 2));
        assert_eq!(a.reservations(HostId::new(0)), (0, 0), "duplicates take nothing");
        // Now the copies are dropped (4 + 2 > T): the resent packets use the slots.
        arrive(&mut a, rsv(1, 2, 4));
        arrive(&mut a, rsv(0, 2, 2));
        assert_eq!(arrive(&mut a, unsolicited(0, 2)).0, Ingress::Drop);
        assert_eq!(arrive(&mut a, unsolicited(0, 2)).0, Ingress::Drop);
        assert_eq!((a.reservations(HostId::new(0)).0, a.reservations(HostId::new(2)).1), (2, 6));
        arrive(&mut a, resend(0, 2));
        arrive(&mut a, resend(0, 2));
        assert_eq!((a.reservations(HostId::new(0)).0, a.reservations(HostId::new(2)).1), (0, 4));
        assert_eq!(a.stats.scheduled_packets, 4);
    }

    #[test]
    fn control_packets_round_trip_through_the_header() {
        for c in [Control::Rsv { demand: 4 }, Control::Grt { send: 7, recv: 123_456 }] {
            assert_eq!(Control::decode(&c.encode()), Some(c));
        }
        assert_eq!(Control::decode(&Header::default()), None);
    }
}
