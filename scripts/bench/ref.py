"""One round of the side-by-side benchmark for the reference: the Python
freeact 0.11.2's code executor (ipybox 0.9.2), run by scripts/bench/compare.py
alternately with this app's scripts/bench/ours. Prints the round's figures as
one JSON object on stdout, under the same names as ours.

The executor is the reference's whole path from code to result (kernel
gateway, kernel client, tool server with its approvals); freeact's agent adds
its model loop on top. Shell commands and tool calls ask for approval and the
round grants each at once, as a permission rule does.
"""

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from ipybox import ApprovalRequest, CodeExecutionResult, CodeExecutor, generate_mcp_sources
from ipybox.kernel_mgr.client import KernelClient
from mcpygen.client import MCPClient

from common import BIG_CELL, tree_rss

# ipybox gives its kernel gateway 10 tries a second apart to come up, which a
# loaded machine can exceed; allow a minute (only the waiting changes).
KernelClient.connect.__defaults__ = (60, 1.0, None)
# Likewise the 10 s its MCP client gives the stdio server to start up.
MCPClient.__init__.__defaults__ = (60,)

async def run(executor: CodeExecutor, code: str, chunks: bool = False) -> str:
    """Runs code, granting every approval, and returns its output text."""
    async for item in executor.stream(code, chunks=chunks):
        match item:
            case ApprovalRequest():
                await item.accept()
            case CodeExecutionResult():
                return item.text or ""
    raise RuntimeError("no result")


async def main(args: argparse.Namespace) -> dict[str, float]:
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="freeact-bench-ref-") as tmp:
        ws = Path(tmp)
        await generate_mcp_sources(
            "echo", {"command": args.python, "args": [args.echo_server]}, ws / "mcptools"
        )
        os.chdir(ws)
        # Out of the box the kernel gateway drops iopub output beyond 1 MB/s
        # (it printed under 3 of the 10 MB here); lift the limit so that both
        # systems deliver the whole output.
        config = ws / "jupyter-config"
        config.mkdir()
        (config / "jupyter_kernel_gateway_config.py").write_text(
            "c.ZMQChannelsWebsocketConnection.iopub_data_rate_limit = 0.0\n"
            "c.ZMQChannelsWebsocketConnection.iopub_msg_rate_limit = 0.0\n"
        )
        t0 = time.perf_counter()
        async with CodeExecutor(
            working_dir=ws,
            kernel_env={"JUPYTER_CONFIG_DIR": str(config)},
            approve_shell_cmds=True,
            connect_timeout=60, kernel_init_timeout=60
        ) as executor:
            await run(executor, "1+1")
            figures["cold_start_ms"] = (time.perf_counter() - t0) * 1000
            for name, code in (("trivial_p50_ms", "1+1"), ("bang_true_p50_ms", "!true")):
                durs = []
                for _ in range(args.cells):
                    t = time.perf_counter()
                    await run(executor, code)
                    durs.append(time.perf_counter() - t)
                figures[name] = statistics.median(durs) * 1000

            # the MCP server starts
            await run(executor, 'from mcptools.echo import echo\necho.run(echo.Params(text="x"))')
            await asyncio.sleep(2)  # idle, as ours measures it
            figures["idle_rss_mb"] = tree_rss(os.getpid()) / 1e6
            out = await run(
                executor,
                f"""import time
t = time.perf_counter()
for i in range({args.calls}):
    echo.run(echo.Params(text="x"))
print("calls_per_s %.1f" % ({args.calls} / (time.perf_counter() - t)))""",
            )
            figures["mcp_calls_per_s"] = float(out.split("calls_per_s ")[1].split()[0])

            # ipybox ends a cell at its execute_reply, which may come before
            # the last output: it can lose the end. The figure is kept (the
            # time to the result it returns), with the bytes it delivered.
            durs, sizes = [], []
            for _ in range(2):
                t = time.perf_counter()
                out = await run(executor, BIG_CELL, chunks=True)
                durs.append(time.perf_counter() - t)
                sizes.append(len(out))
            figures["output_10mb_ms"] = min(durs) * 1000
            figures["output_10mb_bytes"] = min(sizes)
    return figures


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--python", required=True)
    p.add_argument("--echo-server", required=True)
    p.add_argument("--cells", type=int, default=20)
    p.add_argument("--calls", type=int, default=200)
    figures = asyncio.run(main(p.parse_args()))
    json.dump(figures, sys.stdout)
    print()
