//! Measures the decomposition's second pass (docs/decomposed.md, "Accuracy"): the queue
//! the host uplinks' data found in the first and the second pass, and each message's
//! estimate without and with it, with the links that delayed it.
//!
//!     cargo run --release --example decomposed_feedback -- SCENARIO OUT.csv
//!
//! Prints the mean queue a data packet found on its way onto a host uplink (µs at the
//! host link's rate), over the host uplinks' simulations, in both passes: packet-weighted
//! and the mean of the links. Writes per message: id, size, the links of its path that
//! gave it a non-zero delay in the first pass and those that gave it at least 5 % of its
//! ideal, and its estimated slowdown without and with the second pass. Every loaded link
//! is simulated (no clustering).

use std::path::Path;
use tailor::decomposed::{self, Clusters, Combine, Seen};
use tailor::net::port::PortRole;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, scenario, out] = &args[..] else {
        eprintln!("usage: decomposed_feedback SCENARIO OUT.csv");
        std::process::exit(2);
    };
    let sc = tailor::scenario::Scenario::load(Path::new(scenario))?;
    let seed = sc.seed;
    let (plan, tpl, _) = decomposed::plan(sc.build(seed)?)?;
    let all: Vec<usize> = (0..plan.links.len()).collect();
    let first = decomposed::simulate_links(&plan, &tpl, &all)?;
    let work = decomposed::Work { done: 0, events: 0, total: 0 };
    let second =
        decomposed::second_pass(&plan, &tpl, &Clusters::none(all.len()), first.clone(), seed, &mut |_| true, work)?;
    let nics: Vec<usize> = all.iter().copied().filter(|&k| plan.links[k].role == PortRole::HostNic).collect();
    let rate = plan.links[nics[0]].rate.bps();
    let weighted = |r: &[decomposed::LinkResult]| {
        let s = nics.iter().fold(Seen::default(), |a, &k| Seen {
            packets: a.packets + r[k].seen.packets,
            queue_sum: a.queue_sum + r[k].seen.queue_sum,
        });
        s.mean_us(rate)
    };
    let per_link =
        |r: &[decomposed::LinkResult]| nics.iter().map(|&k| r[k].seen.mean_us(rate)).sum::<f64>() / nics.len() as f64;
    println!(
        "host uplinks ({} links), mean queue found: packet-weighted pass 1 {:.3} us, pass 2 {:.3} us; \
         mean of links pass 1 {:.3} us, pass 2 {:.3} us",
        nics.len(),
        weighted(&first),
        weighted(&second),
        per_link(&first),
        per_link(&second)
    );
    let (mut any, mut five) = (vec![0u32; plan.msgs.len()], vec![0u32; plan.msgs.len()]);
    for (link, r) in plan.links.iter().zip(&first) {
        for (&i, d) in link.msgs.iter().zip(&r.delays) {
            let m = &plan.msgs[i as usize];
            any[i as usize] += u32::from(d.total.ps() > 0);
            five[i as usize] += u32::from(d.total.ps() as f64 >= 0.05 * m.ideal.ps() as f64);
        }
    }
    let alone = decomposed::alone_on_paths(&plan, &tpl)?;
    let (before, _) = decomposed::estimate(&plan, &first, &alone, seed, Combine::Once);
    let (after, _) = decomposed::estimate(&plan, &second, &alone, seed, Combine::Once);
    let mut w = String::from("id,size,delayed_links,delayed_5pct_links,slowdown_pass1,slowdown_pass2\n");
    for (k, m) in plan.msgs.iter().enumerate() {
        let (a, b) = (before[k].slowdown(), after[k].slowdown());
        w += &format!("{},{},{},{},{a:.5},{b:.5}\n", m.id, m.size, any[k], five[k]);
    }
    std::fs::write(out, w)?;
    Ok(())
}
