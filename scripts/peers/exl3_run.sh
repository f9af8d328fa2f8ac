#!/usr/bin/env bash
# exl3_run.sh: exllamav3's whole part of the peer benchmark (issue 9) in one device call, ON the GPU machine:
#
#   run(command="bash scripts/peers/exl3_run.sh [build] [speed] [quality]", carry=[".peers"])
#
# after `bash scripts/peers/pack-exllamav3.sh` here. No stage named: all three.
#   build    scripts/peers/exl3_build.sh (skipped when the cache under $EXL3_WORK already holds this commit's build)
#   speed    for each model in $MODELS and bpw in $BITS: exl3_synth.py writes the EXL3 directory, exl3_bench.py speed
#            measures it (pp512, tg128, median of $RUNS after a warm-up, peak memory), the directory is deleted
#   quality  exl3_bench.py quality: exllamav3's converter on pycoder-12m at $QBITS, bits/byte (ctx 512, 64 KiB)
# MLXBUN=PATH (an mlxbun binary, e.g. unpacked from .devpack): speed also runs `mlxbun bench --model DIR --device
# cuda -p 512 -n 128 -r $RUNS` on each directory exllamav3 just measured (the same files, before they are deleted),
# its table into $OUT/mlxbun-exl3-MODEL-BITS.md and its rows into the log (issue 18's same-directory comparison).
# Env: MODELS="qwen3-0.6b qwen3-14b", BITS="2 3 4", QBITS="2 3 4", RUNS=3, EXL3_WORK=build/exl3 (git-ignored, so kept
# between calls while the machine is warm), PEERS=.peers, BUDGET_S=570: a step whose rough cost (NEED_14B_S=150,
# NEED_SMALL_S=45, NEED_QUALITY_S=240: guesses, not measurements) would overrun the call's budget is skipped with a
# line saying so, rather than the call being killed mid-step at the device's 600 s.
# Every stage that runs builds first if needed, so a call on a fresh machine may run any stage alone (the build is
# a few minutes of the call's 10). Result lines (`exl3-result {json}`, `exl3-quality {json}`) go to stdout and to
# $OUT/exl3_results.jsonl; logs to $OUT/exl3.log (OUT is set by the device tool; /tmp/exl3-out otherwise).
set -uo pipefail
rc=0
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export PEERS=${PEERS:-$root/.peers}
export EXL3_WORK=${EXL3_WORK:-$root/build/exl3}
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/exl3-out}
mkdir -p "$OUT" "$EXL3_WORK"
MODELS=${MODELS:-qwen3-0.6b qwen3-14b}
BITS=${BITS:-2 3 4}
QBITS=${QBITS:-2 3 4}
RUNS=${RUNS:-3}
BUDGET_S=${BUDGET_S:-570}
# time_for NEED WHAT: true when NEED seconds are left of the budget; else says what is skipped.
time_for() {
	if [ $((SECONDS + $1)) -gt "$BUDGET_S" ]; then
		log "SKIPPED $2: ${SECONDS} s used of ${BUDGET_S}, it needs about $1 s (run it in another call)"
		rc=3
		return 1
	fi
}
log() { printf '%s exl3_run: %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$OUT/exl3.log" >&2; }

stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(build speed quality)
for s in "${stages[@]}"; do
	case $s in build | speed | quality) ;; *) log "unknown stage '$s' (build, speed, quality)"; exit 2 ;; esac
done

{
	date -u
	nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
	python3 -c 'import torch, triton; print("torch", torch.__version__, "cuda", torch.version.cuda, "triton", triton.__version__)'
	nvcc --version | tail -2
	cat "$PEERS/exllamav3.commit" 2>/dev/null
	df -h "$EXL3_WORK" | tail -1
} >>"$OUT/exl3.log" 2>&1

bash scripts/peers/exl3_build.sh 2>&1 | tee -a "$OUT/exl3.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || { log "build failed: no exllamav3 rows"; exit 1; }
# shellcheck disable=SC1091
source "$EXL3_WORK/env.sh"
export EXL3_SRC="$EXL3_WORK/src/exllamav3"

results="$OUT/exl3_results.jsonl"
# stdout of the Python steps: everything to the log, the result lines also to the results file and the screen.
emit() { tee -a "$OUT/exl3.log" | grep -E '^exl3-(result|quality) ' | tee -a "$results"; }
# step_ok RC WHAT: appends the step's stderr to the log; on failure names the step and its last stderr line.
err="$EXL3_WORK/step.err"
step_ok() {
	cat "$err" >>"$OUT/exl3.log" 2>/dev/null
	[ "$1" -eq 0 ] && return 0
	log "FAILED $2 (exit $1): $(grep -v '^[[:space:]]*$' "$err" | tail -1)"
	rc=1
	return 1
}

for s in "${stages[@]}"; do
	case $s in
	speed)
		for m in $MODELS; do
			for b in $BITS; do
				dir="$EXL3_WORK/models/$m-$b.0"
				need=${NEED_SMALL_S:-45}
				[ "$m" = qwen3-14b ] && need=${NEED_14B_S:-150}
				time_for "$need" "speed $m $b.0 bpw" || continue
				log "speed: $m at $b.0 bpw"
				python3 scripts/peers/exl3_synth.py --arch "$m" --bits "$b" --out "$dir" \
					--tokenizer-dir "$PEERS/fixtures/qwen3-tokenizer" 2>"$err" | emit
				if ! step_ok "${PIPESTATUS[0]}" "synth $m $b.0"; then rm -rf "$dir"; continue; fi
				python3 scripts/peers/exl3_bench.py speed --model-dir "$dir" --label "$m" --bpw "$b" \
					--runs "$RUNS" 2>"$err" | emit
				step_ok "${PIPESTATUS[0]}" "bench $m $b.0"
				if [ -n "${MLXBUN:-}" ]; then
					log "speed: mlxbun on the same $m $b.0 bpw directory"
					timeout 200 "$MLXBUN" bench --model "$dir" --device cuda -p 512 -n 128 -r "$RUNS" \
						>"$OUT/mlxbun-exl3-$m-$b.md" 2>"$err"
					step_ok $? "mlxbun bench $m $b.0" && grep -E '^\| .*(pp512|tg128)' "$OUT/mlxbun-exl3-$m-$b.md" | tee -a "$OUT/exl3.log"
				fi
				rm -rf "$dir"
			done
		done
		;;
	quality)
		time_for "${NEED_QUALITY_S:-240}" "quality" || continue
		log "quality: pycoder-12m at $QBITS bpw"
		# shellcheck disable=SC2086
		python3 scripts/peers/exl3_bench.py quality --pycoder "$PEERS/fixtures/pycoder-12m" --bits $QBITS \
			2>"$err" | emit
		step_ok "${PIPESTATUS[0]}" "quality"
		cp -f "$EXL3_WORK"/quality/convert-*.log "$OUT"/ 2>/dev/null || true
		;;
	esac
done
log "done (rc $rc); results in $results"
exit $rc
