//! What the CI formats (SARIF, GitHub workflow commands, JUnit XML) need
//! beyond the report: the threshold that makes a finding a failure, the
//! rules in effect, and the directory paths are made relative to. The
//! renderers themselves are `sarif.rs`, `github.rs` and `junit.rs`.

use std::path::{Component, Path, PathBuf};

use crate::rules::finding::Filter;
use crate::rules::{Rule, Severity};

/// Options of the CI formats.
#[derive(Clone, Debug)]
pub struct CiOptions {
    /// `--fail-on`: findings at or above it are failures (JUnit); `None`
    /// for `--fail-on never`.
    pub fail_on: Option<Severity>,
    /// `--select`, `--ignore`, `--severity`: which rules were in effect.
    pub filter: Filter,
    /// `--sarif-base`: the directory paths are relative to; relative to the
    /// working directory itself. `None`: the working directory.
    pub base: Option<PathBuf>,
    /// A baseline was compared: the baseline rules apply (JUnit lists
    /// them as test cases only then).
    pub baseline: bool,
    /// `check --schema-check` ran: the schema rules apply (JUnit lists them
    /// as test cases only then).
    pub schema_check: bool,
    /// The tool-schema checks ran (not `--no-tool-schemas`): their rules
    /// apply (JUnit lists them as test cases only then).
    pub tool_schemas: bool,
    /// The assertion rules whose assertion was given (`--expect-tool`,
    /// ...): JUnit lists an assertion rule as a test case only then.
    pub assertions: Vec<Rule>,
}

impl Default for CiOptions {
    fn default() -> CiOptions {
        CiOptions {
            fail_on: Some(Severity::Error),
            filter: Filter::default(),
            base: None,
            baseline: false,
            schema_check: false,
            tool_schemas: true,
            assertions: Vec::new(),
        }
    }
}

impl CiOptions {
    /// The working directory and the base directory, both absolute and
    /// lexically normalised, or `None` when the working directory cannot
    /// be read.
    pub fn dirs(&self) -> Option<Dirs> {
        let cwd = normalise(&std::env::current_dir().ok()?);
        let base = match &self.base {
            Some(base) => normalise(&cwd.join(base)),
            None => cwd.clone(),
        };
        Some(Dirs { cwd, base })
    }
}

/// Where relative input paths start from, and what CI paths are relative to.
#[derive(Clone, Debug)]
pub struct Dirs {
    pub cwd: PathBuf,
    pub base: PathBuf,
}

/// Where an input file is, as a CI system should name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// Under the base directory: the path below it, `/`-separated.
    Relative(String),
    /// Outside it (or the base is unknown): the absolute path.
    Absolute(PathBuf),
    /// Not a file: standard input (`-`), or a name in angle brackets
    /// (`validate`'s `<argument>`, a probe's `<probe: SCRIPT>`).
    Other(String),
}

/// Places `path` (as the user named it, relative to the working directory)
/// relative to the base directory.
///
/// Lexical: `..` and `.` are resolved on the text, symbolic links are not
/// followed, so a path reads the same whether or not the file still exists
/// and a link inside the base stays inside it.
pub fn place(path: &str, dirs: Option<&Dirs>) -> Place {
    if path == "-" || (path.starts_with('<') && path.ends_with('>')) {
        return Place::Other(path.to_string());
    }
    let Some(dirs) = dirs else {
        let p = Path::new(path);
        return if p.is_absolute() {
            Place::Absolute(normalise(p))
        } else {
            Place::Relative(slashes(&normalise(p)))
        };
    };
    let full = normalise(&dirs.cwd.join(path));
    match full.strip_prefix(&dirs.base) {
        Ok(rel) if rel.as_os_str().is_empty() => Place::Absolute(full),
        Ok(rel) => Place::Relative(slashes(rel)),
        Err(_) => Place::Absolute(full),
    }
}

fn slashes(path: &Path) -> String {
    let parts: Vec<String> = path
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

/// Resolves `.` and `..` on the text of an absolute path.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(c);
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// How CI systems name severities: `error`, `warning`, `note` (SARIF's
/// levels; GitHub's `notice` is the same idea).
pub fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_placed_below_the_base_or_kept_absolute() {
        let dirs = Dirs {
            cwd: PathBuf::from("/repo"),
            base: PathBuf::from("/repo"),
        };
        let at = |p: &str| place(p, Some(&dirs));
        let rel = |s: &str| Place::Relative(s.to_string());
        assert_eq!(at("logs/a.log"), rel("logs/a.log"));
        assert_eq!(at("./logs/../b.log"), rel("b.log"));
        assert_eq!(at("/repo/x/c.log"), rel("x/c.log"));
        assert_eq!(
            at("../other/d.log"),
            Place::Absolute(PathBuf::from("/other/d.log"))
        );
        assert_eq!(
            at("/elsewhere/e.log"),
            Place::Absolute(PathBuf::from("/elsewhere/e.log"))
        );
        assert_eq!(at("-"), Place::Other("-".into()));
        assert_eq!(at("<argument>"), Place::Other("<argument>".into()));
        assert_eq!(
            at("<probe: server.py>"),
            Place::Other("<probe: server.py>".into())
        );
        assert_eq!(at("a,b:%\n.log"), rel("a,b:%\n.log"));
        // Relative paths start from the working directory, not the base.
        let below = Dirs {
            cwd: PathBuf::from("/repo"),
            base: PathBuf::from("/repo/logs"),
        };
        assert_eq!(place("logs/a.log", Some(&below)), rel("a.log"));
        assert_eq!(
            place("b.log", Some(&below)),
            Place::Absolute(PathBuf::from("/repo/b.log"))
        );
    }
}
