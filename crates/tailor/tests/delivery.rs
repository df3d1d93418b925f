//! TCP's `completion = "delivery"` (docs/transport.md, "Completion"): a message completes
//! when its receiver has its last byte in order, and the network does exactly what it
//! does when it completes at the sender's last ACK.

mod common;

use tailor::engine::report::RunReport;
use tailor::measure::MessageRecord;

/// A 3-to-1 incast of heavy-tailed messages on 2 persistent connections per sender,
/// TCP Cubic into a small buffer (so segments drop and are retransmitted).
fn incast(completion: &str) -> (Vec<MessageRecord>, RunReport) {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        r#"
[topology]
kind = "star"
hosts = 4
link = {{ rate = "10Gbps", delay = "1us" }}
[switch]
buffer = "per_port"
buffer_size = "60KB"
[transport]
kind = "cubic"
min_rto = "200us"
completion = "{completion}"
[[class]]
name = "c"
sizes_pareto = {{ shape = 1.2, mean = "20KB", max = "2MB" }}
arrival = "poisson"
load = 0.7
pattern = "n_to_1"
senders = [0, 1, 2]
receiver = 3
messages = 600
connections = 2
"#
    );
    let sc = common::scenario(&text, dir.path());
    let (sim, mut recs) = common::run(&sc, 1);
    recs.sort_by_key(|r| r.id);
    (recs, sim.report())
}

/// The same run completing at delivery: the same packets (every counter equal), every
/// message recorded once, each no later than at its ACK and no sooner than its ideal.
#[test]
fn delivery_changes_when_messages_complete_and_nothing_the_network_does() {
    let (ack, ra) = incast("ack");
    let (del, rd) = incast("delivery");
    assert!(ra.transport_counters.get("retransmits").unwrap_or(0) > 0, "the buffer drops: recovery is exercised");
    assert_eq!(ra.transport_counters, rd.transport_counters, "the connections send exactly the same");
    assert_eq!((ra.messages.generated, ra.messages.incomplete), (rd.messages.generated, rd.messages.incomplete));
    assert_eq!(rd.messages.completed + rd.messages.incomplete, rd.messages.generated);
    assert_eq!(ack.len(), del.len());
    let mut earlier = 0;
    for (a, d) in ack.iter().zip(&del) {
        assert_eq!((a.id, a.start, a.size), (d.id, d.start, d.size));
        assert!(d.finish <= a.finish, "message {} delivered after its ACK", a.id);
        assert!(d.slowdown() >= 1.0, "message {}: slowdown {} below 1", d.id, d.slowdown());
        earlier += usize::from(d.finish < a.finish);
    }
    assert_eq!(earlier, del.len(), "every message is delivered before its last ACK returns");
}
