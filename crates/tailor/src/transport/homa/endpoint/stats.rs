//! What one host's Homa counts, and the names it reports the counts under
//! (`Endpoint::counters`; docs/homa.md): packets and bytes of each kind, the time with k
//! senders waiting for grants (the waiting-sender histogram), the oversubscribed time and
//! bytes (Figure 16), and the DATA bytes that arrived per switch level (Figure 21).

use super::HomaEndpoint;
use crate::transport::Counters;

#[derive(Default)]
pub(super) struct Stats {
    pub(super) data_packets: u64,
    pub(super) data_bytes: u64,
    pub(super) grants: u64,
    pub(super) resends: u64,
    pub(super) busy: u64,
    pub(super) retransmitted_packets: u64,
    pub(super) probes: u64,
    pub(super) duplicate_packets: u64,
    pub(super) oversubscribed_ps: u64,
    pub(super) oversubscribed_bytes: u64,
    pub(super) incast_responses: u64,
    pub(super) gap_resends: u64,
    /// BUSYs a receiver sent for messages it held back (`Config::receiver_busy`).
    pub(super) held_busy: u64,
    /// Time with k senders waiting for grants (k = 0..WAITING_BINS-1, the last bin
    /// k or more), in ps: the waiting-sender histogram.
    pub(super) waiting_ps: [u64; WAITING_BINS],
    /// Wire bytes of DATA packets that arrived here, per switch level (Figure 21).
    pub(super) level_bytes: [u64; 8],
}

/// Bins of the waiting-sender histogram: 0 to 15 senders, and 16 or more.
pub(super) const WAITING_BINS: usize = 17;
pub(super) const WAITING_NAMES: [&str; WAITING_BINS] = [
    "waiting_senders_ns_0",
    "waiting_senders_ns_1",
    "waiting_senders_ns_2",
    "waiting_senders_ns_3",
    "waiting_senders_ns_4",
    "waiting_senders_ns_5",
    "waiting_senders_ns_6",
    "waiting_senders_ns_7",
    "waiting_senders_ns_8",
    "waiting_senders_ns_9",
    "waiting_senders_ns_10",
    "waiting_senders_ns_11",
    "waiting_senders_ns_12",
    "waiting_senders_ns_13",
    "waiting_senders_ns_14",
    "waiting_senders_ns_15",
    "waiting_senders_ns_16_or_more",
];
pub(super) const LEVEL_NAMES: [&str; 8] = [
    "level_0_data_wire_bytes",
    "level_1_data_wire_bytes",
    "level_2_data_wire_bytes",
    "level_3_data_wire_bytes",
    "level_4_data_wire_bytes",
    "level_5_data_wire_bytes",
    "level_6_data_wire_bytes",
    "level_7_data_wire_bytes",
];

impl HomaEndpoint {
    /// The counters `Endpoint::counters` reports.
    pub(super) fn report(&self, out: &mut Counters) {
        let s = &self.stats;
        out.add("data_packets", s.data_packets);
        out.add("data_bytes", s.data_bytes);
        out.add("grants", s.grants);
        out.add("resends", s.resends);
        out.add("busy", s.busy);
        out.add("retransmitted_packets", s.retransmitted_packets);
        out.add("probes", s.probes);
        out.add("duplicate_packets", s.duplicate_packets);
        // A period still open counts up to the endpoint's latest input.
        let open = self.oversubscribed_since.map_or(0, |since| (self.now - since).ps());
        out.add("oversubscribed_ns", (s.oversubscribed_ps + open) / 1000);
        out.add("oversubscribed_wire_bytes", s.oversubscribed_bytes);
        out.add("incast_responses", s.incast_responses);
        if self.cfg.receiver_busy {
            out.add("held_busy", s.held_busy);
        }
        // The bin open now counts up to the endpoint's latest input.
        let open = (self.now - self.waiting_since).ps();
        for (k, name) in WAITING_NAMES.iter().enumerate() {
            let extra = if k == self.waiting.min(WAITING_BINS - 1) { open } else { 0 };
            out.add(name, (s.waiting_ps[k] + extra) / 1000);
        }
        for (p, name) in LEVEL_NAMES.iter().enumerate() {
            out.add(name, s.level_bytes[p]);
        }
        if self.cfg.resend_on_gap {
            out.add("gap_resends", s.gap_resends);
        }
    }
}
