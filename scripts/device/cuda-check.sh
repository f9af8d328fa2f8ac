#!/usr/bin/env bash
# cuda-check.sh: prepare a CUDA check on the lent GPU machine. Run it HERE (the machine without a GPU, with Go):
#
#   scripts/device/cuda-check.sh
#
# It vets and unit-tests internal/cuda on this machine, cross-compiles (CGO_ENABLED=0, linux/amd64) the
# internal/cuda test binary and, when it builds, the mlxbun CLI into the git-ignored .devbin/, then prints the one
# `run` call to make with the device tool. That call carries .devbin/ (ignored, so it travels only when named in
# carry) and runs scripts/device/remote.sh there, which needs no Go: it runs the test binaries with MLXBUN_CUDA=1,
# records nvidia-smi and the library layout, and leaves logs and the measurement table under $OUT.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"

go vet ./internal/cuda ./shaders/cuda
go test -count=1 ./internal/cuda ./shaders/cuda

rm -rf .devbin
mkdir -p .devbin
export CGO_ENABLED=0 GOOS=linux GOARCH=amd64
go test -c -o .devbin/cuda.test ./internal/cuda
if [ -d cmd/mlxbun ]; then
	go build -o .devbin/mlxbun ./cmd/mlxbun 2>.devbin/mlxbun-build.log ||
		echo "note: cmd/mlxbun did not build (see .devbin/mlxbun-build.log); the device run tests the runtime only" >&2
fi
du -sh .devbin/* | sed 's/^/built: /'

cat <<'MSG'

Now call the device tool once:
  run(command="bash scripts/device/remote.sh", carry=[".devbin"], timeout_s=600)
Then give_back() if no further run follows.
MSG
