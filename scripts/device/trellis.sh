#!/usr/bin/env bash
# trellis.sh: the quantized-layer CUDA run (issue 8), ON the device machine, from a folder holding the mlxbun binary
# and the quantized fixtures (models/): verify-kernels for every quantized form, CUDA-vs-CPU greedy tokens on the
# quantized fixtures (default and exact arithmetic), bench of the synthetic Qwen3-14B trellis shape with the
# per-kernel profile (and lab variants of the launch shape), perplexity of pycoder-12m 3-bit on both devices,
# compute-sanitizer memcheck on the fixture-shape cases, and the SASS of the one-row 3-bit kernels. Built here:
#
#   mkdir -p D/models && go build -trimpath -ldflags '-s -w' -o D/mlxbun ./cmd/mlxbun   (CGO_ENABLED=0, GOEXPERIMENT=simd)
#   mlxbun quantize --model .../tiny-qwen3 --bits 3 --out D/models/tiny-qwen3-3bit     (and 2, 4, 4 + --embeddings affine8,
#   pycoder-12m at 3 bits), cp this script and pycoder's heldout.txt into D
#   run(command="bash D/trellis.sh", carry=["D"], timeout_s=400)
#
# Files under $OUT (at most 8): run.log, verify-trellis.md, verify-affine.md, greedy.txt, bench.md, sass.txt, memcheck.log.
set -u -o pipefail
cd "$(dirname "$0")"
OUT=${OUT:-/tmp/mlxbun-out}
mkdir -p "$OUT"
export MLXBUN_CUDA_CACHE_DIR=/tmp/mlxbun-cuda-cache
B=./mlxbun
T0=$(date +%s)
step() { echo "=== +$(($(date +%s) - T0))s $*" | tee -a "$OUT/run.log"; }
nvidia-smi -L 2>&1 | tee -a "$OUT/run.log"

step "verify-kernels MatMul/trellis (first start compiles the kernels)"
timeout 200 $B verify-kernels --device cuda --only MatMul/trellis >"$OUT/verify-trellis.md" 2>&1
echo "verify trellis exit $?" | tee -a "$OUT/run.log"
tail -2 "$OUT/verify-trellis.md" | tee -a "$OUT/run.log"
step "verify-kernels MatMul/affine"
timeout 60 $B verify-kernels --device cuda --only MatMul/affine >"$OUT/verify-affine.md" 2>&1
echo "verify affine exit $?" | tee -a "$OUT/run.log"
tail -2 "$OUT/verify-affine.md" | tee -a "$OUT/run.log"

step "greedy tokens, cuda (default, exact) against cpu"
TQ=1326,617,1617,197,296,385,1497,237,879,153,352,1776,1712,286,985,371,1738,242,507,914,253,1624,203,905
PY=$(python3 -c "import json;print(','.join(map(str,json.load(open('pycoder.json'))['prompt_ids'])))")
for m in models/*; do
	ids=$TQ
	n=32
	case $m in *pycoder*) ids=$PY n=64 ;; esac
	for dev in cpu cuda exact; do
		d=$dev
		env=""
		[ $dev = exact ] && d=cuda env="MLXBUN_CUDA_EXACT=1"
		env $env timeout 60 $B generate --model "$m" --device $d --prompt-ids "$ids" --max-tokens $n --ignore-eos --json \
			>"/tmp/gen-$(basename $m)-$dev.json" 2>>"$OUT/run.log"
	done
	python3 - "$m" >>"$OUT/greedy.txt" 2>&1 <<'PY'
import json, sys
m = sys.argv[1].split('/')[-1]
g = {d: json.load(open(f'/tmp/gen-{m}-{d}.json'))['generated_ids'] for d in ('cpu', 'cuda', 'exact')}
for d in ('cuda', 'exact'):
    same = next((i for i, (a, b) in enumerate(zip(g['cpu'], g[d])) if a != b), len(g['cpu']))
    print(f"{m:24s} {d:6s} agrees with cpu on {same}/{len(g['cpu'])} tokens" + ("" if same == len(g['cpu']) else f" (cpu {g['cpu'][same:same+4]} vs {g[d][same:same+4]})"))
PY
done
cat "$OUT/greedy.txt" | tee -a "$OUT/run.log"

step "bench qwen3-14b 3-bit (default arithmetic)"
MLXBUN_CUDA_DEBUG=1 timeout 150 $B bench --synthetic qwen3-14b --bits 3 --device cuda -p 512 -n 128 -r 3 --profile \
	>"$OUT/bench.md" 2>/tmp/bench-debug.log
echo "bench exit $?" | tee -a "$OUT/run.log"
grep -E "MatMul model.layers.0\.|trellis_gemv|affine_gemv|splitk|expand" /tmp/bench-debug.log | sort | uniq -c | head -40 >>"$OUT/run.log"
for v in "MLXBUN_CUDA_EXACT=1" "MLXBUN_CUDA_QGEMV_I8=0" "MLXBUN_CUDA_QGEMV_I8=1" "MLXBUN_CUDA_QGEMV_I8=1 MLXBUN_CUDA_QGEMV_U=1" "MLXBUN_CUDA_QGEMV_R=4" "MLXBUN_CUDA_QGEMV_PF=1" "MLXBUN_CUDA_QGEMV_R=4 MLXBUN_CUDA_QGEMV_PF=1" "MLXBUN_CUDA_QGEMV_BLOCKS=8"; do
	step "bench qwen3-14b 3-bit $v"
	echo "## $v" >>"$OUT/bench.md"
	env $v timeout 60 $B bench --synthetic qwen3-14b --bits 3 --device cuda -p 0 -n 64 -r 2 --profile >>"$OUT/bench.md" 2>&1
done
for k in 2 4; do
	step "bench qwen3-14b $k-bit"
	echo "## $k-bit" >>"$OUT/bench.md"
	timeout 70 $B bench --synthetic qwen3-14b --bits $k --device cuda -p 512 -n 64 -r 2 --profile >>"$OUT/bench.md" 2>&1
done

step "perplexity pycoder-12m 3-bit, first 64 KiB of heldout.txt"
for d in cuda cpu; do
	timeout 100 $B perplexity --model models/pycoder-12m-3bit --file heldout.txt --max-bytes 65536 --device $d --quiet --json \
		2>&1 | tee -a "$OUT/run.log"
done

step "sass of the one-row 3-bit kernels"
if command -v cuobjdump >/dev/null; then
	for f in "$MLXBUN_CUDA_CACHE_DIR"/*.cubin; do
		for k in trellis_gemv1_k3_n1_r2_fac trellis_gemv0_k3_n1_fac trellis_gemv1_k3_n8_r2_fac; do
			cuobjdump -sass -fun $k "$f" 2>/dev/null
		done
	done >"$OUT/sass.txt"
	ls -la "$OUT/sass.txt" | tee -a "$OUT/run.log"
fi

step "memcheck, fixture-shape quantized cases"
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ -x "$CS" ]; then
	timeout 90 "$CS" --tool memcheck --error-exitcode 9 $B verify-kernels --device cuda --only "pycoder-12m k3" >"$OUT/memcheck.log" 2>&1
	echo "memcheck exit $?" | tee -a "$OUT/run.log"
	grep -E "ERROR SUMMARY|passed" "$OUT/memcheck.log" | tail -3 | tee -a "$OUT/run.log"
fi
step done
