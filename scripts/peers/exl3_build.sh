#!/usr/bin/env bash
# exl3_build.sh: builds exllamav3's CUDA extension (exllamav3_ext) for sm_90 ON the GPU machine, from the snapshot
# that pack-exllamav3.sh put in .peers/ (carried by the device call), into a cache outside the repository, and checks
# that `import exllamav3` works with the packages that machine has (issue 9's peer benchmark).
#
#   bash scripts/peers/exl3_build.sh        (env: PEERS=.peers, EXL3_WORK=build/exl3, MAX_JOBS=16)
#
# Layout under $EXL3_WORK (kept while the machine stays warm; a cold machine rebuilds):
#   src/exllamav3/   the unpacked snapshot (unpacked once per commit, so ninja sees stable mtimes)
#   ext/             exllamav3_ext.cpython-*.so, with .stamp (commit, torch, CUDA arch) marking it complete
#   build-temp/      ninja's objects: a build cut off by the call's time limit resumes from them
#   shim/            marisa_trie.py, see below
#   env.sh           `source` it: PYTHONPATH for exllamav3 + the extension + the shim
#
# Why setup.py build_ext rather than exllamav3's JIT (torch.utils.cpp_extension.load on import): both compile with
# ninja in parallel, but the JIT rebuilds whenever the carried sources' mtimes move, and the device call re-copies the
# carried folder on every call; a prebuilt module found on sys.path is what exllamav3/ext.py imports first.
#
# Optional packages: exllamav3's requirements list pydantic, marisa_trie, llguidance, flash-linear-attention (and it
# can use flash-attn, xformers, formatron); none is on the GPU machine and none can be installed there. A scan of every
# import statement in the snapshot's exllamav3/ finds all of them inside try blocks or in functions of features the
# benchmark does not use, except two, which this script stands in for with minimal modules of its own in
# $EXL3_WORK/shim (on PYTHONPATH via env.sh), each only when the real package does not import:
#   pydantic     exllamav3/util/memory.py imports PydanticUserError at module level (every model import reaches it)
#                only to catch it in a debugging helper: the stand-in defines that exception class and nothing else
#                (a plain module, so `import pydantic.typing` in the formatron filter still fails as it should)
#   marisa_trie  exllamav3/loader/safetensors.py imports it lazily for prefix listing of tensor names, which model
#                loading (get_tensor_sizes) and the converter both call: the stand-in is Trie(keys) with .keys(prefix)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
PEERS=${PEERS:-$root/.peers}
WORK=${EXL3_WORK:-$root/build/exl3}
export MAX_JOBS=${MAX_JOBS:-16}
export TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0}
log() { printf '%s exl3_build: %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

command -v python3 >/dev/null || die "python3 not found"
# pip's ninja lives beside the interpreter; without ninja on PATH torch compiles one file at a time.
pybin=$(dirname "$(python3 -c 'import sys; print(sys.executable)')")
export PATH="$PATH:$pybin"
command -v ninja >/dev/null || die "ninja not found (torch would compile serially for an hour): install or carry it"
command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || die "nvcc not found"
command -v nvcc >/dev/null || export PATH="$PATH:/usr/local/cuda/bin"

# 1. The snapshot: .peers/exllamav3.tgz (pack-exllamav3.sh) or an unpacked .peers/exllamav3/ tree.
mkdir -p "$WORK/src" "$WORK/ext" "$WORK/build-temp" "$WORK/shim"
WORK=$(cd "$WORK" && pwd)
if [ -f "$PEERS/exllamav3.tgz" ]; then
	want=$(tar -xzOf "$PEERS/exllamav3.tgz" exllamav3/.commit) || die "$PEERS/exllamav3.tgz: no exllamav3/.commit in it"
	have=$(cat "$WORK/src/exllamav3/.commit" 2>/dev/null || true)
	if [ "$want" != "$have" ]; then
		log "unpacking $PEERS/exllamav3.tgz ($want)"
		rm -rf "$WORK/src/exllamav3" "$WORK/build-temp" "$WORK/ext"
		mkdir -p "$WORK/build-temp" "$WORK/ext"
		tar -xzf "$PEERS/exllamav3.tgz" -C "$WORK/src"
	fi
elif [ -d "$PEERS/exllamav3/exllamav3" ]; then
	want=$(cat "$PEERS/exllamav3/.commit" 2>/dev/null || echo unknown)
	have=$(cat "$WORK/src/exllamav3/.commit" 2>/dev/null || true)
	if [ "$want" != "$have" ] || [ "$want" = unknown ]; then
		log "copying $PEERS/exllamav3 ($want)"
		rm -rf "$WORK/src/exllamav3"
		cp -a "$PEERS/exllamav3" "$WORK/src/exllamav3"
	fi
else
	die "no exllamav3 snapshot: expected $PEERS/exllamav3.tgz (run scripts/peers/pack-exllamav3.sh here and carry .peers)"
fi
SRC="$WORK/src/exllamav3"
commit=$want

# 2. The stand-ins (see the header), each used only if the real package is absent.
if python3 -c 'import pydantic' 2>/dev/null; then
	rm -f "$WORK/shim/pydantic.py"
	shim_note="pydantic: installed"
else
	cat >"$WORK/shim/pydantic.py" <<'PY'
# Stand-in for the pydantic package, written by mlxbun's scripts/peers/exl3_build.sh because the GPU machine cannot
# install it. exllamav3/util/memory.py imports PydanticUserError at module level only to catch it while walking
# objects in a debugging helper; nothing else of pydantic is used outside optional, guarded features.


class PydanticUserError(Exception):
    pass
PY
	shim_note="pydantic: shim ($WORK/shim/pydantic.py)"
fi
if python3 -c 'import marisa_trie' 2>/dev/null; then
	rm -f "$WORK/shim/marisa_trie.py"
	shim_note="$shim_note; marisa_trie: installed"
else
	cat >"$WORK/shim/marisa_trie.py" <<'PY'
# Stand-in for the marisa_trie package, written by mlxbun's scripts/peers/exl3_build.sh because the GPU machine
# cannot install it. exllamav3 calls only Trie(keys) and trie.keys(prefix) (tensor names under a module's prefix);
# a sorted list and a binary search give the same answer.
import bisect


class Trie:
    def __init__(self, keys=()):
        self._keys = sorted(set(keys))

    def keys(self, prefix=""):
        i = bisect.bisect_left(self._keys, prefix)
        out = []
        while i < len(self._keys) and self._keys[i].startswith(prefix):
            out.append(self._keys[i])
            i += 1
        return out

    def __contains__(self, key):
        i = bisect.bisect_left(self._keys, key)
        return i < len(self._keys) and self._keys[i] == key

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)
PY
	shim_note="$shim_note; marisa_trie: shim ($WORK/shim/marisa_trie.py)"
fi
printf 'export PYTHONPATH="%s:%s:%s${PYTHONPATH:+:$PYTHONPATH}"\nexport EXL3_COMMIT=%s\n' \
	"$WORK/ext" "$WORK/shim" "$SRC" "$commit" >"$WORK/env.sh"

# 3. The extension, unless the stamp says this commit, torch and arch list are already built.
torchv=$(python3 -c 'import torch; print(torch.__version__, torch.version.cuda)') || die "python3 cannot import torch"
stamp="$commit torch $torchv arch $TORCH_CUDA_ARCH_LIST"
so=$(ls "$WORK"/ext/exllamav3_ext*.so 2>/dev/null | head -1 || true)
if [ -n "$so" ] && [ "$(cat "$WORK/ext/.stamp" 2>/dev/null)" = "$stamp" ]; then
	log "extension already built: $so ($stamp)"
else
	rm -f "$WORK/ext/.stamp"
	log "building exllamav3_ext: $stamp, MAX_JOBS=$MAX_JOBS, $(nvcc --version | tail -1)"
	t0=$(date +%s)
	# setup.py prints its source list and nvcc's warnings: keep them in a log, show the tail on failure.
	# cwd is the source tree (setup.py opens exllamav3/version.py relative to it) and setup.py is named by its
	# absolute path (it lists sources relative to its own folder).
	if ! (cd "$SRC" && python3 "$SRC/setup.py" build_ext --build-lib "$WORK/ext" --build-temp "$WORK/build-temp") \
		>"$WORK/build.log" 2>&1; then
		tail -n 60 "$WORK/build.log" >&2
		[ -n "${OUT:-}" ] && cp "$WORK/build.log" "$OUT/exl3_build.log" || true
		die "setup.py build_ext failed after $(($(date +%s) - t0)) s (log: $WORK/build.log)"
	fi
	so=$(ls "$WORK"/ext/exllamav3_ext*.so 2>/dev/null | head -1 || true)
	[ -n "$so" ] || die "build finished but no exllamav3_ext*.so in $WORK/ext"
	printf '%s' "$stamp" >"$WORK/ext/.stamp"
	log "built $so ($(du -h "$so" | cut -f1)) in $(($(date +%s) - t0)) s"
fi

# 4. Import check: exllamav3 must take the prebuilt module (not start a JIT build) and load with what is installed.
# shellcheck disable=SC1091
source "$WORK/env.sh"
python3 - "$WORK" <<'PY' || die "import exllamav3 failed (see the traceback above)"
import importlib.util, sys, time
t0 = time.time()
import torch  # first: the extension links against torch's shared libraries
import exllamav3_ext
import exllamav3
from exllamav3.ext import exllamav3_ext as ext
assert ext.__file__.startswith(sys.argv[1]), f"exllamav3 took {ext.__file__}, not the prebuilt module"
from exllamav3.modules.attention_fn import dispatch
import exllamav3.conversion.convert_model  # the converter (quality rows) imports cleanly too
opt = ["flash_attn", "xformers", "fla", "llguidance", "formatron", "pydantic", "marisa_trie", "triton"]
have = {m: importlib.util.find_spec(m) is not None for m in opt}
print(f"exllamav3 {exllamav3.__file__} imports in {time.time() - t0:.1f} s; ext {ext.__file__}")
print("optional packages: " + ", ".join(f"{m} {'yes' if v else 'no'}" for m, v in have.items()))
print(f"attention: flash-attn {'present' if dispatch.has_fa2 else 'absent'}, triton kernels "
      f"{'present' if dispatch.has_triton else 'absent'}")
PY
log "ok: exllamav3 $commit; $shim_note; source $WORK/env.sh"
