#!/usr/bin/env bash
# acceptance.sh: the CLI-level CUDA acceptance run, ON the device machine (after scripts/device/cuda-check.sh built
# .devbin/ and .devdata/ here; build .devbin/mlxbun with GOEXPERIMENT=simd so the CPU oracle is fast):
#
#   run(command="tar xzf .devpack/dev.tgz && bash scripts/device/acceptance.sh", carry=[".devpack"], timeout_s=560)
#
# verify-kernels (every case of internal/verify, heavy ones included) against the CPU oracle; bench rows for
# Qwen3-14B and Qwen3-0.6B shapes; generate on every fixture model (greedy ids as JSON, checked here afterwards
# against the goldens); a real out-of-memory; compute-sanitizer memcheck on the conformance cases but MatMul.
# Logs under $OUT.
set -u -o pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/mlxbun-out}
mkdir -p "$OUT"
export MLXBUN_CUDA=1 MLXBUN_CUDA_CACHE_DIR=/tmp/mlxbun-cuda-cache
B=.devbin/mlxbun
step() { echo "=== $*" | tee -a "$OUT/acceptance.log"; }

step verify-kernels
timeout 240 $B verify-kernels --device cuda >"$OUT/verify.md" 2>&1
echo "verify-kernels exit $?" | tee -a "$OUT/acceptance.log"
tail -3 "$OUT/verify.md"; grep FAIL "$OUT/verify.md" | head -20

for m in qwen3-14b qwen3-0.6b; do
	step "bench $m"
	timeout 150 $B bench --synthetic $m --dtype bf16 --device cuda -r 5 --profile >"$OUT/bench-$m.md" 2>&1
	echo "bench $m exit $?" | tee -a "$OUT/acceptance.log"
	head -6 "$OUT/bench-$m.md"; grep -E "launches per token|peak device" "$OUT/bench-$m.md"
done

step generate
for d in .devdata/models/* .devdata/trained/pycoder-12m; do
	ids=$(python3 -c "import json,sys;g=json.load(open('$d/golden.json'));print(','.join(map(str,g['prompt_ids'])))")
	n=$(python3 -c "import json;print(len(json.load(open('$d/golden.json'))['greedy_new_ids']))")
	timeout 60 $B generate --model "$d" --device cuda --prompt-ids "$ids" --max-tokens "$n" --ignore-eos --json >"$OUT/gen-$(basename $d).json" 2>>"$OUT/acceptance.log"
	echo "generate $(basename $d) exit $?" | tee -a "$OUT/acceptance.log"
done
timeout 60 $B generate --model .devdata/trained/pycoder-12m --device cuda --prompt "def fibonacci(n):" --no-chat-template --max-tokens 120 --temp 0.7 --top-p 0.95 --seed 1 >"$OUT/gen-text.txt" 2>&1
cat "$OUT/gen-text.txt"

step device-choice
Q=.devdata/quantized/tiny-qwen3-3bit
if [ -d "$Q" ]; then
	# auto on a model CUDA cannot serve: one info line naming the device and why, then it runs.
	timeout 60 $B generate --model "$Q" --device auto --prompt-ids 1,2,3 --max-tokens 4 --json >"$OUT/auto.json" 2>"$OUT/auto.err"
	echo "auto on trellis exit $?" | tee -a "$OUT/acceptance.log"; grep -i device "$OUT/auto.err" | tee -a "$OUT/acceptance.log"
	# forced cuda: fails before any upload, naming the layer and its format.
	timeout 60 $B generate --model "$Q" --device cuda --prompt-ids 1,2,3 --max-tokens 4 >"$OUT/forced.txt" 2>&1
	echo "forced cuda on trellis exit $? ($(wc -l <"$OUT/forced.txt") line)" | tee -a "$OUT/acceptance.log"; cat "$OUT/forced.txt" | tee -a "$OUT/acceptance.log"
else
	echo "no quantized artifact under $Q" | tee -a "$OUT/acceptance.log"
fi

step out-of-memory
timeout 60 $B generate --model .devdata/trained/pycoder-12m --device cuda --prompt-ids 1,2,3 --max-kv-size 80000000 >"$OUT/oom.txt" 2>&1
echo "oom exit $? ($(wc -l <"$OUT/oom.txt") line)" | tee -a "$OUT/acceptance.log"; cat "$OUT/oom.txt"

step memcheck
if command -v compute-sanitizer >/dev/null || [ -x /usr/local/cuda/bin/compute-sanitizer ]; then
	CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
	timeout 200 "$CS" --tool memcheck --error-exitcode 9 .devbin/cuda.test -test.count=1 \
		-test.run '^TestConformance$/^(Embed|RMSNorm|Add|SwiGLU|Rope|Argmax|Attention|Fused|Record)' >"$OUT/memcheck.log" 2>&1
	echo "memcheck exit $?" | tee -a "$OUT/acceptance.log"
	grep -E "ERROR SUMMARY|^(ok|FAIL|PASS)" "$OUT/memcheck.log" | tail -5
else
	echo "no compute-sanitizer" | tee -a "$OUT/acceptance.log"
fi
cat "$OUT/acceptance.log"
