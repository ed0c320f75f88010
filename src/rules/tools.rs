//! The tool-call family: a `tools/call` failure answered on the other
//! channel than the spec assigns (an unknown tool is a -32602 protocol error
//! in every revision; invalid arguments are a protocol error up to
//! 2025-06-18 and an `isError: true` result from 2025-11-25), and (unless
//! `--no-tool-schemas`) calls and results against the schemas the server
//! listed (`arguments-violate-input-schema`, `unlisted-tool-called`,
//! `structured-content-mismatch`, `unportable-tool-schema`).
//!
//! Its state: the names of the server's last complete `tools/list`
//! (bounded by [`MAX_NAMES`]) and the listed tools' compiled schemas. The
//! evidence for a channel is what the log shows: that listing, the answer's
//! own words ("Unknown tool: x", "Tool x not found", "Invalid arguments"),
//! and the tool-schema verdict on the call's arguments. Where none of
//! them says which case a failure is, the rules stay silent.

use serde_json::Value;

use crate::facts::hash::HashSet;
use crate::facts::schemas;
use crate::facts::{Facts, Open};
use crate::protocol::Revision;
use crate::rules::Rule;
use crate::rules::ctx::Ctx;
use crate::text::excerpt;
use crate::wire::message::{Field, Message};

/// What the family remembers: the tools the server listed.
#[derive(Default)]
pub(crate) struct State {
    /// The listed tools and their compiled schemas.
    tools: Box<schemas::Tools>,
    /// The names of the server's last complete `tools/list`.
    listing: Listing,
    /// What the file's sessions share: compiled schemas, the work budget.
    work: schemas::Shared,
    /// Bytes read since the budget was last told (see [`State::saw`]).
    read: u64,
}

impl State {
    /// The family of a session of the file whose checks share `work`.
    pub(crate) fn new(work: schemas::Shared) -> State {
        State {
            work,
            ..State::default()
        }
    }

    /// A message was read: the budget grows with the bytes read (a line
    /// not kept counts as a short one).
    pub(crate) fn saw(&mut self, msg: &Message) {
        self.read += msg.line_len().map_or(schemas::SHORT_LINE, |n| n as u64);
    }

    /// `notifications/tools/list_changed`: the listing is stale.
    pub(crate) fn list_changed(&mut self) {
        self.tools.changed();
        self.listing.changed();
    }

    /// A client request answered: a `tools/list` kept, a `tools/call`'s
    /// result against its tool's `outputSchema` and its failure channel.
    pub(crate) fn answered(&mut self, facts: &Facts, open: &Open, ctx: &mut Ctx<'_>) {
        self.results(facts, open, ctx);
        self.error_channel(facts, open, ctx);
    }

    /// A `tools/call`'s arguments against the tool's listed `inputSchema`.
    /// True when they break it.
    pub(crate) fn call(&mut self, facts: &Facts, msg: &Message, ctx: &mut Ctx<'_>) -> bool {
        if !facts.tool_schemas {
            return false;
        }
        let Some(params) = msg.params() else {
            return false;
        };
        let Some(name) = params.field("name").and_then(Value::as_str) else {
            return false;
        };
        // A host's log of its own calls shows no notifications: a list
        // change would not be seen, so unlisted calls are not judged there.
        let listed = if facts.no_handshake {
            schemas::Called::Yes
        } else {
            self.tools.called(name)
        };
        let unlisted = match listed {
            schemas::Called::Yes => None,
            schemas::Called::Never { listing } => Some((
                format!(
                    "`{}` is not in the server's complete tool listing before this call (its last page at line {listing}); the server can only answer it with an unknown-tool error",
                    excerpt(name)
                ),
                listing,
            )),
            schemas::Called::Removed { listed, listing } => Some((
                format!(
                    "`{}` was listed at line {listed}, but the later listing at line {listing} no longer has it: the client calls a tool the server removed",
                    excerpt(name)
                ),
                listing,
            )),
        };
        if let Some((text, listing)) = unlisted {
            ctx.push(ctx.finding(Rule::UnlistedToolCalled, text).related(listing));
        }
        if !self.tools.declares_input(name) {
            return false;
        }
        // Read whole: a call's `arguments` are not built for the checks.
        let cost =
            schemas::PER_MESSAGE + msg.line_len().unwrap_or(0) as u64 * schemas::VALIDATE_WEIGHT;
        let mut work = self.work.lock();
        work.unlimited = facts.schema_check;
        work.read(std::mem::take(&mut self.read));
        let found = self
            .tools
            .arguments(name, ctx.at().line, cost, &mut work, || {
                // Only `arguments`, from the line when it was kept (else,
                // or when it does not read so, the whole `params`).
                if let Some(args) = msg
                    .line_text()
                    .and_then(|l| schemas::read_member(l, "params", "arguments"))
                {
                    return args;
                }
                msg.whole_params()?.into_owned().remove("arguments")
            });
        drop(work);
        let Some(v) = found else {
            return false;
        };
        let answer = match facts.revision {
            Some(r) if r <= Revision::V2025_06_18 => {
                format!("; under {r} the server answers with a -32602 protocol error")
            }
            Some(r) => format!("; under {r} the server answers with an `isError: true` result"),
            None => String::new(),
        };
        ctx.findings.push(
            ctx.finding(
                Rule::ArgumentsViolateInputSchema,
                format!(
                    "`{}`'s arguments break the inputSchema listed at line {}: {}{}{answer}",
                    excerpt(name),
                    v.listed_at,
                    v.errors.join("; "),
                    if v.more { "; and more" } else { "" }
                ),
            )
            .related(v.listed_at),
        );
        true
    }

    /// A `tools/call` failure answered on the other channel than the spec
    /// assigns (`unknown-tool-as-tool-error`, `invalid-arguments-wrong-channel`);
    /// a `tools/list` result's names kept for it.
    fn error_channel(&mut self, facts: &Facts, open: &Open, ctx: &mut Ctx<'_>) {
        let (at, msg) = (ctx.at(), ctx.msg());
        if &*open.method == "tools/list" {
            if let Some(result) = msg.result() {
                self.listing.page(at.line, result);
            }
            return;
        }
        if &*open.method != "tools/call" {
            return;
        }
        // A name cut to an excerpt is not compared with the listing.
        let name = open.subject.as_deref().unwrap_or("");
        let whole_name = !name.is_empty() && !name.ends_with('…');
        let unlisted = if whole_name {
            self.listing.lacks(name)
        } else {
            None
        };
        let revision = facts.revision;
        let report_on = |rule: Rule, text: String| {
            ctx.finding(rule, text)
                .method(Some("tools/call"))
                .related(open.line)
        };
        if let Some(result) = msg.result() {
            if result
                .field("resultType")
                .is_some_and(|t| t.as_str() != Some("complete"))
            {
                return;
            }
            if result.field("isError") != Some(&Value::Bool(true)) {
                if !msg.partial {
                    if let Some(text) = error_text(result) {
                        ctx.findings.push(report_on(
                            Rule::ErrorTextAsSuccess,
                            format!(
                                "`tools/call` of `{}` (line {}) is answered as a success (no `isError: true`) whose only text reads as an error: {:?}; the host and the model take it as the tool's output",
                                excerpt(name),
                                open.line,
                                excerpt(&text)
                            ),
                        ));
                    }
                }
                return;
            }
            // The texts whole: the parser may have cut long ones.
            let text = msg
                .whole_result()
                .map(|r| result_text(&r))
                .unwrap_or_default();
            let said = says_unknown_tool(&text, name);
            if said || unlisted.is_some() {
                let evidence = match unlisted {
                    Some(line) => format!("the tools listed at line {line} do not include it"),
                    None => format!("its text says {:?}", excerpt(&text)),
                };
                ctx.findings.push(report_on(
                    Rule::UnknownToolAsToolError,
                    format!(
                        "`tools/call` of `{}` (line {}) is answered with `isError: true`, and {evidence}: an unknown tool is a -32602 protocol error in every revision",
                        excerpt(name),
                        open.line
                    ),
                ));
                return;
            }
            if let Some(rev) = revision.filter(|r| *r <= Revision::V2025_06_18) {
                if open.bad_arguments || says_invalid_arguments(&text) {
                    ctx.findings.push(report_on(
                        Rule::InvalidArgumentsWrongChannel,
                        format!(
                            "`tools/call` of `{}` (line {}) had invalid arguments and is answered with `isError: true`; under {rev} invalid arguments are a -32602 protocol error",
                            excerpt(name),
                            open.line
                        ),
                    ));
                }
            }
            return;
        }
        let Some(error) = msg.error() else {
            return;
        };
        let message = error.message.as_deref().unwrap_or("");
        let Some(rev) = revision.filter(|r| *r >= Revision::V2025_11_25) else {
            return;
        };
        if error.code != Some(-32602) || unlisted.is_some() || says_unknown_tool(message, name) {
            return;
        }
        if open.bad_arguments || says_invalid_arguments(message) {
            ctx.findings.push(report_on(
                Rule::InvalidArgumentsWrongChannel,
                format!(
                    "`tools/call` of `{}` (line {}) had invalid arguments and is answered with a -32602 error; from 2025-11-25 (this session: {rev}) input validation failures are an `isError: true` result, which the model sees and can correct",
                    excerpt(name),
                    open.line
                ),
            ));
        }
    }

    /// A `tools/call` result against the tool's listed `outputSchema`, and
    /// a `tools/list` result's schemas kept.
    fn results(&mut self, facts: &Facts, open: &Open, ctx: &mut Ctx<'_>) {
        let (at, msg) = (ctx.at(), ctx.msg());
        let Some(result) = msg.result() else {
            return;
        };
        if !facts.tool_schemas {
            // Off: a listing with schemas is remembered for the note that
            // says they were not checked.
            if &*open.method == "tools/list" && lists_schemas(result) {
                self.work.lock().listed_unchecked.get_or_insert(at.line);
            }
            return;
        }
        let revision = facts.revision;
        let tools = &mut self.tools;
        let mut work = self.work.lock();
        work.unlimited = facts.schema_check;
        work.read(std::mem::take(&mut self.read));
        // What reading the message's line again costs (a short line, not
        // kept, was parsed whole).
        let line_len = msg.line_len().unwrap_or(0) as u64;
        match &*open.method {
            "tools/list" => {
                if !work.afford(schemas::PER_MESSAGE + line_len * schemas::LIST_WEIGHT) {
                    if lists_schemas(result) {
                        work.unread += 1;
                        work.first_skipped.get_or_insert(at.line);
                    }
                    tools.unread(at.line, result);
                    return;
                }
                // The schemas' texts: read from the line when the parser
                // left them out (mended first if the line is damaged).
                let mended;
                let page = match msg.line_text() {
                    Some(line) => match schemas::read_page(line) {
                        Some(page) => page,
                        None => {
                            mended = msg.cut_text();
                            match mended.as_deref().and_then(schemas::read_page) {
                                Some(page) => page,
                                None => {
                                    tools.unread(at.line, result);
                                    return;
                                }
                            }
                        }
                    },
                    None => schemas::page_of(result),
                };
                let dialect = revision.is_some_and(|r| r >= Revision::V2025_11_25);
                let lints = tools.listed(at.line, &page, dialect, &mut work);
                drop(work);
                if lints.tools.is_empty() {
                    return;
                }
                let named: Vec<String> = lints
                    .tools
                    .iter()
                    .map(|(name, found)| format!("`{name}` ({})", found.join("; ")))
                    .collect();
                let more = match lints.more {
                    0 => String::new(),
                    n => format!("; and {n} more tools"),
                };
                ctx.push(ctx.finding(
                    Rule::UnportableToolSchema,
                    format!(
                        "tool schemas with constructs clients handle inconsistently: {}{more}; `mcpdbg explain unportable-tool-schema` says why each matters",
                        named.join("; ")
                    ),
                ).method(Some("tools/list")));
            }
            "tools/call" => {
                // Structured output is from 2025-06-18; an error result, a
                // task or a 2026 input-required answer is not the tool's output.
                let structured_era = revision.is_none_or(|r| r >= Revision::V2025_06_18);
                let is_error = result.field("isError").and_then(Value::as_bool) == Some(true);
                let output = result.field("content").is_some()
                    || result.field("structuredContent").is_some();
                let Some(name) = open.subject.as_deref() else {
                    return;
                };
                if !structured_era || is_error || !output {
                    return;
                }
                let structured = result.field("structuredContent").is_some();
                let cost = schemas::PER_MESSAGE + line_len * schemas::VALIDATE_WEIGHT;
                // The structured content whole: the parser may have left
                // it out.
                let verdict = tools.output(name, at.line, structured, cost, &mut work, || {
                    if let Some(found) = msg
                        .line_text()
                        .and_then(|l| schemas::read_member(l, "result", "structuredContent"))
                    {
                        return found;
                    }
                    match msg.whole_result()? {
                        std::borrow::Cow::Owned(mut r) => {
                            r.get_mut("structuredContent").map(Value::take)
                        }
                        std::borrow::Cow::Borrowed(r) => r.get("structuredContent").cloned(),
                    }
                });
                drop(work);
                let (text, line) = match verdict {
                    schemas::Output::Conforms => return,
                    schemas::Output::Missing { listed_at } => (
                        format!(
                            "`{name}` (called at line {}) declared an outputSchema at line {listed_at}, but its result has no structuredContent",
                            open.line
                        ),
                        listed_at,
                    ),
                    schemas::Output::Violates(v) => (
                        format!(
                            "`{name}`'s structuredContent (called at line {}) breaks the outputSchema listed at line {}: {}{}",
                            open.line,
                            v.listed_at,
                            v.errors.join("; "),
                            if v.more { "; and more" } else { "" }
                        ),
                        v.listed_at,
                    ),
                };
                ctx.findings.push(
                    ctx.finding(Rule::StructuredContentMismatch, text)
                        .method(Some("tools/call"))
                        .subject(Some(name))
                        .related(line),
                );
            }
            _ => {}
        }
    }
}

/// The file's `tool-schemas-unchecked` note, once the sessions of the file
/// `config` checked are done: what was past the work budget, or that the
/// checks were off while the log listed tool schemas. Returns what was left
/// undone (the JSON's `tool_schemas`).
pub(crate) fn file_note(
    tool_schemas: bool,
    work: &schemas::Shared,
    findings: &mut crate::rules::finding::Findings,
) -> Option<schemas::Undone> {
    let work = work.lock();
    if !tool_schemas {
        if let Some(line) = work.listed_unchecked {
            findings.push(crate::rules::finding::Finding::new(
                Rule::ToolSchemasUnchecked,
                line,
                format!("the log lists tool schemas (first at line {line}) and `--no-tool-schemas` turned their checks off: no tool call or result was checked against them; check without `--no-tool-schemas` to check them"),
            ));
        }
        return None;
    }
    let undone = work.undone()?;
    let listings = match undone.unread {
        0 => String::new(),
        1 => ", and 1 listing was not read".to_string(),
        n => format!(", and {n} listings were not read"),
    };
    findings.push(crate::rules::finding::Finding::new(
        Rule::ToolSchemasUnchecked,
        undone.first_line,
        format!(
            "the tool-schema checks reached their work budget ({} MiB plus {}% of the bytes read): {} tool calls and results were checked against the listed schemas, {} were not (the first left unchecked at line {}){listings}; `check --schema-check` checks every one",
            schemas::BUDGET_BASE >> 20,
            schemas::BUDGET_PERCENT,
            undone.checked,
            undone.skipped,
            undone.first_line,
        ),
    ));
    Some(undone)
}

/// A `tools/list` result (as parsed) lists a tool with a schema.
fn lists_schemas(result: &Value) -> bool {
    result
        .field("tools")
        .and_then(Value::as_array)
        .is_some_and(|tools| {
            tools
                .iter()
                .any(|t| t.field("inputSchema").is_some() || t.field("outputSchema").is_some())
        })
}

/// Tool names kept from one listing; a longer listing is not used.
pub const MAX_NAMES: usize = 4096;

/// The names of the server's last listing, across its pages.
#[derive(Debug, Default)]
pub struct Listing {
    names: HashSet<Box<str>>,
    /// The line of the listing's first page.
    line: u64,
    /// The last page had a `nextCursor`: the next page adds to this one.
    pending: bool,
    /// Every page arrived, within [`MAX_NAMES`], and no
    /// `notifications/tools/list_changed` came since.
    complete: bool,
}

impl Listing {
    /// A `tools/list` result page.
    pub fn page(&mut self, line: u64, result: &Value) {
        if !self.pending {
            self.names.clear();
            self.line = line;
        }
        let Some(tools) = result.field("tools").and_then(Value::as_array) else {
            self.pending = false;
            self.complete = false;
            return;
        };
        let fits = self.names.len() + tools.len() <= MAX_NAMES;
        if fits {
            for name in tools.iter().filter_map(|t| t.field("name")?.as_str()) {
                self.names.insert(name.into());
            }
        } else {
            self.names.clear();
        }
        let next = result.field("nextCursor").is_some_and(|c| !c.is_null());
        self.pending = next && fits;
        self.complete = !next && fits;
    }

    /// `notifications/tools/list_changed`: the listing is out of date.
    pub fn changed(&mut self) {
        self.pending = false;
        self.complete = false;
    }

    /// The line of a complete listing that does not have `name`.
    pub fn lacks(&self, name: &str) -> Option<u64> {
        (self.complete && !self.names.contains(name)).then_some(self.line)
    }
}

/// The answer's text says the tool does not exist: "Unknown tool: x", "no
/// such tool", "tool not found", "Tool x not found" (the name quoted or not).
pub fn says_unknown_tool(text: &str, name: &str) -> bool {
    let text = text.to_ascii_lowercase();
    if ["unknown tool", "no such tool", "tool not found"]
        .iter()
        .any(|p| text.contains(p))
    {
        return true;
    }
    let name = name.to_ascii_lowercase();
    if name.is_empty() {
        return false;
    }
    ["", "'", "\"", "`"].iter().any(|q| {
        ["not found", "does not exist", "is not registered"]
            .iter()
            .any(|end| text.contains(&format!("tool {q}{name}{q} {end}")))
    })
}

/// The answer's text says the arguments were rejected: the SDKs' "Input
/// validation error", "Invalid arguments", "invalid params" for a tool.
pub fn says_invalid_arguments(text: &str) -> bool {
    let text = text.to_ascii_lowercase();
    [
        "input validation error",
        "invalid arguments",
        "invalid argument",
        "failed to deserialize parameters",
        "validation error for",
    ]
    .iter()
    .any(|p| text.contains(p))
}

/// The texts of a result's content blocks, joined.
/// The text of a result whose content is only text blocks and reads as an
/// error message (`Error: ...`, `Exception: ...`, a Python traceback):
/// what `error-text-as-success` quotes. Read from
/// the message as parsed (a long text's head is kept, which is all this
/// looks at), never re-parsed whole.
fn error_text(result: &Value) -> Option<String> {
    // The first block's head decides, before anything else is looked at or
    // copied (most results are not errors).
    let blocks = result.field("content")?.as_array()?;
    let first = blocks.first()?.field("text")?.as_str()?.trim_start();
    let error = [
        "error:",
        "error -",
        "exception:",
        "traceback (most recent call last)",
    ]
    .iter()
    .any(|p| {
        first
            .get(..p.len())
            .is_some_and(|h| h.eq_ignore_ascii_case(p))
    });
    // `structuredContent` does not make it a success: the Python SDK's
    // MCPServer wraps a returned string as `{"result": text}` beside it.
    if !error
        || !blocks
            .iter()
            .all(|b| b.field("type").and_then(Value::as_str) == Some("text"))
    {
        return None;
    }
    Some(result_text(result).trim_start().to_string())
}

pub fn result_text(result: &Value) -> String {
    result
        .field("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|b| b.field("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_tool_wordings() {
        assert!(says_unknown_tool("Unknown tool: nope", "nope"));
        assert!(says_unknown_tool(
            "MCP error -32602: Tool delete_all not found",
            "delete_all"
        ));
        assert!(says_unknown_tool("tool 'x' does not exist", "x"));
        assert!(!says_unknown_tool("file not found: a.txt", "read_file"));
        assert!(!says_unknown_tool(
            "Tool read_file failed: not found",
            "read_file"
        ));
    }

    #[test]
    fn invalid_argument_wordings() {
        assert!(says_invalid_arguments(
            "MCP error -32602: Input validation error: Invalid arguments for tool add"
        ));
        assert!(!says_invalid_arguments("file not found"));
    }

    #[test]
    fn a_listing_across_pages_and_its_changes() {
        let mut l = Listing::default();
        assert_eq!(l.lacks("a"), None, "no listing yet: nothing known");
        l.page(3, &json!({"tools": [{"name": "a"}], "nextCursor": "2"}));
        assert_eq!(l.lacks("z"), None, "an incomplete listing says nothing");
        l.page(5, &json!({"tools": [{"name": "b"}]}));
        assert_eq!(l.lacks("b"), None);
        assert_eq!(l.lacks("a"), None);
        assert_eq!(l.lacks("z"), Some(3));
        l.changed();
        assert_eq!(l.lacks("z"), None);
        l.page(9, &json!({"tools": [{"name": "z"}]}));
        assert_eq!(l.lacks("z"), None);
        assert_eq!(l.lacks("a"), Some(9), "a new listing replaces the old");
    }
}
