#!/usr/bin/env bash
# Builds the archive the ACP Registry manifest (build/acp/agent.json) names
# for linux-x86_64: the headless freeact (no window, statically linked, so
# it runs on any x86-64 Linux without GTK or WebKit) as ./freeact in a
# .tar.gz, then checks it: the manifest names this archive and its command,
# and `freeact acp` in it answers initialize.
#
#   scripts/package-acp.sh VERSION OUTDIR
set -euo pipefail
version=$1
out=$2
cd "$(dirname "${BASH_SOURCE[0]}")/.."
release=$(cat VERSION)
name="freeact_${release}_linux-x86_64.tar.gz"
manifest=build/acp/agent.json

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -ldflags "-s -w -X main.version=$version" -o "$stage/freeact" .
mkdir -p "$out"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime='1970-01-01' -C "$stage" -czf "$out/$name" ./freeact

# The manifest and the archive agree: its name, and the command in it.
python3 - "$manifest" "$name" <<'PY'
import json, sys
manifest, name = sys.argv[1], sys.argv[2]
b = json.load(open(manifest))["distribution"]["binary"]["linux-x86_64"]
if b["archive"] != name:
    sys.exit(f"{manifest} names the archive {b['archive']!r}, the build made {name!r}: change one of them")
if b["cmd"] != "./freeact" or b["args"] != ["acp"]:
    sys.exit(f"{manifest}: the command is {b['cmd']} {b['args']}, the archive holds ./freeact acp")
PY
check=$(mktemp -d)
trap 'rm -rf "$stage" "$check"' EXIT
tar -C "$check" -xzf "$out/$name"
[[ "$(tar -tzf "$out/$name")" == "./freeact" ]] || { echo "the archive holds more than ./freeact" >&2; exit 1; }
reply=$(echo '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}' | (cd "$check" && timeout 60 ./freeact acp 2>/dev/null | head -n 1))
[[ "$reply" == *'"protocolVersion":1'* ]] || { echo "./freeact acp in the archive did not answer initialize: $reply" >&2; exit 1; }
echo "$out/$name"
