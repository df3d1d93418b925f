//! Typed ids into the network's arenas. An id is only an index: no arithmetic on it.

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
