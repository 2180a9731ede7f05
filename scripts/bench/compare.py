"""Runs this app's benchmark round (scripts/bench/ours), the reference's
(scripts/bench/ref.py) and the floor's (scripts/bench/floor.py: a bare
ipykernel driven by jupyter_client) alternately, round by round, and prints
each figure's median per system, the ratios ours/theirs and ours/floor
(below 1: ours is better; for calls/s they are ratios of the time per call)
and the load average during each system's rounds. scripts/bench/compare.sh installs the reference and
calls this; it uses only the standard library.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

# name, label, unit, higher is better
FIGURES = [
    ("cold_start_ms", "cold start to first result", "ms", False),
    ("trivial_p50_ms", "trivial cell, p50", "ms", False),
    ("output_10mb_ms", "10 MB output (100k lines), wall to final result", "ms", False),
    ("output_10mb_bytes", "10 MB output: bytes delivered, worst round (of 10000000)", "B", True),
    ("bang_true_p50_ms", "`!true`, approval auto-granted, p50", "ms", False),
    ("mcp_calls_per_s", "programmatic MCP calls from one cell", "calls/s", True),
    ("idle_rss_mb", "idle RSS, all processes, kernel + MCP server ready", "MB", False),
]


def load() -> float:
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def one_round(cmd: list[str]) -> tuple[dict[str, float], float, float]:
    before = load()
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out.strip().splitlines()[-1]), before, load()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--ours", required=True, help="the built scripts/bench/ours")
    p.add_argument("--python", required=True, help="the interpreter both systems' kernels run on")
    p.add_argument("--echo-server", required=True)
    args = p.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    systems = {
        "ours": [args.ours, "-python", args.python, "-echo-server", args.echo_server],
        "ref": [args.python, os.path.join(here, "ref.py"), "--python", args.python, "--echo-server", args.echo_server],
        "floor": [args.python, os.path.join(here, "floor.py"), "--python", args.python, "--echo-server", args.echo_server],
    }
    names = list(systems)
    results: dict[str, list[dict[str, float]]] = {n: [] for n in names}
    loads: dict[str, list[float]] = {n: [] for n in names}
    print(f"{os.cpu_count()} CPUs; {args.rounds} rounds, ours, the reference and the floor in turn", file=sys.stderr)
    for r in range(args.rounds):
        # Rotate who goes first, so none always runs after another.
        order = names[r % 3 :] + names[: r % 3]
        for name in order:
            figures, before, after = one_round(systems[name])
            results[name].append(figures)
            loads[name] += [before, after]
            shown = " ".join(f"{k}={v:.1f}" for k, v in figures.items())
            print(f"round {r + 1} {name:5} load {before:.1f}-{after:.1f}: {shown}", file=sys.stderr, flush=True)

    def med(name: str, key: str) -> float:
        if key == "output_10mb_bytes":
            return min(f[key] for f in results[name])
        return statistics.median(f[key] for f in results[name])

    print()
    print("| path | freeact 0.11.2 / ipybox 0.9.2 | ours | floor (bare ipykernel) | ours/theirs | ours/floor |")
    print("|---|---|---|---|---|---|")
    for key, label, unit, higher in FIGURES:
        ours, ref, floor = med("ours", key), med("ref", key), med("floor", key)
        if key == "output_10mb_bytes":
            print(f"| {label} | {ref:.0f} | {ours:.0f} | {floor:.0f} | | |")
            continue
        ratio = ref / ours if higher else ours / ref
        above = floor / ours if higher else ours / floor
        note = " per call" if key == "mcp_calls_per_s" else ""
        print(f"| {label} | {ref:.1f} {unit} | {ours:.1f} {unit} | {floor:.1f} {unit} | {ratio:.2f}{note} | {above:.2f}{note} |")
    print()
    for name in names:
        print(
            f"load average (1 min) during {name} rounds: median {statistics.median(loads[name]):.1f}, "
            f"range {min(loads[name]):.1f}-{max(loads[name]):.1f}"
        )
    print(f"medians of {args.rounds} interleaved rounds; {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
