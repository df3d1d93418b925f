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
//! - `combine` (§3.3, §3.4): each message's delays on the links of its path combined,
//!   each other message that delayed it counted once, plus its ideal in the whole
//!   fabric. Every loaded link is simulated, so each message has its own delay on each
//!   link; Parsimon's draws from per-size buckets (`Combine::Draw`),
//!   which its clustering needs, are kept for when clustering comes: on runs of a few
//!   thousand messages a link's buckets are too coarse (docs/decomposed.md).
//!
//! The link simulations are independent of one another: `run` spreads them over the
//! machine's cores (rayon); the Python front can run them as Ray tasks instead
//! (`simulate_links` on a slice of the links, `combine` on all the results). The
//! estimates are the same bytes whichever way they ran: each link's simulation depends
//! on the scenario, the seed and the link only, and the combination draws from one
//! stream in message order. Parsimon's clustering of similar links is not done: every
//! loaded link is simulated.

mod combine;
mod linksim;
mod plan;

pub use combine::{estimate, units, Buckets, Combine, MIN_SAMPLES};
pub use linksim::{Delay, LinkResult, Template, EDGE_SPEEDUP};
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
    /// Links simulated (every link some message crosses).
    pub links: u64,
    /// Messages summed over the link simulations (each message once per link it crosses).
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
/// the link simulations' work done), `active` the links left.
/// `given`: the links' results already simulated elsewhere (Ray tasks running
/// `simulate_links`), one per link of the plan in its order; None simulates them here.
pub fn run(
    cfg: Config,
    sink: Box<dyn RecordSink>,
    progress: &mut dyn FnMut(&Progress) -> bool,
    given: Option<Vec<LinkResult>>,
) -> Result<(Outcome, Recorder), RunError> {
    let (seed, warmup, bins) = (cfg.seed, cfg.warmup, cfg.overall_bins.clone());
    let (plan, tpl, classes) = plan(cfg)?;
    let summaries = classes.iter().map(|c| ClassSummary::new(&c.name, c.bins.clone()).with_slos(&c.slos)).collect();
    let mut rec = Recorder::new(summaries, ClassSummary::new("all", bins), warmup, sink);
    let results = match given {
        None => simulate_all(&plan, &tpl, progress)?,
        Some(r) => {
            let fits = r.len() == plan.links.len()
                && r.iter().zip(&plan.links).all(|(r, l)| r.port == l.port && r.delays.len() == l.msgs.len());
            if !fits {
                return Err(RunError::Io(std::io::Error::other(
                    "the link results given are not those of this scenario and seed (another build or scenario)",
                )));
            }
            r
        }
    };
    let (mut records, buckets) = estimate(&plan, &results, seed, Combine::Once);
    records.sort_by_key(|r| (r.finish, r.id));
    for r in &records {
        rec.record(r)?;
    }
    rec.flush()?;
    let outcome = Outcome {
        generated: plan.msgs.len() as u64,
        links: plan.links.len() as u64,
        link_messages: plan.links.iter().map(|l| l.msgs.len() as u64).sum(),
        events: results.iter().map(|r| r.events).sum(),
        buckets: buckets as u64,
        sim_end: records.last().map_or(Time::ZERO, |r| r.finish),
    };
    Ok((outcome, rec))
}

/// Every link of `plan` simulated on rayon's pool, in the order of `plan.links`.
fn simulate_all(
    plan: &Plan,
    tpl: &Template,
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<Vec<LinkResult>, RunError> {
    let total: u64 = plan.links.iter().map(|l| l.msgs.len() as u64).sum();
    let stop = AtomicBool::new(false);
    let go = || !stop.load(Ordering::Relaxed);
    let (tx, rx) = mpsc::channel::<(u64, u64)>();
    std::thread::scope(|s| {
        let work = s.spawn(|| {
            // Longest first, so that the last link to finish is a short one.
            let mut order: Vec<usize> = (0..plan.links.len()).collect();
            order.sort_by_key(|&k| std::cmp::Reverse(plan.links[k].msgs.len()));
            let mut done: Vec<(usize, LinkResult)> = order
                .into_par_iter()
                .map_with(tx, |tx, k| {
                    let r = linksim::simulate(plan, tpl, &plan.links[k], &go)?;
                    let _ = tx.send((plan.links[k].msgs.len() as u64, r.events));
                    Ok((k, r))
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
                active: plan.links.len() - links,
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
