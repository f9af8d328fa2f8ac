#!/usr/bin/env bash
# quality-sweep.sh: issue 12's 2- and 3-bit quality targets, ON the device machine (16 cores + the GPU): quantizes
# pycoder-12m with candidate LDLQ settings (more calibration tokens, L 16, the axis-0 scale refit, sequential
# Hessians, damping) on the machine's cores and prints whole-heldout.txt bits/byte (ctx 512) of each on CUDA, plus
# the CPU figure on the first 65,536 bytes (the CUDA one beside it: the issue's |CUDA − CPU| ≤ 0.002). The
# reference row is today's artifact setting (RHT + LDLQ, axis 0, λ 0.1, 32,768 tokens, L 12: whole file 2-bit 0.8306,
# 3-bit 0.7785; targets ≤ 0.818 and ≤ 0.778; bf16 0.7676). Built here, from the repository root:
#
#   mkdir -p D && GOEXPERIMENT=simd CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o D/mlxbun ./cmd/mlxbun
#   cp -r ../shared/fixtures/trained/pycoder-12m D/ && cp scripts/device/quality-sweep.sh D/
#   run(command="bash D/quality-sweep.sh A", carry=["D"], timeout_s=600)   # then C and D (B, E, F as time allows), one call each
#
# Arguments: variant groups (A to F: below) or variant names; default A. Every step is timed in run.log and the table
# grows row by row, so a call cut short still returns what it finished; a variant whose estimate would end it after
# $BUDGET seconds (default 540) is listed as skipped. The CPU figure is measured for the first variant of the call
# only (CPU=all: every one; CPU=none: none). Files under $OUT: run.log (quantize summaries, timings, sha256), sweep.md.
set -u -o pipefail
cd "$(dirname "$0")"
OUT=${OUT:-/tmp/mlxbun-out}
mkdir -p "$OUT"
export MLXBUN_CUDA_CACHE_DIR=/tmp/mlxbun-cuda-cache
B=./mlxbun
M=pycoder-12m
BUDGET=${BUDGET:-540}
CPU=${CPU:-first}
T0=$(date +%s)
el() { echo $(($(date +%s) - T0)); }
step() { echo "=== +$(el)s $*" | tee -a "$OUT/run.log"; }
nvidia-smi -L 2>&1 | tee -a "$OUT/run.log"
nproc | sed 's/^/cores: /' | tee -a "$OUT/run.log"

# name → bits, L, calibration tokens, damping λ, estimated seconds on 16 cores (quantize + perplexity, from the
# development machine: calibration ≈ 4 ms of CPU a token; the Viterbi search 0.7, 20 and 300 µs a weight per core
# at L 8, 12 and 16 on the loaded machine; 12.1 M coded weights), further quantize flags. Every variant is --rht --axis0
# --calib pycoder-12m/calib.txt.
declare -A V=(
	[ref-2]="2 12 32768 0.1 60"
	[ref-3]="3 12 32768 0.1 60"
	[t131k-refit-2]="2 12 131072 0.1 60 --refit-scales"
	[t131k-refit-d0.03-2]="2 12 131072 0.03 60 --refit-scales"
	[t131k-refit-d0.01-2]="2 12 131072 0.01 60 --refit-scales"
	[t131k-refit-d0.03-3]="3 12 131072 0.03 60 --refit-scales"
	[rows4-t131k-refit-d0.03-2]="2 12 131072 0.03 80 --refit-scales --ldlq-rows 4"
	[rows4-t131k-refit-d0.03-3]="3 12 131072 0.03 80 --refit-scales --ldlq-rows 4"
	[rows1-t131k-refit-d0.03-2]="2 12 131072 0.03 130 --refit-scales --ldlq-rows 1"
	[rows1-t131k-refit-d0.03-3]="3 12 131072 0.03 130 --refit-scales --ldlq-rows 1"
	[L16-rows4-t131k-refit-d0.03-2]="2 16 131072 0.03 450 --refit-scales --ldlq-rows 4"
	[L16-rows4-t131k-refit-d0.03-3]="3 16 131072 0.03 450 --refit-scales --ldlq-rows 4"
	[L16-t131k-refit-d0.03-2]="2 16 131072 0.03 330 --refit-scales"
	[L16-t131k-refit-d0.03-3]="3 16 131072 0.03 330 --refit-scales"
	[seq-t131k-refit-d0.03-2]="2 12 131072 0.03 180 --refit-scales --sequential"
	[seq-t131k-refit-d0.03-3]="3 12 131072 0.03 180 --refit-scales --sequential"
	[tall-refit-d0.03-2]="2 12 2000000 0.03 360 --refit-scales"
	[asym-t65k-refit-2]="2 12 65536 0.1 250 --refit-scales --sequential --asymmetric"
)
# A: 131,072 calibration tokens, the scale refit and λ 0.03 at L 12, with the axis-0 LDLQ feedback block of 16
# (today's), 4 and 1 input features, at 2 and 3 bits (the Hessians collected once, cached). C and D: L 16 at 2 and at
# 3 bits (one call each: L 16 codes at ≈ 150-300 µs a weight per core). B: λ 0.1 and 0.01, sequential Hessians. E:
# every token of calib.txt (≈ 4 minutes of calibration). F: L 16 with the feedback block of 4.
# Measured on the development machine (2 bits, L 8, first 20,000 bytes, 65,536 tokens, λ 0.03, refit): feedback
# block 16, 4, 2, 1: 1.0185, 1.0112, 1.0150, 1.0202 with proxy losses 0.0178-0.0174 (not monotone: differences of
# ±0.005 bits/byte are rounding noise on that slice); sequential Hessians 1.0192; the asymmetric variant (16,384
# tokens, λ 0.1) 1.0561 against 1.0261 sequential without it, so it is in no group.
declare -A G=(
	[A]="t131k-refit-d0.03-2 rows4-t131k-refit-d0.03-2 rows1-t131k-refit-d0.03-2 t131k-refit-d0.03-3 rows4-t131k-refit-d0.03-3 rows1-t131k-refit-d0.03-3"
	[B]="t131k-refit-2 t131k-refit-d0.01-2 seq-t131k-refit-d0.03-2 seq-t131k-refit-d0.03-3"
	[C]="L16-t131k-refit-d0.03-2"
	[D]="L16-t131k-refit-d0.03-3"
	[E]="tall-refit-d0.03-2"
	[F]="L16-rows4-t131k-refit-d0.03-2"
)

args=("$@")
[ ${#args[@]} -eq 0 ] && args=(A)
list=()
for a in "${args[@]}"; do
	if [ -n "${G[$a]:-}" ]; then list+=(${G[$a]}); elif [ -n "${V[$a]:-}" ]; then list+=("$a"); else
		echo "unknown variant or group $a (groups: A B C D E F; variants: ${!V[*]})" | tee -a "$OUT/run.log"
		exit 2
	fi
done

bpb() { # model, device, extra flags → bits/byte or "error"
	timeout 200 $B perplexity --model "$1" --file $M/heldout.txt --ctx 512 --device "$2" --quiet --json "${@:3}" 2>>"$OUT/run.log" |
		python3 -c "import json,sys
try: print('%.4f' % json.load(sys.stdin)['bits_per_byte'])
except Exception: print('error')"
}

{
	echo "| variant | bits | L | calib tokens | λ | flags | quantize s | CUDA whole heldout | CPU first 64 KiB | CUDA first 64 KiB |"
	echo "| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |"
} >"$OUT/sweep.md"
for n in "${list[@]}"; do
	read -r bits L tok damp est extra <<<"${V[$n]} "
	if [ $(($(el) + est)) -gt "$BUDGET" ]; then
		echo "| $n | $bits | $L | $tok | $damp | $extra | skipped (time) | | | |" | tee -a "$OUT/sweep.md"
		continue
	fi
	step "quantize $n: --bits $bits --L $L --calib-tokens $tok --damp $damp $extra"
	t=$(date +%s)
	# one Hessian cache per token count: the first variant of a count collects, the others read it (sequential
	# Hessians are collected per layer, never cached)
	cache="--hessians /tmp/hessians-$tok.bin"
	case "$extra" in *--sequential*) cache= ;; esac
	# shellcheck disable=SC2086
	timeout 500 $B quantize --model $M --bits "$bits" --L "$L" --rht --axis0 --calib $M/calib.txt --calib-tokens "$tok" \
		--damp "$damp" $cache $extra --out "models/$n" --force --quiet >>"$OUT/run.log" 2>&1
	rc=$?
	qs=$(($(date +%s) - t))
	if [ $rc -ne 0 ]; then
		echo "| $n | $bits | $L | $tok | $damp | $extra | failed rc $rc after ${qs}s | | | |" | tee -a "$OUT/sweep.md"
		continue
	fi
	echo "$n sha256 $(sha256sum "models/$n/model.safetensors" | cut -c1-16)" >>"$OUT/run.log"
	step "perplexity $n"
	whole=$(bpb "models/$n" cuda)
	cpu=-
	if [ "$CPU" = all ] || { [ "$CPU" = first ] && [ "$n" = "${list[0]}" ]; }; then
		cpu=$(bpb "models/$n" cpu --max-bytes 65536)
	fi
	part=$(bpb "models/$n" cuda --max-bytes 65536)
	echo "| $n | $bits | $L | $tok | $damp | $extra | $qs | $whole | $cpu | $part |" | tee -a "$OUT/sweep.md" "$OUT/run.log"
done
step "done"
cat "$OUT/sweep.md"
