//! Packets on the wires: one slab holds every link's packets in flight, and each link's
//! pipe holds (arrival time, slot) in order (`Network::launch`, `Network::land`).
//!
//! Why not each link's packets by value in its own ring: on a fabric of a thousand hosts
//! the six thousand links' rings are megabytes, and each transmission wrote its packet
//! into a slot last touched a turn of its ring ago, which the cache no longer held:
//! cachegrind (a 2 MB last level, the 1,024-host scenario) put 45 % of the run's write
//! misses on that one store (docs/performance.md, "A thousand hosts"). Here the slot
//! freed last is reused first, so a packet is written where the latest arrival was just
//! read, and a pipe's entries are 16 bytes instead of 80.

use super::packet::Packet;

/// The packets on the wires; a slot is free from `take` until `put` reuses it.
#[derive(Default)]
pub struct Wire {
    slots: Vec<Packet>,
    /// Free slots, the most recently freed last.
    free: Vec<u32>,
}

impl Wire {
    /// Stores `pkt`, in the slot freed last if any.
    #[inline]
    pub fn put(&mut self, pkt: Packet) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = pkt;
                i
            }
            None => {
                let i = u32::try_from(self.slots.len()).expect("fewer than 2^32 packets on the wires at once");
                self.slots.push(pkt);
                i
            }
        }
    }

    /// The packet in slot `i`, which becomes free.
    #[inline]
    pub fn take(&mut self, i: u32) -> Packet {
        self.free.push(i);
        self.slots[i as usize]
    }

    pub fn get(&self, i: u32) -> &Packet {
        &self.slots[i as usize]
    }

    /// Slots ever used (the most packets on the wires at once).
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::ids::{ClassId, ConnId};
    use crate::net::packet::Header;

    fn pkt(n: u32) -> Packet {
        Packet::scripted(ConnId { slot: n, gen: 0 }, ClassId::new(0), 100 + n, Header::default())
    }

    /// What goes in comes out, and a freed slot is the next one used.
    #[test]
    fn slots_are_reused_last_freed_first() {
        let mut w = Wire::default();
        let (a, b, c) = (w.put(pkt(1)), w.put(pkt(2)), w.put(pkt(3)));
        assert_eq!((a, b, c), (0, 1, 2));
        assert_eq!(w.take(b).wire_bytes, 102);
        assert_eq!(w.take(a).wire_bytes, 101);
        assert_eq!(w.put(pkt(4)), a);
        assert_eq!(w.put(pkt(5)), b);
        assert_eq!(w.put(pkt(6)), 3);
        assert_eq!((w.get(a).wire_bytes, w.get(b).wire_bytes, w.get(c).wire_bytes), (104, 105, 103));
        assert_eq!(w.capacity(), 4);
    }
}
