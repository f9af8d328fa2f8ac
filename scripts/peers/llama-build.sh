#!/usr/bin/env bash
# llama-build.sh: builds llama.cpp's llama-bench, llama-quantize and llama-perplexity from the carried snapshot
# (.peers/llama.cpp.tgz, made by pack-llama.sh) ON the GPU machine: CUDA for sm_90 only, shared libraries, ninja.
# The result goes to .peers/llama-bin (binaries + libs, rpath $ORIGIN) and, split into ≤ 15 MiB xz pieces, to
# $OUT/llama-bin.tar.xz.NN so later calls carry it back instead of rebuilding (~400 s with 16 jobs).
# LLAMA_CUDA=0 builds for the CPU only (a smoke test of the pruned tree on a machine without nvcc).
#
#   bash scripts/peers/llama-build.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
P=$root/.peers
OUT=${OUT:-/tmp/peers-out}
mkdir -p "$OUT"
src=/tmp/llama.cpp
rm -rf "$src" && mkdir -p /tmp && tar xzf "$P/llama.cpp.tgz" -C /tmp
# The snapshot keeps only the three tools; their CMake list is ours.
cat >"$src/tools/CMakeLists.txt" <<'CM'
find_package(Threads REQUIRED)
llama_add_compile_flags()
add_subdirectory(llama-bench)
add_subdirectory(perplexity)
add_subdirectory(quantize)
CM
cuda=${LLAMA_CUDA:-1}
flags=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF
	-DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TOOLS=ON -DGGML_NATIVE=ON
	-DCMAKE_INSTALL_RPATH='$ORIGIN' -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON)
if [ "$cuda" = 1 ]; then
	flags+=(-DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_COMPILER=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc))
fi
t0=$(date +%s)
cmake -S "$src" -B "$src/build" "${flags[@]}" >"$OUT/llama-cmake.log" 2>&1 || { tail -30 "$OUT/llama-cmake.log"; exit 1; }
cmake --build "$src/build" --target llama-bench llama-quantize llama-perplexity -j "$(nproc)" >"$OUT/llama-build.log" 2>&1 ||
	{ tail -40 "$OUT/llama-build.log"; exit 1; }
echo "llama.cpp build: $(($(date +%s) - t0)) s"
rm -rf "$P/llama-bin" && mkdir -p "$P/llama-bin"
find "$src/build/bin" -maxdepth 1 \( -name 'llama-*' -o -name '*.so*' \) -exec cp -a {} "$P/llama-bin/" \;
find "$src/build" -name '*.so*' -not -path '*/CMakeFiles/*' -exec cp -a {} "$P/llama-bin/" \; 2>/dev/null || true
cp -r "$src/gguf-py" "$P/llama-bin/gguf-py"
ls -la "$P/llama-bin"
tar cf - -C "$P" llama-bin | xz -T0 -6 | split -b 15M -d - "$OUT/llama-bin.tar.xz."
ls -la "$OUT"/llama-bin.tar.xz.*
