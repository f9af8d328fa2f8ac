#!/usr/bin/env bash
# make demo: build a deterministic demo model and generate with it on the CPU; then, when the shared fixtures
# are beside the repository, the trained pycoder model writes Python.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=bin/mlxbun
echo "== making the demo model (Qwen3 architecture, byte-level tokenizer) in build/demo"
go run ./scripts/mkdemo -out build/demo
echo "== $BIN generate --model build/demo --prompt 'The engine' --no-chat-template --max-tokens 120 --temp 0.5 --seed 7"
$BIN generate --model build/demo --prompt "The engine" --no-chat-template --max-tokens 120 --temp 0.5 --seed 7 --device cpu
PY=../shared/fixtures/trained/pycoder-12m
if [ -d "$PY" ]; then
  echo
  echo "== $BIN generate --model $PY --prompt 'def fibonacci(n):' --no-chat-template --max-tokens 200 --temp 0.7 --top-p 0.95 --seed 1"
  $BIN generate --model "$PY" --prompt "def fibonacci(n):" --no-chat-template --max-tokens 200 --temp 0.7 --top-p 0.95 --seed 1 --device cpu
else
  echo "(../shared/fixtures not found: skipping the trained pycoder model)"
fi
