#!/usr/bin/env bash
# remote.sh: what runs ON the device machine (NVIDIA H200, CUDA 13, no Go), started by the device tool as
#
#   run(command="bash scripts/device/remote.sh", carry=[".devbin"])
#
# after scripts/device/cuda-check.sh built .devbin/ here. It records the GPU and CUDA library layout, runs every
# .devbin/*.test with MLXBUN_CUDA=1 (so GPU tests run and fail rather than skip), and collects logs under $OUT
# (at most 8 files come back). The measurement table is printed last, where the tool's output tail keeps it.
set -u -o pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/mlxbun-out}
mkdir -p "$OUT"

export MLXBUN_CUDA=1
export MLXBUN_CUDA_CACHE_DIR=/tmp/mlxbun-cuda-cache
export MLXBUN_CUDA_REPORT="$OUT/cuda-report.txt"

{
	date -u
	uname -a
	nvidia-smi
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
	echo "--- ldconfig"
	ldconfig -p | grep -E 'libcuda\.so|libnvrtc|libcublasLt' || echo "(none in ldconfig)"
	echo "--- toolkit"
	ls -l /usr/local/cuda/targets/x86_64-linux/lib 2>/dev/null | grep -E 'nvrtc|cublasLt' || echo "(no /usr/local/cuda)"
} >"$OUT/env.log" 2>&1
grep -E 'Driver Version|NVIDIA H|MiB' "$OUT/env.log" | head -5

rc=0
for t in .devbin/*.test; do
	[ -x "$t" ] || continue
	name=$(basename "$t" .test)
	echo "=== $t"
	timeout 540 "./$t" -test.v -test.count=1 -test.timeout=520s 2>&1 | tee "$OUT/$name-test.log"
	r=${PIPESTATUS[0]}
	echo "=== $t exit $r"
	[ "$r" -eq 0 ] || rc=$r
done

if [ -x .devbin/mlxbun ]; then
	echo "=== .devbin/mlxbun --help"
	timeout 20 .devbin/mlxbun --help >"$OUT/mlxbun-help.log" 2>&1
	echo "exit $? (log in mlxbun-help.log)"
fi

nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader >>"$OUT/env.log" 2>&1
# The test binary printed the measurement table last; it is also in $OUT/cuda-report.txt.
echo "remote.sh exit $rc"
exit $rc
