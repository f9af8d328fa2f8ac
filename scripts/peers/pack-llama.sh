#!/usr/bin/env bash
# pack-llama.sh: the pinned llama.cpp source snapshot for the peer benchmark (issue 9), made HERE into the git-ignored
# .peers/ folder that device calls carry. llama.cpp's repository is too large to fetch; the npm package
# node-llama-cpp ships one release of its source as llama/gitRelease.bundle (a git bundle). Nothing of it is ever
# committed. The tarball keeps what a CUDA build of llama-bench, llama-quantize and llama-perplexity needs (plus
# gguf-py, to write the synthetic GGUFs), not models/, docs, tests, the web UI or other backends' sources.
#
#   bash scripts/peers/pack-llama.sh [NODE_LLAMA_CPP_VERSION]   → .peers/llama.cpp.tgz, .peers/llama.cpp.commit
set -euo pipefail
ver=${1:-3.22.1}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$root/.peers"
(cd "$work" && npm pack --silent "node-llama-cpp@$ver" >/dev/null && tar xzf node-llama-cpp-*.tgz package/llama/gitRelease.bundle)
git clone -q "$work/package/llama/gitRelease.bundle" "$work/src" 2>/dev/null
commit=$(git -C "$work/src" rev-parse HEAD)
keep=(CMakeLists.txt cmake common include src vendor gguf-py licenses LICENSE ggml/CMakeLists.txt ggml/cmake ggml/include
	ggml/src/CMakeLists.txt ggml/src/ggml-cpu ggml/src/ggml-cuda ggml/src/ggml-blas ggml/src/ggml-hip
	tools/CMakeLists.txt tools/llama-bench tools/quantize tools/perplexity)
# ggml/src's top-level files (ggml.c, gguf.cpp, ...) without the other backends' folders.
mapfile -t top < <(git -C "$work/src" ls-tree --name-only HEAD ggml/src/ | while read -r p; do
	[ "$(git -C "$work/src" cat-file -t "HEAD:$p")" = blob ] && echo "$p"; done)
git -C "$work/src" archive --format=tar --prefix=llama.cpp/ HEAD "${keep[@]}" "${top[@]}" | gzip -9 >"$root/.peers/llama.cpp.tgz"
printf 'node-llama-cpp %s, llama.cpp %s\n' "$ver" "$commit" >"$root/.peers/llama.cpp.commit"
ls -la "$root/.peers/llama.cpp.tgz"; cat "$root/.peers/llama.cpp.commit"
