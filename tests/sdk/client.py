"""An MCP client on the official Python SDK, for the record tests.

usage: client.py SCENARIO MODE MCPDBG TRANSCRIPT TAPDIR

Starts `tap.py -- MCPDBG record --out TRANSCRIPT -- python server.py`, runs
SCENARIO in connection MODE (auto or legacy) and prints what it saw as JSON.
TAPDIR receives client-sent.bin, client-received.bin, server-received.bin and
server-sent.bin.

Scenarios: session (list tools, add, count with progress, a failing tool),
stray (the stray tool), hang (the hang tool; the client gives up after a
short wait and stops the server with SIGTERM, without cancelling), ask (for
a server with SERVER_VARIANT=ask: the ask tool, whose roots/list and
sampling/createMessage requests the client answers), secret (for a server
with SERVER_VARIANT=echo: add, then echo with a text carrying the token in
SCENARIO_SECRET, which the server logs on stderr and answers back), close
(the hang tool, then add; the client leaves with the hang call still running,
without cancelling it), cancel-close (the same, but the client cancels the
hang call before it leaves).
"""

import asyncio
import json
import os
import signal
import sys

from mcp import Client, StdioServerParameters, types

HERE = os.path.dirname(os.path.abspath(__file__))


async def run(scenario, mode, mcpdbg, transcript, tapdir):
    env = dict(os.environ)
    env["SERVER_TAP_RECEIVED"] = os.path.join(tapdir, "server-received.bin")
    env["SERVER_TAP_SENT"] = os.path.join(tapdir, "server-sent.bin")
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            os.path.join(HERE, "tap.py"),
            os.path.join(tapdir, "client-sent.bin"),
            os.path.join(tapdir, "client-received.bin"),
            "--",
            mcpdbg, "record", "--out", transcript, "--",
            sys.executable, os.path.join(HERE, "server.py"),
        ],
        env=env,
    )
    seen = {"progress": []}

    async def on_progress(progress, total, message):
        seen["progress"].append([progress, total, message])

    async def list_roots(context):
        return types.ListRootsResult(roots=[types.Root(uri="file:///srv/notes", name="notes")])

    async def sample(context, params):
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="sampled answer"),
            model="test-model",
        )

    callbacks = {}
    if scenario == "ask":
        callbacks = {"list_roots_callback": list_roots, "sampling_callback": sample}
    async with Client(params, mode=mode, **callbacks) as client:
        seen["protocol_version"] = client.protocol_version
        tools = await client.list_tools()
        seen["tools"] = sorted(t.name for t in tools.tools)
        if scenario == "session":
            seen["add"] = (await client.call_tool("add", {"a": 2, "b": 3})).content[0].text
            seen["count"] = (await client.call_tool("count", {"n": 3}, progress_callback=on_progress)).content[0].text
            failed = await client.call_tool("fail", {"reason": "disk on fire"})
            seen["fail_is_error"] = failed.is_error
        elif scenario == "secret":
            secret = os.environ["SCENARIO_SECRET"]
            seen["add"] = (await client.call_tool("add", {"a": 2, "b": 3})).content[0].text
            said = await client.call_tool("echo", {"text": f"the vault refused token {secret}"})
            seen["echo"] = said.content[0].text
        elif scenario == "ask":
            seen["ask"] = (await client.call_tool("ask", {"question": "what?"})).content[0].text
        elif scenario == "stray":
            seen["stray"] = (await client.call_tool("stray", {})).content[0].text
        elif scenario == "hang":
            call = asyncio.ensure_future(client.call_tool("hang", {}))
            done, _ = await asyncio.wait([call], timeout=1.0)
            seen["hang_answered"] = bool(done)
            # Give up without cancelling and stop the server the way a host
            # does: SIGTERM to the process it started (here, the recorder).
            with open(os.path.join(tapdir, "recorder.pid")) as pid_file:
                os.kill(int(pid_file.read()), signal.SIGTERM)
            for _ in range(200):
                if os.path.exists(os.path.join(tapdir, "recorder.done")):
                    break
                await asyncio.sleep(0.05)
            print(json.dumps(seen), flush=True)
            os._exit(0)
        elif scenario == "close":
            # Leave with a call still running and no cancel: the client
            # closes the server's stdin, and the SDK server answers the
            # running call with its shutdown error.
            call = asyncio.ensure_future(client.call_tool("hang", {}))
            await asyncio.sleep(0.05)  # the hang call goes first
            seen["add"] = (await client.call_tool("add", {"a": 2, "b": 3})).content[0].text
            await asyncio.sleep(0.3)
        elif scenario == "cancel-close":
            # The same, but the call is cancelled before the client leaves.
            call = asyncio.ensure_future(client.call_tool("hang", {}))
            await asyncio.sleep(0.05)
            seen["add"] = (await client.call_tool("add", {"a": 2, "b": 3})).content[0].text
            call.cancel()
            await asyncio.sleep(0.3)
        else:
            raise SystemExit(f"unknown scenario {scenario}")
    if scenario == "close":
        try:
            await call
        except Exception as e:  # the SDK's own "Connection closed"
            seen["hang_error"] = str(e)
    print(json.dumps(seen), flush=True)


if __name__ == "__main__":
    asyncio.run(run(*sys.argv[1:6]))
