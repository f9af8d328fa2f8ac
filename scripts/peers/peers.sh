#!/usr/bin/env bash
# peers.sh: the peer benchmark of issue 9, ON the GPU machine, in phases (one device call runs ≤ 10 minutes, so a
# session runs it as a few calls; every phase appends JSON lines under $OUT that table.py turns into the tables).
# Everything it reads travels in the git-ignored .peers/ folder, made here:
#   bash scripts/peers/pack-llama.sh                      → .peers/llama.cpp.tgz (+ .commit)
#   bash scripts/peers/pack-exllamav3.sh                  → .peers/exllamav3.tgz, .peers/fixtures (Qwen3 tokenizer,
#                                                           pycoder-12m without calib.txt)
#   CGO_ENABLED=0 GOEXPERIMENT=simd go build -trimpath -ldflags '-s -w' -o .peers/mlxbun ./cmd/mlxbun
# then run(command="bash scripts/peers/peers.sh PHASES", carry=[...]) naming the .peers paths the phases need
# (64 MiB a call with the tree: the llama.cpp build pieces are 43 MB, so a call carrying them leaves exllamav3's
# snapshot and the mlxbun binary to another call). Phases:
#   llama-build   build llama.cpp (CUDA sm_90) and send it back as $OUT/llama-bin.tar.xz.NN; put those pieces in
#                 .peers/ here and later calls unpack them instead of building
#   llama         llama.cpp rows (SHAPES, TYPES env; LLAMA_BUDGET seconds; LLAMA_BF16=0 leaves out the BF16 row), pycoder
#                 rows when .peers/fixtures/pycoder-12m
#   mlxbun        mlxbun rows (SHAPES; PRECISIONS, default bf16,4,3,2)
#   exl3          exllamav3: build, quality (pycoder-12m), speed rows (scripts/peers/exl3_run.sh; .peers/exllamav3.tgz
#                 and .peers/fixtures from pack-exllamav3.sh)
#   table         $OUT/peers.md from every rows file under $OUT and .peers/rows/
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
P=$root/.peers
S=$root/scripts/peers
OUT=${OUT:-/tmp/peers-out}
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
SHAPES=${SHAPES:-qwen3-0.6b,qwen3-14b}
T0=$(date +%s)
step() { echo "=== +$(($(date +%s) - T0))s $*" | tee -a "$OUT/peers.log"; }
work=/tmp/peers-work
# The 14B bf16 GGUF (29.5 GB) goes to memory when /dev/shm can hold it, else to the disk.
if [ "$(df --output=avail -B1G /dev/shm 2>/dev/null | tail -1)" -gt 40 ] 2>/dev/null; then work=/dev/shm/peers-work; fi
{
	nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
	nvcc --version | tail -1
	python3 -c 'import torch; print("torch", torch.__version__)'
} 2>&1 | tee -a "$OUT/peers.log"
for phase in "$@"; do
	step "$phase"
	case $phase in
	llama-build)
		bash "$S/llama-build.sh" 2>&1 | tee -a "$OUT/peers.log"
		;;
	llama)
		if [ ! -x "$P/llama-bin/llama-bench" ]; then
			cat "$P"/llama-bin.tar.xz.* | xz -d | tar xf - -C "$P" || { echo "no llama.cpp build carried"; continue; }
		fi
		fx=$P/fixtures
		mkdir -p /tmp/qwen3-tok && cp "$fx/qwen3-tokenizer/tokenizer_config.json" /tmp/qwen3-tok/ &&
			gunzip -c "$fx/qwen3-tokenizer/tokenizer.json.gz" >/tmp/qwen3-tok/tokenizer.json
		extra=()
		[ "${LLAMA_BF16:-1}" = 0 ] && extra+=(--skip-bf16)
		if [ -d "$fx/pycoder-12m" ]; then
			head -c 65536 "$fx/pycoder-12m/heldout.txt" >/tmp/heldout64k.txt
			extra+=(--pycoder "$fx/pycoder-12m" --text /tmp/heldout64k.txt)
		fi
		LLAMA_COMMIT=$(cat "$P/llama.cpp.commit" 2>/dev/null) python3 "$S/llama_bench.py" --bin "$P/llama-bin" --tokenizer /tmp/qwen3-tok --work "$work" --out "$OUT" \
			--shapes "$SHAPES" --types "${TYPES:-Q4_K_M,Q3_K_M,IQ3_XXS,Q2_K}" --budget "${LLAMA_BUDGET:-1e9}" \
			"${extra[@]}" 2>&1 | tee -a "$OUT/peers.log"
		;;
	mlxbun)
		python3 "$S/mlxbun_rows.py" --bin "$P/mlxbun" --out "$OUT" --shapes "$SHAPES" --precisions "${PRECISIONS:-bf16,4,3,2}" 2>&1 | tee -a "$OUT/peers.log"
		;;
	exl3)
		# exl3_run.sh's own steps (EXL3_STEPS, default build quality speed) over MODELS (default: SHAPES).
		MODELS=${MODELS:-${SHAPES//,/ }} bash "$S/exl3_run.sh" ${EXL3_STEPS:-build quality speed} 2>&1 | tee -a "$OUT/peers.log"
		;;
	table)
		python3 "$S/table.py" "$OUT"/*rows.jsonl $(ls "$OUT"/exl3_results.jsonl 2>/dev/null) $(ls "$P"/rows/*.jsonl 2>/dev/null) >"$OUT/peers.md" 2>>"$OUT/peers.log"
		cat "$OUT/peers.md"
		;;
	*) echo "peers.sh: unknown phase $phase" ;;
	esac
done
step done
