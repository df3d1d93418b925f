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
//! - `feedback`: a second pass over the host uplinks, the links after a sender's NIC
//!   emulated at the far switch from every link's first-pass delays, so that the NIC
//!   queue forms, unmarked, of windows the fabric bounds (not in Parsimon).
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
mod solo;

pub use cluster::Clusters;
pub use combine::{estimate, units, Buckets, Combine, MIN_SAMPLES};
pub use linksim::{simulate_with, Delay, LinkResult, Seen, Template, EDGE_SPEEDUP};
pub use plan::{LinkLoad, Msg, Plan};
pub use solo::{Bench, Solo, Told};

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
/// `given`: results already simulated elsewhere (Ray tasks, [`Given`]); None simulates
/// every link here. `feedback` (`[decomposed] feedback`): the host uplinks simulated
/// again with the links after them emulated ([`second_pass`]), here on rayon's pool
/// unless `given` has their results.
pub fn run(
    cfg: Config,
    sink: Box<dyn RecordSink>,
    progress: &mut dyn FnMut(&Progress) -> bool,
    given: Option<Given>,
    cluster: Option<f64>,
    feedback: bool,
) -> Result<(Outcome, Recorder), RunError> {
    let (seed, warmup, bins) = (cfg.seed, cfg.warmup, cfg.overall_bins.clone());
    let (plan, tpl, classes) = plan(cfg)?;
    let summaries = classes.iter().map(|c| ClassSummary::new(&c.name, c.bins.clone()).with_slos(&c.slos)).collect();
    let mut rec = Recorder::new(summaries, ClassSummary::new("all", bins), warmup, sink);
    let clusters = clusters(&plan, cluster);
    let reps = clusters.representatives();
    let msgs_of = |which: &[usize]| which.iter().map(|&k| plan.links[k].msgs.len() as u64).sum::<u64>();
    let again = if feedback { host_uplinks(&plan, &reps) } else { Vec::new() };
    // One bar for both passes: its fraction is the share of all link-messages simulated.
    let work = Work { done: 0, events: 0, total: msgs_of(&reps) + msgs_of(&again) };
    let (given, given_again, told) = match given {
        Some(g) => (Some(g.first), g.again, g.solo),
        None => (None, None, Vec::new()),
    };
    let simulated = match given {
        None => {
            simulate_all(&plan, &reps, progress, work, &|k, go| linksim::simulate(&plan, &tpl, &plan.links[k], go))?
        }
        Some(r) => {
            if !fits(&plan, &reps, &r) {
                return Err(RunError::Io(std::io::Error::other(
                    "the link results given are not those of this scenario and seed (another build or scenario)",
                )));
            }
            r
        }
    };
    let work = Work { done: msgs_of(&reps), events: simulated.iter().map(|r| r.events).sum(), ..work };
    let simulated = match (feedback, given_again) {
        (true, None) => second_pass(&plan, &tpl, &clusters, simulated, seed, progress, work)?,
        (true, Some(again)) => {
            let mut simulated = simulated;
            merge_again(&plan, &clusters, &mut simulated, again)?;
            simulated
        }
        (false, Some(_)) => {
            return Err(RunError::Io(std::io::Error::other(
                "second-pass results given for a scenario without the second pass ([decomposed] feedback = false)",
            )))
        }
        (false, None) => simulated,
    };
    let events = simulated.iter().map(|r| r.events).sum::<u64>();
    let results = cluster::expand(&plan, &clusters, simulated, seed);
    let alone = alone_on_paths(&plan, &tpl)?;
    let (mut records, buckets) = estimate(&plan, &results, &alone, seed, Combine::Once);
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
        // With the simulations of messages alone (`solo`), the workers' on Ray.
        events: events + tpl.solo.events_with(&told),
        buckets: buckets as u64,
        sim_end: records.last().map_or(Time::ZERO, |r| r.finish),
    };
    Ok((outcome, rec))
}

/// Link results simulated elsewhere (Ray tasks): the first pass's (`simulate_links` on
/// `to_simulate`'s links, in that order), and the second pass's (`simulate_again` on
/// `again_inputs`, in that order) when it ran there too.
pub struct Given {
    pub first: Vec<LinkResult>,
    pub again: Option<Vec<LinkResult>>,
    /// The simulations of messages alone the tasks ran (`Solo::untold`), for the count of
    /// events.
    pub solo: Vec<Told>,
}

/// What the second pass needs for one host uplink (`again_inputs`): its messages' rates
/// after their NICs (bytes per ps) and largest delays on the links after them, in
/// `plan.links[link].msgs` order. It crosses a process boundary on Ray's path.
#[derive(Clone, Debug, PartialEq)]
pub struct Again {
    pub link: usize,
    pub rates: Vec<f64>,
    pub worst: Vec<Time>,
}

/// The second pass's inputs (`feedback`, docs/decomposed.md "Method", point 5) from the
/// first pass's results (`simulated`: the representatives', in link order): one per
/// simulated host uplink, in link order.
pub fn again_inputs(plan: &Plan, clusters: &Clusters, simulated: &[LinkResult], seed: u64) -> Vec<Again> {
    let worst = feedback::worst_downstream(plan, &cluster::expand(plan, clusters, simulated.to_vec(), seed));
    let rate = feedback::downstream_rate(plan, &worst);
    host_uplinks(plan, &clusters.representatives())
        .into_iter()
        .map(|k| {
            let msgs = &plan.links[k].msgs;
            Again {
                link: k,
                rates: msgs.iter().map(|&m| rate[m as usize]).collect(),
                worst: msgs.iter().map(|&m| worst[m as usize].0).collect(),
            }
        })
        .collect()
}

/// A host uplink simulated again with host-rate edges and each message's rate after its
/// NIC emulated at the far switch; its delays less what that emulation counts twice.
pub fn simulate_again(plan: &Plan, tpl: &Template, a: &Again, go: &dyn Fn() -> bool) -> Result<LinkResult, RunError> {
    let link = plan.links.get(a.link).filter(|l| l.msgs.len() == a.rates.len() && l.msgs.len() == a.worst.len());
    let Some(link) = link else {
        return Err(RunError::Io(std::io::Error::other(format!(
            "second-pass inputs for link {}: not those of this scenario and seed (another build or scenario)",
            a.link
        ))));
    };
    let mut r = linksim::simulate_with(plan, tpl, link, Some(a.rates.clone()), go)?;
    feedback::discount(plan, link, &mut r, &a.worst);
    Ok(r)
}

/// The second pass: the simulated host uplinks (`simulated`: the representatives'
/// first-pass results, in link order) simulated again on rayon's pool
/// ([`simulate_again`]); their results replace the first pass's ([`merge_again`]).
/// Clustered host uplinks take their representative's, as in the first pass. `progress`
/// hears after each link as in the first pass, `work` saying what was done before.
pub fn second_pass(
    plan: &Plan,
    tpl: &Template,
    clusters: &Clusters,
    mut simulated: Vec<LinkResult>,
    seed: u64,
    progress: &mut dyn FnMut(&Progress) -> bool,
    work: Work,
) -> Result<Vec<LinkResult>, RunError> {
    let inputs = again_inputs(plan, clusters, &simulated, seed);
    let nics: Vec<usize> = inputs.iter().map(|a| a.link).collect();
    let again = simulate_all(plan, &nics, progress, work, &|k, go| {
        let i = nics.binary_search(&k).expect("a link of the second pass has its inputs");
        simulate_again(plan, tpl, &inputs[i], go)
    })?;
    merge_again(plan, clusters, &mut simulated, again)?;
    Ok(simulated)
}

/// Puts the second pass's results (`again`: one per host uplink of `again_inputs`, in its
/// order) in place of the first pass's (`simulated`, the representatives', in link order):
/// their delays and queues, their events added.
pub fn merge_again(
    plan: &Plan,
    clusters: &Clusters,
    simulated: &mut [LinkResult],
    again: Vec<LinkResult>,
) -> Result<(), RunError> {
    let reps = clusters.representatives();
    let nics = host_uplinks(plan, &reps);
    if !fits(plan, &nics, &again) {
        return Err(RunError::Io(std::io::Error::other(
            "the second-pass results given are not those of this scenario and seed (another build or scenario)",
        )));
    }
    for (k, r) in nics.iter().zip(again) {
        let j = reps.binary_search(k).expect("a host uplink simulated again is a representative");
        simulated[j].events += r.events;
        simulated[j].delays = r.delays;
        simulated[j].seen = r.seen;
    }
    Ok(())
}

/// What each message takes alone on its own path beyond its ideal (`solo`).
pub fn alone_on_paths(plan: &Plan, tpl: &Template) -> Result<Vec<Time>, RunError> {
    plan.msgs.par_iter().map(|m| tpl.solo.extra(tpl, solo::Bench::path(tpl, m.delay), m.class, m.size)).collect()
}

/// Whether `results` are those of `links` of `plan` (one each, in order: same port, one
/// delay per message); results from another scenario, seed or build are not.
pub fn fits(plan: &Plan, links: &[usize], results: &[LinkResult]) -> bool {
    links.len() == results.len()
        && links
            .iter()
            .zip(results)
            .all(|(&k, r)| r.port == plan.links[k].port && r.delays.len() == plan.links[k].msgs.len())
}

/// The host uplinks among the links `reps` (indices into `plan.links`, in link order).
pub fn host_uplinks(plan: &Plan, reps: &[usize]) -> Vec<usize> {
    reps.iter().copied().filter(|&k| plan.links[k].role == crate::net::port::PortRole::HostNic).collect()
}

/// The link simulations' work for progress: link-messages simulated before this call,
/// their events, and the run's link-messages in all (both passes).
#[derive(Copy, Clone, Debug)]
pub struct Work {
    pub done: u64,
    pub events: u64,
    pub total: u64,
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

/// One link's simulation (the link's index in `plan.links`; whether to go on).
type LinkSim<'a> = dyn Fn(usize, &dyn Fn() -> bool) -> Result<LinkResult, RunError> + Sync + 'a;

/// The links `which` (indices into `plan.links`) simulated on rayon's pool by `sim`
/// (given a link and whether to go on), results in the order of `which`.
fn simulate_all(
    plan: &Plan,
    which: &[usize],
    progress: &mut dyn FnMut(&Progress) -> bool,
    before: Work,
    sim: &LinkSim,
) -> Result<Vec<LinkResult>, RunError> {
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
                    let r = sim(which[i], &go)?;
                    let _ = tx.send((plan.links[which[i]].msgs.len() as u64, r.events));
                    Ok((i, r))
                })
                .collect::<Result<_, RunError>>()?;
            done.sort_by_key(|(k, _)| *k);
            Ok(done.into_iter().map(|(_, r)| r).collect())
        });
        let (mut completed, mut events, mut links) = (before.done, before.events, 0usize);
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
                completed: (completed as u128 * plan.msgs.len() as u128 / before.total.max(1) as u128) as u64,
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
