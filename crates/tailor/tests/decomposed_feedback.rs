//! The decomposition's second pass (docs/decomposed.md, "Method", point 5): a host
//! uplink simulated at host-rate edges with the links after it emulated at the far switch.
//! Where those links are free, nothing marks and the host's NIC queue grows, unbounded, as
//! in the fabric's NIC; where they are slow, each message is marked down to their rate.

mod common;

use tailor::decomposed::{self, LinkResult};
use tailor::net::port::PortRole;

/// Host 0 of a 10 Gbps star sends 2 MB to each of hosts 1 and 2 at once.
const TWO_LONG: &str = "name = \"two\"\nseed = 1\n\
    [topology]\nkind = \"star\"\nhosts = 3\nlink = { rate = \"10Gbps\", delay = \"1us\" }\n\
    [switch]\necn_threshold = \"30KB\"\n\
    [transport]\nkind = \"dctcp\"\n\
    [[class]]\nname = \"c\"\ntrace = \"two.csv\"\n";

const RATE_BPS: u64 = 10_000_000_000;
const SIZE: u64 = 2_000_000;

/// Host 0's uplink simulated again with every message's rate after the NIC `fraction` of
/// the host link's.
fn uplink(fraction: f64) -> LinkResult {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("two.csv"),
        "flow_id,sender,size_bytes,start_ns,receiver\n1,0,2000000,0,1\n2,0,2000000,0,2\n",
    )
    .unwrap();
    let sc = common::scenario(TWO_LONG, dir.path());
    let (plan, tpl, _) = decomposed::plan(sc.build(1).unwrap()).unwrap();
    let link = plan.links.iter().find(|l| l.role == PortRole::HostNic && l.msgs.len() == 2).expect("host 0's uplink");
    let rate = RATE_BPS as f64 / 8.0 * 1e-12 * fraction;
    decomposed::simulate_with(&plan, &tpl, link, Some(vec![rate; 2]), &|| true).unwrap()
}

#[test]
fn free_links_downstream_let_the_nic_queue_grow_and_slow_ones_mark_it_down() {
    let (free, slow) = (uplink(1.0), uplink(0.25));
    let q = |r: &LinkResult| r.seen.mean_us(RATE_BPS);
    // 30 KB is 24 us at 10 Gbps: a port marking at it would hold its queue near there.
    assert!(q(&free) > 24.0, "free downstream: the unmarked NIC queue {:.1} us", q(&free));
    assert!(q(&free) > 4.0 * q(&slow), "NIC queue free {:.1} us, slow {:.1} us", q(&free), q(&slow));
    // At a quarter of the rate each message takes at least about four times its
    // transmission alone (1.6 ms at 10 Gbps); free, the two share the NIC (about twice).
    let alone = SIZE as f64 * 8.0 / RATE_BPS as f64 * 1e12;
    for d in &slow.delays {
        assert!(d.latency.ps() as f64 > 3.0 * alone, "{:?} against {alone} ps alone", d.latency);
    }
    for d in &free.delays {
        assert!((d.latency.ps() as f64) < 2.6 * alone, "{:?} against {alone} ps alone", d.latency);
    }
}

#[test]
fn the_second_pass_can_be_turned_off_and_its_key_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let on = |extra: &str| tailor::scenario::Scenario::parse(&format!("{TWO_LONG}{extra}"), "t.toml", dir.path());
    std::fs::write(dir.path().join("two.csv"), "flow_id,sender,size_bytes,start_ns,receiver\n1,0,2000,0,1\n").unwrap();
    assert!(on("").unwrap().feedback);
    assert!(!on("[decomposed]\nfeedback = false\n").unwrap().feedback);
    let e = on("[decomposed]\nfeedback = \"no\"\n").unwrap_err().to_string();
    assert!(e.contains("feedback") && e.contains("true or false"), "{e}");
}
