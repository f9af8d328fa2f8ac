#!/usr/bin/env bash
# cuda-check.sh: prepare a CUDA check on the lent GPU machine. Run it HERE (the machine without a GPU, with Go):
#
#   scripts/device/cuda-check.sh
#
# It vets and unit-tests internal/cuda on this machine (with an NVRTC present here, e.g. Debian's libnvrtc11.2
# linked as libnvrtc.so.12 in a folder named by MLXBUN_CUDA_LIBDIR, every backend kernel is also compiled for
# sm_90 here), cross-compiles (CGO_ENABLED=0, linux/amd64, stripped) the internal/cuda test binary and the mlxbun
# CLI into the git-ignored .devbin/, copies the model fixtures the GPU tests read into the git-ignored .devdata/
# (about 40 MB: tiny models and pycoder-12m), then prints the one `run` call to make with the device tool. That
# call carries .devbin/ and .devdata/ and runs scripts/device/remote.sh there, which needs no Go.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"

go vet ./internal/cuda ./shaders/cuda
go test -count=1 ./internal/cuda ./shaders/cuda

rm -rf .devbin
mkdir -p .devbin
(
	export CGO_ENABLED=0 GOOS=linux GOARCH=amd64
	go test -c -ldflags="-s -w" -o .devbin/cuda.test ./internal/cuda
	if [ -d cmd/mlxbun ]; then
		go build -ldflags="-s -w" -o .devbin/mlxbun ./cmd/mlxbun 2>.devbin/mlxbun-build.log ||
			echo "note: cmd/mlxbun did not build (see .devbin/mlxbun-build.log); the device run skips the bench phase" >&2
	fi
)

fixtures=../shared/fixtures
if [ -d "$fixtures" ]; then
	rm -rf .devdata
	mkdir -p .devdata/models .devdata/trained/pycoder-12m
	cp -r "$fixtures"/models/* .devdata/models/
	for f in config.json generation_config.json golden.json model.safetensors prompt_logits.f32 tokenizer.json tokenizer_config.json; do
		cp "$fixtures/trained/pycoder-12m/$f" .devdata/trained/pycoder-12m/ 2>/dev/null || true
	done
	chmod -R u+w .devdata
fi
du -sh .devbin/* .devdata 2>/dev/null | sed 's/^/built: /'

cat <<'MSG'

Now call the device tool once (phases: compile ops matmul attention models timing synthetic bench; default all):
  run(command="bash scripts/device/remote.sh", carry=[".devbin", ".devdata"], timeout_s=480)
Then give_back() if no further run follows.
MSG
