//! The names of things every layer passes around: typed ids into the network's arenas
//! (an id is only an index: no arithmetic on it), a link's far end ([`Node`]), what a port
//! is in the topology ([`PortRole`]), a connection ([`ConnId`]) and which persistent
//! connection a message goes on ([`Channel`]). A leaf module: it imports nothing of the
//! crate, so `measure`, `workload`, `transport` and `net` all use it downhill
//! (docs/architecture.md, "Layers"). `net::ids`, `net::port::PortRole` and
//! `transport::Channel` re-export them.

macro_rules! arena_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(u32);

        impl $name {
            pub fn new(index: usize) -> Self {
                $name(u32::try_from(index).expect("arena index fits in u32"))
            }
            pub fn index(self) -> usize {
                self.0 as usize
            }
            /// An id that names nothing (a placeholder in fixed-size records).
            pub const MAX: $name = $name(u32::MAX);
        }
    };
}

arena_id!(
    /// An end host (it owns one NIC port).
    HostId
);
arena_id!(
    /// A switch.
    SwitchId
);
arena_id!(
    /// An egress port: a host NIC or a switch output.
    PortId
);
arena_id!(
    /// A one-way link, fed by exactly one port.
    LinkId
);
arena_id!(
    /// A traffic class of the scenario.
    ClassId
);

/// A node at the far end of a link.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    Host(HostId),
    Switch(SwitchId),
}

/// A connection (one message, one transport connection): a slot in the connection table
/// and the generation of that slot, so that a late packet of a finished message is
/// recognised as stale when the slot has been reused.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConnId {
    pub slot: u32,
    pub gen: u32,
}

impl ConnId {
    /// A 64-bit value unique to this connection, used as the ECMP flow key.
    pub fn key(self) -> u64 {
        (self.gen as u64) << 32 | self.slot as u64
    }
}

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

/// Which of a (sender, receiver, class)'s persistent connections a message goes on.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Channel {
    /// This one (drawn at random by the workload: HULL's testbed client, §6.2); a
    /// response goes back on its request's.
    Fixed(u32),
    /// An idle one of these many if there is one, else the least loaded: a pool of
    /// permanent connections (HULL §6.3). The sender's transport chooses.
    Pool(u32),
    /// An available one of these many, taken in turn (`transport::workers::Workers`), the message
    /// waiting at its sender until one is: a generator's master thread handing each
    /// message to an available worker thread, one connection per worker (PL2 §F.3). A
    /// connection is available when its worker's send call would have returned: nothing of
    /// it waits to be sent (under PL2, nothing of it is held by PL2's sending threads
    /// either, §E). The sender's transport chooses.
    Available(u32),
}
