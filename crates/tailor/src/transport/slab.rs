//! Per-message records in reusable slots, with an index by message: how the receiver-driven
//! endpoints (`homa`, `phost`) keep their outgoing and incoming messages. A slot number is
//! stable while its message lives, so ordered sets (SRPT keys) can name it cheaply; freed
//! slots are reused, so steady state allocates nothing per message.

use crate::net::ids::ConnId;
use rustc_hash::FxHashMap;

pub(in crate::transport) struct Slab<T> {
    pub(in crate::transport) items: Vec<Option<T>>,
    free: Vec<u32>,
    index: FxHashMap<ConnId, u32>,
}

impl<T> Slab<T> {
    pub(in crate::transport) fn new() -> Self {
        Slab { items: Vec::new(), free: Vec::new(), index: FxHashMap::default() }
    }
    /// Stores `item` for `conn`; its slot.
    pub(in crate::transport) fn insert(&mut self, conn: ConnId, item: T) -> u32 {
        let slot = match self.free.pop() {
            Some(s) => s,
            None => {
                self.items.push(None);
                (self.items.len() - 1) as u32
            }
        };
        self.items[slot as usize] = Some(item);
        self.index.insert(conn, slot);
        slot
    }
    pub(in crate::transport) fn slot(&self, conn: ConnId) -> Option<u32> {
        self.index.get(&conn).copied()
    }
    pub(in crate::transport) fn get(&mut self, slot: u32) -> &mut T {
        self.items[slot as usize].as_mut().expect("a live slot")
    }
    /// Takes `conn`'s record out, freeing its slot.
    pub(in crate::transport) fn remove(&mut self, conn: ConnId) -> Option<(u32, T)> {
        let slot = self.index.remove(&conn)?;
        self.free.push(slot);
        Some((slot, self.items[slot as usize].take().expect("an indexed slot is live")))
    }
    pub(in crate::transport) fn is_empty(&self) -> bool {
        self.index.is_empty()
    }
}
