//! Quantities with their unit in the value: "100Gbps", "2.5us", "97.5KB".
//!
//! The convention (docs/scenario.md): every rate, time and size in a scenario is a
//! string carrying its unit; counts (hosts, segments, messages) are bare integers and
//! fractions (load, alpha, g) bare numbers. Decimal prefixes are powers of ten (KB =
//! 1000 B), binary ones powers of two (KiB = 1024 B). A value must come out as a whole
//! number of the base unit (bit/s, picosecond, byte).

use crate::sim::{Rate, Time};

pub const RATE_UNITS: &str = "bps, Kbps, Mbps, Gbps, Tbps";
pub const TIME_UNITS: &str = "ps, ns, us, ms, s";
pub const SIZE_UNITS: &str = "B, KB, MB, GB, KiB, MiB, GiB";

fn split(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let i = s.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))?;
    let (num, unit) = s.split_at(i);
    if num.is_empty() {
        return None;
    }
    let v: f64 = num.replace('_', "").parse().ok()?;
    Some((v, unit.trim()))
}

fn whole(v: f64, scale: f64) -> Result<u64, String> {
    let x = v * scale;
    let r = x.round();
    if !x.is_finite() || r < 0.0 || r > u64::MAX as f64 {
        return Err("is out of range".into());
    }
    if (x - r).abs() > 1e-6 * r.max(1.0) {
        return Err("is not a whole number of the base unit".into());
    }
    Ok(r as u64)
}

/// "100Gbps" -> 100e9 bit/s.
pub fn parse_rate(s: &str) -> Result<Rate, String> {
    let bad = || format!("expected a rate such as \"100Gbps\" (units: {RATE_UNITS}), got \"{s}\"");
    let (v, unit) = split(s).ok_or_else(bad)?;
    let scale = match unit {
        "bps" => 1.0,
        "Kbps" => 1e3,
        "Mbps" => 1e6,
        "Gbps" => 1e9,
        "Tbps" => 1e12,
        _ => return Err(bad()),
    };
    let bps = whole(v, scale).map_err(|e| format!("rate \"{s}\" {e} (bit/s)"))?;
    if bps == 0 {
        return Err(format!("rate \"{s}\" must be positive"));
    }
    Ok(Rate::from_bps(bps))
}

/// "2.5us" -> 2,500,000 ps.
pub fn parse_time(s: &str) -> Result<Time, String> {
    let bad = || format!("expected a time such as \"2.5us\" (units: {TIME_UNITS}), got \"{s}\"");
    let (v, unit) = split(s).ok_or_else(bad)?;
    let scale = match unit {
        "ps" => 1.0,
        "ns" => 1e3,
        "us" | "µs" => 1e6,
        "ms" => 1e9,
        "s" => 1e12,
        _ => return Err(bad()),
    };
    let ps = whole(v, scale).map_err(|e| format!("time \"{s}\" {e} (picoseconds)"))?;
    Ok(Time::from_ps(ps))
}

/// "97.5KB" -> 97,500 bytes.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let bad = || format!("expected a size such as \"1448B\" or \"100KB\" (units: {SIZE_UNITS}), got \"{s}\"");
    let (v, unit) = split(s).ok_or_else(bad)?;
    let scale = match unit {
        "B" => 1.0,
        "KB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(bad()),
    };
    whole(v, scale).map_err(|e| format!("size \"{s}\" {e} (bytes)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_unit() {
        assert_eq!(parse_rate("100Gbps").unwrap(), Rate::from_gbps(100));
        assert_eq!(parse_rate("2.5Gbps").unwrap().bps(), 2_500_000_000);
        assert_eq!(parse_time("2.5us").unwrap(), Time::from_ps(2_500_000));
        assert_eq!(parse_time("1ms").unwrap(), Time::from_ms(1));
        assert_eq!(parse_time("0ns").unwrap(), Time::ZERO);
        assert_eq!(parse_size("97.5KB").unwrap(), 97_500);
        assert_eq!(parse_size("1KiB").unwrap(), 1024);
        assert_eq!(parse_size("32MB").unwrap(), 32_000_000);
    }

    #[test]
    fn rejects_bad_units_and_fractions_of_the_base_unit() {
        assert!(parse_rate("100").unwrap_err().contains("Gbps"));
        assert!(parse_rate("100GBps").is_err());
        assert!(parse_time("3 fortnights").unwrap_err().contains("us"));
        assert!(parse_size("1.5B").unwrap_err().contains("whole"));
        assert!(parse_rate("0Gbps").is_err());
        assert!(parse_time("-1us").is_err());
    }
}
