//! The decomposed estimator (`--engine decomposed`): per-message latency estimates for
//! fabrics too large for the packet engine, by the method of Parsimon (Zhao, Goyal,
//! Alizadeh, Anderson, NSDI'23, "Scalable Tail Latency Estimation for Data Center
//! Networks"), built on tailor's own packet engine. Choices, scope and accuracy:
//! docs/decomposed.md.
//!
//! - `plan` (§3.1): every message of the scenario, as the packet engine draws it, routed
//!   along an ECMP path; the fabric split into its directed links, each with the
//!   messages that cross it.
//! - `linksim` (§3.2): each loaded link simulated alone by the packet engine, on a
//!   dumbbell whose trunk is the link, with the crossing messages' senders and receivers
//!   on edge links; each message's delay there beyond its ideal.
//! - `cluster` (§3.5, `[decomposed] cluster`): links with alike workloads grouped, one
//!   representative of each simulated, every other member given delays drawn from its
//!   representative's messages of similar size. Without it every loaded link is
//!   simulated.
//! - `combine` (§3.3, §3.4): each message's delays on the links of its path (its own, or
//!   drawn for it on a clustered link) combined, each other message that delayed it
//!   counted once, plus its ideal in the whole fabric.
//!
//! The link simulations are independent of one another: `run` spreads them over the
//! machine's cores (rayon); the Python front can run them as Ray tasks instead
//! (`simulate_links` on a slice of the links, `combine` on all the results). The
//! estimates are the same bytes whichever way they ran: each link's simulation depends
//! on the scenario, the seed and the link only, the clusters on the plan only (port
//! order), and every draw comes from a stream named by the seed and the link.

mod cluster;
mod combine;
mod feedback;
mod linksim;
mod plan;

pub use cluster::Clusters;
pub use combine::{estimate, units, Buckets, Combine, MIN_SAMPLES};
pub use feedback::{downstream, downstream_rate, worst_downstream, Downstream, Marks};
pub use linksim::{Delay, LinkResult, Seen, Template, EDGE_SPEEDUP};
pub use plan::{LinkLoad, Msg, Plan};

use crate::engine::{ClassSetup, Config, Phase, Progress, RunError};
use crate::measure::{ClassSummary, RecordSink, Recorder};
use crate::sim::Time;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

/// What a decomposed run did besides its records.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub generated: u64,
    /// Links simulated (every link some message crosses, but those clustered).
    pub links: u64,
    /// Links not simulated: given their cluster representative's delays.
    pub clustered: u64,
    /// Messages summed over the link simulations (each message once per simulated link
    /// it crosses).
    pub link_messages: u64,
    /// Events of the packet engine summed over the link simulations.
    pub events: u64,
    /// Size buckets summed over the links.
    pub buckets: u64,
    /// The latest estimated delivery.
    pub sim_end: Time,
}

/// Draws and routes the messages of `cfg` (`scenario::decomposed::check` passed).
pub fn plan(mut cfg: Config) -> Result<(Plan, Template, Vec<ClassSetup>), RunError> {
    let plan = Plan::new(&mut cfg)?;
    let tpl = Template::of(&cfg);
    Ok((plan, tpl, cfg.classes))
}

/// Simulates the links `which` (indices into `plan.links`) one after another.
pub fn simulate_links(plan: &Plan, tpl: &Template, which: &[usize]) -> Result<Vec<LinkResult>, RunError> {
    which.iter().map(|&k| linksim::simulate(plan, tpl, &plan.links[k], &|| true)).collect()
}

/// Runs `cfg` decomposed, the link simulations in parallel on rayon's pool, writing
/// each message's estimate to `sink` (in order of estimated delivery); `progress` hears
/// after each link: `started` is every message, `completed` the messages in proportion
/// to the link-messages simulated so far (so a progress bar's fraction is the share of
/// the link simulations' work done), `active` the links left. `cluster`: the clustering
/// tolerance (`[decomposed] cluster`), None to simulate every loaded link.
/// `given`: the representatives' results already simulated elsewhere (Ray tasks running
/// `simulate_links` on `to_simulate`'s links), in that order; None simulates them here.
pub fn run(
    cfg: Config,
    sink: Box<dyn RecordSink>,
    progress: &mut dyn FnMut(&Progress) -> bool,
    given: Option<Vec<LinkResult>>,
    cluster: Option<f64>,
) -> Result<(Outcome, Recorder), RunError> {
    let (seed, warmup, bins) = (cfg.seed, cfg.warmup, cfg.overall_bins.clone());
    let (plan, tpl, classes) = plan(cfg)?;
    let summaries = classes.iter().map(|c| ClassSummary::new(&c.name, c.bins.clone()).with_slos(&c.slos)).collect();
    let mut rec = Recorder::new(summaries, ClassSummary::new("all", bins), warmup, sink);
    let clusters = clusters(&plan, cluster);
    let reps = clusters.representatives();
    let simulated = match given {
        None => simulate_all(&plan, &tpl, &reps, progress)?,
        Some(r) => {
            let fits = r.len() == reps.len()
                && r.iter()
                    .zip(&reps)
                    .all(|(r, &k)| r.port == plan.links[k].port && r.delays.len() == plan.links[k].msgs.len());
            if !fits {
                return Err(RunError::Io(std::io::Error::other(
                    "the link results given are not those of this scenario and seed (another build or scenario)",
                )));
            }
            r
        }
    };
    let mut simulated = simulated;
    let results = cluster::expand(&plan, &clusters, simulated.clone(), seed);
    let downstream =
        if VQ { feedback::downstream_rate(&plan, &results) } else { feedback::downstream(&plan, &results) };
    let nics: Vec<usize> =
        (0..reps.len()).filter(|&j| plan.links[reps[j]].role == crate::net::port::PortRole::HostNic).collect();
    let again = second_pass(&plan, &tpl, &nics.iter().map(|&j| reps[j]).collect::<Vec<_>>(), &downstream)?;
    let worst = feedback::worst_downstream(&plan, &results);
    for (j, mut r) in nics.into_iter().zip(again) {
        if VQ && EXCESS {
            discount(&plan, &plan.links[reps[j]], &mut r, &worst);
        }
        simulated[j].events += r.events;
        simulated[j].delays = r.delays;
    }
    let events = simulated.iter().map(|r| r.events).sum();
    let results = cluster::expand(&plan, &clusters, simulated, seed);
    let (mut records, buckets) = estimate(&plan, &results, seed, Combine::Once);
    records.sort_by_key(|r| (r.finish, r.id));
    for r in &records {
        rec.record(r)?;
    }
    rec.flush()?;
    let outcome = Outcome {
        generated: plan.msgs.len() as u64,
        links: reps.len() as u64,
        clustered: (plan.links.len() - reps.len()) as u64,
        link_messages: reps.iter().map(|&k| plan.links[k].msgs.len() as u64).sum(),
        events,
        buckets: buckets as u64,
        sim_end: records.last().map_or(Time::ZERO, |r| r.finish),
    };
    Ok((outcome, rec))
}

pub const EXCESS: bool = option_env!("NICFB_EXCESS").is_some();

/// Takes off a host uplink's second-pass delays what the virtual queue's rate cap made:
/// the part of a message beyond the link's bandwidth-delay product B, sent at its
/// downstream rate, is slower by its largest downstream delay in proportion, which the
/// combination counts on that link already.
pub fn discount(plan: &Plan, link: &LinkLoad, r: &mut LinkResult, worst: &[(Time, f64)]) {
    let one_way = link.msgs.iter().map(|&i| plan.msgs[i as usize].delay.ps() as f64).sum::<f64>() / link.msgs.len() as f64;
    let b = link.rate.bps() as f64 / 8.0 * 2.0 * one_way * 1e-12;
    for (&i, d) in link.msgs.iter().zip(r.delays.iter_mut()) {
        let m = &plan.msgs[i as usize];
        let share = ((m.size as f64 - b) / m.size as f64).max(0.0);
        let excess = Time::from_ps((worst[i as usize].0.ps() as f64 * share).round() as u64);
        d.total = d.total.saturating_sub(excess);
    }
}

pub const VQ: bool = option_env!("NICFB_VQ").is_some();

/// The second pass (`feedback`): the links `which` (host uplinks) simulated again with
/// host-rate edges and each message's `downstream` mark probability, on rayon's pool.
pub fn second_pass(plan: &Plan, tpl: &Template, which: &[usize], downstream: &[f64]) -> Result<Vec<LinkResult>, RunError> {
    let mut order: Vec<usize> = (0..which.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(plan.links[which[i]].msgs.len()));
    let mut done: Vec<(usize, LinkResult)> = order
        .into_par_iter()
        .map(|i| {
            let link = &plan.links[which[i]];
            let p = link.msgs.iter().map(|&m| downstream[m as usize]).collect();
            let d = if VQ { feedback::Downstream::Rate(p) } else { feedback::Downstream::Probability(p) };
            Ok((i, linksim::simulate_with(plan, tpl, link, Some(d), &|| true)?))
        })
        .collect::<Result<_, RunError>>()?;
    done.sort_by_key(|(k, _)| *k);
    Ok(done.into_iter().map(|(_, r)| r).collect())
}

/// The clusters of `plan`'s links with tolerance `eps`; every link its own without.
pub fn clusters(plan: &Plan, eps: Option<f64>) -> Clusters {
    match eps {
        Some(eps) => Clusters::of(plan, eps),
        None => Clusters::none(plan.links.len()),
    }
}

/// The links (indices into `plan.links`) whose simulations a run needs: the clusters'
/// representatives, in link order.
pub fn to_simulate(plan: &Plan, eps: Option<f64>) -> Vec<usize> {
    clusters(plan, eps).representatives()
}

/// The links `which` of `plan` simulated on rayon's pool, results in the order of `which`.
fn simulate_all(
    plan: &Plan,
    tpl: &Template,
    which: &[usize],
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<Vec<LinkResult>, RunError> {
    let total: u64 = which.iter().map(|&k| plan.links[k].msgs.len() as u64).sum();
    let stop = AtomicBool::new(false);
    let go = || !stop.load(Ordering::Relaxed);
    let (tx, rx) = mpsc::channel::<(u64, u64)>();
    std::thread::scope(|s| {
        let work = s.spawn(|| {
            // Longest first, so that the last link to finish is a short one.
            let mut order: Vec<usize> = (0..which.len()).collect();
            order.sort_by_key(|&i| std::cmp::Reverse(plan.links[which[i]].msgs.len()));
            let mut done: Vec<(usize, LinkResult)> = order
                .into_par_iter()
                .map_with(tx, |tx, i| {
                    let link = &plan.links[which[i]];
                    let r = linksim::simulate(plan, tpl, link, &go)?;
                    let _ = tx.send((link.msgs.len() as u64, r.events));
                    Ok((i, r))
                })
                .collect::<Result<_, RunError>>()?;
            done.sort_by_key(|(k, _)| *k);
            Ok(done.into_iter().map(|(_, r)| r).collect())
        });
        let (mut completed, mut events, mut links) = (0u64, 0u64, 0usize);
        for (msgs, ev) in rx {
            completed += msgs;
            events += ev;
            links += 1;
            let p = Progress {
                phase: Phase::Running,
                built: 0,
                ports: 0,
                now: Time::ZERO,
                events,
                started: plan.msgs.len() as u64,
                completed: (completed as u128 * plan.msgs.len() as u128 / total.max(1) as u128) as u64,
                active: which.len() - links,
            };
            if !progress(&p) {
                stop.store(true, Ordering::Relaxed);
            }
        }
        let out = work.join().expect("the link simulations do not panic");
        if stop.load(Ordering::Relaxed) {
            return Err(RunError::Cancelled);
        }
        out
    })
}
