//! A generated traffic class: sizes, gaps and endpoints drawn as the run advances.
//!
//! Message k (k = 1, 2, …) starts at `first_at + g_1 + … + g_k`: the first message comes
//! one gap after `first_at`, as in the ns-3 anchor (`t = 1 ms; t += gap` before each
//! flow). Gaps are summed in `f64` nanoseconds with compensated summation and each start
//! is rounded to the picosecond, so starts never decrease and never drift.
//!
//! Sizes, gaps and endpoints use three streams of the run seed, `{prefix}/sizes`,
//! `{prefix}/gaps` and `{prefix}/endpoints`: changing the pattern or the arrival process
//! leaves the sizes unchanged, and the reverse.
//!
//! **Exact load** (the ns-3 anchor's `--exact-load`, its README caveat 1): a finite
//! sample of heavy-tailed gaps offers a load far from nominal, so every gap is multiplied
//! by one factor, (Σ sizes · mean_gap / mean_size) / Σ gaps, which makes the sample's
//! offered rate Σ sizes / Σ gaps equal the nominal mean_size / mean_gap exactly. The sums
//! come from a first pass over copies of the same streams, run lazily at the first
//! message; the second pass then yields the very same sizes and endpoints as a run without
//! exact load. The first pass keeps the gaps and sizes of the first `KEEP` messages (16
//! bytes each, at most 1 MiB per class) and the second replays them instead of drawing
//! them again — drawing was half the cost of a short-message run's workload (docs/model.md,
//! "Speed") — then goes on drawing from the streams where the kept draws left them.

use rand::Rng;

use super::arrivals::{Arrival, Gaps};
use super::pattern::{Endpoints, Pattern};
use super::sizes::SizeDist;
use super::{MessageSpec, Source, WorkloadError};
use crate::ids::Channel;
use crate::ids::ClassId;
use crate::sim::rng::{stream, Stream};
use crate::sim::Time;

/// The parameters of a generated class.
#[derive(Clone, Debug)]
pub struct GenSpec {
    pub class: ClassId,
    pub sizes: SizeDist,
    pub arrival: Arrival,
    pub mean_gap_ns: f64,
    pub pattern: Pattern,
    /// Stop after this many messages.
    pub count: Option<u64>,
    /// Stop before the first message that would start after this instant.
    pub until: Option<Time>,
    pub first_at: Time,
    /// Rescale the gaps so that the sample's offered load is exact (requires `count`).
    pub exact_load: bool,
    /// Requests of RPCs: each message's arrival triggers a response.
    pub response: Option<Response>,
    /// Persistent connections per (sender, receiver) and how a message chooses one: drawn
    /// uniformly (stream `{prefix}/connections`) or an idle one; None: one connection per
    /// message.
    pub connections: Option<(u32, Choice)>,
}

/// How a message chooses among its pair's persistent connections (`connection_choice`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Choice {
    Random,
    Idle,
    Available,
}

/// The response a request triggers (an RPC class).
#[derive(Clone, Debug, PartialEq)]
pub enum Response {
    /// As long as the request (the Homa paper's §5.1 echo RPCs).
    Echo,
    /// Drawn from its own distribution (stream `{prefix}/responses`).
    Sizes(SizeDist),
}

/// The mean gap (ns) at which messages of mean size `mean_bytes` offer `load` × `rate_bps`.
pub fn mean_gap_ns(mean_bytes: f64, load: f64, rate_bps: u64) -> f64 {
    mean_bytes * 8.0 / (load * rate_bps as f64) * 1e9
}

/// How many messages' draws the exact-load first pass keeps for the second
/// (`Kept`): SWP Table 3's 50,000 messages fit, and memory stays bounded for any count.
const KEEP: u64 = 1 << 16;

/// The exact-load first pass's draws of the first messages, (gap ns unscaled, size),
/// replayed in order by the second pass.
#[derive(Clone, Debug, Default)]
struct Kept {
    draws: Vec<(f64, u64)>,
    next: usize,
}

/// A [`Source`] drawing messages from a [`GenSpec`].
#[derive(Clone, Debug)]
pub struct Generated {
    spec: GenSpec,
    size_rng: Stream,
    response_rng: Stream,
    channel_rng: Stream,
    gaps: Gaps,
    endpoints: Endpoints,
    /// The factor applied to every gap; `None` until the exact-load first pass has run.
    scale: Option<f64>,
    kept: Kept,
    elapsed_ns: KahanSum,
    emitted: u64,
    done: bool,
}

impl Generated {
    pub fn new(spec: GenSpec, seed: u64, stream_prefix: &str) -> Result<Self, WorkloadError> {
        validate(&spec)?;
        let gaps = Gaps::new(spec.arrival, spec.mean_gap_ns, stream(seed, &format!("{stream_prefix}/gaps")));
        let endpoints = Endpoints::new(spec.pattern.clone(), stream(seed, &format!("{stream_prefix}/endpoints")))?;
        Ok(Generated {
            size_rng: stream(seed, &format!("{stream_prefix}/sizes")),
            response_rng: stream(seed, &format!("{stream_prefix}/responses")),
            channel_rng: stream(seed, &format!("{stream_prefix}/connections")),
            gaps,
            endpoints,
            scale: if spec.exact_load { None } else { Some(1.0) },
            kept: Kept::default(),
            elapsed_ns: KahanSum::default(),
            emitted: 0,
            done: false,
            spec,
        })
    }

    /// The factor applied to every gap (1 without exact load). Runs the first pass if it
    /// has not run yet.
    pub fn gap_scale(&mut self) -> f64 {
        match self.scale {
            Some(s) => s,
            None => {
                let s = self.exact_scale();
                self.scale = Some(s);
                s
            }
        }
    }

    pub fn class(&self) -> ClassId {
        self.spec.class
    }

    /// Messages yielded so far.
    pub fn emitted(&self) -> u64 {
        self.emitted
    }

    /// Σ sizes (bytes) and Σ gaps (ns) of the `count` messages, drawn from copies of the
    /// untouched streams, so they are the sums the second pass will realise. Keeps the
    /// draws of the first `KEEP` messages and moves the streams past them, so that the
    /// second pass yields the same values from `kept` and then from the streams.
    fn first_pass(&mut self) -> (u128, f64) {
        let (mut sizes, mut gaps) = (self.size_rng.clone(), self.gaps.clone());
        let count = self.spec.count.unwrap_or(0);
        let keep = count.min(KEEP);
        let mut kept = Vec::with_capacity(keep as usize);
        let mut bytes: u128 = 0;
        let mut span = KahanSum::default();
        for k in 0..count {
            let size = self.spec.sizes.sample(&mut sizes);
            let gap = gaps.next_ns();
            bytes += size as u128;
            span.add(gap);
            if k < keep {
                kept.push((gap, size));
                if k + 1 == keep {
                    (self.size_rng, self.gaps) = (sizes.clone(), gaps.clone());
                }
            }
        }
        self.kept = Kept { draws: kept, next: 0 };
        (bytes, span.sum())
    }

    /// The next message's gap (ns, unscaled) and the stream its size comes from: the
    /// first pass's draws while they last.
    fn next_gap(&mut self) -> (f64, Option<u64>) {
        match self.kept.draws.get(self.kept.next) {
            Some(&(gap, size)) => {
                self.kept.next += 1;
                if self.kept.next == self.kept.draws.len() {
                    self.kept = Kept::default();
                }
                (gap, Some(size))
            }
            None => (self.gaps.next_ns(), None),
        }
    }

    fn exact_scale(&mut self) -> f64 {
        let (bytes, span) = self.first_pass();
        if bytes == 0 || span <= 0.0 {
            return 1.0;
        }
        bytes as f64 * self.spec.mean_gap_ns / self.spec.sizes.mean() / span
    }

    fn exhausted(&self) -> bool {
        self.done || self.spec.count.is_some_and(|c| self.emitted >= c)
    }
}

fn validate(spec: &GenSpec) -> Result<(), WorkloadError> {
    let err = |key: &str, msg: String| WorkloadError::Spec { key: key.to_string(), msg };
    spec.sizes.validate().map_err(|m| err("sizes", m))?;
    spec.arrival.validate(spec.mean_gap_ns).map_err(|m| err("arrival", m))?;
    if spec.exact_load && spec.count.is_none() {
        return Err(err("exact_load", "exact load rescales a finite sample: it requires `count`".into()));
    }
    Ok(())
}

impl Source for Generated {
    fn next_message(&mut self) -> Result<Option<MessageSpec>, WorkloadError> {
        if self.exhausted() {
            return Ok(None);
        }
        let scale = self.gap_scale();
        let (gap, kept_size) = self.next_gap();
        self.elapsed_ns.add(gap * scale);
        let start = self.spec.first_at + Time::from_ps(crate::sim::time::round_to_u64(self.elapsed_ns.sum() * 1e3));
        if self.spec.until.is_some_and(|u| start > u) {
            self.done = true;
            return Ok(None);
        }
        let size = kept_size.unwrap_or_else(|| self.spec.sizes.sample(&mut self.size_rng));
        let (src, dst) = self.endpoints.next();
        self.emitted += 1;
        let response = match &self.spec.response {
            None => None,
            Some(Response::Echo) => Some(size),
            Some(Response::Sizes(d)) => Some(d.sample(&mut self.response_rng)),
        };
        let channel = self.spec.connections.map(|(n, choice)| match choice {
            Choice::Random => Channel::Fixed(self.channel_rng.random_range(0..n)),
            Choice::Idle => Channel::Pool(n),
            Choice::Available => Channel::Available(n),
        });
        Ok(Some(MessageSpec { id: None, start, src, dst, size, class: self.spec.class, response, channel }))
    }
}

/// Kahan–Babuška (Neumaier) summation: the start of message 10⁷ is as precise as the
/// first, and the first pass and the run add the same terms in the same order.
#[derive(Copy, Clone, Debug, Default)]
struct KahanSum {
    sum: f64,
    comp: f64,
}

impl KahanSum {
    fn add(&mut self, x: f64) {
        let t = self.sum + x;
        self.comp += if self.sum.abs() >= x.abs() { (self.sum - t) + x } else { (x - t) + self.sum };
        self.sum = t;
    }

    fn sum(&self) -> f64 {
        self.sum + self.comp
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::HostId;
    use crate::workload::sizes::{Cdf, Interpolation};
    use crate::workload::workloads_dir;

    const RATE_BPS: u64 = 100_000_000_000;

    fn websearch() -> SizeDist {
        let path = workloads_dir().join("hpcc_websearch.cdf");
        SizeDist::Cdf(Cdf::load(&path, Interpolation::Linear).unwrap())
    }

    fn hosts(n: usize) -> Vec<HostId> {
        (0..n).map(HostId::new).collect()
    }

    /// The ns-3 anchor's workload: web search, log-normal σ = 2, 60 % of 100 Gbps,
    /// 64 senders to one receiver, first flow one gap after 1 ms.
    fn anchor_spec(count: u64, exact_load: bool) -> GenSpec {
        let sizes = websearch();
        GenSpec {
            class: ClassId::new(0),
            mean_gap_ns: mean_gap_ns(sizes.mean(), 0.6, RATE_BPS),
            sizes,
            arrival: Arrival::LogNormal { sigma: 2.0 },
            pattern: Pattern::NToOne { senders: hosts(64).split_off(1), receiver: HostId::new(0) },
            count: Some(count),
            until: None,
            first_at: Time::from_ms(1),
            exact_load,
            response: None,
            connections: None,
        }
    }

    fn drain(mut g: Generated) -> Vec<MessageSpec> {
        std::iter::from_fn(|| g.next_message().unwrap()).collect()
    }

    #[test]
    fn anchor_mean_gap() {
        let g = mean_gap_ns(1_711_250.0, 0.6, RATE_BPS);
        assert!((g - 228_166.67).abs() < 0.01, "{g}");
    }

    #[test]
    fn exact_load_is_exact() {
        let spec = anchor_spec(5_000, true);
        let first_at = spec.first_at;
        let target_bits_per_ns = 0.6 * RATE_BPS as f64 / 1e9;
        let msgs = drain(Generated::new(spec, 1, "c0").unwrap());
        assert_eq!(msgs.len(), 5_000);
        let bytes: u64 = msgs.iter().map(|m| m.size).sum();
        let span_ns = (msgs.last().unwrap().start - first_at).ps() as f64 / 1e3;
        let rate = bytes as f64 * 8.0 / span_ns;
        assert!((rate / target_bits_per_ns - 1.0).abs() < 1e-9, "{rate} vs {target_bits_per_ns}");
    }

    #[test]
    fn exact_load_draws_the_same_messages() {
        let (pass1_bytes, _) = Generated::new(anchor_spec(3_000, true), 9, "c0").unwrap().first_pass();
        let mut exact = Generated::new(anchor_spec(3_000, true), 9, "c0").unwrap();
        let scale = exact.gap_scale();
        assert!(scale > 1.0, "σ = 2 samples overshoot the load: {scale}");
        let a = drain(exact);
        let b = drain(Generated::new(anchor_spec(3_000, false), 9, "c0").unwrap());
        assert_eq!(pass1_bytes, a.iter().map(|m| m.size as u128).sum::<u128>());
        let first_at = Time::from_ms(1);
        for (x, y) in a.iter().zip(&b) {
            assert_eq!((x.size, x.src, x.dst), (y.size, y.src, y.dst));
            let (tx, ty) = ((x.start - first_at).ps() as f64, (y.start - first_at).ps() as f64);
            assert!((tx - ty * scale).abs() <= 1.0 + scale + 1e-12 * tx, "{tx} vs {}", ty * scale);
        }
    }

    #[test]
    fn exact_load_replays_its_kept_draws_then_draws_on_from_the_streams() {
        // Past KEEP messages the second pass draws from the streams the first pass left:
        // every message is the one drawn without exact load, its gap scaled.
        let n = KEEP + 500;
        let mut exact = Generated::new(anchor_spec(n, true), 4, "c0").unwrap();
        let scale = exact.gap_scale();
        assert_eq!(exact.kept.draws.len() as u64, KEEP, "memory stays bounded");
        let a = drain(exact);
        let b = drain(Generated::new(anchor_spec(n, false), 4, "c0").unwrap());
        assert_eq!(a.len() as u64, n);
        let (mut gaps, mut elapsed) =
            (Generated::new(anchor_spec(n, false), 4, "c0").unwrap().gaps, KahanSum::default());
        for (x, y) in a.iter().zip(&b) {
            assert_eq!((x.size, x.src, x.dst), (y.size, y.src, y.dst));
            elapsed.add(gaps.next_ns() * scale);
            assert_eq!(x.start, Time::from_ms(1) + Time::from_ps(crate::sim::time::round_to_u64(elapsed.sum() * 1e3)));
        }
    }

    #[test]
    fn first_message_one_gap_after_first_at_and_order() {
        let msgs = drain(Generated::new(anchor_spec(1_000, false), 3, "c0").unwrap());
        assert!(msgs[0].start > Time::from_ms(1));
        assert!(msgs.windows(2).all(|w| w[0].start <= w[1].start));
        assert!(msgs.iter().all(|m| m.src != m.dst && m.size >= 1));
    }

    #[test]
    fn until_stops_the_source() {
        let mut spec = anchor_spec(1_000, false);
        spec.count = None;
        spec.until = Some(Time::from_ms(20));
        spec.arrival = Arrival::Poisson;
        let msgs = drain(Generated::new(spec, 3, "c0").unwrap());
        // 19 ms at a mean gap of 228 µs: about 83 messages.
        assert!((50..120).contains(&msgs.len()), "{}", msgs.len());
        assert!(msgs.last().unwrap().start <= Time::from_ms(20));
    }

    #[test]
    fn determinism_and_stream_independence() {
        let run = |seed, spec: GenSpec| drain(Generated::new(spec, seed, "c0").unwrap());
        assert_eq!(run(5, anchor_spec(500, false)), run(5, anchor_spec(500, false)));
        assert_ne!(run(5, anchor_spec(500, false)), run(6, anchor_spec(500, false)));
        let mut other = anchor_spec(500, false);
        other.pattern = Pattern::AllToAll { senders: hosts(8), receivers: hosts(8) };
        let sizes = |v: &[MessageSpec]| v.iter().map(|m| m.size).collect::<Vec<_>>();
        assert_eq!(sizes(&run(5, anchor_spec(500, false))), sizes(&run(5, other)));
    }

    #[test]
    fn invalid_specs() {
        let mut s = anchor_spec(10, true);
        s.count = None;
        let e = Generated::new(s, 1, "c0").unwrap_err();
        assert!(e.to_string().starts_with("exact_load"), "{e}");
        let mut s = anchor_spec(10, false);
        s.mean_gap_ns = 0.0;
        assert!(Generated::new(s, 1, "c0").is_err());
    }
}
