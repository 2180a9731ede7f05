#!/usr/bin/env bash
# Runs make test's suites in steps, and prints each suite's wall time at
# the end (on a failure too: which suite failed, the times so far).
#
#   scripts/test-suites.sh STEP...      a STEP is "suite" or "suite+suite"
#
# The suites of one step run side by side; a step starts when the one
# before has passed, and the first step with a failed suite ends the run
# (its other suites finish first). Side by side only goes a suite that
# leaves the CPUs mostly free (test-package: debootstrap, apt, dpkg) or
# one whose tests pass on a loaded machine, with nothing written that the
# other reads. The first suite of a step has the CPUs first: the others
# run under nice -n 10, so the suite that waits on timeouts (the journeys)
# is not slowed by the one beside it. Each suite's output goes to
# test-output/logs/SUITE.log: streamed as it comes when it runs alone,
# prefixed with "[SUITE] " when it runs beside another, and printed whole
# when such a suite fails.
#
# MAKE is the make to call (the Makefile passes $(MAKE)).
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
make="${MAKE:-make}"
logs=test-output/logs
mkdir -p "$logs"

names=() secs=() results=()
declare -A shared=()

# run SUITE PREFIX [NICE]: make SUITE into its log (under NICE, e.g.
# "nice -n 10"), and its time and exit status into SUITE.time (it may run
# in a subshell).
run() {
	local suite=$1 prefix=$2 start status
	local -a nice
	read -r -a nice <<<"${3:-}"
	start=$(date +%s)
	if [[ -n $prefix ]]; then
		"${nice[@]}" "$make" --no-print-directory "$suite" </dev/null 2>&1 | tee "$logs/$suite.log" | sed -u "s/^/[$suite] /"
	else
		"$make" --no-print-directory "$suite" </dev/null 2>&1 | tee "$logs/$suite.log"
	fi
	status=${PIPESTATUS[0]}
	echo "$(($(date +%s) - start)) $status" >"$logs/$suite.time"
	return "$status"
}

table() {
	local total=$(( $(date +%s) - begin )) i
	echo
	echo "make test: wall time of each suite"
	printf '  %-22s %8s  %s\n' suite seconds result
	for i in "${!names[@]}"; do
		printf '  %-22s %8s  %s\n' "${names[$i]}" "${secs[$i]}" "${results[$i]}"
	done
	printf '  %-22s %8s\n' "total (wall)" "$total"
}

begin=$(date +%s)
failed=()
for step in "$@"; do
	IFS=+ read -r -a suites <<<"$step"
	if [[ ${#failed[@]} -gt 0 ]]; then
		for s in "${suites[@]}"; do names+=("$s") secs+=("-") results+=("not run"); done
		continue
	fi
	for s in "${suites[@]}"; do rm -f "$logs/$s.time"; done
	if [[ ${#suites[@]} -eq 1 ]]; then
		echo "==> ${suites[0]}"
		run "${suites[0]}" ""
	else
		echo "==> side by side: ${suites[*]} (logs in $logs/)"
		pids=() nice=""
		for s in "${suites[@]}"; do
			shared[$s]=1
			run "$s" yes "$nice" &
			pids+=($!)
			nice="nice -n 10"
		done
		for p in "${pids[@]}"; do wait "$p"; done
	fi
	for s in "${suites[@]}"; do
		read -r t status <"$logs/$s.time" 2>/dev/null || { t="?"; status=1; }
		names+=("$s") secs+=("$t")
		if [[ $status -eq 0 ]]; then
			results+=("passed")
		else
			results+=("FAILED (exit $status)")
			failed+=("$s")
		fi
	done
done

if [[ ${#failed[@]} -gt 0 ]]; then
	for s in "${failed[@]}"; do
		echo
		if [[ ${shared[$s]:-} ]]; then
			echo "==> $s failed beside another suite; its whole log ($logs/$s.log):"
			cat "$logs/$s.log"
		else
			echo "==> $s failed; its log is above and in $logs/$s.log"
		fi
	done
	table
	echo "make test: FAILED: ${failed[*]}"
	exit 1
fi
table
echo "make test: all suites passed"
