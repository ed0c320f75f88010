//! The baseline family: what changed in a server's surface (its tools,
//! resources, resource templates and prompts) from a stored baseline
//! (`probe --baseline`): an item removed, added or changed, a tool's
//! schema changed, the tool list's cost grown past a threshold; and the
//! tool list's cost over an absolute budget (`--max-tool-list-tokens`).
//! The surface and its file are in `surface.rs`; a capture is read into one
//! by `views/baseline.rs`; what a definition costs is `crate::cost`'s.

use serde_json::{Map, Value};

use crate::cost::Tokenizer;
use crate::rules::Rule;
use crate::rules::finding::{Finding, Findings};
use crate::wire::dir::Dir;

pub mod surface;

pub use surface::{Kind, ListCost, Surface};

/// `--cost-growth`'s default: the percent the tool list's cost may grow
/// over the baseline's before `tool-list-cost-grew`.
pub const COST_GROWTH: f64 = 10.0;

/// The most tools a `tool-list-cost-grew` finding names.
const MAX_GROWN: usize = 3;

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
/// `name` is the baseline file as the user named it; `growth` the percent
/// the tool list's cost may grow (`--cost-growth`). Lists that are not
/// complete in `now` are not compared: their notes are returned instead,
/// and so is one for a baseline that records no cost.
pub fn compare(
    baseline: &Surface,
    now: &Surface,
    name: &str,
    growth: f64,
) -> (Vec<Finding>, Vec<String>) {
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
    if now.list(Kind::Tool).incomplete.is_none() {
        match (&baseline.cost, &now.cost) {
            (None, Some(_)) => notes.push(format!(
                "the baseline {name} records no tool-list cost (an earlier mcpdbg wrote it): the cost was not compared; --update-baseline records it"
            )),
            (Some(old), Some(new)) => {
                if let Some(f) = cost_grew(old, new, name, growth) {
                    findings.push(f);
                }
            }
            _ => {}
        }
    }
    (findings.finish(), notes)
}

/// `tool-list-cost-grew`: the tool list's definitions cost more than
/// `growth` percent over the baseline's (a baseline of no tools has no
/// percent: its new tools are `baseline-tool-added`). Reported at line 1;
/// the caller places it on the baseline file's cost.
fn cost_grew(old: &ListCost, new: &ListCost, name: &str, growth: f64) -> Option<Finding> {
    if old.bytes == 0 || new.bytes <= old.bytes {
        return None;
    }
    let percent = (new.bytes - old.bytes) as f64 * 100.0 / old.bytes as f64;
    if percent <= growth {
        return None;
    }
    let mut grown: Vec<(&str, u64, bool)> = new
        .tools
        .iter()
        .filter_map(|(tool, &bytes)| match old.tools.get(tool) {
            Some(&before) if bytes > before => Some((tool.as_str(), bytes - before, false)),
            None => Some((tool.as_str(), bytes, true)),
            Some(_) => None,
        })
        .collect();
    grown.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    let mut named: Vec<String> = grown
        .iter()
        .take(MAX_GROWN)
        .map(|(tool, bytes, fresh)| {
            if *fresh {
                format!("`{tool}` (new, {bytes} bytes)")
            } else {
                format!("`{tool}` (+{bytes} bytes)")
            }
        })
        .collect();
    if grown.len() > MAX_GROWN {
        named.push(format!("{} more", grown.len() - MAX_GROWN));
    }
    let mut message = format!(
        "the tool list's definitions cost {} bytes (about {} tokens), {percent:.1}% more than the {} bytes of the baseline ({name}), over --cost-growth {}%",
        new.bytes,
        crate::cost::estimate(new.bytes),
        old.bytes,
        number(growth)
    );
    if !named.is_empty() {
        message.push_str(&format!("; grown: {}", named.join(", ")));
    }
    Some(Finding::new(Rule::ToolListCostGrew, 1, message).dir(Dir::ServerToClient))
}

/// A percent as given: `10`, `2.5`.
fn number(n: f64) -> String {
    let text = format!("{n:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// `tool-list-over-budget`: the `listed` tools' definitions cost `tokens`
/// (counted with `tokenizer`), more than `max` (`--max-tool-list-tokens`);
/// reported on the list's answer, `line`.
pub fn over_budget(
    tokens: u64,
    max: u64,
    listed: u64,
    tokenizer: Tokenizer,
    line: u64,
) -> Option<Finding> {
    (tokens > max).then(|| {
        let counted = match tokenizer {
            Tokenizer::Estimate => format!(
                "estimated at {} bytes per token",
                crate::cost::BYTES_PER_TOKEN
            ),
            exact => format!("counted with {}", exact.as_str()),
        };
        let tools = if listed == 1 { "tool" } else { "tools" };
        Finding::new(
            Rule::ToolListOverBudget,
            line,
            format!(
                "the definitions of the {listed} {tools} listed cost {tokens} tokens ({counted}), over the budget of {max} (--max-tool-list-tokens)"
            ),
        )
        .dir(Dir::ServerToClient)
        .method(Some("tools/list"))
    })
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
        let (findings, notes) = compare(&old, &new, "base.json", COST_GROWTH);
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
        let (same, _) = compare(&old, &old, "base.json", COST_GROWTH);
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
            let (findings, _) = compare(&old, &new, "b.json", COST_GROWTH);
            assert_eq!(findings.len(), 3, "{kind:?}: {findings:?}");
            fired.extend(findings.iter().map(|f| f.rule));
        }
        fired.insert(Rule::BaselineSchemaChanged);
        let (old, new) = (cost(&[("a", 100)]), cost(&[("a", 200)]));
        fired.extend(cost_grew(&old, &new, "b.json", COST_GROWTH).map(|f| f.rule));
        fired.extend(over_budget(2, 1, 1, Tokenizer::Estimate, 3).map(|f| f.rule));
        let all: std::collections::BTreeSet<Rule> = Rule::ALL
            .iter()
            .copied()
            .filter(|r| r.info().group == Group::Baseline)
            .collect();
        assert_eq!(fired, all);
    }

    fn cost(tools: &[(&str, u64)]) -> ListCost {
        ListCost {
            bytes: tools.iter().map(|t| t.1).sum(),
            tools: tools.iter().map(|(n, b)| (n.to_string(), *b)).collect(),
        }
    }

    #[test]
    fn the_cost_grows_past_the_threshold_or_not() {
        let old = cost(&[("add", 400), ("search", 600)]);
        // 10% more exactly: not over the threshold.
        let same = cost(&[("add", 400), ("search", 700)]);
        assert_eq!(cost_grew(&old, &same, "b.json", 10.0), None);
        let grown = cost(&[("add", 390), ("search", 680), ("export", 31)]);
        let f = cost_grew(&old, &grown, "b.json", 10.0).expect("grew");
        assert_eq!(f.rule, Rule::ToolListCostGrew);
        assert_eq!(
            f.message,
            "the tool list's definitions cost 1101 bytes (about 276 tokens), 10.1% more than the 1000 bytes of the baseline (b.json), over --cost-growth 10%; grown: `search` (+80 bytes), `export` (new, 31 bytes)"
        );
        assert!(cost_grew(&old, &grown, "b.json", 12.5).is_none());
        assert!(cost_grew(&old, &grown, "b.json", 0.0).is_some());
        // No percent of nothing: new tools are baseline-tool-added.
        assert!(cost_grew(&cost(&[]), &grown, "b.json", 10.0).is_none());
        // Through compare: a cost recorded and grown; a cost not recorded
        // is a note, not a finding.
        let mut before = Surface {
            cost: Some(old),
            ..Surface::default()
        };
        let now = Surface {
            cost: Some(grown),
            ..Surface::default()
        };
        let (found, notes) = compare(&before, &now, "b.json", 10.0);
        assert_eq!(found.len(), 1);
        assert!(notes.is_empty());
        before.cost = None;
        let (found, notes) = compare(&before, &now, "b.json", 10.0);
        assert!(found.is_empty());
        assert_eq!(
            notes,
            [
                "the baseline b.json records no tool-list cost (an earlier mcpdbg wrote it): the cost was not compared; --update-baseline records it"
            ]
        );
    }

    #[test]
    fn the_budget_is_a_finding_only_when_passed() {
        assert_eq!(over_budget(100, 100, 2, Tokenizer::Estimate, 7), None);
        let f = over_budget(101, 100, 2, Tokenizer::Estimate, 7).expect("over");
        assert_eq!((f.rule, f.line), (Rule::ToolListOverBudget, 7));
        assert_eq!(
            f.message,
            "the definitions of the 2 tools listed cost 101 tokens (estimated at 4 bytes per token), over the budget of 100 (--max-tool-list-tokens)"
        );
    }

    #[test]
    fn an_incomplete_list_is_not_compared() {
        let old = surface(json!([{"name": "a"}]));
        let mut new = Surface::default();
        new.lists[0].incomplete = Some("tools/list id 2 was not answered".into());
        let (findings, notes) = compare(&old, &new, "b.json", COST_GROWTH);
        assert!(findings.is_empty());
        assert_eq!(notes.len(), 1);
    }
}
