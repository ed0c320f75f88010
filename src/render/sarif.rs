//! `--format sarif`: one SARIF 2.1.0 log for GitHub code scanning and other
//! SARIF consumers.
//!
//! The log has one run for all inputs: the tool (mcpdbg, with every rule of
//! the catalogue), one artifact per file named, and one result per finding.
//! What GitHub asks of an upload shapes a few choices, each explained where
//! it is made: every result has a location, results past GitHub's limit per
//! run are dropped least severe first (and counted in the run's
//! properties), and each result carries fingerprints that survive unrelated
//! edits of the log.

use std::collections::HashMap;
use std::io::{self, Write};

use serde_json::{Map, Value, json};

use crate::facts::hash::Fnv;
use crate::render::ci::{self, CiOptions, Place};
use crate::report::Report;
use crate::rules::Rule;
use crate::rules::finding::Finding;

/// The schema the log says it follows (the SARIF 2.1.0 schema as
/// published on schemastore.org, the address GitHub's documentation uses).
pub const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// GitHub code scanning rejects a run with more results than this.
pub const MAX_RESULTS: usize = 25_000;

/// GitHub reads at most this many locations per result; mcpdbg's findings
/// name a few related lines, so the cap only guards against the unexpected.
const MAX_RELATED: usize = 1_000;

/// The `uriBaseId` of relative artifact locations: the root of the checked-
/// out repository (or `--sarif-base`), which is what GitHub resolves
/// relative URIs against.
pub const SRCROOT: &str = "%SRCROOT%";

/// The key of mcpdbg's own fingerprint in `partialFingerprints`; the
/// version says which recipe (see [`fingerprints`]) made it.
pub const FINGERPRINT_KEY: &str = "mcpdbg/v1";

pub fn render(report: &Report, options: &CiOptions, out: &mut dyn Write) -> io::Result<()> {
    render_limited(report, options, MAX_RESULTS, out)
}

/// [`render`] with another result limit (for tests).
pub fn render_limited(
    report: &Report,
    options: &CiOptions,
    limit: usize,
    out: &mut dyn Write,
) -> io::Result<()> {
    let doc = log(report, options, limit);
    crate::wire::exact::to_writer_pretty(&mut *out, &doc)?;
    out.write_all(b"\n")
}

fn log(report: &Report, options: &CiOptions, limit: usize) -> Value {
    let dirs = options.dirs();
    let mut artifacts = Artifacts::default();
    // Every finding with the index of its artifact, in report order.
    let mut findings: Vec<(&Finding, usize)> = Vec::new();
    for file in &report.files {
        let own = artifacts.index(&file.path, dirs.as_ref());
        for f in &file.findings {
            let artifact = match &f.file {
                Some(other) => artifacts.index(other, dirs.as_ref()),
                None => own,
            };
            findings.push((f, artifact));
        }
    }
    // Fingerprints over every finding, before any is dropped, so that a
    // result's fingerprint does not depend on how many others there are.
    let prints = fingerprints(&findings, &artifacts);
    let kept = keep_most_severe(&findings, limit);
    let results: Vec<Value> = kept
        .iter()
        .map(|&i| {
            let (f, artifact) = findings[i];
            result(f, &artifacts.list[artifact], artifact, &prints[i])
        })
        .collect();
    let dropped = findings.len() - kept.len();

    let mut driver = Map::new();
    driver.insert("name".into(), "mcpdbg".into());
    driver.insert("version".into(), env!("CARGO_PKG_VERSION").into());
    driver.insert("semanticVersion".into(), env!("CARGO_PKG_VERSION").into());
    if let Some(uri) = information_uri() {
        driver.insert("informationUri".into(), uri.into());
    }
    driver.insert(
        "rules".into(),
        Rule::ALL
            .iter()
            .map(|r| rule(*r))
            .collect::<Vec<_>>()
            .into(),
    );

    let mut properties = Map::new();
    properties.insert("mcpdbg/resultsDropped".into(), dropped.into());
    if dropped > 0 {
        properties.insert(
            "mcpdbg/resultsDroppedNote".into(),
            format!(
                "{dropped} of {} findings were left out to stay within {limit} results per run; the most severe were kept",
                findings.len()
            )
            .into(),
        );
    }

    json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": Value::Object(driver)},
            "artifacts": artifacts.list.iter().map(|a| json!({
                "location": a.location(None),
                "roles": ["analysisTarget"],
            })).collect::<Vec<_>>(),
            "results": results,
            "properties": Value::Object(properties),
        }],
    })
}

/// Cargo.toml's `repository` (or `homepage`), when the crate declares one.
fn information_uri() -> Option<&'static str> {
    [env!("CARGO_PKG_REPOSITORY"), env!("CARGO_PKG_HOMEPAGE")]
        .into_iter()
        .find(|u| !u.is_empty())
}

/// The artifacts of the run: one per distinct file, in order of first use.
#[derive(Default)]
struct Artifacts {
    list: Vec<Artifact>,
    by_path: HashMap<String, usize>,
}

impl Artifacts {
    fn index(&mut self, path: &str, dirs: Option<&ci::Dirs>) -> usize {
        if let Some(&i) = self.by_path.get(path) {
            return i;
        }
        let i = self.list.len();
        self.list.push(Artifact::new(ci::place(path, dirs)));
        self.by_path.insert(path.to_string(), i);
        i
    }
}

struct Artifact {
    uri: String,
    /// Relative to [`SRCROOT`].
    relative: bool,
}

impl Artifact {
    fn new(place: Place) -> Artifact {
        match place {
            Place::Relative(path) => Artifact {
                uri: encode(&path),
                relative: true,
            },
            Place::Absolute(path) => Artifact {
                uri: format!("file://{}", encode(&path.to_string_lossy())),
                relative: false,
            },
            Place::Other(name) => Artifact {
                uri: encode(&name),
                relative: false,
            },
        }
    }

    fn location(&self, index: Option<usize>) -> Value {
        let mut m = Map::new();
        m.insert("uri".into(), self.uri.clone().into());
        if self.relative {
            m.insert("uriBaseId".into(), SRCROOT.into());
        }
        if let Some(i) = index {
            m.insert("index".into(), i.into());
        }
        Value::Object(m)
    }
}

/// Percent-encodes a path for a URI: every byte but the unreserved ones and
/// `/`. A `:` is encoded too, so a relative path such as `a:b.log` cannot
/// read as a URI with the scheme `a`.
fn encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn rule(rule: Rule) -> Value {
    let i = rule.info();
    let fence = "`".repeat(longest_backtick_run(i.example).max(2) + 1);
    let text = format!(
        "{}\n\nFix: {}\n\nSpec: {}\n\nAn example that triggers it:\n{}",
        i.why, i.fix, i.spec, i.example
    );
    let markdown = format!(
        "{}\n\n**Fix.** {}\n\n**Spec.** {} (revisions: {})\n\n**An example that triggers it:**\n\n{fence}text\n{}\n{fence}\n\n`mcpdbg explain {}` tells the same.",
        i.why, i.fix, i.spec, i.revisions, i.example, i.name
    );
    // The group's name is the tag; the security group's is `security`,
    // the tag GitHub gives its own meaning.
    let tags = ["mcp", i.group.as_str()];
    json!({
        "id": i.name,
        "shortDescription": {"text": i.summary},
        "fullDescription": {"text": i.why},
        "help": {"text": text, "markdown": markdown},
        "defaultConfiguration": {"level": ci::level(i.severity)},
        "properties": {"tags": tags, "mcpdbg/revisions": i.revisions.to_string()},
    })
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

fn result(f: &Finding, artifact: &Artifact, index: usize, print: &str) -> Value {
    // SARIF lines start at 1 and GitHub shows only results with a location,
    // so a finding about the whole file (there is none without a line today,
    // but a line 0 would mean one) points at line 1 rather than at nothing.
    let physical = |line: u64| {
        json!({
            "artifactLocation": artifact.location(Some(index)),
            "region": {"startLine": line.max(1)},
        })
    };
    let mut m = Map::new();
    m.insert("ruleId".into(), f.rule.name().into());
    m.insert("ruleIndex".into(), rule_index(f.rule).into());
    m.insert("level".into(), ci::level(f.severity).into());
    m.insert("message".into(), json!({"text": f.message}));
    m.insert(
        "locations".into(),
        json!([{"physicalLocation": physical(f.line)}]),
    );
    if !f.related.is_empty() {
        let related: Vec<Value> = f
            .related
            .iter()
            .take(MAX_RELATED)
            .enumerate()
            .map(|(n, &line)| {
                json!({
                    "id": n + 1,
                    "message": {"text": format!("line {line}, also involved")},
                    "physicalLocation": physical(line),
                })
            })
            .collect();
        m.insert("relatedLocations".into(), related.into());
    }
    m.insert(
        "partialFingerprints".into(),
        json!({FINGERPRINT_KEY: print, "primaryLocationLineHash": print}),
    );
    let mut props = Map::new();
    props.insert("session".into(), f.session.into());
    if let Some(t) = &f.time {
        props.insert("time".into(), (*t.text).into());
    }
    if let Some(d) = f.dir {
        props.insert("direction".into(), d.as_str().into());
    }
    if let Some(id) = &f.id {
        props.insert("id".into(), id.to_json());
    }
    if let Some(method) = &f.method {
        props.insert("method".into(), method.clone().into());
    }
    m.insert("properties".into(), Value::Object(props));
    Value::Object(m)
}

fn rule_index(rule: Rule) -> usize {
    Rule::ALL
        .iter()
        .position(|r| *r == rule)
        .expect("every rule is in the catalogue")
}

/// The indices of at most `limit` findings: all of them when they fit,
/// otherwise the most severe (in report order among equals), returned in
/// report order.
fn keep_most_severe(findings: &[(&Finding, usize)], limit: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..findings.len()).collect();
    if findings.len() > limit {
        order.sort_by_key(|&i| std::cmp::Reverse(findings[i].0.severity));
        order.truncate(limit);
        order.sort_unstable();
    }
    order
}

/// One fingerprint per finding: `HASH:N`, HASH (16 hex digits, FNV-1a 64)
/// of the rule, the artifact's URI, the method and the message with every
/// run of digits replaced by `#`, and N the occurrence of that hash in the
/// run (1 for the first).
///
/// What stays stable when unrelated lines are added to a log: the rule, the
/// file and the method. Line numbers, request ids (most clients number
/// requests in order), latencies, counts and timestamps all shift, and
/// messages quote them ("id 6, line 26", "took 7.9 s"), so digits are left
/// out of the hash rather than the message as a whole, which keeps the
/// words that tell two findings apart. The occurrence number separates
/// findings that are then alike, in the order they appear.
///
/// GitHub's upload action computes `primaryLocationLineHash` from the text
/// of the flagged line when the log does not carry one; for a log that text
/// holds a timestamp and changes on every run, so mcpdbg fills that key with
/// the same stable value.
fn fingerprints(findings: &[(&Finding, usize)], artifacts: &Artifacts) -> Vec<String> {
    let mut seen: HashMap<u64, usize> = HashMap::new();
    findings
        .iter()
        .map(|(f, artifact)| {
            let mut h = Fnv::new();
            h.field(f.rule.name().as_bytes());
            h.field(artifacts.list[*artifact].uri.as_bytes());
            h.field(f.method.as_deref().unwrap_or("").as_bytes());
            h.field(without_digits(&f.message).as_bytes());
            let hash = h.0;
            let n = seen.entry(hash).or_insert(0);
            *n += 1;
            format!("{hash:016x}:{n}")
        })
        .collect()
}

fn without_digits(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_digits = false;
    for c in text.chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push('#');
            }
            in_digits = true;
        } else {
            out.push(c);
            in_digits = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_percent_encoded() {
        assert_eq!(encode("logs/a b.log"), "logs/a%20b.log");
        assert_eq!(encode("a:b,c%\n.log"), "a%3Ab%2Cc%25%0A.log");
        assert_eq!(encode("é"), "%C3%A9");
    }

    #[test]
    fn digits_do_not_reach_the_fingerprint() {
        assert_eq!(
            without_digits("`resources/read` (id 6, line 26) took 7.9 s"),
            "`resources/read` (id #, line #) took #.# s"
        );
    }

    #[test]
    fn fnv_matches_its_reference_value() {
        // FNV-1a 64 of "a" is af63dc4c8601ec8c; `field` adds 0xff after it.
        let mut h = Fnv::new();
        for &b in b"a" {
            h.0 ^= u64::from(b);
            h.0 = h.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
        assert_eq!(h.0, 0xaf63_dc4c_8601_ec8c);
    }
}
