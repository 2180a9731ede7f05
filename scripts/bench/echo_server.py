"""A stdio MCP server with one tool, echo, for scripts/bench/compare.py: both
systems call it from a cell, so the server's own cost is the same on each side."""

from mcp.server.fastmcp import FastMCP

server = FastMCP("echo", log_level="WARNING")


@server.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return "echo: " + text


if __name__ == "__main__":
    server.run("stdio")
