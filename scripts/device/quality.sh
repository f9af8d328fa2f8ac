#!/usr/bin/env bash
# quality.sh: the rotated-trellis CUDA check (issue 12), ON the device machine, from a folder D holding the mlxbun
# binary, pycoder-12m's heldout.txt and the quantized pycoder artifacts (models/): verify-kernels for the Hadamard
# rotation (bit-exact in f32), then perplexity of every artifact on the CUDA device (ctx 512) over the whole
# heldout.txt (the issue's table) and over its first 65,536 bytes, the latter beside the CPU figure measured here
# (docs/perf.md, 2026-11-30) with the difference; the issue's bound is |CUDA − CPU| ≤ 0.002 bits/byte. Built here:
#
#   mkdir -p D/models && GOEXPERIMENT=simd CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o D/mlxbun ./cmd/mlxbun
#   P=../shared/fixtures/trained/pycoder-12m; for k in 2 3 4; do
#     D/mlxbun quantize --model $P --bits $k --rht --out D/models/rht-${k}bit
#     D/mlxbun quantize --model $P --bits $k --rht --axis0 --calib $P/calib.txt --calib-tokens 32768 --damp 0.1 --out D/models/rht-ldlq-${k}bit
#   done; cp $P/heldout.txt scripts/device/quality.sh D/      (the artifacts are ~7 MB each)
#   (or copy the artifacts measured for docs/perf.md: /tmp/q/R-{2,3,4}bit → D/models/rht-*, /tmp/q/L-{2,3,4}bit →
#   D/models/rht-ldlq-*, on the development machine while they last)
#   run(command="bash D/quality.sh", carry=["D"], timeout_s=600)
#
# Files under $OUT: run.log, verify-hadamard.md, ppl.md.
set -u -o pipefail
cd "$(dirname "$0")"
OUT=${OUT:-/tmp/mlxbun-out}
mkdir -p "$OUT"
export MLXBUN_CUDA_CACHE_DIR=/tmp/mlxbun-cuda-cache
B=./mlxbun
T0=$(date +%s)
step() { echo "=== +$(($(date +%s) - T0))s $*" | tee -a "$OUT/run.log"; }
nvidia-smi -L 2>&1 | tee -a "$OUT/run.log"

step "verify-kernels Hadamard (first start compiles the kernels)"
timeout 200 $B verify-kernels --device cuda --only Hadamard >"$OUT/verify-hadamard.md" 2>&1
echo "verify hadamard exit $?" | tee -a "$OUT/run.log"
tail -2 "$OUT/verify-hadamard.md" | tee -a "$OUT/run.log"

# CPU bits/byte of each artifact on the first 65,536 bytes of heldout.txt (TestTrellisQuality's slice), as measured
# on the development machine (docs/perf.md, 2026-11-30); "?" where it was not measured.
declare -A CPU=(
	[rht-2bit]=CPU_RHT_2 [rht-3bit]=CPU_RHT_3 [rht-4bit]=CPU_RHT_4
	[rht-ldlq-2bit]=CPU_LDLQ_2 [rht-ldlq-3bit]=CPU_LDLQ_3 [rht-ldlq-4bit]=CPU_LDLQ_4
)
bpb() { # model, extra flags: bits/byte on cuda
	timeout 150 $B perplexity --model "$1" --file heldout.txt --ctx 512 --device cuda --quiet --json "${@:2}" 2>>"$OUT/run.log" |
		python3 -c "import json,sys;print('%.4f' % json.load(sys.stdin)['bits_per_byte'])"
}
echo "| artifact | CUDA whole heldout | CUDA first 64 KiB | CPU first 64 KiB | \|CUDA − CPU\| (bound 0.002) |" >"$OUT/ppl.md"
echo "| --- | --- | --- | --- | --- |" >>"$OUT/ppl.md"
for m in models/*; do
	n=$(basename "$m")
	step "perplexity $n on cuda"
	whole=$(bpb "$m")
	part=$(bpb "$m" --max-bytes 65536)
	cpu=${CPU[$n]:-?}
	diff=$(python3 -c "import sys
try: print('%.4f' % abs(float('$part') - float('$cpu')))
except ValueError: print('?')")
	echo "| $n | $whole | $part | $cpu | $diff |" | tee -a "$OUT/ppl.md" "$OUT/run.log"
done
step "done"
