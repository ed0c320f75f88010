//! The tool-call family: a `tools/call` failure answered on the other
//! channel than the spec assigns (an unknown tool is a -32602 protocol error
//! in every revision; invalid arguments are a protocol error up to
//! 2025-06-18 and an `isError: true` result from 2025-11-25), and, under
//! `--schema-check`, calls and results against the schemas the server
//! listed (`arguments-violate-input-schema`, `unlisted-tool-called`,
//! `structured-content-mismatch`, `unportable-tool-schema`).
//!
//! Its state: the names of the server's last complete `tools/list`
//! (bounded by [`MAX_NAMES`]) and the listed tools' compiled schemas. The
//! evidence for a channel is what the log shows: that listing, the answer's
//! own words ("Unknown tool: x", "Tool x not found", "Invalid arguments"),
//! and the `--schema-check` verdict on the call's arguments. Where none of
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
    /// The listed tools and their compiled schemas (`--schema-check`).
    tools: Box<schemas::Tools>,
    /// The names of the server's last complete `tools/list`.
    listing: Listing,
}

impl State {
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
    pub(crate) fn call(&self, facts: &Facts, msg: &Message, ctx: &mut Ctx<'_>) -> bool {
        if !facts.schema_check {
            return false;
        }
        let tools = &self.tools;
        let Some(params) = msg.params() else {
            return false;
        };
        let Some(name) = params.field("name").and_then(Value::as_str) else {
            return false;
        };
        // A host's log of its own calls shows no notifications: a list
        // change would not be seen, so unlisted calls are not judged there.
        let listed = if facts.no_handshake {
            schemas::Listed::Yes
        } else {
            tools.called(name)
        };
        let unlisted = match listed {
            schemas::Listed::Yes => None,
            schemas::Listed::Never { listing } => Some((
                format!(
                    "`{}` is not in the server's complete tool listing before this call (its last page at line {listing}); the server can only answer it with an unknown-tool error",
                    excerpt(name)
                ),
                listing,
            )),
            schemas::Listed::Removed { listed, listing } => Some((
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
        // Read whole: a call's `arguments` are not built for the checks.
        let whole = msg.whole_params();
        let arguments = whole.as_deref().and_then(|p| p.field("arguments"));
        let Some(v) = tools.arguments(name, arguments) else {
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
        // Compiling and validating listed schemas reads those messages
        // whole and costs more than the rest of the check: opt-in.
        if !facts.schema_check || msg.result().is_none() {
            return;
        }
        let revision = facts.revision;
        let tools = &mut self.tools;
        // The schemas and structured content whole: the parser may have
        // left them out (read again only for a tool that declares an
        // outputSchema).
        let needs_whole = msg.is_cut()
            && match &*open.method {
                "tools/list" => true,
                "tools/call" => open
                    .subject
                    .as_deref()
                    .is_some_and(|name| tools.declares_output(name)),
                _ => false,
            };
        let whole;
        let result = if needs_whole {
            whole = msg.whole_result();
            whole.as_deref()
        } else {
            msg.result()
        };
        let Some(result) = result else {
            return;
        };
        match &*open.method {
            "tools/list" => {
                let dialect = revision.is_some_and(|r| r >= Revision::V2025_11_25);
                let lints = tools.listed(at.line, result, dialect);
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
                let (text, line) = match tools.output(name, result) {
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
