#!/usr/bin/env bash
# apple-check.sh: the checks only a Mac can run (docs/apple.md), in one go, on an Apple silicon Mac with Go 1.26:
#
#   scripts/apple-check.sh [MODEL_DIR]        # writes apple-report.txt; MODEL_DIR optional (a trellis model)
#
# It records the machine, runs the darwin-only tests of the Metal runtime, the backend and the Neural Engine
# compiler, verify-kernels on the metal device, a synthetic 3-bit Qwen3-14B-shape bench, and compile-ane (list,
# status, compile) on MODEL_DIR or the tiny-qwen3 fixture. Each step's output goes to the report whether it
# passes or fails; the script never stops early, and prints which steps failed at the end. It compiles the
# tiny programs into this Mac's Neural Engine cache (MLXBUN_ANE_COMPILE_TEST=1); ANE=0 skips that.
set -uo pipefail
cd "$(git rev-parse --show-toplevel)"
[ "$(uname -s)" = Darwin ] || { echo "apple-check.sh: run this on a Mac (this is $(uname -s))" >&2; exit 2; }
export CGO_ENABLED=0 GOEXPERIMENT=${GOEXPERIMENT:-simd}
report=apple-report.txt
model=${1:-../shared/fixtures/models/tiny-qwen3}
failed=()
: >"$report"
step() { # step NAME CMD...: run, append to the report, remember a failure
	local name=$1; shift
	printf '\n## %s\n$ %s\n' "$name" "$*" >>"$report"
	if "$@" >>"$report" 2>&1; then echo "ok    $name"; else echo "FAIL  $name"; failed+=("$name"); fi
}
step machine sh -c 'sw_vers; sysctl -n machdep.cpu.brand_string hw.memsize; go version; git describe --always --dirty'
step build make build
step "runtime tests" go test -count=1 -v ./internal/metal/mtl
step "backend tests" go test -count=1 -v -run 'TestLibraryHoldsEveryForm|TestAdd|TestBind|TestSupports' ./internal/metal
if [ "${ANE:-1}" = 1 ]; then
	step "neural engine test" env MLXBUN_ANE_COMPILE_TEST=1 go test -count=1 -v -run TestCompileOnThisMac ./internal/ane
fi
step verify-kernels env MLXBUN_METAL_DEBUG=1 bin/mlxbun verify-kernels --device metal
step "bench 3-bit qwen3-14b" bin/mlxbun bench --synthetic qwen3-14b --bits 3 --device metal --profile
step "compile-ane list" bin/mlxbun compile-ane --model "$model" --list
step "compile-ane status" bin/mlxbun compile-ane --model "$model" --status
step "compile-ane" bin/mlxbun --log-level info compile-ane --model "$model"
step "compile-ane status after" bin/mlxbun compile-ane --model "$model" --status
echo "report: $report"
if [ ${#failed[@]} -gt 0 ]; then
	printf 'failed: %s\n' "${failed[*]}"
	exit 1
fi
