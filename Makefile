# mlxbun build, test and demo. Everything is CGO_ENABLED=0: one static binary per platform.
GO      ?= go
BIN     := bin/mlxbun
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X main.version=$(VERSION)
STATICCHECK := $(shell $(GO) env GOPATH)/bin/staticcheck
export CGO_ENABLED := 0
# Vector kernels for the CPU backend (simd/archsimd); builds without it fall back to scalar kernels.
export GOEXPERIMENT := simd

.PHONY: build test lint cross demo clean

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/mlxbun

$(STATICCHECK):
	$(GO) install honnef.co/go/tools/cmd/staticcheck@v0.8.2

lint: $(STATICCHECK)
	@out=$$(gofmt -l $$(git ls-files '*.go' ':!vendor')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	GOOS=darwin GOARCH=arm64 $(GO) vet ./...
	$(STATICCHECK) ./...
	GOOS=darwin GOARCH=arm64 $(STATICCHECK) ./internal/metal/... ./internal/ane/... ./internal/objcrt/...

# The full suite: lint (darwin/arm64 vet included), the cross builds, then every package's tests (fixtures from
# ../shared/fixtures).
test: lint cross
	$(GO) test -timeout 70m -count=1 ./...

# Both release binaries, cgo-free: the darwin/arm64 one carries the Metal runtime and the Neural Engine compiler
# (purego/objc), which only a Mac can run (docs/apple.md).
cross:
	GOOS=linux GOARCH=amd64 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/mlxbun-linux-amd64 ./cmd/mlxbun
	GOOS=darwin GOARCH=arm64 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/mlxbun-darwin-arm64 ./cmd/mlxbun

# The main job on a fresh machine (no network, no GPU): build, make a small deterministic model with its own
# byte-level tokenizer, and generate with it; then the trained fixture model when ../shared is present.
demo: build
	bash scripts/demo.sh

clean:
	rm -rf bin build
