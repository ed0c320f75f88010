"""A small MCP server on the official Python SDK, for the record tests.

It serves over stdio with explicit streams that copy every byte it reads and
writes to the files named by SERVER_TAP_RECEIVED and SERVER_TAP_SENT, so the
tests can compare them with the recorder's transcript. With explicit streams
the SDK leaves fd 1 on the wire, so the `stray` tool really writes to stdout.

Tools: add, count (reports progress), fail (raises), stray (prints a line to
stdout, then answers), hang (never answers).

For the replay tests, SERVER_VARIANT changes one behaviour: `value` (add
answers one more than the sum), `hang` (add never answers), `version` (the
server declares version 2.0.0), `fixed` (hang answers "fixed"), `ask` (adds
the tool ask, which asks the client for its roots and for a sampled
message), `crash` (raises before it serves, as a server missing its
configuration does), `banner` (writes a banner line to stdout before it serves, the
bug the probe tests look for). Without it the server is unchanged.
"""

import asyncio
import io
import os
import sys

import anyio
from mcp import types
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.stdio import stdio_server


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


class TeeIn(io.RawIOBase):
    def __init__(self, fd, tap):
        self.fd, self.tap = fd, tap

    def readable(self):
        return True

    def readinto(self, buffer):
        data = os.read(self.fd, len(buffer))
        self.tap.write(data)
        self.tap.flush()
        buffer[: len(data)] = data
        return len(data)


class TeeOut(io.RawIOBase):
    def __init__(self, fd, tap):
        self.fd, self.tap = fd, tap

    def writable(self):
        return True

    def write(self, data):
        data = bytes(data)
        write_all(self.fd, data)
        self.tap.write(data)
        self.tap.flush()
        return len(data)


VARIANT = os.environ.get("SERVER_VARIANT", "")

server = MCPServer("sdk-test-server", **({"version": "2.0.0"} if VARIANT == "version" else {}))


@server.tool()
async def add(a: int, b: int) -> int:
    """Add two integers."""
    if VARIANT == "hang":
        await asyncio.Event().wait()
    return a + b + (1 if VARIANT == "value" else 0)


if VARIANT == "ask":

    @server.tool()
    async def ask(question: str, ctx: Context) -> str:
        """Asks the client for its roots and for a sampled answer."""
        roots = await ctx.session.list_roots()
        sampled = await ctx.session.create_message(
            [types.SamplingMessage(role="user", content=types.TextContent(type="text", text=question))],
            max_tokens=20,
        )
        return f"{len(roots.roots)} roots; {sampled.content.text}"


if VARIANT == "echo":

    @server.tool()
    async def echo(text: str) -> str:
        """Logs a text on stderr and answers it back (after SERVER_ECHO_PREFIX)."""
        print(f"echo called with {text!r}", file=sys.stderr, flush=True)
        return os.environ.get("SERVER_ECHO_PREFIX", "you said: ") + text


@server.tool()
async def count(n: int, ctx: Context) -> str:
    """Count to n, reporting progress."""
    for i in range(n):
        await ctx.report_progress(i + 1, n, f"step {i + 1}")
    return f"counted to {n}"


@server.tool()
def fail(reason: str) -> str:
    """Always raises."""
    raise ValueError(reason)


@server.tool()
def stray() -> str:
    """Writes a debug line to stdout (the bug the tests look for), then answers."""
    write_all(1, b"debug: stray tool called\n")
    return "done"


@server.tool()
async def hang() -> str:
    """Never answers."""
    if VARIANT == "fixed":
        return "fixed"
    await asyncio.Event().wait()
    return "unreachable"


async def main():
    received = open(os.environ.get("SERVER_TAP_RECEIVED", os.devnull), "wb")
    sent = open(os.environ.get("SERVER_TAP_SENT", os.devnull), "wb")
    stdin = anyio.wrap_file(io.TextIOWrapper(io.BufferedReader(TeeIn(0, received)), encoding="utf-8", errors="replace"))
    stdout = anyio.wrap_file(io.TextIOWrapper(TeeOut(1, sent), encoding="utf-8", newline="\n", write_through=True))
    print("sdk test server starting", file=sys.stderr, flush=True)
    if VARIANT == "crash":
        raise RuntimeError("sdk test server: NOTES_DB is not set")
    if VARIANT == "banner":
        write_all(1, b"sdk test server listening on stdio\n")
    async with stdio_server(stdin=stdin, stdout=stdout) as (read_stream, write_stream):
        lowlevel = server._lowlevel_server
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
    print("sdk test server stopping", file=sys.stderr, flush=True)


if __name__ == "__main__":
    anyio.run(main)
