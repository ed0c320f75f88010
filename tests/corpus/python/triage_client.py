"""A host on the official MCP Python SDK client (mcp 2.x) that starts the triage server
through the recorder, for the hang triage fixtures.

usage: python client.py SCENARIO LOG -- SERVER ARGS...
MCPDBG names the mcpdbg binary (default: mcpdbg).

Scenarios:
  cancelled-hang  five fast `add` calls, then `lookup` with a 2 s read timeout: the SDK
                  sends notifications/cancelled ("timed out after 2.0s")
  stall           five fast `add` calls, then `wait_for_ever` (6 s) and, while it runs,
                  three `add` calls (each 0.5 s after the other)
  slow            five fast `add` calls, `lookup` with a 3 s read timeout (cancelled: the
                  client's timeout shows), then `slow` for 2.6 s, answered in time
"""

import asyncio
import os
import sys

from mcp import Client, StdioServerParameters


def say(what, value):
    print(f"{what}: {value}", file=sys.stderr, flush=True)


async def warm_up(client):
    for n in range(5):
        result = await client.call_tool("add", {"a": n, "b": 1})
        say("add", result.content[0].text)


async def timed_out(client, name, args, timeout):
    try:
        await client.call_tool(name, args, read_timeout_seconds=timeout)
        say(name, "answered")
    except Exception as e:  # the host reports the timeout and goes on
        say(f"{name} failed", repr(e))


async def main(scenario, log, dashdash, *server):
    assert dashdash == "--" and server, __doc__
    mcpdbg = os.environ.get("MCPDBG", "mcpdbg")
    params = StdioServerParameters(command=mcpdbg, args=["record", "--out", log, "--", *server])
    async with Client(params, mode="legacy") as client:
        await warm_up(client)
        if scenario == "cancelled-hang":
            await timed_out(client, "lookup", {"key": "today"}, 2.0)
        elif scenario == "stall":
            culprit = asyncio.ensure_future(client.call_tool("wait_for_ever", {"seconds": 6}))
            await asyncio.sleep(0.5)
            victims = []
            for n in range(3):
                victims.append(asyncio.ensure_future(client.call_tool("add", {"a": 10 + n, "b": 1})))
                await asyncio.sleep(0.5)
            say("wait_for_ever", (await culprit).content[0].text)
            for v in victims:
                say("add", (await v).content[0].text)
        elif scenario == "slow":
            await timed_out(client, "lookup", {"key": "today"}, 3.0)
            result = await client.call_tool("slow", {"seconds": 2.6}, read_timeout_seconds=3.0)
            say("slow", result.content[0].text)
        else:
            raise SystemExit(f"unknown scenario {scenario}")


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))
