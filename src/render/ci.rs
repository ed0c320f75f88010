//! What the CI formats (SARIF, GitHub workflow commands, JUnit XML) need
//! beyond the report: the threshold that makes a finding a failure, the
//! rules in effect, and the directory paths are made relative to. The
//! renderers themselves are `sarif.rs`, `github.rs` and `junit.rs`.

use std::path::{Component, Path, PathBuf};

use crate::check::Filter;
use crate::rules::Severity;

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
}

impl Default for CiOptions {
    fn default() -> CiOptions {
        CiOptions {
            fail_on: Some(Severity::Error),
            filter: Filter::default(),
            base: None,
        }
    }
}

impl CiOptions {
    /// The base directory as an absolute, lexically normalised path, or
    /// `None` when the working directory cannot be read.
    pub fn base_dir(&self) -> Option<PathBuf> {
        let cwd = std::env::current_dir().ok()?;
        Some(normalise(&match &self.base {
            Some(base) => cwd.join(base),
            None => cwd,
        }))
    }
}

/// Where an input file is, as a CI system should name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// Under the base directory: the path below it, `/`-separated.
    Relative(String),
    /// Outside it (or the base is unknown): the absolute path.
    Absolute(PathBuf),
    /// Not a file: standard input (`-`) or `validate`'s `<argument>`.
    Other(String),
}

/// Places `path` (as the user named it) relative to `base`.
///
/// Lexical: `..` and `.` are resolved on the text, symbolic links are not
/// followed, so a path reads the same whether or not the file still exists
/// and a link inside the base stays inside it.
pub fn place(path: &str, base: Option<&Path>) -> Place {
    if path == "-" || path == "<argument>" {
        return Place::Other(path.to_string());
    }
    let Some(base) = base else {
        let p = Path::new(path);
        return if p.is_absolute() {
            Place::Absolute(normalise(p))
        } else {
            Place::Relative(slashes(&normalise(p)))
        };
    };
    let full = normalise(&base.join(path));
    match full.strip_prefix(base) {
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
        let base = Path::new("/repo");
        let rel = |s: &str| Place::Relative(s.to_string());
        assert_eq!(place("logs/a.log", Some(base)), rel("logs/a.log"));
        assert_eq!(place("./logs/../b.log", Some(base)), rel("b.log"));
        assert_eq!(place("/repo/x/c.log", Some(base)), rel("x/c.log"));
        assert_eq!(
            place("../other/d.log", Some(base)),
            Place::Absolute(PathBuf::from("/other/d.log"))
        );
        assert_eq!(
            place("/elsewhere/e.log", Some(base)),
            Place::Absolute(PathBuf::from("/elsewhere/e.log"))
        );
        assert_eq!(place("-", Some(base)), Place::Other("-".into()));
        assert_eq!(
            place("<argument>", Some(base)),
            Place::Other("<argument>".into())
        );
        assert_eq!(place("a,b:%\n.log", Some(base)), rel("a,b:%\n.log"));
    }
}
