//! The value parsers the command line and the configuration file share:
//! rule names, `RULE=LEVEL`, durations, latency budgets, sizes, percents.

use mcpdbg::rules::{Rule, Severity};

pub(crate) fn parse_rule(s: &str) -> Result<Rule, String> {
    Rule::from_name(s.trim()).ok_or_else(|| unknown_rule(s))
}

/// An error for an unknown rule name, with the closest known one.
pub(crate) fn unknown_rule(name: &str) -> String {
    let close = Rule::ALL
        .iter()
        .map(|r| r.name())
        .min_by_key(|known| strsim::levenshtein(known, name));
    match close {
        Some(known) if strsim::levenshtein(known, name) <= 3 => {
            format!("unknown rule `{name}`; did you mean `{known}`? (`mcpdbg rules` lists them)")
        }
        _ => format!("unknown rule `{name}` (`mcpdbg rules` lists them)"),
    }
}

pub(crate) fn parse_severity(s: &str) -> Result<(Rule, Option<Severity>), String> {
    let (rule, level) = s
        .split_once('=')
        .ok_or_else(|| "expected RULE=LEVEL, such as id-reuse=warning".to_string())?;
    let level = match level.trim() {
        "error" => Some(Severity::Error),
        "warning" => Some(Severity::Warning),
        "info" => Some(Severity::Info),
        "off" => None,
        other => {
            return Err(format!(
                "unknown level `{other}`; expected error, warning, info or off"
            ));
        }
    };
    Ok((parse_rule(rule)?, level))
}

/// The longest time any option takes: about 31 years, which is "never" to
/// a debugging session, and far from where a deadline would overflow the
/// clock (`--timeout 1e19` panicked once the server had started).
const MAX_SECONDS: f64 = 1e9;

/// Seconds, bare (`5`, `0.5`) or with a unit: `2s`, `500ms`, `1m`; at most
/// [`MAX_SECONDS`].
pub(crate) fn parse_seconds(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let (number, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 0.001)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60.0)
    } else {
        (t, 1.0)
    };
    match number.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 && v * scale <= MAX_SECONDS => Ok(v * scale),
        Ok(v) if v.is_finite() && v >= 0.0 => {
            Err(format!("at most {MAX_SECONDS:.0} seconds (about 31 years)"))
        }
        _ => Err("expected seconds, such as 5, 0.5, 2s, 500ms or 1m".into()),
    }
}

/// `--max-latency`: `SECONDS` (every request's budget) or `NAME=SECONDS` (a
/// tool's or a method's own), the seconds as [`parse_seconds`] reads them.
pub(crate) fn parse_budget(s: &str) -> Result<(Option<String>, f64), String> {
    match s.rsplit_once('=') {
        Some((name, seconds)) => {
            let name = name.trim();
            if name.is_empty() {
                return Err("expected SECONDS or TOOL=SECONDS, such as 2s or search=500ms".into());
            }
            Ok((Some(name.to_string()), parse_seconds(seconds)?))
        }
        None => Ok((None, parse_seconds(s)?)),
    }
}

/// A size in bytes: bare (`65536`) or with a unit, `KB`, `MB`, `GB` (1,000)
/// or `KiB`, `MiB`, `GiB` (1,024), in any case (`64KiB`, `1.5MB`, `512 kb`).
pub(crate) fn parse_bytes(s: &str) -> Result<u64, String> {
    let usage = || "expected bytes, such as 65536, 64KiB or 1MB".to_string();
    let t = s.trim();
    let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
    let (number, unit) = (t[..split].trim(), t[split..].to_ascii_lowercase());
    let scale: u64 = match unit.as_str() {
        "" | "b" => 1,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        _ => return Err(usage()),
    };
    if let Ok(n) = number.parse::<u64>() {
        return n
            .checked_mul(scale)
            .ok_or_else(|| "too large: at most 2^64 - 1 bytes".to_string());
    }
    match number.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 && v * (scale as f64) < u64::MAX as f64 => {
            Ok((v * scale as f64).round() as u64)
        }
        Ok(v) if v.is_finite() && v >= 0.0 => Err("too large: at most 2^64 - 1 bytes".into()),
        _ => Err(usage()),
    }
}

/// A percent: `10`, `2.5`, `10%`; not negative.
pub(crate) fn parse_percent(s: &str) -> Result<f64, String> {
    let number = s.trim().strip_suffix('%').unwrap_or(s.trim());
    match number.parse::<f64>() {
        Ok(p) if p.is_finite() && p >= 0.0 => Ok(p),
        _ => Err(format!(
            "{s} is not a percent (a number, at least 0: 10, 2.5, 10%)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_take_decimal_and_binary_units() {
        assert_eq!(parse_bytes("65536"), Ok(65536));
        assert_eq!(parse_bytes("64KiB"), Ok(65536));
        assert_eq!(parse_bytes("64 kib"), Ok(65536));
        assert_eq!(parse_bytes("1MB"), Ok(1_000_000));
        assert_eq!(parse_bytes("1.5MiB"), Ok(1_572_864));
        assert_eq!(parse_bytes("100b"), Ok(100));
        assert!(parse_bytes("-1").is_err());
        assert!(parse_bytes("1 furlong").is_err());
        assert!(parse_bytes("").is_err());
        assert!(
            parse_bytes("99999999999GB")
                .unwrap_err()
                .contains("too large")
        );
    }

    #[test]
    fn a_budget_is_seconds_or_a_named_seconds() {
        assert_eq!(parse_budget("2s"), Ok((None, 2.0)));
        assert_eq!(parse_budget("add=500ms"), Ok((Some("add".into()), 0.5)));
        assert_eq!(
            parse_budget("tools/list=1"),
            Ok((Some("tools/list".into()), 1.0))
        );
        assert!(parse_budget("=2s").is_err());
        assert!(parse_budget("add=soon").is_err());
    }
}
