"""A host on the official MCP Python SDK client that talks to `mcpdbg mock`, for the mock tests.

usage: client.py MODE STEPS -- COMMAND ARGS...

MODE is the Client's mode (legacy, auto, or a version such as 2026-07-28). STEPS is a JSON list
of steps run in order: {"list": true}, {"ping": true}, {"call": NAME, "arguments": {...},
"timeout": SECONDS, "progress": true}. COMMAND is the server command (mcpdbg mock LOG). The
client answers a form elicitation with accept and {"confirm": true}. It prints one JSON
document on stdout: {"protocol_version": ..., "steps": [...]}, each step's outcome as
{"result": RESULT} (the result as the SDK parsed it, by alias, without None members),
{"error": {"code": CODE, "message": TEXT}} or {"exception": TEXT}, and for a call with
"progress" the progress it saw.
"""

import asyncio
import json
import sys

from mcp import Client, StdioServerParameters, types
from mcp.shared.exceptions import MCPError


def dump(model):
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


async def elicit(context, params):
    return types.ElicitResult(action="accept", content={"confirm": True})


async def step(client, s):
    if s.get("list"):
        return {"result": dump(await client.list_tools())}
    if s.get("ping"):
        return {"result": dump(await client.send_ping())}
    seen = []

    async def on_progress(progress, total, message):
        seen.append(progress)

    result = await client.call_tool(
        s["call"],
        s.get("arguments", {}),
        read_timeout_seconds=s.get("timeout"),
        progress_callback=on_progress if s.get("progress") else None,
    )
    out = {"result": dump(result)}
    if s.get("progress"):
        out["progress"] = seen
    return out


async def main(mode, steps, dashdash, command, *args):
    assert dashdash == "--", __doc__
    params = StdioServerParameters(command=command, args=list(args))
    outcomes = []
    async with Client(params, mode=mode, elicitation_callback=elicit) as client:
        for s in json.loads(steps):
            try:
                outcomes.append(await step(client, s))
            except MCPError as e:
                outcomes.append({"error": {"code": e.error.code, "message": e.error.message}})
            except Exception as e:  # a timeout, a closed connection: said, and the next step runs
                outcomes.append({"exception": f"{type(e).__name__}: {e}"})
        print(json.dumps({"protocol_version": client.protocol_version, "steps": outcomes}), flush=True)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))
