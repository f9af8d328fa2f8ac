#!/usr/bin/env python3
"""llama_bench.py: the llama.cpp rows of the peer benchmark (issue 9), ON the GPU machine.

For each shape (qwen3-14b, qwen3-0.6b: random bf16 weights written by gguf_synth.py) it makes the quantized GGUFs
with llama-quantize (Q4_K_M, Q3_K_M, IQ3_XXS, Q2_K; IQ3_XXS with a uniform importance matrix, which
llama-quantize requires for it: on random weights no input column matters more than another), runs llama-bench (pp512, tg128, full offload, flash attention, -r REPS) and keeps each row's
median over the repetitions (llama-bench's samples_ts) and the peak GPU memory nvidia-smi saw during the row minus
the idle figure. With --pycoder DIR it also scores pycoder-12m (bf16 and the same quant types) with
llama-perplexity on --text at ctx 512 (llama-perplexity scores the second half of each window).

  python3 llama_bench.py --bin .peers/llama-bin --tokenizer TOKDIR --work /dev/shm/llama --out $OUT
"""
import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import threading
import time

TYPES = ["Q4_K_M", "Q3_K_M", "IQ3_XXS", "Q2_K"]


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def run(cmd, **kw):
    log(" ".join(cmd))
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)


def gpu_used():
    out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                         text=True, capture_output=True).stdout
    return int(out.split()[0])


class Peak:
    """Polls nvidia-smi's memory.used (MiB) while a command runs."""

    def __enter__(self):
        self.idle, self.peak, self.stop = gpu_used(), 0, False
        self.t = threading.Thread(target=self.poll, daemon=True)
        self.t.start()
        return self

    def poll(self):
        while not self.stop:
            self.peak = max(self.peak, gpu_used())
            time.sleep(0.05)

    def __exit__(self, *exc):
        self.stop = True
        self.t.join()

    def gib(self):
        return (self.peak - self.idle) / 1024


def bench(binp, model, reps):
    with Peak() as pk:
        r = run([f"{binp}/llama-bench", "-m", model, "-p", "512", "-n", "128", "-r", str(reps), "-ngl", "99",
                 "-fa", "1", "-o", "json"])
    rows = json.loads(r.stdout)
    got = {}
    for row in rows:
        key = "pp512" if row.get("n_prompt") == 512 and row.get("n_gen") == 0 else "tg128"
        samples = row.get("samples_ts") or [row["avg_ts"]]
        got[key] = (statistics.median(samples), len(samples))
        got["build"] = os.environ.get("LLAMA_COMMIT") or f'{row.get("build_commit", "?")}'
        got["size_gib"] = row.get("model_size", 0) / 2**30
    got["peak_gib"] = pk.gib()
    return got


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--shapes", default="qwen3-0.6b,qwen3-14b")
    ap.add_argument("--types", default=",".join(TYPES))
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--pycoder")
    ap.add_argument("--text")
    ap.add_argument("--budget", type=float, default=1e9, help="seconds; rows not started by then are skipped")
    ap.add_argument("--skip-bf16", action="store_true", help="no BF16 row (the quantized rows still come from it)")
    a = ap.parse_args()
    t0 = time.time()
    here = os.path.dirname(os.path.abspath(__file__))
    os.makedirs(a.work, exist_ok=True)
    os.makedirs(a.out, exist_ok=True)
    res = open(os.path.join(a.out, "llama-rows.jsonl"), "a")
    threads = str(os.cpu_count())
    for shape in a.shapes.split(","):
        bf = os.path.join(a.work, f"{shape}-bf16.gguf")
        imat = bf + ".imatrix"
        if not os.path.exists(bf):
            run([sys.executable, f"{here}/gguf_synth.py", "--gguf-py", f"{a.bin}/gguf-py", "--preset", shape,
                 "--tokenizer", a.tokenizer, "--out", bf, "--imatrix", imat])
        for typ in ([] if a.skip_bf16 else ["BF16"]) + [t for t in a.types.split(",") if t]:
            if time.time() - t0 > a.budget:
                log(f"{shape} {typ}: skipped, over the call's budget")
                continue
            path = bf
            if typ != "BF16":
                path = os.path.join(a.work, f"{shape}-{typ}.gguf")
                if not os.path.exists(path):
                    q0 = time.time()
                    try:
                        iq = ["--imatrix", imat] if typ.startswith("IQ") else []
                        # A temporary name: a quantize killed by the call's limit must not leave a file that the
                        # next call takes for a finished one.
                        run([f"{a.bin}/llama-quantize", *iq, bf, path + ".tmp", typ, threads])
                        os.replace(path + ".tmp", path)
                    except subprocess.CalledProcessError as e:
                        why = [ln for ln in (e.stdout + e.stderr).splitlines() if "ERROR" in ln or "error" in ln]
                        row = dict(engine="llama.cpp", shape=shape, precision=typ,
                                   error="llama-quantize: " + (why[-1].strip() if why else f"exit {e.returncode}"))
                        log(json.dumps(row))
                        res.write(json.dumps(row) + "\n")
                        continue
                    log(f"quantize {shape} {typ}: {time.time() - q0:.0f} s")
            got = bench(a.bin, path, a.reps)
            row = dict(engine="llama.cpp", shape=shape, precision=typ, **got)
            log(json.dumps(row))
            res.write(json.dumps(row) + "\n")
            res.flush()
            if typ != "BF16":
                os.remove(path)  # disk: the 14B files do not all fit at once
        os.remove(bf)
    if a.pycoder and a.text:
        ppl_rows(a, threads, res)


def ppl_rows(a, threads, res):
    here = os.path.dirname(os.path.abspath(__file__))
    bf = os.path.join(a.work, "pycoder-bf16.gguf")
    imat = bf + ".imatrix"
    run([sys.executable, f"{here}/gguf_synth.py", "--gguf-py", f"{a.bin}/gguf-py", "--hf", a.pycoder, "--pre",
         "default", "--out", bf, "--imatrix", imat])
    nbytes = os.path.getsize(a.text)
    for typ in ["BF16"] + [t for t in a.types.split(",") if t]:
        path = bf
        if typ != "BF16":
            path = os.path.join(a.work, f"pycoder-{typ}.gguf")
            try:
                iq = ["--imatrix", imat] if typ.startswith("IQ") else []
                run([f"{a.bin}/llama-quantize", *iq, bf, path, typ, threads])
            except subprocess.CalledProcessError as e:
                row = dict(engine="llama.cpp", shape="pycoder-12m", precision=typ, error=e.stderr.strip()[-300:])
                res.write(json.dumps(row) + "\n")
                continue
        try:
            r = run([f"{a.bin}/llama-perplexity", "-m", path, "-f", a.text, "-c", "512", "-b", "512", "-ngl", "99"])
            m = re.search(r"Final estimate: PPL = ([0-9.]+)", r.stdout + r.stderr)
            ppl = float(m.group(1)) if m else float("nan")
            row = dict(engine="llama.cpp", shape="pycoder-12m", precision=typ, ppl=ppl,
                       bits_per_byte=math.log2(ppl), text_bytes=nbytes,
                       note="llama-perplexity: second half of each 512-token window scored")
        except subprocess.CalledProcessError as e:
            row = dict(engine="llama.cpp", shape="pycoder-12m", precision=typ, error=e.stderr.strip()[-300:])
        log(json.dumps(row))
        res.write(json.dumps(row) + "\n")
        res.flush()


if __name__ == "__main__":
    main()
