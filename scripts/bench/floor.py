"""One round of the side-by-side benchmark for the floor: a bare ipykernel
driven by jupyter_client directly, with no hooks, no approvals and no agent,
run by scripts/bench/compare.py alternately with ours and the reference.
Prints the round's figures as one JSON object on stdout, under the same names.

What no system can do faster on this interpreter: the kernel started by
jupyter_client's KernelManager, cells sent by its blocking client, output
collected from iopub until the kernel is idle. The MCP figure is a cell that
talks to the same stdio server itself (JSON-RPC over the server's pipes), so
no host sits between the kernel and the server.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

from jupyter_client.manager import KernelManager

from common import BIG_CELL, tree_rss

MCP_CELL = """import json as _j, subprocess as _s, sys as _y, time as _t
_p = _s.Popen([%(python)r, %(server)r], stdin=_s.PIPE, stdout=_s.PIPE, text=True, bufsize=1)
def _rpc(i, method, params, note=False):
    m = {"jsonrpc": "2.0", "method": method, "params": params}
    if not note:
        m["id"] = i
    _p.stdin.write(_j.dumps(m) + "\\n"); _p.stdin.flush()
    if not note:
        while True:
            r = _j.loads(_p.stdout.readline())
            if r.get("id") == i:
                return r
_rpc(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "floor", "version": "0"}})
_rpc(0, "notifications/initialized", {}, note=True)
_rpc(1, "tools/call", {"name": "echo", "arguments": {"text": "x"}})
"""

CALLS_CELL = """t = _t.perf_counter()
for i in range(%(calls)d):
    _rpc(i + 2, "tools/call", {"name": "echo", "arguments": {"text": "x"}})
print("calls_per_s %%.1f" %% (%(calls)d / (_t.perf_counter() - t)))
"""


def run(kc, code: str) -> str:
    """Runs code and returns its stream output, once the kernel is idle again."""
    msg_id = kc.execute(code, store_history=False)
    out, replied, idle = [], False, False
    while not (replied and idle):
        if not replied and kc.shell_channel.msg_ready():
            reply = kc.get_shell_msg()
            if reply["parent_header"].get("msg_id") == msg_id:
                replied = True
                c = reply["content"]
                if c["status"] != "ok":
                    raise RuntimeError(f"{code[:40]!r}: {c.get('ename')}: {c.get('evalue')}")
            continue
        try:
            m = kc.get_iopub_msg(timeout=0.05 if not replied else 60)
        except Exception:
            continue
        if m["parent_header"].get("msg_id") != msg_id:
            continue
        t = m["msg_type"]
        if t == "stream":
            out.append(m["content"]["text"])
        elif t == "status" and m["content"]["execution_state"] == "idle":
            idle = True
    return "".join(out)


def main(args: argparse.Namespace) -> dict[str, float]:
    figures: dict[str, float] = {}
    server = os.path.abspath(args.echo_server)
    with tempfile.TemporaryDirectory(prefix="freeact-bench-floor-") as tmp:
        os.chdir(tmp)
        t0 = time.perf_counter()
        km = KernelManager(kernel_cmd=[args.python, "-m", "ipykernel_launcher", "-f", "{connection_file}"])
        km.start_kernel()
        kc = km.blocking_client()
        kc.start_channels()
        try:
            kc.wait_for_ready(timeout=60)
            run(kc, "1+1")
            figures["cold_start_ms"] = (time.perf_counter() - t0) * 1000
            for name, code in (("trivial_p50_ms", "1+1"), ("bang_true_p50_ms", "!true")):
                durs = []
                for _ in range(args.cells):
                    t = time.perf_counter()
                    run(kc, code)
                    durs.append(time.perf_counter() - t)
                figures[name] = statistics.median(durs) * 1000
            run(kc, MCP_CELL % {"python": args.python, "server": server})
            time.sleep(2)  # idle, as the others measure it
            figures["idle_rss_mb"] = (tree_rss(os.getpid())) / 1e6
            out = run(kc, CALLS_CELL % {"calls": args.calls})
            figures["mcp_calls_per_s"] = float(out.split("calls_per_s ")[1].split()[0])
            durs, sizes = [], []
            for _ in range(2):
                t = time.perf_counter()
                out = run(kc, BIG_CELL)
                durs.append(time.perf_counter() - t)
                sizes.append(len(out))
            figures["output_10mb_ms"] = min(durs) * 1000
            figures["output_10mb_bytes"] = min(sizes)
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)
    return figures


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--python", required=True)
    p.add_argument("--echo-server", required=True)
    p.add_argument("--cells", type=int, default=20)
    p.add_argument("--calls", type=int, default=200)
    figures = main(p.parse_args())
    json.dump(figures, sys.stdout)
    print()
