#!/usr/bin/env bash
# quality.sh: the rotated-trellis CUDA check (issue 12), ON the device machine, from a folder D holding the mlxbun
# binary, pycoder-12m's heldout.txt and the quantized pycoder artifacts (models/): verify-kernels for the Hadamard
# rotation (bit-exact in f32), then perplexity of every artifact on the CUDA device (ctx 512) over the whole
# heldout.txt (the issue's table) and over its first 65,536 bytes, the latter beside the CPU figure measured here
# (docs/perf.md, 2026-11-30) with the difference; the issue's bound is |CUDA − CPU| ≤ 0.002 bits/byte. Built here:
#
#   mkdir -p D && GOEXPERIMENT=simd CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o D/mlxbun ./cmd/mlxbun
#   cp -r ../shared/fixtures/trained/pycoder-12m D/ && cp D/pycoder-12m/heldout.txt scripts/device/quality.sh D/
#   optionally the CPU-measured artifacts (3.4-6.3 MB each, while they last on the development machine):
#   /tmp/q/R-{2,3,4}bit → D/models/rht-{2,3,4}bit, /tmp/q/L-{2,3,4}bit → D/models/rht-ldlq-{2,3,4}bit
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

# Without models/, quantize them here from D/pycoder-12m (the fixture directory, calib.txt included) on the device's
# cores; the quantizer is deterministic, so they should be bit-identical to the ones measured on the CPU (their
# model.safetensors sha256 prefixes below; a mismatch makes the CPU column inapplicable).
declare -A SHA=(
	[rht-2bit]=c2aaff8ec62a6a02 [rht-3bit]=0e48e4f3f2c32aec [rht-4bit]=0d88ad5bea60380f
	[rht-ldlq-2bit]=65dba725d721ee64 [rht-ldlq-3bit]=c3930cca708f7b74 [rht-ldlq-4bit]=bb36fb602c84fe35
)
if [ ! -d models ]; then
	for k in 2 3 4; do
		step "quantize pycoder-12m ${k}-bit: --rht, then --rht --axis0 --calib"
		# --device cpu --L 12: the recorded hashes are the CPU's at L 12 (--device and --L now default to auto: the GPU, L 16)
		$B quantize --model pycoder-12m --bits $k --rht --device cpu --L 12 --out models/rht-${k}bit --quiet >>"$OUT/run.log" 2>&1
		$B quantize --model pycoder-12m --bits $k --rht --axis0 --calib pycoder-12m/calib.txt --calib-tokens 32768 \
			--damp 0.1 --device cpu --L 12 --out models/rht-ldlq-${k}bit --quiet >>"$OUT/run.log" 2>&1
	done
fi
for m in models/*; do
	n=$(basename "$m")
	sha=$(sha256sum "$m/model.safetensors" | cut -c1-16)
	echo "$n sha256 $sha (CPU-measured artifact: ${SHA[$n]:-?})" | tee -a "$OUT/run.log"
done

step "verify-kernels Hadamard (first start compiles the kernels)"
timeout 200 $B verify-kernels --device cuda --only Hadamard >"$OUT/verify-hadamard.md" 2>&1
echo "verify hadamard exit $?" | tee -a "$OUT/run.log"
tail -2 "$OUT/verify-hadamard.md" | tee -a "$OUT/run.log"

# CPU bits/byte of each artifact on the first 65,536 bytes of heldout.txt (TestTrellisQuality's slice), as measured
# on the development machine (docs/perf.md, 2026-11-30); "?" where it was not measured.
declare -A CPU=(
	[rht-2bit]=0.9754 [rht-3bit]=0.9035 [rht-4bit]=0.8864
	[rht-ldlq-2bit]=0.9354 [rht-ldlq-3bit]=0.8912 [rht-ldlq-4bit]=0.8834
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
