"""A small notes server on the official MCP Python SDK, written the way its README shows.

Runs on mcp 1.x (FastMCP, bundled in the SDK) and on mcp 2.x (MCPServer).
usage: python py_server.py [plain|print|logging|child]
  print:   print() at start-up and inside the echo tool, as a developer debugging would
  logging: logging.basicConfig(stream=sys.stdout) before the SDK sets up its own logging
  child:   the echo tool runs a child process that inherits stdout (uname -s)
"""

import asyncio
import logging
import os
import subprocess
import sys

try:
    from mcp.server.mcpserver import MCPServer as Server  # mcp 2.x
except ImportError:
    from mcp.server.fastmcp import FastMCP as Server  # mcp 1.x

MODE = sys.argv[1] if len(sys.argv) > 1 else "plain"

if MODE == "logging":
    logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")

server = Server("py-notes")

if MODE == "print":
    print("py-notes: loading notes from disk")


@server.tool()
def echo(text: str) -> str:
    """Echo a text back."""
    if MODE == "print":
        print(f"echo called with {text!r}")
    if MODE == "logging":
        logging.getLogger("py-notes").info("echo called with %r", text)
    if MODE == "child":
        subprocess.run(["uname", "-s"], check=False)
    return text


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
async def wait_forever() -> str:
    """Never returns."""
    await asyncio.Event().wait()
    return "unreachable"


@server.tool()
def fail() -> str:
    """Raises."""
    raise RuntimeError("notes database is locked")


@server.tool()
def crash() -> str:
    """Ends the process while the call is open."""
    print("fatal: out of file handles, exiting", file=sys.stderr, flush=True)
    os._exit(3)


if __name__ == "__main__":
    server.run()
