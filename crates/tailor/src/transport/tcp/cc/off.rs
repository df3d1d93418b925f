//! No congestion control (`kind = "tcp"`, `congestion_control = "off"`; TCP over PL2,
//! PL2 §D.5): the window stays at `max_cwnd` (unbounded without one) through every
//! event; the sender still recovers losses.

use super::{Ack, Controller, Window};

#[derive(Copy, Clone, Debug)]
pub struct Off;

impl Controller for Off {
    /// The ceiling, if there is one.
    fn initial_window(&self, _init: u64, ceiling: Option<u64>) -> u64 {
        ceiling.unwrap_or(u64::MAX / 4)
    }
    fn on_ack(&mut self, _w: &mut Window, _a: &Ack) {}
    fn on_loss(&mut self, _w: &mut Window) {}
    fn on_recovery_dupack(&mut self, _w: &mut Window) {}
    fn on_partial_ack(&mut self, _w: &mut Window, _newly: u64) {}
    fn on_recovery_exit(&mut self, _w: &mut Window) {}
    fn on_rto(&mut self, _w: &mut Window) {}
    fn on_idle_restart(&mut self, _w: &mut Window, _init: u64) {}
}
