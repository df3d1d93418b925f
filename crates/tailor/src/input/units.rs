//! Quantities with their unit in the value: "100Gbps", "2.5us", "97.5KB".
//!
//! The convention (docs/scenario.md): every rate, time and size in a scenario is a
//! string carrying its unit; counts (hosts, segments, messages) are bare integers and
//! fractions (load, alpha, g) bare numbers. Decimal prefixes are powers of ten (KB =
//! 1000 B), binary ones powers of two (KiB = 1024 B).
//!
//! A value must be exactly a whole number of the base unit (bit/s, picosecond, byte):
//! the decimal is read as an integer and a power of ten, never as a float, so
//! "1.0005ns" (1000.5 ps) and "1.0000001ns" are refused alike and nothing is rounded.

use crate::sim::{Rate, Time};

pub const RATE_UNITS: &str = "bps, Kbps, Mbps, Gbps, Tbps";
pub const TIME_UNITS: &str = "ps, ns, us, ms, s";
pub const SIZE_UNITS: &str = "B, KB, MB, GB, KiB, MiB, GiB";

/// A decimal number as written: `digits / 10^decimals`.
struct Decimal {
    digits: u128,
    decimals: u32,
}

/// How a number is written, for the errors: the one rule `split` applies.
pub const NUMBER_RULE: &str =
    "digits with at most one point and single `_` separators, each between two digits, then the unit with no space";

/// Splits "2.5us" into the decimal 2.5 and the unit "us". The number is one or more
/// groups of digits joined by single `_`, with at most one point, and every point or `_`
/// stands between two digits; the unit follows at once. No sign, exponent or space:
/// a value is read one way only, so a typo (`"10__0Gbps"`) is refused, not guessed at.
fn split(s: &str) -> Option<(Decimal, &str)> {
    let i = s.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_')).unwrap_or(s.len());
    let (num, unit) = s.split_at(i);
    let (int, frac) = num.split_once('.').unwrap_or((num, ""));
    let groups = |part: &str| {
        !part.is_empty() && part.split('_').all(|g| !g.is_empty() && g.bytes().all(|b| b.is_ascii_digit()))
    };
    if !groups(int) || (num.contains('.') && !groups(frac)) {
        return None;
    }
    let (int, frac) = (int.replace('_', ""), frac.replace('_', ""));
    let mut digits: u128 = 0;
    for c in int.chars().chain(frac.chars()) {
        digits = digits.checked_mul(10)?.checked_add(c.to_digit(10)? as u128)?;
    }
    Some((Decimal { digits, decimals: frac.len() as u32 }, unit))
}

/// `v × scale` as a whole number of the base unit, or why not.
fn whole(v: &Decimal, scale: u128) -> Result<u64, String> {
    let out_of_range = || format!("is out of range; accepted: up to {} of the base unit", u64::MAX);
    let x = v.digits.checked_mul(scale).ok_or_else(out_of_range)?;
    let ten = 10u128.checked_pow(v.decimals).ok_or_else(out_of_range)?;
    if x % ten != 0 {
        return Err("is not a whole number of the base unit; accepted: a value exact to the base unit".into());
    }
    u64::try_from(x / ten).map_err(|_| out_of_range())
}

/// "100Gbps" -> 100e9 bit/s.
pub fn parse_rate(s: &str) -> Result<Rate, String> {
    let bad = || {
        format!("\"{s}\" is not a rate; accepted: a number and a unit such as \"100Gbps\" (units: {RATE_UNITS}; {NUMBER_RULE})")
    };
    let (v, unit) = split(s).ok_or_else(bad)?;
    let scale = match unit {
        "bps" => 1,
        "Kbps" => 1_000,
        "Mbps" => 1_000_000,
        "Gbps" => 1_000_000_000,
        "Tbps" => 1_000_000_000_000,
        _ => return Err(bad()),
    };
    let bps = whole(&v, scale).map_err(|e| format!("rate \"{s}\" {e} (bit/s)"))?;
    if bps == 0 {
        return Err(format!("rate \"{s}\" is zero; accepted: a positive rate"));
    }
    Ok(Rate::from_bps(bps))
}

/// "2.5us" -> 2,500,000 ps.
pub fn parse_time(s: &str) -> Result<Time, String> {
    let bad = || {
        format!("\"{s}\" is not a time; accepted: a number and a unit such as \"2.5us\" (units: {TIME_UNITS}; {NUMBER_RULE})")
    };
    let (v, unit) = split(s).ok_or_else(bad)?;
    let scale = match unit {
        "ps" => 1,
        "ns" => 1_000,
        "us" | "µs" => 1_000_000,
        "ms" => 1_000_000_000,
        "s" => 1_000_000_000_000,
        _ => return Err(bad()),
    };
    let ps = whole(&v, scale).map_err(|e| format!("time \"{s}\" {e} (picoseconds)"))?;
    Ok(Time::from_ps(ps))
}

/// "97.5KB" -> 97,500 bytes.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let bad = || {
        format!("\"{s}\" is not a size; accepted: a number and a unit such as \"1448B\" or \"100KB\" (units: {SIZE_UNITS}; {NUMBER_RULE})")
    };
    let (v, unit) = split(s).ok_or_else(bad)?;
    let scale = match unit {
        "B" => 1,
        "KB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        _ => return Err(bad()),
    };
    whole(&v, scale).map_err(|e| format!("size \"{s}\" {e} (bytes)"))
}

/// A time as a scenario writes it, in the largest unit that keeps it exact: "2ms",
/// "1500ns", "0ns".
pub fn show_time(t: Time) -> String {
    let ps = t.ps();
    let units = [("s", 1_000_000_000_000), ("ms", 1_000_000_000), ("us", 1_000_000), ("ns", 1_000)];
    match units.iter().find(|(_, scale)| ps.is_multiple_of(*scale)) {
        Some((unit, scale)) => format!("\"{}{unit}\"", ps / scale),
        None => format!("\"{ps}ps\""),
    }
}

/// A rate as a scenario writes it, in the largest unit that keeps it exact: "\"100Gbps\"",
/// "\"950Mbps\"".
pub fn show_rate(r: Rate) -> String {
    let bps = r.bps();
    let units = [("Tbps", 1_000_000_000_000), ("Gbps", 1_000_000_000), ("Mbps", 1_000_000), ("Kbps", 1_000)];
    match units.iter().find(|(_, scale)| bps.is_multiple_of(*scale)) {
        Some((unit, scale)) => format!("\"{}{unit}\"", bps / scale),
        None => format!("\"{bps}bps\""),
    }
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

    /// One rule for every unit: exact to the base unit or refused, never rounded.
    #[test]
    fn values_are_exact_or_refused() {
        let refused = [
            parse_time("1.0005ns").unwrap_err(),
            parse_time("1.0000001ns").unwrap_err(),
            parse_time("0.0000000000001s").unwrap_err(),
            parse_rate("1.0000000001Gbps").unwrap_err(),
            parse_size("1.0001KB").unwrap_err(),
            parse_size("0.1KiB").unwrap_err(),
        ];
        for e in refused {
            assert!(e.contains("not a whole number"), "{e}");
        }
        assert_eq!(parse_time("1.000000000001s").unwrap(), Time::from_ps(1_000_000_000_001));
        assert_eq!(parse_time("1.5000ns").unwrap(), Time::from_ps(1500));
        assert_eq!(parse_time("0.001ns").unwrap(), Time::from_ps(1));
        assert_eq!(parse_size("1.5KiB").unwrap(), 1536);
        assert_eq!(parse_size("0.25KiB").unwrap(), 256);
        assert_eq!(parse_rate("1_000.5Kbps").unwrap().bps(), 1_000_500);
        assert!(parse_size("1.2.3KB").is_err() && parse_size(".KB").is_err());
        assert!(parse_time("18446744073709552s").unwrap_err().contains("out of range"));
        assert!(parse_time("99999999999999999999999999999999999999999ps").is_err());
    }

    /// One way to write a number: digits with at most one point and single `_`
    /// separators, each between two digits, and the unit right after it.
    #[test]
    fn numbers_are_written_one_way() {
        for s in [
            "10__0Gbps",
            ".5Gbps",
            "10.Gbps",
            " 10 Gbps",
            "10 Gbps",
            "10Gbps ",
            "_10Gbps",
            "10_Gbps",
            "1_.5Gbps",
            "1._5Gbps",
            "1.5_Gbps",
            "+10Gbps",
            "1e3Gbps",
        ] {
            let e = parse_rate(s).unwrap_err();
            assert!(e.contains("is not a rate") && e.contains("single `_` separators"), "{s}: {e}");
        }
        assert!(parse_size(".5KB").is_err() && parse_time(" 2us").is_err() && parse_time("2 us").is_err());
        assert_eq!(parse_rate("1_0.0_5Gbps").unwrap().bps(), 10_050_000_000);
        assert_eq!(parse_size("0.5KB").unwrap(), 500);
        assert_eq!(parse_time("2µs").unwrap(), Time::from_us(2));
    }

    #[test]
    fn times_are_shown_in_the_largest_exact_unit() {
        let shown: Vec<String> =
            ["0ns", "2ms", "1.5us", "1001ps"].iter().map(|s| show_time(parse_time(s).unwrap())).collect();
        assert_eq!(shown, ["\"0s\"", "\"2ms\"", "\"1500ns\"", "\"1001ps\""]);
        let rates: Vec<String> =
            ["100Gbps", "0.95Gbps", "1001bps"].iter().map(|s| show_rate(parse_rate(s).unwrap())).collect();
        assert_eq!(rates, ["\"100Gbps\"", "\"950Mbps\"", "\"1001bps\""]);
    }
}
