//! The baseline family: what changed in a server's surface (its tools,
//! resources, resource templates and prompts) from a stored baseline
//! (`probe --baseline`): an item removed, added or changed, a tool's
//! schema changed. The surface and its file are in `surface.rs`; a capture
//! is read into one by `views/baseline.rs`.

use serde_json::{Map, Value};

use crate::rules::Rule;
use crate::rules::finding::{Finding, Findings};
use crate::wire::dir::Dir;

pub mod surface;

pub use surface::{Kind, Surface};

/// The most JSON paths a finding names.
const MAX_PATHS: usize = 5;

fn removed(kind: Kind) -> Rule {
    match kind {
        Kind::Tool => Rule::BaselineToolRemoved,
        Kind::Resource | Kind::Template => Rule::BaselineResourceRemoved,
        Kind::Prompt => Rule::BaselinePromptRemoved,
    }
}

fn added(kind: Kind) -> Rule {
    match kind {
        Kind::Tool => Rule::BaselineToolAdded,
        Kind::Resource | Kind::Template => Rule::BaselineResourceAdded,
        Kind::Prompt => Rule::BaselinePromptAdded,
    }
}

fn changed(kind: Kind) -> Rule {
    match kind {
        Kind::Tool => Rule::BaselineToolChanged,
        Kind::Resource | Kind::Template => Rule::BaselineResourceChanged,
        Kind::Prompt => Rule::BaselinePromptChanged,
    }
}

/// What changed from `baseline` to `now`, as findings (sorted by line).
/// `name` is the baseline file as the user named it. Lists that are not
/// complete in `now` are not compared: their notes are returned instead.
pub fn compare(baseline: &Surface, now: &Surface, name: &str) -> (Vec<Finding>, Vec<String>) {
    let mut findings = Findings::default();
    let mut notes = Vec::new();
    for kind in Kind::ALL {
        let (old, new) = (baseline.list(kind), now.list(kind));
        if let Some(why) = &new.incomplete {
            notes.push(format!(
                "the {}s were not compared with the baseline: {why}",
                kind.word()
            ));
            continue;
        }
        let list_line = new.line.unwrap_or(now.handshake_line);
        let word = kind.word();
        for (id, (before, _)) in &old.items {
            match new.items.get(id) {
                None => {
                    let message = if new.line.is_none() {
                        format!(
                            "{word} `{id}` is in the baseline ({name}) but the server declared no {} capability",
                            if kind == Kind::Template {
                                "resources"
                            } else {
                                kind.key()
                            }
                        )
                    } else {
                        format!(
                            "{word} `{id}` is in the baseline ({name}) but not in the server's {}",
                            kind.method()
                        )
                    };
                    findings.push(event(removed(kind), list_line, kind, message));
                }
                Some((after, line)) => changes(kind, id, before, after, *line, &mut findings),
            }
        }
        for (id, (_, line)) in &new.items {
            if !old.items.contains_key(id) {
                let message = format!("{word} `{id}` is not in the baseline ({name})");
                findings.push(event(added(kind), *line, kind, message));
            }
        }
    }
    (findings.finish(), notes)
}

fn event(rule: Rule, line: u64, kind: Kind, message: String) -> Finding {
    Finding::new(rule, line, message)
        .dir(Dir::ServerToClient)
        .method(Some(kind.method()))
}

/// The findings for one item in both: a tool's schemas apart, then the
/// other members together.
fn changes(
    kind: Kind,
    id: &str,
    before: &Map<String, Value>,
    after: &Map<String, Value>,
    line: u64,
    findings: &mut Findings,
) {
    let word = kind.word();
    let mut other = Vec::new();
    for field in kind.fields() {
        let (b, a) = (before.get(*field), after.get(*field));
        if b == a {
            continue;
        }
        let mut paths = Vec::new();
        let mut more = 0;
        diff(b, a, String::new(), &mut paths, &mut more);
        let shown = shown(&paths, more);
        if kind == Kind::Tool && matches!(*field, "inputSchema" | "outputSchema") {
            let which = if *field == "inputSchema" {
                "input"
            } else {
                "output"
            };
            let message = match (b, a) {
                (None, _) => format!("tool `{id}` has an {which} schema the baseline does not"),
                (_, None) => {
                    format!("tool `{id}` no longer has the {which} schema of the baseline")
                }
                _ => format!(
                    "the {which} schema of tool `{id}` differs from the baseline at {shown}"
                ),
            };
            findings.push(event(Rule::BaselineSchemaChanged, line, kind, message));
        } else if matches!(b.zip(a), Some((Value::Object(_) | Value::Array(_), _))) {
            other.push(format!("{field} (at {shown})"));
        } else {
            other.push(field.to_string());
        }
    }
    if !other.is_empty() {
        let message = format!(
            "{word} `{id}` differs from the baseline in its {}",
            other.join(", ")
        );
        findings.push(event(changed(kind), line, kind, message));
    }
}

fn shown(paths: &[String], more: usize) -> String {
    let mut text = paths.join(", ");
    if more > 0 {
        text.push_str(&format!(" and {more} more"));
    }
    text
}

/// The JSON pointers where `a` differs from `b`, at most [`MAX_PATHS`]
/// (`more` counts the rest). Objects are followed member by member; other
/// values (arrays included) differ as a whole.
fn diff(
    b: Option<&Value>,
    a: Option<&Value>,
    at: String,
    paths: &mut Vec<String>,
    more: &mut usize,
) {
    let mut note = |text: String| {
        if paths.len() < MAX_PATHS {
            paths.push(text);
        } else {
            *more += 1;
        }
    };
    let place = if at.is_empty() {
        "/".to_string()
    } else {
        at.clone()
    };
    match (b, a) {
        (Some(Value::Object(b)), Some(Value::Object(a))) => {
            let mut keys: Vec<&String> = b.keys().chain(a.keys()).collect();
            keys.sort();
            keys.dedup();
            for key in keys {
                let (bv, av) = (b.get(key), a.get(key));
                if bv != av {
                    let escaped = key.replace('~', "~0").replace('/', "~1");
                    diff(bv, av, format!("{at}/{escaped}"), paths, more);
                }
            }
        }
        (None, Some(_)) => note(format!("{place} (added)")),
        (Some(_), None) => note(format!("{place} (removed)")),
        (b, a) if b != a => note(place),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::surface::{Kind, keep, tests::surface};
    use super::*;
    use serde_json::json;

    #[test]
    fn added_removed_and_changed_are_told_apart() {
        let old = surface(json!([
            {"name": "keep", "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"}}}},
            {"name": "gone"},
            {"name": "said", "description": "old words"}
        ]));
        let new = surface(json!([
            {"name": "keep", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}, "b": {}}, "required": ["b"]}},
            {"name": "said", "description": "new words"},
            {"name": "fresh"}
        ]));
        let (findings, notes) = compare(&old, &new, "base.json");
        assert!(notes.is_empty());
        let got: Vec<(Rule, &str)> = findings
            .iter()
            .map(|f| (f.rule, f.message.as_str()))
            .collect();
        assert!(
            got.contains(&(
                Rule::BaselineToolRemoved,
                "tool `gone` is in the baseline (base.json) but not in the server's tools/list"
            )),
            "{got:?}"
        );
        assert!(
            got.contains(&(
                Rule::BaselineToolAdded,
                "tool `fresh` is not in the baseline (base.json)"
            )),
            "{got:?}"
        );
        assert!(got.contains(&(Rule::BaselineSchemaChanged, "the input schema of tool `keep` differs from the baseline at /properties/a/type, /properties/b (added), /required (added)")), "{got:?}");
        assert!(
            got.contains(&(
                Rule::BaselineToolChanged,
                "tool `said` differs from the baseline in its description"
            )),
            "{got:?}"
        );
        assert_eq!(findings.len(), 4);
        let (same, _) = compare(&old, &old, "base.json");
        assert!(same.is_empty());
    }

    #[test]
    fn every_baseline_rule_fires_on_its_list() {
        use crate::rules::Group;
        let mut fired = std::collections::BTreeSet::new();
        for kind in Kind::ALL {
            let field = kind.fields()[kind.fields().len() - 1];
            let item = |id: &str, v: Value| {
                let mut m = Map::new();
                m.insert(kind.id().into(), id.into());
                m.insert(field.into(), v);
                Value::Object(m)
            };
            let build = |items: Vec<Value>| {
                let mut s = Surface::default();
                for i in items {
                    let (id, kept) = keep(kind, &i).expect("item");
                    s.lists[kind.index()].items.insert(id, (kept, 3));
                }
                s.lists[kind.index()].line = Some(3);
                s
            };
            let old = build(vec![item("same", json!(1)), item("gone", json!(1))]);
            let new = build(vec![item("same", json!(2)), item("new", json!(1))]);
            let (findings, _) = compare(&old, &new, "b.json");
            assert_eq!(findings.len(), 3, "{kind:?}: {findings:?}");
            fired.extend(findings.iter().map(|f| f.rule));
        }
        fired.insert(Rule::BaselineSchemaChanged);
        let all: std::collections::BTreeSet<Rule> = Rule::ALL
            .iter()
            .copied()
            .filter(|r| r.info().group == Group::Baseline)
            .collect();
        assert_eq!(fired, all);
    }

    #[test]
    fn an_incomplete_list_is_not_compared() {
        let old = surface(json!([{"name": "a"}]));
        let mut new = Surface::default();
        new.lists[0].incomplete = Some("tools/list id 2 was not answered".into());
        let (findings, notes) = compare(&old, &new, "b.json");
        assert!(findings.is_empty());
        assert_eq!(notes.len(), 1);
    }
}
