//! A closed-loop RPC class: every client keeps a fixed number of requests outstanding,
//! and issues the next one when a response comes back (after an optional think time).
//! PL2's memcached client (§F.1: "the client executes reads (GET) continuously") is one;
//! so are benchmark clients such as memtier's or wrk's, whose offered load is set by their
//! concurrency, not by a rate.
//!
//! The clients are the pattern's senders; each request goes to a receiver the pattern
//! draws for its client (`Endpoints::peer_of`). At `first_at` every client issues
//! `outstanding` requests; each RPC done (`Source::rpc_done`, told by the engine when the
//! response has arrived whole) queues that client's next request at `at + think`. Sizes,
//! responses, receivers and connections use the streams a generated class would
//! (`{prefix}/sizes`, `/responses`, `/endpoints`, `/connections`). `count` bounds the
//! requests issued, `until` the time the last may start.

use rand::Rng;
use std::collections::VecDeque;

use super::generated::{Choice, Response};
use super::pattern::{Endpoints, Pattern};
use super::sizes::SizeDist;
use super::{MessageSpec, Source, WorkloadError};
use crate::ids::Channel;
use crate::ids::{ClassId, HostId};
use crate::sim::rng::{stream, Stream};
use crate::sim::Time;

/// The parameters of a closed-loop class.
#[derive(Clone, Debug)]
pub struct ClosedSpec {
    pub class: ClassId,
    pub sizes: SizeDist,
    pub pattern: Pattern,
    /// Requests each client keeps outstanding.
    pub outstanding: u32,
    /// Between a response's arrival and the client's next request.
    pub think: Time,
    /// Requests issued in all, at most.
    pub count: Option<u64>,
    /// No request starts after this instant.
    pub until: Option<Time>,
    pub first_at: Time,
    pub response: Response,
    pub connections: Option<(u32, Choice)>,
}

/// A [`Source`] of closed-loop requests.
#[derive(Clone, Debug)]
pub struct ClosedLoop {
    spec: ClosedSpec,
    size_rng: Stream,
    response_rng: Stream,
    channel_rng: Stream,
    endpoints: Endpoints,
    /// Requests due, in start order (each client's next one joins at the back: response
    /// times come in order and the think time is the same for all).
    pending: VecDeque<(Time, HostId)>,
    emitted: u64,
    done: bool,
}

impl ClosedLoop {
    pub fn new(spec: ClosedSpec, seed: u64, stream_prefix: &str) -> Result<ClosedLoop, WorkloadError> {
        spec.sizes.validate().map_err(|msg| WorkloadError::Spec { key: "sizes".into(), msg })?;
        let endpoints = Endpoints::new(spec.pattern.clone(), stream(seed, &format!("{stream_prefix}/endpoints")))?;
        let mut pending = VecDeque::new();
        for _ in 0..spec.outstanding {
            for c in endpoints.senders() {
                pending.push_back((spec.first_at, c));
            }
        }
        Ok(ClosedLoop {
            size_rng: stream(seed, &format!("{stream_prefix}/sizes")),
            response_rng: stream(seed, &format!("{stream_prefix}/responses")),
            channel_rng: stream(seed, &format!("{stream_prefix}/connections")),
            endpoints,
            pending,
            emitted: 0,
            done: false,
            spec,
        })
    }

    fn exhausted(&self) -> bool {
        self.done || self.spec.count.is_some_and(|c| self.emitted >= c)
    }
}

impl Source for ClosedLoop {
    fn next_message(&mut self) -> Result<Option<MessageSpec>, WorkloadError> {
        if self.exhausted() {
            return Ok(None);
        }
        let Some((start, src)) = self.pending.pop_front() else { return Ok(None) };
        if self.spec.until.is_some_and(|u| start > u) {
            self.done = true;
            self.pending.clear();
            return Ok(None);
        }
        let size = self.spec.sizes.sample(&mut self.size_rng);
        let dst = self.endpoints.peer_of(src);
        let response = match &self.spec.response {
            Response::Echo => size,
            Response::Sizes(d) => d.sample(&mut self.response_rng),
        };
        let channel = self.spec.connections.map(|(n, choice)| match choice {
            Choice::Random => Channel::Fixed(self.channel_rng.random_range(0..n)),
            Choice::Idle => Channel::Pool(n),
            Choice::Available => Channel::Available(n),
        });
        self.emitted += 1;
        Ok(Some(MessageSpec {
            id: None,
            start,
            src,
            dst,
            size,
            class: self.spec.class,
            response: Some(response),
            channel,
        }))
    }

    fn rpc_done(&mut self, client: HostId, at: Time) -> bool {
        if self.exhausted() {
            return false;
        }
        self.pending.push_back((at + self.spec.think, client));
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(outstanding: u32, count: Option<u64>) -> ClosedSpec {
        ClosedSpec {
            class: ClassId::new(0),
            sizes: SizeDist::Fixed(64),
            pattern: Pattern::NToOne { senders: vec![HostId::new(0), HostId::new(1)], receiver: HostId::new(2) },
            outstanding,
            think: Time::from_us(1),
            count,
            until: None,
            first_at: Time::from_us(10),
            response: Response::Sizes(SizeDist::Fixed(4096)),
            connections: None,
        }
    }

    #[test]
    fn each_client_starts_its_outstanding_requests_then_one_per_response() {
        let mut c = ClosedLoop::new(spec(2, Some(6)), 1, "t").unwrap();
        let first: Vec<MessageSpec> = std::iter::from_fn(|| c.next_message().unwrap()).collect();
        assert_eq!(first.len(), 4, "2 clients × 2 outstanding");
        assert!(first
            .iter()
            .all(|m| m.start == Time::from_us(10) && m.dst == HostId::new(2) && m.response == Some(4096)));
        assert_eq!(first.iter().filter(|m| m.src == HostId::new(0)).count(), 2);
        // Nothing more until a response is back; then the client's next, a think time later.
        assert!(c.next_message().unwrap().is_none());
        assert!(c.rpc_done(HostId::new(1), Time::from_us(20)));
        let next = c.next_message().unwrap().unwrap();
        assert_eq!((next.src, next.start), (HostId::new(1), Time::from_us(21)));
        assert!(c.rpc_done(HostId::new(0), Time::from_us(22)));
        assert!(c.next_message().unwrap().is_some());
        // Six issued: the count is reached.
        assert!(!c.rpc_done(HostId::new(0), Time::from_us(30)));
        assert!(c.next_message().unwrap().is_none());
    }
}
