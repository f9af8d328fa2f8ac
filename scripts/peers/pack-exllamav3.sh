#!/usr/bin/env bash
# pack-exllamav3.sh: the pinned exllamav3 source snapshot for the peer benchmark (issue 9), made HERE into the
# git-ignored .peers/ folder that device calls carry (nothing of it is ever committed). It exports one commit's tree
# with git archive, less what neither the build nor the benchmark reads (docs and their images, eval texts and
# prompts, examples, science/ and tests/), and copies the fixtures the exllamav3 scripts read on the device (the
# Qwen3 tokenizer for the synthetic model directories; pycoder-12m and its held-out text for the quality rows),
# because ../shared does not travel with a device call. The tree goes as a gzipped tarball and the 11 MB tokenizer
# gzipped: a device call carries 64 MiB in all, the repository's own 18 MB included. exl3_build.sh unpacks the
# tarball on the device into its build cache.
#
#   bash scripts/peers/pack-exllamav3.sh [GIT_DIR] [COMMIT]
#     GIT_DIR  default /work/.mirror/turboderp-org+exllamav3/repo (a bare mirror; `fetch github:turboderp-org/exllamav3`)
#     COMMIT   default HEAD
#   → .peers/exllamav3.tgz (top folder exllamav3/, with .commit in it), .peers/exllamav3.commit,
#     .peers/fixtures/qwen3-tokenizer/{tokenizer.json.gz,tokenizer_config.json},
#     .peers/fixtures/pycoder-12m/{config,generation_config,tokenizer,tokenizer_config,golden}.json, model.safetensors, heldout.txt
set -euo pipefail
src=${1:-/work/.mirror/turboderp-org+exllamav3/repo}
rev=${2:-HEAD}
root=$(cd "$(dirname "$0")/../.." && pwd)
shared=${SHARED_FIXTURES:-$root/../shared/fixtures}
log() { printf '%s pack-exllamav3: %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

git -C "$src" rev-parse --verify -q "$rev^{commit}" >/dev/null || { log "no commit $rev in $src"; exit 1; }
commit=$(git -C "$src" rev-parse "$rev^{commit}")
version=$(git -C "$src" show "$commit:exllamav3/version.py" | sed -n 's/^__version__ *= *"\(.*\)"/\1/p')

mkdir -p "$root/.peers"
tmp=$(mktemp -d "$root/.peers/.exllamav3.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# The calibration texts under exllamav3/conversion/standard_cal_data stay: the converter (quality rows) reads them.
mkdir "$tmp/exllamav3"
git -C "$src" archive --format=tar "$commit" -- . \
	':(exclude)doc' ':(exclude)examples' ':(exclude)eval/eval_texts' ':(exclude)eval/prompts' \
	':(exclude)science' ':(exclude)tests' ':(exclude).github' | tar -x -C "$tmp/exllamav3"
printf '%s\n' "$commit" >"$tmp/exllamav3/.commit"
tar -C "$tmp" -cf - exllamav3 | gzip -9 >"$tmp/exllamav3.tgz"
mv -f "$tmp/exllamav3.tgz" "$root/.peers/exllamav3.tgz"
printf 'exllamav3 %s %s\n' "$version" "$commit" >"$root/.peers/exllamav3.commit"
log "exported $commit (version $version): $(du -h "$root/.peers/exllamav3.tgz" | cut -f1) .peers/exllamav3.tgz"

# Fixtures: the Qwen3 tokenizer and pycoder-12m less what no peer script reads (calib.txt, prompt_logits.f32); its
# golden.json gives scripts/device/exl3_goldens.py the golden prompt.
fx="$root/.peers/fixtures"
mkdir -p "$fx/qwen3-tokenizer" "$fx/pycoder-12m"
for f in tokenizer.json tokenizer_config.json; do
	[ -f "$shared/tokenizers/qwen3/$f" ] || { log "missing $shared/tokenizers/qwen3/$f"; exit 1; }
done
cp -f "$shared/tokenizers/qwen3/tokenizer_config.json" "$fx/qwen3-tokenizer/"
gzip -9 -c "$shared/tokenizers/qwen3/tokenizer.json" >"$tmp/tokenizer.json.gz"
mv -f "$tmp/tokenizer.json.gz" "$fx/qwen3-tokenizer/tokenizer.json.gz"
for f in config.json generation_config.json model.safetensors tokenizer.json tokenizer_config.json heldout.txt golden.json; do
	[ -f "$shared/trained/pycoder-12m/$f" ] || { log "missing $shared/trained/pycoder-12m/$f"; exit 1; }
	cp -f "$shared/trained/pycoder-12m/$f" "$fx/pycoder-12m/$f"
done
chmod -R u+w "$fx"
rm -rf "$tmp"
trap - EXIT
log "fixtures: $(du -sh "$fx" | cut -f1) in $fx"
du -sh "$root/.peers"/* >&2
