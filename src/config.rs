//! The configuration file: settings a project commits beside its server, so
//! that a CI job and a developer's terminal read the same contract.
//!
//! Found from the working directory upward: in each directory `mcpdbg.toml`,
//! then `.mcpdbg.toml`, then a `pyproject.toml` with a `[tool.mcpdbg]` table
//! (where Python server authors keep their tools' settings); the first found
//! applies, alone (files are not merged). `--config FILE` names one instead,
//! `--no-config` reads none. A flag given on the command line wins over the
//! file. `mcpdbg check --show-settings` prints what applies and from where.
//! Besides the rule settings, the file holds the assertions that make a
//! capture a test (`expect-tool`, `forbid-tool`, `max-latency`,
//! `require-complete`, `max-result-bytes`), read by `check`, `probe`,
//! `timeline` and `replay`, and the tool list's cost settings
//! (`cost-growth`, `max-tool-list-tokens`, `tokens`), read by `probe`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use mcpdbg::cost::Tokenizer;
use mcpdbg::rules::{Rule, Severity};
use toml::{Table, Value};

/// The settings a file can hold, as the command line spells them.
pub const KEYS: [&str; 13] = [
    "select",
    "ignore",
    "severity",
    "slow",
    "fail-on",
    "expect-tool",
    "forbid-tool",
    "max-latency",
    "require-complete",
    "max-result-bytes",
    "cost-growth",
    "max-tool-list-tokens",
    "tokens",
];

/// The longest configuration file read, in bytes (a `pyproject.toml` is a
/// few KB).
const MAX_BYTES: u64 = 1 << 20;

/// Where the settings came from.
#[derive(Clone, Debug, PartialEq)]
pub enum Origin {
    /// `--no-config`.
    Disabled,
    /// No file from this directory upward.
    NotFound(PathBuf),
    /// This file (`--config FILE`, or found).
    File(PathBuf),
}

/// `--fail-on`'s levels, as the file spells them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FailOn {
    Error,
    Warning,
    Info,
    Never,
}

/// The settings of one file; `None` where the file says nothing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Settings {
    pub select: Option<Vec<Rule>>,
    pub ignore: Option<Vec<Rule>>,
    pub severity: Option<Vec<(Rule, Option<Severity>)>>,
    pub slow: Option<f64>,
    pub fail_on: Option<FailOn>,
    /// The assertions, as the command line takes them.
    pub expect_tool: Option<Vec<String>>,
    pub forbid_tool: Option<Vec<String>>,
    /// `max-latency`: a duration (every request's budget), or a table of
    /// NAME = duration with a `default`.
    pub max_latency: Option<Vec<(Option<String>, f64)>>,
    pub require_complete: Option<bool>,
    pub max_result_bytes: Option<u64>,
    /// The tool list's cost (`probe`): `--cost-growth`'s percent,
    /// `--max-tool-list-tokens`, and `--tokens`' encoding.
    pub cost_growth: Option<f64>,
    pub max_tool_list_tokens: Option<u64>,
    pub tokens: Option<Tokenizer>,
}

/// What applies: the settings and their origin.
#[derive(Clone, Debug)]
pub struct Loaded {
    pub origin: Origin,
    pub settings: Settings,
}

/// Finds and reads the configuration: `explicit` (`--config`) if given,
/// none if `disabled` (`--no-config`), else the first file from `start`
/// upward. `Err` is a message naming the file.
pub fn load(explicit: Option<&Path>, disabled: bool, start: &Path) -> Result<Loaded, String> {
    if disabled {
        return Ok(Loaded {
            origin: Origin::Disabled,
            settings: Settings::default(),
        });
    }
    let (path, table) = match explicit {
        Some(path) => {
            let text = read(path)?;
            let table = parse(path, &text)?;
            let table = if is_pyproject(path) {
                tool_table(path, table)?.unwrap_or_default()
            } else {
                table
            };
            (path.to_path_buf(), table)
        }
        None => match discover(start)? {
            Some(found) => found,
            None => {
                return Ok(Loaded {
                    origin: Origin::NotFound(start.to_path_buf()),
                    settings: Settings::default(),
                });
            }
        },
    };
    let settings = settings(&path, &table)?;
    Ok(Loaded {
        origin: Origin::File(path),
        settings,
    })
}

/// The first configuration from `start` upward, with its table.
fn discover(start: &Path) -> Result<Option<(PathBuf, Table)>, String> {
    for dir in start.ancestors() {
        for name in ["mcpdbg.toml", ".mcpdbg.toml"] {
            let path = dir.join(name);
            if path.is_file() {
                let table = parse(&path, &read(&path)?)?;
                return Ok(Some((path, table)));
            }
        }
        let path = dir.join("pyproject.toml");
        if path.is_file() {
            let table = parse(&path, &read(&path)?)?;
            if let Some(tool) = tool_table(&path, table)? {
                return Ok(Some((path, tool)));
            }
        }
    }
    Ok(None)
}

fn is_pyproject(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "pyproject.toml")
}

/// A `pyproject.toml`'s `[tool.mcpdbg]` table, if it has one.
fn tool_table(path: &Path, mut table: Table) -> Result<Option<Table>, String> {
    let Some(tool) = table.remove("tool") else {
        return Ok(None);
    };
    let Value::Table(mut tool) = tool else {
        return Err(format!("{}: `tool` is not a table", path.display()));
    };
    match tool.remove("mcpdbg") {
        None => Ok(None),
        Some(Value::Table(t)) => Ok(Some(t)),
        Some(_) => Err(format!("{}: `tool.mcpdbg` is not a table", path.display())),
    }
}

fn read(path: &Path) -> Result<String, String> {
    use std::io::Read;
    let file =
        std::fs::File::open(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(format!(
            "{}: over {} KiB, too large for a configuration file",
            path.display(),
            MAX_BYTES >> 10
        ));
    }
    String::from_utf8(bytes).map_err(|_| format!("{}: not UTF-8 text", path.display()))
}

fn parse(path: &Path, text: &str) -> Result<Table, String> {
    text.parse::<Table>()
        .map_err(|e| format!("{}: {}", path.display(), e.to_string().trim_end()))
}

/// The settings of a table, every key and value checked.
fn settings(path: &Path, table: &Table) -> Result<Settings, String> {
    let at = |key: &str, message: String| format!("{}: `{key}`: {message}", path.display());
    let mut out = Settings::default();
    for (key, value) in table {
        match key.as_str() {
            "select" => out.select = Some(rules(value).map_err(|m| at(key, m))?),
            "ignore" => out.ignore = Some(rules(value).map_err(|m| at(key, m))?),
            "severity" => {
                let Value::Table(levels) = value else {
                    return Err(at(
                        key,
                        "expected a table of RULE = LEVEL, such as { slow-response = \"info\" }"
                            .into(),
                    ));
                };
                let mut list = Vec::new();
                for (rule, level) in levels {
                    let Value::String(level) = level else {
                        return Err(at(key, format!("the level of `{rule}` is not a string")));
                    };
                    list.push(
                        crate::values::parse_severity(&format!("{rule}={level}"))
                            .map_err(|m| at(key, m))?,
                    );
                }
                out.severity = Some(list);
            }
            "slow" => out.slow = Some(seconds(value).map_err(|m| at(key, m))?),
            "expect-tool" => out.expect_tool = Some(tools(value).map_err(|m| at(key, m))?),
            "forbid-tool" => out.forbid_tool = Some(tools(value).map_err(|m| at(key, m))?),
            "max-latency" => {
                let budgets = match value {
                    Value::Table(table) => table
                        .iter()
                        .map(|(name, v)| {
                            let name = (name != "default").then(|| name.clone());
                            seconds(v).map(|s| (name, s))
                        })
                        .collect::<Result<Vec<_>, _>>(),
                    other => seconds(other).map(|s| vec![(None, s)]),
                };
                out.max_latency = Some(budgets.map_err(|m| at(key, m))?);
            }
            "require-complete" => {
                let Value::Boolean(b) = value else {
                    return Err(at(key, "expected true or false".into()));
                };
                out.require_complete = Some(*b);
            }
            "max-result-bytes" => {
                let bytes = match value {
                    Value::Integer(n) => u64::try_from(*n)
                        .map_err(|_| "expected bytes, such as 65536, \"64KiB\" or \"1MB\"".into()),
                    Value::String(s) => crate::values::parse_bytes(s),
                    _ => Err("expected bytes, such as 65536, \"64KiB\" or \"1MB\"".into()),
                };
                out.max_result_bytes = Some(bytes.map_err(|m| at(key, m))?);
            }
            "cost-growth" => {
                let percent = match value {
                    Value::Integer(n) => crate::values::parse_percent(&n.to_string()),
                    Value::Float(f) => crate::values::parse_percent(&f.to_string()),
                    Value::String(s) => crate::values::parse_percent(s),
                    _ => Err("expected a percent, such as 5, 2.5 or \"10%\"".into()),
                };
                out.cost_growth = Some(percent.map_err(|m| at(key, m))?);
            }
            "max-tool-list-tokens" => {
                let Some(n) = value.as_integer().and_then(|n| u64::try_from(n).ok()) else {
                    return Err(at(key, "expected a number of tokens, such as 4000".into()));
                };
                out.max_tool_list_tokens = Some(n);
            }
            "tokens" => {
                let Some(tokens) = value.as_str().and_then(Tokenizer::from_name) else {
                    return Err(at(
                        key,
                        format!(
                            "expected one of {}",
                            Tokenizer::ALL
                                .map(|t| format!("\"{}\"", t.as_str()))
                                .join(", ")
                        ),
                    ));
                };
                out.tokens = Some(tokens);
            }
            "fail-on" => {
                out.fail_on = Some(match value.as_str() {
                    Some("error") => FailOn::Error,
                    Some("warning") => FailOn::Warning,
                    Some("info") => FailOn::Info,
                    Some("never") => FailOn::Never,
                    _ => {
                        return Err(at(
                            key,
                            "expected \"error\", \"warning\", \"info\" or \"never\"".into(),
                        ));
                    }
                });
            }
            other => {
                let close = KEYS
                    .iter()
                    .min_by_key(|k| strsim::levenshtein(k, other))
                    .filter(|k| strsim::levenshtein(k, other) <= 3);
                let mut message = format!("{}: unknown setting `{other}`", path.display());
                if let Some(k) = close {
                    let _ = write!(message, "; did you mean `{k}`?");
                }
                let _ = write!(message, " (known: {})", KEYS.join(", "));
                return Err(message);
            }
        }
    }
    Ok(out)
}

/// A duration: seconds as a number, or a string with a unit (`"500ms"`).
fn seconds(value: &Value) -> Result<f64, String> {
    match value {
        Value::Integer(n) => crate::values::parse_seconds(&n.to_string()),
        Value::Float(f) => crate::values::parse_seconds(&f.to_string()),
        Value::String(s) => crate::values::parse_seconds(s),
        _ => Err("expected seconds, such as 5, 0.5 or \"500ms\"".into()),
    }
}

/// Tool names: an array of strings, or one string (one tool).
fn tools(value: &Value) -> Result<Vec<String>, String> {
    let usage = || "expected tool names, such as [\"search\", \"add\"]".to_string();
    match value {
        Value::String(s) if !s.trim().is_empty() => Ok(vec![s.trim().to_string()]),
        Value::Array(list) => list
            .iter()
            .map(|v| {
                v.as_str()
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .ok_or_else(usage)
            })
            .collect(),
        _ => Err(usage()),
    }
}

/// Rule names: an array of strings, or one string of comma-separated names.
fn rules(value: &Value) -> Result<Vec<Rule>, String> {
    let names: Vec<&str> = match value {
        Value::String(s) => s.split(',').filter(|n| !n.trim().is_empty()).collect(),
        Value::Array(list) => list
            .iter()
            .map(|v| {
                v.as_str()
                    .ok_or_else(|| "expected rule names, such as [\"stray-output\"]".to_string())
            })
            .collect::<Result<_, _>>()?,
        _ => return Err("expected rule names, such as [\"stray-output\"]".into()),
    };
    names.into_iter().map(crate::values::parse_rule).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("mcpdbg-config-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("a/b")).unwrap();
        dir
    }

    /// Writes `text` as `dir`'s `mcpdbg.toml` and loads that file.
    fn write_and_load(dir: &Path, text: &str) -> Result<Loaded, String> {
        let path = dir.join("mcpdbg.toml");
        std::fs::write(&path, text).unwrap();
        load(Some(&path), false, dir)
    }

    #[test]
    fn found_upward_first_file_wins() {
        let dir = scratch("upward");
        std::fs::write(dir.join("mcpdbg.toml"), "fail-on = \"warning\"\n").unwrap();
        std::fs::write(
            dir.join("a/pyproject.toml"),
            "[project]\nname = \"x\"\n[tool.mcpdbg]\nslow = \"2s\"\nignore = [\"stray-output\"]\n",
        )
        .unwrap();
        let loaded = load(None, false, &dir.join("a/b")).unwrap();
        assert_eq!(loaded.origin, Origin::File(dir.join("a/pyproject.toml")));
        assert_eq!(loaded.settings.slow, Some(2.0));
        assert_eq!(loaded.settings.ignore, Some(vec![Rule::StrayOutput]));
        assert_eq!(loaded.settings.fail_on, None, "files are not merged");
        // A pyproject.toml without [tool.mcpdbg] is passed over.
        std::fs::write(dir.join("a/pyproject.toml"), "[project]\nname = \"x\"\n").unwrap();
        let loaded = load(None, false, &dir.join("a/b")).unwrap();
        assert_eq!(loaded.origin, Origin::File(dir.join("mcpdbg.toml")));
        assert_eq!(loaded.settings.fail_on, Some(FailOn::Warning));
        assert_eq!(
            load(None, true, &dir.join("a/b")).unwrap().origin,
            Origin::Disabled
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn assertions_are_read_as_the_command_line_takes_them() {
        let dir = scratch("assertions");
        let s = write_and_load(
            &dir,
            "expect-tool = [\"add\", \"search\"]\nforbid-tool = \"delete_note\"\nmax-latency = { default = \"2s\", add = 0.5 }\nrequire-complete = true\nmax-result-bytes = \"64KiB\"\n",
        )
        .unwrap()
        .settings;
        assert_eq!(s.expect_tool, Some(vec!["add".into(), "search".into()]));
        assert_eq!(s.forbid_tool, Some(vec!["delete_note".into()]));
        let mut budgets = s.max_latency.expect("max-latency");
        budgets.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(budgets, vec![(None, 2.0), (Some("add".into()), 0.5)]);
        assert_eq!(s.require_complete, Some(true));
        assert_eq!(s.max_result_bytes, Some(65536));
        let s = write_and_load(&dir, "max-latency = 3\nmax-result-bytes = 1000\n")
            .unwrap()
            .settings;
        assert_eq!(s.max_latency, Some(vec![(None, 3.0)]));
        assert_eq!(s.max_result_bytes, Some(1000));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_cost_settings_are_read_as_probe_takes_them() {
        let dir = scratch("cost");
        let read = |text: &str| write_and_load(&dir, text).unwrap().settings;
        let s = read("cost-growth = 5\nmax-tool-list-tokens = 4000\ntokens = \"o200k_base\"\n");
        assert_eq!(s.cost_growth, Some(5.0));
        assert_eq!(s.max_tool_list_tokens, Some(4000));
        assert_eq!(s.tokens, Some(Tokenizer::O200kBase));
        assert_eq!(read("cost-growth = 2.5").cost_growth, Some(2.5));
        assert_eq!(read("cost-growth = \"10%\"").cost_growth, Some(10.0));
        assert_eq!(read("cost-growth = 0").cost_growth, Some(0.0));
        assert_eq!(
            read("tokens = \"estimate\"").tokens,
            Some(Tokenizer::Estimate)
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn mistakes_are_named() {
        let dir = scratch("mistakes");
        let path = dir.join("mcpdbg.toml");
        let err = |text: &str| write_and_load(&dir, text).unwrap_err();
        assert!(err("fail_on = \"warning\"").contains("did you mean `fail-on`?"));
        assert!(err("select = [\"stray-outptu\"]").contains("did you mean `stray-output`?"));
        assert!(err("severity = { stray-output = \"loud\" }").contains("unknown level `loud`"));
        assert!(err("slow = true").contains("expected seconds"));
        assert!(err("slow = -1").contains("expected seconds"));
        assert!(err("expect-tool = 3").contains("expected tool names"));
        assert!(err("max-latency = { add = \"soon\" }").contains("expected seconds"));
        assert!(err("require-complete = \"yes\"").contains("expected true or false"));
        assert!(err("max-result-bytes = \"64 furlongs\"").contains("expected bytes"));
        assert!(err("max-result-bytes = -1").contains("expected bytes"));
        assert!(err("expect_tool = []").contains("did you mean `expect-tool`?"));
        assert!(err("cost-growth = -5").contains("is not a percent"));
        assert!(err("cost-growth = true").contains("expected a percent"));
        assert!(err("max-tool-list-tokens = -1").contains("expected a number of tokens"));
        assert!(err("max-tool-list-tokens = \"4k\"").contains("expected a number of tokens"));
        assert!(err("tokens = \"gpt2\"").contains("expected one of \"estimate\""));
        assert!(err("max_tool_list_tokens = 9").contains("did you mean `max-tool-list-tokens`?"));
        assert!(err("select = [").contains("mcpdbg.toml"));
        std::fs::write(&path, vec![b'#'; (MAX_BYTES + 10) as usize]).unwrap();
        assert!(
            load(Some(&path), false, &dir)
                .unwrap_err()
                .contains("too large")
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
