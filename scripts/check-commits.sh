#!/usr/bin/env bash
# Commit subjects are at most 72 characters (details go in the body). This
# checks every non-merge commit since the release tag, so history written
# before the rule was kept is left alone. A clone without the tag (a shallow
# CI checkout) skips the check with a note instead of failing.
#
#   scripts/check-commits.sh [since-tag]      default v0.2.0; run by make lint
set -euo pipefail

since="${1:-v0.2.0}"
max=72
# Count characters, not bytes: subjects use ×, → and —.
export LC_ALL=C.UTF-8

if ! git rev-parse -q --verify "refs/tags/$since^{commit}" >/dev/null; then
	echo "check-commits: tag $since is not in this clone (shallow?); not checked" >&2
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
