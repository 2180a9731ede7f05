#!/usr/bin/env bash
# Commit subjects are at most 72 characters (details go in the body). This
# checks every non-merge commit since the rule began, so history written
# before it is left alone. The start is a commit id kept here, not a tag:
# clones carry no tags, and CI must check too. Only a shallow clone that
# lacks that commit skips the check, with a note.
#
#   scripts/check-commits.sh [since]   default: 7ffb91e (release 0.2.0); make lint
set -euo pipefail

since="${1:-7ffb91eb964e2b31bb1e939005a02eb1ed1910d2}"
max=72
# Count characters, not bytes: subjects use ×, → and —.
export LC_ALL=C.UTF-8

if ! git rev-parse -q --verify "$since^{commit}" >/dev/null; then
	echo "check-commits: commit $since is not in this clone (shallow?); not checked" >&2
	exit 0
fi

bad=0
while IFS= read -r line; do
	hash=${line%% *}
	subject=${line#* }
	if ((${#subject} > max)); then
		echo "check-commits: $hash: subject is ${#subject} characters (at most $max): $subject" >&2
		bad=$((bad + 1))
	fi
done < <(git log --no-merges --format='%h %s' "$since..HEAD")

if ((bad > 0)); then
	echo "check-commits: $bad commit(s) since $since have a subject over $max characters;" \
		"shorten them (git rebase -i, reword) and put the details in the body" >&2
	exit 1
fi
