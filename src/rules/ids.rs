//! The ids family: what breaks the pairing of requests and responses.
//! `id-reuse` (an id still open, or one already used where the revision
//! wants ids unique for the session), `duplicate-response`,
//! `id-type-mismatch` (an answer whose id matches only once its type is
//! changed), `orphan-response`, and `open-request-limit`, the note that
//! mcpdbg stopped following a side's new requests. The session keeps the
//! request table and the used ids (`facts::pairing`, `facts`) and
//! decides which case a message is; these are the findings' words.

use crate::facts::pairing::MAX_OPEN;
use crate::facts::{Open, Used};
use crate::protocol::Revision;
use crate::rules::Rule;
use crate::rules::ctx::Ctx;
use crate::wire::dir::Side;
use crate::wire::message::RequestId;

/// `side` sent request `id` (`method`) while its `prev` by that id is open.
pub(crate) fn reused_while_open(
    side: Side,
    id: &RequestId,
    method: &str,
    prev: &Open,
    ctx: &mut Ctx<'_>,
) {
    ctx.findings.push(
        ctx.finding(
            Rule::IdReuse,
            format!(
                "{} reused id {id} for `{method}` while its `{}` from line {} is still unanswered; a response cannot tell them apart",
                side.as_str(),
                prev.method,
                prev.line
            ),
        )
        .related(prev.line),
    );
}

/// `side` sent request `id` (`method`) again after it was used at `first`,
/// in a session whose `revision` wants ids unique.
pub(crate) fn reused_after_answer(
    side: Side,
    id: &RequestId,
    method: &str,
    first: u64,
    revision: Option<Revision>,
    ctx: &mut Ctx<'_>,
) {
    let rev = revision.map_or("the legacy revisions".to_string(), |r| r.to_string());
    ctx.findings.push(
        ctx.finding(
            Rule::IdReuse,
            format!(
                "{} reused id {id} (first used at line {first}) for `{method}`; ids must be unique for the session under {rev}",
                side.as_str(),
            ),
        )
        .related(first),
    );
}

/// `side` has [`MAX_OPEN`] requests open: its new ones are not followed.
pub(crate) fn open_limit(side: Side, ctx: &mut Ctx<'_>) {
    ctx.fire(
        Rule::OpenRequestLimit,
        format!(
            "{} has {MAX_OPEN} requests open at once; from here on its new requests are not followed (their answers are accepted unchecked, their hangs not reported)",
            side.as_str()
        ),
    );
}

/// `side` answered request `id` of the other side again (`used`: where it
/// was sent and first answered).
pub(crate) fn duplicate_response(side: Side, id: &RequestId, used: Used, ctx: &mut Ctx<'_>) {
    ctx.findings.push(
        ctx.finding(
            Rule::DuplicateResponse,
            format!(
                "{} answered {} request {id} (line {}) a second time; it was already answered at line {}",
                side.as_str(),
                side.other().as_str(),
                used.line,
                used.answered.unwrap_or_default()
            ),
        )
        .related(used.line),
    );
}

/// The answer's `id` equals `request_id` of `open` (sent by `requester`)
/// only once its type is changed (1 and "1").
pub(crate) fn loose_echo(
    requester: Side,
    id: &RequestId,
    request_id: &RequestId,
    open: &Open,
    ctx: &mut Ctx<'_>,
) {
    ctx.findings.push(
        ctx.finding(
            Rule::IdTypeMismatch,
            format!(
                "response id {id} does not equal request id {request_id} of `{}` (line {}); the {} cannot match it, so that request hangs",
                open.method,
                open.line,
                requester.as_str()
            ),
        )
        .related(open.line),
    );
}

/// `side`'s response `id` matches no request of the other side.
pub(crate) fn orphan(side: Side, id: &RequestId, ctx: &mut Ctx<'_>) {
    ctx.fire_with(Rule::OrphanResponse, || {
        format!(
            "{} response id {id} matches no request the {} sent",
            side.as_str(),
            side.other().as_str()
        )
    });
}
