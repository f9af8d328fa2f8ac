#!/usr/bin/env bash
# exl3_goldens.sh: EXL3 fixtures of settings shared/fixtures/exl3 lacks (another codebook, fractional bits that mix
# K across tensors, other head bits), made ON the GPU machine by exllamav3's converter and scored by its forward
# (scripts/device/exl3_goldens.py says what each holds). Here first: `bash scripts/peers/pack-exllamav3.sh` (the
# exllamav3 snapshot and pycoder-12m into the git-ignored .peers/), then one device call:
#
#   run(command="bash scripts/device/exl3_goldens.sh", carry=[".peers"])
#
# Env: SETTINGS (default "2.5:3inst:8 3.5:mcg:5 5.0:mul1:8", BITS:CODEBOOK:HEAD_BITS, at most 8), EXL3_WORK
# (default build/exl3), PEERS (default .peers). Each setting comes back as $OUT/pycoder-12m-exl3-B-CB-hbH.tgz: unpack
# it into ../shared/fixtures/exl3/ and internal/model's TestEXL3Fixtures and internal/eval's TestEXL3Perplexity
# check the CPU against it (they take every directory there that has an exl3_golden.json).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export PEERS=${PEERS:-$root/.peers}
export EXL3_WORK=${EXL3_WORK:-$root/build/exl3}
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/exl3-goldens}
SETTINGS=${SETTINGS:-2.5:3inst:8 3.5:mcg:5 5.0:mul1:8}
mkdir -p "$OUT" "$EXL3_WORK"
[ -f "$PEERS/fixtures/pycoder-12m/golden.json" ] || { echo "exl3_goldens: no $PEERS/fixtures/pycoder-12m/golden.json (run scripts/peers/pack-exllamav3.sh here)" >&2; exit 1; }
bash scripts/peers/exl3_build.sh
# shellcheck disable=SC1091
source "$EXL3_WORK/env.sh"
# shellcheck disable=SC2086
python3 scripts/device/exl3_goldens.py --pycoder "$PEERS/fixtures/pycoder-12m" --out "$OUT" --work "$EXL3_WORK/goldens" $SETTINGS
