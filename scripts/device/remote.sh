#!/usr/bin/env bash
# remote.sh: what runs ON the device machine (NVIDIA H200, CUDA 13, no Go), started by the device tool as
#
#   run(command="bash scripts/device/remote.sh [phase...]", carry=[".devbin", ".devdata"])
#
# after scripts/device/cuda-check.sh built .devbin/ and .devdata/ here. Each phase runs the test binary in its own
# process (a kernel fault poisons a CUDA context, so one bad kernel cannot take the later phases with it), with
# MLXBUN_CUDA=1 so GPU tests run and fail rather than skip:
#
#   runtime    the runtime layer's own tests and measurements (TestGPU*: bandwidth, GEMM, launch overhead)
#   compile    every backend kernel through NVRTC 13 with the ptxas report; kernel tables
#   ops        elementwise ops, embed, RMSNorm, rope, argmax, graph replay against the CPU backend
#   matmul     MatMul at fixture and Qwen3-14B shapes, n = 1..9 and 512
#   attention  Attention (split, prompt and rows forms) against the CPU backend
#   models     every fixture model: prompt logits vs golden, greedy continuation
#   timing     GEMV µs at the 14B shapes; pycoder decode with and without graphs
#   lab        every GEMV form and k-split at the 14B and 0.6B decode shapes (promote winners by hand)
#   synthetic  pp512/tg128 and a decode profile of synthetic qwen3-0.6b and qwen3-14b (MLXBUN_CUDA_BENCH overrides)
#   bench      the CLI: mlxbun bench --synthetic qwen3-14b --device cuda --profile (BENCH_ARGS overrides)
#
# No phase named: all but runtime, lab and bench. Logs land under $OUT (tests.log, bench.log, env.log, summary.txt);
# the summary (pass/fail per phase, every MISMATCH line, the measurement tables) is printed last.
set -u -o pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/mlxbun-out}
mkdir -p "$OUT"

export MLXBUN_CUDA=1
export MLXBUN_CUDA_CACHE_DIR=/tmp/mlxbun-cuda-cache

{
	date -u
	nvidia-smi
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
	ldconfig -p | grep -E 'libcuda\.so|libnvrtc|libcublasLt' || echo "(none in ldconfig)"
} >"$OUT/env.log" 2>&1
grep -E 'Driver Version|NVIDIA H' "$OUT/env.log" | head -2

phases=("$@")
[ ${#phases[@]} -gt 0 ] || phases=(compile ops matmul attention models timing synthetic)

summary="$OUT/summary.txt"
: >"$summary"
rc=0
T=.devbin/cuda.test
run_phase() { # name, timeout seconds, -test.run pattern, extra env...
	local name=$1 limit=$2 pattern=$3
	shift 3
	local start=$SECONDS
	echo "=== phase $name" | tee -a "$OUT/tests.log"
	env "$@" timeout "$limit" "$T" -test.v -test.count=1 -test.timeout="${limit}s" -test.run "$pattern" >"$OUT/phase.log" 2>&1
	local r=$?
	cat "$OUT/phase.log" >>"$OUT/tests.log"
	local verdict=PASS
	[ $r -eq 0 ] || { verdict="FAIL (exit $r)"; rc=1; }
	{
		echo "## $name: $verdict in $((SECONDS - start)) s"
		grep -E 'MISMATCH|^--- FAIL|panic:|cuda backend:|SIGSEGV|nvrtc compile|_test.go:[0-9]+: (cuda|device|cublas)' "$OUT/phase.log" | head -40
		sed -n '/==== mlxbun CUDA measurements ====/,$p' "$OUT/phase.log" | grep -v '^====' | grep -vE '^(PASS|FAIL|ok)' 
	} >>"$summary"
	rm -f "$OUT/phase.log"
}

for p in "${phases[@]}"; do
	case $p in
	runtime) run_phase runtime 200 '^TestGPU' ;;
	compile) run_phase compile 120 '^(TestKernelsCompile|TestInstantiations|TestSelection|TestCompileOptions)$' MLXBUN_PTXAS_V=1 ;;
	ops) run_phase ops 120 '^(TestBackendOps.*|TestBackendArgmax|TestBackendRecord|TestBackendFusion)$' ;;
	matmul) run_phase matmul 200 '^TestBackendMatMul$' ;;
	attention) run_phase attention 150 '^TestBackendAttention$' ;;
	models) run_phase models 150 '^TestBackendModels$' ;;
	timing) run_phase timing 150 '^(TestBackendGEMVTiming|TestBackendDecodeGraphs)$' ;;
	lab) run_phase lab 200 '^TestBackendGEMVLab$' ;;
	synthetic) run_phase synthetic 300 '^TestBackendSynthetic$' MLXBUN_CUDA_BENCH="${MLXBUN_CUDA_BENCH:-qwen3-0.6b,qwen3-14b}" ;;
	bench)
		if [ -x .devbin/mlxbun ]; then
			echo "=== phase bench" | tee -a "$OUT/bench.log"
			# shellcheck disable=SC2086
			timeout 300 .devbin/mlxbun bench ${BENCH_ARGS:---synthetic qwen3-14b --device cuda --profile -r 3} >>"$OUT/bench.log" 2>&1
			r=$?
			{
				echo "## bench: exit $r"
				tail -40 "$OUT/bench.log"
			} >>"$summary"
		else
			echo "## bench: no .devbin/mlxbun" >>"$summary"
		fi
		;;
	*) echo "unknown phase $p" >>"$summary" ;;
	esac
done

nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader >>"$OUT/env.log" 2>&1
echo
cat "$summary"
echo "remote.sh exit $rc"
exit $rc
