"""A small MCP server on the Python SDK from PyPI, 1.x or 2.x, for the
conformance tests of agent/mcp.

    python pyserver.py stdio      serve on stdin/stdout
    python pyserver.py http       serve streamable HTTP at /mcp on the
                                  listening socket passed as file descriptor 3

The test owns the socket (it listens before starting this process), so there
is no port to pick and no wait for the server to come up: connections queue
until it accepts them.
"""

import sys

try:  # mcp >= 2 (protocol 2026-07-28 and the initialize handshake)
    from mcp.server import MCPServer as Server

    MAJOR = 2
except ImportError:  # mcp 1.x (initialize handshake only)
    from mcp.server.fastmcp import FastMCP as Server

    MAJOR = 1

server = Server("conformance")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two whole numbers."""
    return a + b


@server.tool()
def sdk_version() -> str:
    """The version of the mcp package serving this."""
    from importlib.metadata import version

    return version("mcp")


@server.tool()
async def wait_cancelled(path: str) -> str:
    """Create path + ".started", then wait; a cancelled call creates
    path + ".cancelled"."""
    import anyio

    open(path + ".started", "w").close()
    try:
        await anyio.sleep(600)
    except anyio.get_cancelled_exc_class():
        open(path + ".cancelled", "w").close()
        raise
    return "not cancelled"


def main() -> None:
    if sys.argv[1:] == ["stdio"]:
        server.run()
        return
    if sys.argv[1:] != ["http"]:
        sys.exit("usage: pyserver.py stdio|http")
    import uvicorn

    app = server.streamable_http_app()
    uvicorn.run(app, fd=3, log_level="warning")


if __name__ == "__main__":
    main()
