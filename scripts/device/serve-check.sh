#!/usr/bin/env bash
# serve-check.sh: `mlxbun serve` on the GPU machine (no Go, no network; python3 for the HTTP client). Build here
# first with scripts/device/cuda-check.sh (it leaves .devbin/mlxbun and .devdata/), then run there:
#
#   run(command="bash scripts/device/serve-check.sh", carry=[".devbin", ".devdata"])
#
# On pycoder-12m with --device ${DEVICE:-cuda} it checks what the CPU tests cannot: the CUDA KV prefix copy
# (internal/cuda/kvcopy.go) behind the prompt cache — a repeated ~1500-token prefix is reported as cached and the
# greedy answer equals the one with cache_prompt false, both from a slot in place and from a prompt-cache entry
# copied back; 8 concurrent streams (tokens/s against one); greedy output identical with and without n-gram
# drafts (generate --draft ngram) and bench --draft's speed-up. DEVICE=cpu runs the same checks here.
# SYNTH=1 adds issue 19's H200 lines on the Qwen3-14B shape at 3 bits: bench --batch 8 (the decode forms alone, at
# depth 0 and at the streams' depth 2,048)
# against bench --streams 8 (the same through the scheduler; its "all decoding" row, want ≥ 80 %), whose second part prefills a 2048-token
# prompt and then one sharing all but 16 of it (want the second ≤ 10 % of the first); then both at -p 32 (--streams
# needs 17) with the device's greedy picks and with --read-logits (every row's logits back, the path before them).
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-.devbin/mlxbun}
MODEL=${MODEL:-.devdata/trained/pycoder-12m}
DEVICE=${DEVICE:-cuda}
OUT=${OUT:-$(mktemp -d)}
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
printf '{%% for m in messages %%}<|{{ m.role }}|>\n{{ m.content }}\n{%% endfor %%}<|assistant|>\n' >"$tmp/chat.jinja"

serve() { # serve NAME ARGS...: starts a server, sets $URL
	local name=$1
	shift
	"$BIN" serve --model "$MODEL" --device "$DEVICE" --port 0 --chat-template "$tmp/chat.jinja" "$@" 2>"$OUT/$name.log" &
	for _ in $(seq 600); do
		URL=$(grep -o 'http://[0-9.:]*' "$OUT/$name.log" | head -1 || true)
		[ -n "$URL" ] && python3 -c "import urllib.request,sys; urllib.request.urlopen(sys.argv[1]+'/health')" "$URL" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "FAIL: $name did not come up"; cat "$OUT/$name.log"; exit 1
}

cat >"$tmp/client.py" <<'PY'
import json, sys, time, threading, urllib.request
url, check = sys.argv[1], sys.argv[2]
def post(body):
    req = urllib.request.Request(url + "/v1/completions", json.dumps(body).encode(), {"Content-Type": "application/json"})
    t = time.time()
    r = json.load(urllib.request.urlopen(req, timeout=600))
    return r, time.time() - t
head = open(sys.argv[3]).read()[:1500]
def ask(tail, **kw):
    return post(dict(prompt=head + tail, max_tokens=32, temperature=0, **kw))
ok = True
if check == "cache":
    a, ta = ask("\ndef first():\n")
    b, tb = ask("\ndef second():\n")
    c, _ = ask("\ndef second():\n", cache_prompt=False)
    cached = b["usage"]["prompt_tokens_details"]["cached_tokens"]
    print(f"prefix {a['usage']['prompt_tokens']} tokens: first {ta:.3f} s, second {tb:.3f} s ({cached} cached)")
    ok = cached >= a["usage"]["prompt_tokens"] - 40 and b["choices"][0]["text"] == c["choices"][0]["text"]
elif check == "entry":  # --parallel 1: the slot is taken by another prompt, the prefix comes back from an entry
    a, _ = ask("\ndef first():\n")
    post(dict(prompt="while True:\n", max_tokens=8, temperature=0))
    b, _ = ask("\ndef first():\n")
    c, _ = ask("\ndef first():\n", cache_prompt=False)
    cached = b["usage"]["prompt_tokens_details"]["cached_tokens"]
    print(f"from a prompt cache entry: {cached} cached of {b['usage']['prompt_tokens']}")
    ok = cached >= b["usage"]["prompt_tokens"] - 1 and b["choices"][0]["text"] == c["choices"][0]["text"] == a["choices"][0]["text"]
elif check == "streams":
    n = 128
    def one(i, out):
        r, t = post(dict(prompt=f"def f{i}(x):\n", max_tokens=n, temperature=0, ignore_eos=True))
        out[i] = (r["usage"]["completion_tokens"], t)
    for k in (1, 8):
        out = {}
        ts = [threading.Thread(target=one, args=(i, out)) for i in range(k)]
        t = time.time(); [x.start() for x in ts]; [x.join() for x in ts]; t = time.time() - t
        print(f"{k} concurrent streams: {sum(v[0] for v in out.values()) / t:.1f} tokens/s")
print("PASS" if ok else "FAIL", check)
sys.exit(0 if ok else 1)
PY

status=0
serve cache --parallel 8
python3 "$tmp/client.py" "$URL" cache "$MODEL/heldout.txt" || status=1
python3 "$tmp/client.py" "$URL" streams "$MODEL/heldout.txt" || status=1
kill %1; wait %1 2>/dev/null || true
serve entry --parallel 1
python3 "$tmp/client.py" "$URL" entry "$MODEL/heldout.txt" || status=1
kill %2 2>/dev/null || kill $(jobs -p); wait 2>/dev/null || true

printf 'def add(a, b):\n    return a + b\n\ndef sub(a, b):\n    return a - b\n\ndef mul(a, b):\n    return a * b\n\ndef div(a, b):\n' >"$tmp/edit.py"
plain=$("$BIN" generate --model "$MODEL" --device "$DEVICE" --prompt "$(cat "$tmp/edit.py")" --no-chat-template --max-tokens 64 --json)
spec=$("$BIN" generate --model "$MODEL" --device "$DEVICE" --prompt "$(cat "$tmp/edit.py")" --no-chat-template --max-tokens 64 --json --draft ngram)
if python3 -c 'import json,sys; a,b=json.loads(sys.argv[1]),json.loads(sys.argv[2]); print("drafts:",b.get("draft_accepted",0),"of",b.get("draft_tokens",0),"accepted"); sys.exit(a["generated_ids"]!=b["generated_ids"])' "$plain" "$spec"; then
	echo "PASS greedy identical with and without drafts"
else
	echo "FAIL greedy output differs with drafts"; status=1
fi
"$BIN" bench --model "$MODEL" --device "$DEVICE" --draft ngram --draft-prompt "$tmp/edit.py" -n 128 -r 3 || status=1
if [ "${SYNTH:-0}" = 1 ]; then
	"$BIN" bench --synthetic qwen3-14b --bits 3 --device "$DEVICE" --batch 8 -p 16 -n 128 -r 3 || status=1
	# The same decode forms at the streams' depth (each sequence 2,048 positions deep), the fair comparison for the
	# streams row below (the -p 32 pair after it compares the two with short prompts).
	"$BIN" bench --synthetic qwen3-14b --bits 3 --device "$DEVICE" --batch 8 -p 0 -d 2048 -n 128 -r 3 || status=1
	"$BIN" bench --synthetic qwen3-14b --bits 3 --device "$DEVICE" --streams 8 -p 2048 -n 128 -r 3 --profile || status=1
	# The greedy picks (argmax_f32 in the step's graph) against every row's logits read back, both ways.
	for extra in "" --read-logits; do
		echo "== picks A/B: ${extra:-device picks}"
		"$BIN" bench --synthetic qwen3-14b --bits 3 --device "$DEVICE" --batch 8 -p 32 -n 128 -r 3 $extra || status=1
		"$BIN" bench --synthetic qwen3-14b --bits 3 --device "$DEVICE" --streams 8 -p 32 -n 128 -r 3 $extra || status=1
	done
fi
exit $status
