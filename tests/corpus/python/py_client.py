"""A small host on the official MCP Python SDK client; it starts the server through the recorder.

usage: python py_client.py MODE LOG STEPS -- SERVER ARGS...
MODE: with mcp 2.x the Client's mode (auto, legacy or a version such as 2026-07-28);
with mcp 1.x ignored (ClientSession always does the initialize handshake).
STEPS, separated by spaces, run in order: list, ping, call:NAME:JSON,
timeout:NAME:SECONDS (a call with a read timeout), close:NAME:SECONDS (the host
waits, then closes the connection without cancelling).
MCPDBG names the mcpdbg binary.
"""

import asyncio
import json
import os
import sys
from datetime import timedelta
from importlib.metadata import version

from mcp import StdioServerParameters

MAJOR = int(version("mcp").split(".")[0])


def say(what, value):
    print(f"{what}: {value}", file=sys.stderr, flush=True)


async def run_steps(session, steps, ping):
    for step in steps.split():
        kind, _, rest = step.partition(":")
        name, _, extra = rest.partition(":")
        try:
            if kind == "list":
                say("tools", [t.name for t in (await session.list_tools()).tools])
            elif kind == "ping":
                say("ping", await ping())
            elif kind == "call":
                result = await session.call_tool(name, json.loads(extra or "{}"))
                say(name, result.model_dump(exclude_none=True))
            elif kind == "timeout":
                seconds = float(extra)
                timeout = seconds if MAJOR >= 2 else timedelta(seconds=seconds)
                say(name, await session.call_tool(name, {}, read_timeout_seconds=timeout))
            elif kind == "close":
                call = asyncio.ensure_future(session.call_tool(name, {}))
                done, _ = await asyncio.wait([call], timeout=float(extra))
                if not done:
                    say(name, "giving up, closing the connection")
                    call.cancel()
                    return
            else:
                raise SystemExit(f"unknown step {step}")
        except Exception as e:  # the host reports the failure and goes on
            say(f"{step} failed", repr(e))


async def main(mode, log, steps, dashdash, *server):
    assert dashdash == "--" and server, __doc__
    mcpdbg = os.environ.get("MCPDBG", "mcpdbg")
    params = StdioServerParameters(command=mcpdbg, args=["record", "--out", log, "--", *server])
    if MAJOR >= 2:
        from mcp import Client

        async with Client(params, mode=mode) as client:
            say("protocol version", client.protocol_version)
            await run_steps(client, steps, client.send_ping)
    else:
        from mcp import ClientSession
        from mcp.client.stdio import stdio_client

        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                say("protocol version", init.protocolVersion)
                await run_steps(session, steps, session.send_ping)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))
