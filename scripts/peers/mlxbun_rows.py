#!/usr/bin/env python3
"""mlxbun_rows.py: mlxbun's rows of the peer benchmark (issue 9), ON the GPU machine: `mlxbun bench --synthetic`
for each shape at bf16 and 2/3/4 bits (-p 512 -n 128 -r REPS, -o json), each row the median of the repetitions
(samples_ts) and bench's peak device memory, as JSON lines in the schema llama_bench.py writes.

  python3 mlxbun_rows.py --bin ./mlxbun --out $OUT [--shapes qwen3-0.6b,qwen3-14b] [--reps 3]
"""
import argparse
import json
import os
import statistics
import subprocess
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--shapes", default="qwen3-0.6b,qwen3-14b")
    ap.add_argument("--precisions", default="bf16,4,3,2")
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    version = subprocess.run([a.bin, "version"], text=True, capture_output=True).stdout.strip()
    res = open(os.path.join(a.out, "mlxbun-rows.jsonl"), "a")
    for shape in a.shapes.split(","):
        for prec in a.precisions.split(","):
            cmd = [a.bin, "bench", "--synthetic", shape, "--device", "cuda", "-p", "512", "-n", "128",
                   "-r", str(a.reps), "-o", "json"]
            if prec != "bf16":
                cmd += ["--bits", prec]
            print(f"[{time.strftime('%H:%M:%S')}] {' '.join(cmd)}", flush=True)
            p = subprocess.run(cmd, text=True, capture_output=True)
            if p.returncode != 0:
                row = dict(engine="mlxbun", shape=shape, precision=prec, error=p.stderr.strip()[-300:])
            else:
                rep = json.loads(p.stdout)
                row = dict(engine="mlxbun", shape=shape, precision=prec, build=version,
                           peak_gib=rep.get("peak_device_bytes", 0) / 2**30)
                for r in rep["results"]:
                    key = "pp512" if r["test"].startswith("pp") else "tg128"
                    s = r.get("samples_ts") or [r["avg_ts"]]
                    row[key] = (statistics.median(s), len(s))
            print(json.dumps(row), flush=True)
            res.write(json.dumps(row) + "\n")
            res.flush()


if __name__ == "__main__":
    main()
