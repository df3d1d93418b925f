//! The two forms differ where they should (docs/model.md, "The paper-literal form"): when
//! a flow behind a standing queue becomes controlled, and which backlog a class's
//! congestion control sees. Driven step by step, so the instants are the model's own.

use super::*;
use crate::measure::record::NullSink;
use crate::measure::{ClassSummary, Recorder};
use crate::net::ids::{ClassId, HostId};

fn msg(class: usize, start_ns: u64, size: u64) -> MessageSpec {
    MessageSpec {
        id: None,
        start: Time::from_ns(start_ns),
        src: HostId::new(0),
        dst: HostId::new(1),
        size,
        class: ClassId::new(class),
        response: None,
        channel: None,
    }
}

/// 100 Gbps, 10 us RTT, SWP-D, in `form`.
fn model(sharing: Sharing, classes: usize, form: Form) -> FluidModel {
    FluidModel::new(ModelConfig {
        capacity_bps: 100e9,
        rtt: Time::from_us(10),
        cc: CcParams::SWP_D,
        sharing,
        classes,
        own_threshold: Vec::new(),
        form,
    })
}

fn recorder(classes: usize) -> Recorder {
    let summaries = (0..classes).map(|k| ClassSummary::new(&format!("c{k}"), vec![])).collect();
    Recorder::new(summaries, ClassSummary::new("all", vec![]), Time::ZERO, Box::new(NullSink))
}

/// Eight line-rate flows of one BDP at t = 0, then a 1 MB flow at 8 us, behind the 800 KB
/// they have sent by then: the instant (seconds) of the first step in which it is
/// controlled.
fn control_start(form: Form) -> f64 {
    let mut m = model(Sharing::Fifo, 1, form);
    let mut rec = recorder(1);
    let dt = m.dt;
    for i in 0..8 {
        m.admit(msg(0, i, 125_000), dt);
    }
    let mut late = None;
    for k in 0..400u64 {
        let t = k as f64 * dt;
        if late.is_none() && t + dt > 8e-6 {
            let id = m.admit(msg(0, 8_000, 1_000_000), t + dt);
            late = (0..m.flows.len()).find(|&s| m.flows[s].as_ref().is_some_and(|f| f.id == id));
        }
        m.step(t, t + dt, &mut rec).expect("a null sink does not fail");
        if late.is_some_and(|s| m.flows[s].as_ref().expect("1 MB is not done in 200 us").controlled) {
            return t;
        }
    }
    panic!("never controlled");
}

#[test]
fn the_paper_form_controls_a_flow_at_arrival_plus_rtt_and_the_calibrated_one_after_its_first_ack() {
    let (arrival, rtt) = (8e-6, 10e-6);
    // Paper (eq. 2): feedback at arrival + RTT, whatever the queue; the step holding it.
    let paper = control_start(Form::Paper);
    assert!((paper - (arrival + rtt)).abs() <= 0.5e-6 + 1e-12, "paper: controlled at {paper}");
    // Calibrated: the acknowledgement of its first byte, which waits behind the burst
    // (~700 KB ahead of it when it reaches the bottleneck: 56 us at 12.5 GB/s).
    let calibrated = control_start(Form::Calibrated);
    assert!(
        calibrated > arrival + rtt + 50e-6 && calibrated < arrival + rtt + 60e-6,
        "calibrated: controlled at {calibrated}"
    );
}

/// Two weighted classes: class 0's queue holds 400 KB (seen τ ago), class 1's nothing;
/// each has one controlled flow. The ideal rate of each queue.
fn ideals(form: Form) -> (f64, f64) {
    let mut m = model(Sharing::Weighted { weights: vec![1.0, 1.0], per_flow_fair: false }, 2, form);
    m.queues[0].seen = History { values: [400_000.0; STEPS_PER_TAU], head: 0 };
    m.queues[0].active = true;
    for q in &mut m.queues {
        q.controlled = 1;
    }
    m.ideal_rates();
    (m.queues[0].ideal, m.queues[1].ideal)
}

#[test]
fn the_paper_forms_class_signal_is_its_own_queue_the_calibrated_ones_the_ports_backlog() {
    let half: f64 = 100e9 / 8.0 / 2.0;
    let drain: f64 = (400_000.0 - 100_000.0) / 10e-6;
    // Class 0 sees its own 400 KB in both forms: more to drain than the link: nothing.
    let (p0, p1) = ideals(Form::Paper);
    let (c0, c1) = ideals(Form::Calibrated);
    assert_eq!((p0, c0), (0.0, 0.0));
    // Class 1's queue is empty: eq. 11 on its own queue gives it its half of the link; the
    // port's backlog (class 0's 400 KB) cuts it in the calibrated form.
    assert_eq!(p1, half);
    assert_eq!(c1, (half - drain).max(0.0));
}

#[test]
fn the_paper_form_has_no_window_cap_and_the_calibrated_one_one_window() {
    let mut m = model(Sharing::Fifo, 1, Form::Paper);
    m.queues[0].seen = History { values: [125_000.0; STEPS_PER_TAU], head: 0 };
    m.ideal_rates();
    assert_eq!(m.queues[0].window_rate, f64::INFINITY);
    let mut m = model(Sharing::Fifo, 1, Form::Calibrated);
    m.queues[0].seen = History { values: [125_000.0; STEPS_PER_TAU], head: 0 };
    m.ideal_rates();
    // One BDP in flight behind one BDP of queue: half the line rate.
    assert!((m.queues[0].window_rate - 6.25e9).abs() < 1.0, "{}", m.queues[0].window_rate);
}

#[test]
fn the_paper_form_counts_an_arriving_flow_at_r0_and_splits_swp_h_evenly() {
    // A 1 KB flow arriving mid-step: R0 for the step (eq. 3) against its step average.
    let arriving = |form: Form| {
        let mut m = model(Sharing::Fifo, 1, form);
        m.admit(msg(0, 100, 1_000), m.dt);
        m.queues[0].uncontrolled
    };
    assert_eq!(arriving(Form::Paper), 12.5e9);
    assert!((arriving(Form::Calibrated) - 1_000.0 / 0.5e-6).abs() < 1.0);
    let h = FluidModel::new(ModelConfig { cc: CcParams::SWP_H, ..model(Sharing::Fifo, 1, Form::Paper).cfg });
    assert_eq!(h.cfg.cc.split, Split::Even);
    let h = FluidModel::new(ModelConfig { cc: CcParams::SWP_H, ..model(Sharing::Fifo, 1, Form::Calibrated).cfg });
    assert_eq!(h.cfg.cc.split, Split::Proportional);
}

#[test]
fn a_flow_completes_when_the_queue_drains_whatever_residue_the_running_sums_hold() {
    // A long run's cumulative sums (10 GB here) drift apart by rounding; set a residue of
    // half a byte, beyond the marks' tolerance, and send one 10 KB flow through an
    // otherwise idle link. Before `Queue::drained` its mark was never reached until other
    // traffic came (on a real run: up to 83 ms later); now it completes as the queue
    // drains, at RTT + S / C.
    for form in [Form::Calibrated, Form::Paper] {
        let mut m = model(Sharing::Fifo, 1, form);
        let mut rec = recorder(1);
        m.queues[0].cum_sent = 1e10;
        m.queues[0].cum_out = 1e10 - 0.5;
        let dt = m.dt;
        m.admit(msg(0, 0, 10_000), dt);
        let mut k = 0u64;
        while m.busy() {
            m.step(k as f64 * dt, (k + 1) as f64 * dt, &mut rec).expect("a null sink does not fail");
            k += 1;
            assert!(k < 1_000, "{form:?}: the flow never completed");
        }
        // RTT + S / C = 10.8 us: 22 steps of 0.5 us.
        assert!(k <= 23, "{form:?}: completed after {k} steps");
    }
}
