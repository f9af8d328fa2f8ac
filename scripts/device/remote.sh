#!/usr/bin/env bash
# remote.sh: what runs ON the device machine (NVIDIA H200, CUDA 13, no Go), started by the device tool as
#
#   run(command="bash scripts/device/remote.sh [phase...]", carry=[".devbin", ".devdata"])
#
# after scripts/device/cuda-check.sh built .devbin/ and .devdata/ here. Each phase runs a test binary in its own
# process (a kernel fault poisons a CUDA context, so one bad kernel cannot take the later phases with it), with
# MLXBUN_CUDA=1 so GPU tests run and fail rather than skip. .devbin/driver.test is the runtime
# (internal/cuda/driver), .devbin/cuda.test the backend (internal/cuda), whose TestConformance runs every
# internal/verify case against the CPU backend (one subtest per case, "TestConformance/<op> <shape>"):
#
#   runtime      the runtime's tests (driver wrappers, NVRTC, graphs, cuBLASLt) and benchmarks (copy bandwidth,
#                GEMM rate, launch cost plain and from graphs, purego call and Device.Do round trip)
#   compile      every backend kernel through NVRTC 13 with the ptxas report; kernel tables
#   ops          conformance: Embed, RMSNorm, Add, SwiGLU, Rope, Argmax in f32 and bf16 activations
#   matmul       conformance: MatMul at fixture, Qwen3-0.6B and 14B shapes, n = 1..9 and 512, f32/bf16 out
#   attention    conformance: Attention (split, prompt and rows forms)
#   fusion       conformance: the fused op sequences (with their launch counts) and graph record/replay
#   conformance  all of TestConformance at once (the four phases above)
#   models       every fixture model: prompt logits vs golden, greedy continuation; quantized KL; LoRA adapters
#   exl3         the EXL3 layers' conformance cases (TestConformance/MatMul/exl3) and TestEXL3Models: the EXL3 fixtures
#                cuda-check.sh copied (MLXBUN_DEV_EXL3) against the CPU and exllamav3's logits and bits/byte
#   timing       benchmarks: GEMV µs at the 14B shapes; pycoder decode with and without graphs
#   lab          benchmark: every GEMV form and k-split at the 14B and 0.6B decode shapes (promote by hand)
#   synthetic    the CLI: mlxbun bench --synthetic <preset> --device cuda --profile -r 3 for each preset in
#                MLXBUN_CUDA_BENCH (default qwen3-0.6b,qwen3-14b): pp512, tg128, per-kernel decode profile
#   bench        the CLI: mlxbun bench with BENCH_ARGS (default --synthetic qwen3-14b --device cuda --profile -r 3)
#
# No phase named: compile ops matmul attention fusion models timing synthetic. Logs land under $OUT (tests.log,
# bench.log, env.log, summary.txt); the summary (pass/fail per phase, every MISMATCH line, benchmark results, the
# measurement tables) is printed last.
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
[ ${#phases[@]} -gt 0 ] || phases=(compile ops matmul attention fusion models timing synthetic)

summary="$OUT/summary.txt"
: >"$summary"
rc=0
# run_phase name timeout-seconds binary test-flags... (VAR=value words before the binary go to env)
run_phase() {
	local name=$1 limit=$2
	shift 2
	local start=$SECONDS
	echo "=== phase $name" | tee -a "$OUT/tests.log"
	timeout "$((limit + 15))" env "$@" -test.v -test.count=1 -test.timeout="${limit}s" >"$OUT/phase.log" 2>&1
	local r=$?
	cat "$OUT/phase.log" >>"$OUT/tests.log"
	local verdict=PASS
	[ $r -eq 0 ] || { verdict="FAIL (exit $r)"; rc=1; }
	{
		echo "## $name: $verdict in $((SECONDS - start)) s"
		grep -E 'MISMATCH|^--- FAIL|panic:|cuda backend:|SIGSEGV|nvrtc compile|_test.go:[0-9]+: (cuda|device|cublas|libraries|nvrtc) ' "$OUT/phase.log" | head -60
		grep -E '^Benchmark' "$OUT/phase.log"
		sed -n '/==== mlxbun CUDA measurements ====/,$p' "$OUT/phase.log" | grep -v '^====' | grep -vE '^(PASS|FAIL|ok)'
	} >>"$summary"
	rm -f "$OUT/phase.log"
}

C=.devbin/cuda.test
D=.devbin/driver.test
conf() { echo "^TestConformance\$/$1"; }
for p in "${phases[@]}"; do
	case $p in
	runtime) run_phase runtime 300 "$D" -test.run . -test.bench . -test.benchtime 0.5s ;;
	compile) run_phase compile 120 MLXBUN_PTXAS_V=1 "$C" -test.run '^(TestKernelsCompile|TestInstantiations|TestSelection|TestGemvParamsLayout)$' ;;
	ops) run_phase ops 150 "$C" -test.run "$(conf '^(Embed|RMSNorm|Add|SwiGLU|Rope|Argmax|LoRA)')" ;;
	matmul) run_phase matmul 300 "$C" -test.run "$(conf '^MatMul')" ;;
	attention) run_phase attention 200 "$C" -test.run "$(conf '^Attention')" ;;
	fusion) run_phase fusion 150 "$C" -test.run "$(conf '^(Fused|Record)')" ;;
	conformance) run_phase conformance 590 "$C" -test.run '^TestConformance$' ;;
	models) run_phase models 200 "$C" -test.run '^(TestBackendModels|TestQuantizedKL|TestAdapters)$' ;;
	exl3)
		run_phase exl3-conformance 300 "$C" -test.run "$(conf '^MatMul')/^exl3 "
		run_phase exl3-models 300 "$C" -test.run '^TestEXL3Models$'
		;;
	timing) run_phase timing 200 "$C" -test.run '^$' -test.bench '^(BenchmarkGEMV|BenchmarkDecode)$' -test.benchtime 200x ;;
	lab) run_phase lab 300 "$C" -test.run '^$' -test.bench '^BenchmarkGEMVLab$' -test.benchtime 40x ;;
	synthetic | bench)
		if [ ! -x .devbin/mlxbun ]; then
			echo "## $p: no .devbin/mlxbun" >>"$summary"
			continue
		fi
		if [ "$p" = synthetic ]; then
			IFS=, read -r -a runs <<<"${MLXBUN_CUDA_BENCH:-qwen3-0.6b,qwen3-14b}"
			for i in "${!runs[@]}"; do runs[i]="--synthetic ${runs[i]} --device cuda --profile -r 3"; done
		else
			runs=("${BENCH_ARGS:---synthetic qwen3-14b --device cuda --profile -r 3}")
		fi
		for args in "${runs[@]}"; do
			echo "=== phase $p: mlxbun bench $args" | tee -a "$OUT/bench.log"
			start=$SECONDS
			# shellcheck disable=SC2086
			timeout 300 .devbin/mlxbun bench $args >"$OUT/phase.log" 2>&1
			r=$?
			cat "$OUT/phase.log" >>"$OUT/bench.log"
			[ $r -eq 0 ] || rc=1
			{
				echo "## $p ($args): exit $r in $((SECONDS - start)) s"
				head -60 "$OUT/phase.log"
			} >>"$summary"
			rm -f "$OUT/phase.log"
		done
		;;
	*) echo "unknown phase $p" >>"$summary" ;;
	esac
done

nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader >>"$OUT/env.log" 2>&1
echo
cat "$summary"
echo "remote.sh exit $rc"
exit $rc
