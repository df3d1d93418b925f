//! Measures the decomposition's feedback pass (docs/decomposed.md, "Accuracy"): the
//! queue the host uplinks' data found in the first and the second pass, and each
//! message's estimate with the number of links that delayed it.
//!
//!     cargo run --release --example decomposed_feedback -- SCENARIO OUT.csv
//!
//! Prints the mean queue (µs at the host link's rate) over the host uplinks'
//! simulations, both passes; writes per message: id, size, the links of its path that
//! gave it a non-zero delay in the first pass, its downstream mark probability (or rate),
//! its estimated slowdown without and with the second pass.

use std::path::Path;
use tailor::decomposed::{self, Combine, Seen};
use tailor::net::port::PortRole;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (scenario, out, zero) = match &args[..] {
        [_, s, o] => (s, o, false),
        [_, s, o, z] if z == "zero" => (s, o, true),
        _ => {
            eprintln!("usage: decomposed_feedback SCENARIO OUT.csv [zero]  (zero: downstream mark probability 0)");
            std::process::exit(2);
        }
    };
    let sc = tailor::scenario::Scenario::load(Path::new(scenario))?;
    let seed = sc.seed;
    let (plan, tpl, _) = decomposed::plan(sc.build(seed)?)?;
    let all: Vec<usize> = (0..plan.links.len()).collect();
    let first = decomposed::simulate_links(&plan, &tpl, &all)?;
    let p = if decomposed::VQ {
        decomposed::downstream_rate(&plan, &first)
    } else if zero {
        vec![0.0; plan.msgs.len()]
    } else {
        decomposed::downstream(&plan, &first)
    };
    let nics: Vec<usize> = all.iter().copied().filter(|&k| plan.links[k].role == PortRole::HostNic).collect();
    let second = decomposed::second_pass(&plan, &tpl, &nics, &p)?;
    let rate = plan.links[nics[0]].rate.bps() as f64;
    let us = |s: Seen| s.queue_sum / s.packets.max(1) as f64 * 8.0 / rate * 1e6;
    let sum = |v: &mut dyn Iterator<Item = Seen>| {
        v.fold(Seen::default(), |a, s| Seen {
            packets: a.packets + s.packets,
            queue_sum: a.queue_sum + s.queue_sum,
            trunk_marks: a.trunk_marks + s.trunk_marks,
        })
    };
    let one = sum(&mut nics.iter().map(|&k| first[k].seen));
    let two = sum(&mut second.iter().map(|r| r.seen));
    let per_link = |v: &mut dyn Iterator<Item = Seen>| {
        let q: Vec<f64> = v.map(us).collect();
        q.iter().sum::<f64>() / q.len().max(1) as f64
    };
    let mean_p = p.iter().sum::<f64>() / p.len() as f64;
    println!(
        "host uplinks ({} links): mean queue, packet-weighted: pass 1 {:.3} us, pass 2 {:.3} us; mean of links: pass 1 {:.3} us, pass 2 {:.3} us; mean downstream p {:.4}",
        nics.len(),
        us(one),
        us(two),
        per_link(&mut nics.iter().map(|&k| first[k].seen)),
        per_link(&mut second.iter().map(|r| r.seen)),
        mean_p
    );
    let mut delayed = vec![0u32; plan.msgs.len()];
    for (link, r) in plan.links.iter().zip(&first) {
        for (&i, d) in link.msgs.iter().zip(&r.delays) {
            delayed[i as usize] += u32::from(d.total.ps() > 0);
        }
    }
    let (before, _) = decomposed::estimate(&plan, &first, seed, Combine::Once);
    let worst = decomposed::worst_downstream(&plan, &first);
    let mut results = first;
    for (&k, mut r) in nics.iter().zip(second) {
        if decomposed::VQ && decomposed::EXCESS {
            decomposed::discount(&plan, &plan.links[k], &mut r, &worst);
        }
        results[k] = r;
    }
    let (after, _) = decomposed::estimate(&plan, &results, seed, Combine::Once);
    let mut w = String::from("id,size,delayed_links,downstream,slowdown_pass1,slowdown_pass2\n");
    for ((m, (a, b)), (n, p)) in plan.msgs.iter().zip(before.iter().zip(&after)).zip(delayed.iter().zip(&p)) {
        w += &format!("{},{},{},{:.6},{:.5},{:.5}\n", m.id, m.size, n, p, a.slowdown(), b.slowdown());
    }
    std::fs::write(out, w)?;
    Ok(())
}
