//! What the transports' unit tests share: the packet the engine would build from an
//! endpoint's `Transmit`, and an endpoint drained of everything it sends at one instant.
//! Test-only (`#[cfg(test)]` in `transport/mod.rs`).

use super::{Endpoint, Transmit};
use crate::net::ids::HostId;
use crate::net::int::Pool;
use crate::net::packet::Packet;
use crate::sim::Time;

/// The packet `t` becomes when host `src` sends it, built as the engine builds it
/// (`engine::host` `emit`), with priority 0 where the transport leaves it to the class
/// and no INT stack.
pub(crate) fn packet(src: usize, t: &Transmit) -> Packet {
    let mut p = Packet {
        conn: t.conn,
        src: HostId::new(src),
        dst: t.dst,
        class: t.class,
        wire_bytes: t.wire_bytes,
        header_bytes: (t.wire_bytes - t.payload) as u16,
        prio: t.prio.unwrap_or(0),
        rank: t.rank,
        flags: t.flags,
        hdr: t.hdr,
        int: None,
    };
    p.set_ecn(t.ecn);
    p
}

/// Everything the endpoint sends at `now`, polled until it has nothing more (as if its
/// NIC always had room).
pub(crate) fn drain<E: Endpoint + ?Sized>(ep: &mut E, now: Time) -> Vec<Transmit> {
    let mut pool = Pool::default();
    std::iter::from_fn(|| ep.poll_transmit(now, &mut pool)).collect()
}
