//! The advisor: switch weights that meet every class's SLO (SWP §3.3, Algorithm 1).
//!
//! The optimizer is independent of what evaluates a set of weights: anything that gives
//! each class's loss (SWP eq. 1, negative when met) for a weight vector — the fast model
//! or the packet engine — implements [`optimizer::Evaluator`].

pub mod optimizer;
