#!/usr/bin/env bash
# Runs every client scenario of the MCP conformance suite, one after the
# other (the suite's --suite all runs them all at once, and on a small
# busy machine sse-retry then measures the scheduler instead of the
# client's reconnection delay), against the client given as $1. Prints a
# table of the scenarios and fails when any scenario fails that is not in
# baseline.yml, or one listed there passes (the suite's --expected-failures).
# Scenarios named after the output folder run alone (CLIENT may be a
# command with arguments, without spaces in them).
#
#   scripts/mcp-conformance/run.sh CLIENT NODE_BIN_DIR OUTPUT_DIR [SCENARIO...]
set -euo pipefail
client=$1 bin=$2 out=$3
shift 3
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export BROWSER="$here/browser.sh" PATH="$bin:$PATH"
conf() { "$bin/node" "$bin/conformance" "$@"; }
if (($# > 0)); then
	scenarios=("$@")
else
	mapfile -t scenarios < <(conf list 2>&1 | sed -n '/^Client scenarios/,$p' | sed -n 's/^  - \([^ ]*\) .*/\1/p')
fi
if ((${#scenarios[@]} == 0)); then
	echo "run.sh: the suite listed no client scenarios" >&2
	exit 1
fi
mkdir -p "$out"
failed=()
for s in "${scenarios[@]}"; do
	if conf client --scenario "$s" --timeout 60000 --command "$client" \
		--expected-failures "$here/baseline.yml" -o "$out" >"$out/${s//\//_}.log" 2>&1; then
		printf '  ok    %s\n' "$s"
	else
		printf '  FAIL  %s   (%s)\n' "$s" "$out/${s//\//_}.log"
		failed+=("$s")
	fi
done
echo "MCP conformance: $((${#scenarios[@]} - ${#failed[@]})) of ${#scenarios[@]} client scenarios as expected"
((${#failed[@]} == 0))
