//! The value parsers the command line and the configuration file share:
//! rule names, `RULE=LEVEL`, durations.

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
