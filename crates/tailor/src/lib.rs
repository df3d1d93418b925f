//! tailor: a packet-level simulator of datacenter networks, the ground truth of the
//! tailor toolkit (see `docs/`, `docs/architecture.md` first).
//!
//! The crate is organised as DESIGN.md lays out: `sim` (time, events, random streams),
//! `net` (packets, ports, links, switches, hosts, topologies, routing), `transport`
//! (sans-IO state machines), `workload` (sizes, arrivals, patterns, traces), `measure`
//! (records, histograms, summaries), `scenario` (the TOML language) and `engine`, which
//! owns one simulation and applies the actions of every component.

pub mod advisor;
pub mod decomposed;
pub mod engine;
pub mod ids;
pub mod input;
pub mod measure;
pub mod model;
pub mod net;
pub mod oracle;
pub mod output;
pub mod scenario;
pub mod sim;
pub mod transport;
pub mod version;
pub mod workload;
