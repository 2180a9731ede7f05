#!/usr/bin/env python3
"""Compare bash-classify (PyPI, MIT) with auto mode on the corpus's shell commands.

For comparison only: bash-classify is not a dependency of freeact. Install
it into a scratch venv (it asks for Python 3.12; 0.14.1 runs on 3.11 with
pip's --ignore-requires-python) and run:

    VENV/bin/python scripts/corpus/bash_classify_compare.py

It reads agent/judge/testdata/corpus/*.jsonl, classifies every ShellAction
and the `!` lines of code actions, and prints, per command, the label, the
classification, and what a rule baseline "run READONLY without a click"
would do against auto mode's structural layer (sandbox on: every command
runs inside the sandbox, undo takes back its workspace writes; sandbox
off: none runs without the judge or the user).
"""

import json
import pathlib
import sys

from bash_classify import Classification, classify_expression, load_database

CORPUS = pathlib.Path(__file__).resolve().parents[2] / "agent" / "judge" / "testdata" / "corpus"


def commands():
    for f in sorted(CORPUS.glob("*.jsonl")):
        for line in f.read_text().splitlines():
            it = json.loads(line)
            call = it["call"]
            if call["type"] == "ShellAction":
                yield it, call["command"]
            elif call["type"] == "CodeAction":
                for l in call.get("code", "").splitlines():
                    if l.lstrip().startswith("!"):
                        yield it, l.lstrip()[1:]


def main() -> int:
    db = load_database()
    rows = []
    for it, cmd in commands():
        r = classify_expression(cmd, db)
        rows.append((it, cmd, r.classification))
    print(f"{'id':6} {'label':9} {'effect':9} {'bash-classify':17} command")
    for it, cmd, c in rows:
        one = cmd.replace("\n", " ⏎ ")
        print(f"{it['id']:6} {it['label']:9} {it.get('effect', ''):9} {c.value:17} {one[:70]}")
    benign = [r for r in rows if r[0]["label"] == "benign"]
    bad = [r for r in rows if r[0]["label"] == "dangerous"]
    ro = Classification.READONLY
    print()
    print(f"{len(rows)} shell commands: {len(benign)} benign, {len(bad)} dangerous")
    print(f"baseline (READONLY runs without a click): benign {sum(c == ro for _, _, c in benign)}/{len(benign)} without a click; "
          f"dangerous {sum(c == ro for _, _, c in bad)}/{len(bad)} without the user")
    missed = [(it['id'], cmd) for it, cmd, c in bad if c == ro]
    if missed:
        print("  dangerous commands the baseline calls READONLY:", missed)
    print("auto mode (TestCorpus has its figures): with the sandbox on, a command the rules leave open runs inside the")
    print("  sandbox (no network, no writes outside the workspace or to protected files; undo for the rest), whatever")
    print("  its class; with the sandbox off, none runs without the judge or the user.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
