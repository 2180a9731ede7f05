"""An MCP server on the Python SDK from PyPI (1.x or 2.x) for the agent's
tests.

    python gated.py GATE     create GATE + ".started", wait until the file
                             GATE exists, then serve on stdin/stdout (a
                             server slow to start, without a clock)
    python gated.py -        serve at once

Its tools validate their arguments as the SDK does (pydantic): a null where
the schema wants an integer is refused.
"""

import os
import sys
import time

from pydantic import BaseModel

try:  # mcp >= 2
    from mcp.server import MCPServer as Server
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP as Server

server = Server("gated")


@server.tool()
def fetch(url: str, max_length: int = 5000, raw: bool = False, note: str | None = None) -> str:
    """Pretend to fetch url; say what arrived."""
    return f"fetched {url} max_length={max_length} raw={raw} note={note!r}"


class Trip(BaseModel):
    """A trip, its fields deliberately not in alphabetical order."""

    destination: str
    budget: int = 100
    arrival: str | None = None


@server.tool()
def book(trip: Trip) -> str:
    """Pretend to book a trip; say what arrived."""
    return f"booked {trip.destination} budget={trip.budget} arrival={trip.arrival!r}"


@server.resource("data://big")
def big() -> str:
    """300 KiB of text: over the mention limit."""
    return "x" * (300 * 1024)


@server.resource("data://small")
def small() -> str:
    """A few bytes of text."""
    return "small text"


def main() -> None:
    gate = sys.argv[1]
    if gate != "-":
        open(gate + ".started", "w").close()
        while not os.path.exists(gate):
            time.sleep(0.05)
    server.run()


if __name__ == "__main__":
    main()
