#!/usr/bin/env bash
# cuda-check.sh: prepare a CUDA check on the lent GPU machine. Run it HERE (the machine without a GPU, with Go):
#
#   scripts/device/cuda-check.sh
#
# It vets and unit-tests internal/cuda (the backend), internal/cuda/driver (the runtime) and internal/verify (the
# conformance harness, on the CPU and fakes) on this machine (with an NVRTC present here, e.g. Debian's
# libnvrtc11.2 linked as libnvrtc.so.12 in a folder named by MLXBUN_CUDA_LIBDIR, every backend kernel is also
# compiled for sm_90 here), cross-compiles (CGO_ENABLED=0, GOEXPERIMENT=simd so the CPU oracle is fast,
# linux/amd64, stripped) the two GPU test binaries (.devbin/cuda.test, .devbin/driver.test) and the mlxbun CLI
# into the git-ignored .devbin/, copies the model fixtures the GPU tests read into the git-ignored .devdata/
# (about 66 MB: tiny models, the three tiny Gemmas and pycoder-12m with its heldout.txt and calib.txt; issue 20's layout goldens are read from the tree,
# internal/model/testdata/layouts, which travels with the checkout), then prints the one `run` call to make with the device tool. That
# call carries .devbin/ and .devdata/ and runs scripts/device/remote.sh there, which needs no Go.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
export GOEXPERIMENT=${GOEXPERIMENT:-simd} CGO_ENABLED=0

# MLXBUN_DEV_SKIP_TESTS=1 packs without the vet and unit tests (a tree whose packages were just tested).
if [ "${MLXBUN_DEV_SKIP_TESTS:-0}" != 1 ]; then
	go vet ./internal/cuda/... ./internal/verify ./shaders/cuda
	go test -count=1 ./internal/cuda/... ./internal/verify ./shaders/cuda
fi

rm -rf .devbin
mkdir -p .devbin
(
	export GOOS=linux GOARCH=amd64
	go test -c -ldflags="-s -w" -o .devbin/cuda.test ./internal/cuda
	go test -c -ldflags="-s -w" -o .devbin/driver.test ./internal/cuda/driver
	go test -c -ldflags="-s -w" -o .devbin/sample.test ./internal/sample # the sampler's cost on the device host (quant.sh hostexp)
	if [ -d cmd/mlxbun ]; then
		go build -ldflags="-s -w" -o .devbin/mlxbun ./cmd/mlxbun 2>.devbin/mlxbun-build.log ||
			echo "note: cmd/mlxbun did not build (see .devbin/mlxbun-build.log); the device run skips the bench phase" >&2
	fi
)

fixtures=../shared/fixtures
if [ -d "$fixtures" ]; then
	rm -rf .devdata
	mkdir -p .devdata/models .devdata/trained/pycoder-12m
	# Only the models the CUDA tests and acceptance.sh load (the whole fixture tree is over the 64 MiB a call carries).
	for m in ${MLXBUN_DEV_MODELS:-tiny-llama3 tiny-qwen3 tiny-qwen2-yarn tiny-qwen3_5 tiny-qwen3-next-moe tiny-gemma2 tiny-gemma3 tiny-gemma4}; do
		cp -r "$fixtures/models/$m" .devdata/models/
	done
	# MLXBUN_DEV_PYCODER_WEIGHTS=0 leaves pycoder's weights and logits behind (a call that needs only its text).
	# calib.txt (1 MB, ~0.3 MB packed) is quant.sh q21's --calib file.
	pyfiles="config.json generation_config.json golden.json tokenizer.json tokenizer_config.json heldout.txt calib.txt"
	[ "${MLXBUN_DEV_PYCODER_WEIGHTS:-1}" = 0 ] || pyfiles="$pyfiles model.safetensors prompt_logits.f32"
	for f in $pyfiles; do
		cp "$fixtures/trained/pycoder-12m/$f" .devdata/trained/pycoder-12m/ 2>/dev/null || true
	done
	# MLXBUN_DEV_EXL3: EXL3 fixture folders (exl3/NAME, exllamav3's converter output, ~5 MB each) for
	# TestEXL3Models, e.g. MLXBUN_DEV_EXL3="pycoder-12m-exl3-3.0-mul1 pycoder-12m-exl3-3.0-mcg" (with
	# MLXBUN_DEV_MODELS trimmed when the pack nears the 64 MiB a call carries); unset: none (the test skips).
	for d in ${MLXBUN_DEV_EXL3:-}; do
		mkdir -p .devdata/exl3 && cp -r "$fixtures/exl3/$d" .devdata/exl3/
	done
	# MLXBUN_DEV_EXTRA: folders copied into .devdata/quality/ (quantized artifacts a device phase reads).
	for d in ${MLXBUN_DEV_EXTRA:-}; do
		mkdir -p .devdata/quality && cp -r "$d" .devdata/quality/
	done
	chmod -R u+w .devdata
	# A 3-bit trellis artifact for the device-choice checks (auto falls back while CUDA lacks trellis kernels;
	# a forced --device cuda must fail before upload, naming the layer).
	if [ -x .devbin/mlxbun ]; then
		.devbin/mlxbun quantize --model .devdata/models/tiny-qwen3 --bits 3 --out .devdata/quantized/tiny-qwen3-3bit >/dev/null 2>&1 ||
			echo "note: quantizing tiny-qwen3 failed; the device-choice checks will say so" >&2
	fi
fi
du -sh .devbin/* .devdata 2>/dev/null | sed 's/^/built: /'
# One gzip of both: the binaries and fixtures together are over the 64 MiB a call carries beside the tree.
mkdir -p .devpack
tar cf - .devbin .devdata | gzip -6 >.devpack/dev.tgz
du -sh .devpack/dev.tgz | sed 's/^/packed: /'

cat <<'MSG'

Now call the device tool (phases: runtime compile ops matmul attention fusion conformance models timing lab
synthetic bench; default compile ops matmul attention fusion models timing synthetic):
  run(command="tar xzf .devpack/dev.tgz && bash scripts/device/remote.sh", carry=[".devpack"], timeout_s=590)
Then give_back() if no further run follows.
MSG
