//! Integer time and rates.
//!
//! Simulated time is a count of picoseconds in a `u64` (enough for 213 days). Rates are
//! bits per second. Serialization times are computed exactly in `u128` and rounded up
//! once to the picosecond (DESIGN.md, "Core rules"), so a 1502 B frame at 100 Gbps takes
//! exactly 120,160 ps and no error accumulates over millions of packets.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// An instant or a span of simulated time, in picoseconds.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(u64);

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);

    pub const fn from_ps(ps: u64) -> Time {
        Time(ps)
    }
    pub const fn from_ns(ns: u64) -> Time {
        Time(ns * 1_000)
    }
    pub const fn from_us(us: u64) -> Time {
        Time(us * 1_000_000)
    }
    pub const fn from_ms(ms: u64) -> Time {
        Time(ms * 1_000_000_000)
    }
    pub const fn ps(self) -> u64 {
        self.0
    }
    /// Nanoseconds as a float, for reports only (never for ordering).
    pub fn as_ns_f64(self) -> f64 {
        self.0 as f64 / 1_000.0
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e12
    }
    pub fn saturating_sub(self, other: Time) -> Time {
        Time(self.0.saturating_sub(other.0))
    }
    /// `self * num / den`, exact in `u128`, rounded down.
    pub fn scale(self, num: u64, den: u64) -> Time {
        Time((self.0 as u128 * num as u128 / den as u128) as u64)
    }
}

/// `x.round() as u64` — to the nearest integer, halves away from zero, negative and NaN
/// to 0, saturating — without the call to libm's `round` that `f64::round` costs on
/// baseline x86-64 (no SSE4.1): it is on every completed message's path several times.
pub fn round_to_u64(x: f64) -> u64 {
    // Below 2^52 (picoseconds up to 52 days, every histogram value) through i64, whose
    // casts are single instructions; x − its integer part is exact.
    if (0.0..4_503_599_627_370_496.0).contains(&x) {
        let whole = x as i64;
        (whole + i64::from(x - whole as f64 >= 0.5)) as u64
    } else {
        // From 2^52 up every float is whole; negative and NaN cast to 0, as rounded.
        x as u64
    }
}

impl Add for Time {
    type Output = Time;
    fn add(self, rhs: Time) -> Time {
        Time(self.0 + rhs.0)
    }
}
impl AddAssign for Time {
    fn add_assign(&mut self, rhs: Time) {
        self.0 += rhs.0;
    }
}
impl Sub for Time {
    type Output = Time;
    fn sub(self, rhs: Time) -> Time {
        Time(self.0 - rhs.0)
    }
}
impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.3}ns", self.as_ns_f64())
    }
}

/// A link rate in bits per second.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(u64);

impl Rate {
    /// A rate of zero bits per second cannot serialize anything; constructors refuse it.
    pub const fn from_bps(bps: u64) -> Rate {
        assert!(bps > 0, "a rate must be positive");
        Rate(bps)
    }
    pub const fn from_gbps(gbps: u64) -> Rate {
        Rate::from_bps(gbps * 1_000_000_000)
    }
    pub const fn bps(self) -> u64 {
        self.0
    }
    /// Time to put `bytes` on the wire: `ceil(8 * bytes * 1e12 / bps)` picoseconds.
    pub fn ser(self, bytes: u64) -> Time {
        let num = bytes as u128 * 8 * 1_000_000_000_000u128;
        let den = self.0 as u128;
        Time(num.div_ceil(den) as u64)
    }
    /// Bytes that fit in `t` at this rate (rounded down).
    pub fn bytes_in(self, t: Time) -> u64 {
        (t.ps() as u128 * self.0 as u128 / 8_000_000_000_000u128) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_to_u64_is_round_then_cast() {
        let mut xs = vec![0.0, -0.0, 0.5, 1.5, 2.5, -0.4, -0.5, -3.7, 0.49999999999999994, 1e300, f64::INFINITY];
        xs.extend([f64::NEG_INFINITY, f64::NAN, 4503599627370495.5, 9007199254740993.0, 18446744073709551615.0]);
        // A spread of magnitudes and fractions, halves among them.
        for e in 0..64 {
            for k in 0..16 {
                xs.push(2f64.powi(e) * (1.0 + k as f64 / 16.0));
                xs.push(2f64.powi(e) + k as f64 / 8.0);
            }
        }
        for x in xs {
            assert_eq!(round_to_u64(x), x.round() as u64, "{x}");
        }
    }

    #[test]
    fn serialization_is_exact_and_rounds_up_once() {
        let r = Rate::from_gbps(100);
        assert_eq!(r.ser(1502), Time::from_ps(120_160));
        assert_eq!(r.ser(54), Time::from_ps(4_320));
        // 1 byte at 3 bps = 8/3 s -> rounded up once, not per bit.
        assert_eq!(Rate::from_bps(3).ser(1), Time::from_ps(2_666_666_666_667));
        let ten = Rate::from_gbps(10);
        assert_eq!(ten.ser(1502), Time::from_ps(1_201_600));
    }

    #[test]
    fn bytes_in_inverts_ser() {
        let r = Rate::from_gbps(40);
        for b in [1u64, 54, 1502, 1_000_000] {
            assert_eq!(r.bytes_in(r.ser(b)), b);
        }
    }
}
