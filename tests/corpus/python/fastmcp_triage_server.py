"""A FastMCP server (PyPI fastmcp, pinned in tests/probe/requirements-fastmcp.txt) with the
mistakes behind "it hangs sometimes", for the hang triage fixtures and the replay test.

Tools: add (fast); lookup (awaits an event nobody sets: a hang); wait_for_ever (calls
time.sleep inside an async handler, which blocks the event loop: a stall); slow (awaits
asyncio.sleep: slow but not blocking).

TRIAGE_FIXED=1 runs the fixed server: lookup answers, wait_for_ever awaits asyncio.sleep.
"""

import asyncio
import os
import time

from fastmcp import FastMCP

FIXED = os.environ.get("TRIAGE_FIXED") == "1"

mcp = FastMCP("fastmcp-triage")
NOTES = {"today": "buy milk"}


@mcp.tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool
async def lookup(key: str) -> str:
    """Look a note up."""
    if not FIXED:
        await asyncio.Event().wait()  # the bug: waits for a loader that never runs
    return NOTES.get(key, "no such note")


@mcp.tool
async def wait_for_ever(seconds: float) -> str:
    """Wait for a job to finish."""
    if FIXED:
        await asyncio.sleep(seconds)
    else:
        time.sleep(seconds)  # the bug: a blocking call in an async handler
    return f"waited {seconds} s"


@mcp.tool
async def slow(seconds: float) -> str:
    """A slow report."""
    await asyncio.sleep(seconds)
    return f"report after {seconds} s"


if __name__ == "__main__":
    mcp.run(show_banner=False)
