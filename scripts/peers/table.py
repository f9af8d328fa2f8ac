#!/usr/bin/env python3
"""table.py: one markdown table from the peer benchmark's rows (issue 9): engine × precision → pp512, tg128 (median
tokens/s), peak GPU memory, and mlxbun's ratio to each peer row of the same shape and comparable bits; then the
quality rows (bits/byte) if any. Input: JSON lines from llama_bench.py, exl3_bench.py and mlxbun_rows.sh.

  python3 table.py rows.jsonl... > peers.md
"""
import json
import sys

# Which mlxbun precision a peer row is compared with (by nominal bits per weight of the projections).
NOMINAL = {"BF16": "bf16", "Q4_K_M": "4", "Q3_K_M": "3", "IQ3_XXS": "3", "Q2_K": "2",
           "2.0": "2", "3.0": "3", "4.0": "4", "bf16": "bf16", "2": "2", "3": "3", "4": "4"}


def from_exl3(kind, r):
    """exl3_bench.py's lines in the schema of the other rows."""
    if kind == "exl3-quality":
        return dict(engine="exllamav3", shape="pycoder-12m", precision=r.get("precision"),
                    bits_per_byte=r.get("bits_per_byte"), note=r.get("text", ""), **({"error": r["error"]} if "error" in r else {}))
    row = dict(engine="exllamav3", shape=r.get("model"), precision=f'{float(r.get("bpw", 0)):.1f}',
               build=r.get("commit"), peak_gib=r.get("peak_reserved_gib"))
    for k in ("pp512", "tg128"):
        if k in r:
            row[k] = (r[k], len(r.get(k + "_runs", [])))
    if "error" in r:
        row["error"] = r["error"]
    return row


def fmt(v, nd=1):
    return "—" if v is None else f"{v:,.{nd}f}"


def main():
    rows = []
    for p in sys.argv[1:]:
        for line in open(p):
            line = line.strip()
            if line.startswith("{"):
                rows.append(json.loads(line))
            elif line.startswith(("exl3-result ", "exl3-quality ")):
                rows.append(from_exl3(line.split(" ", 1)[0], json.loads(line.split(" ", 1)[1])))
    speed = [r for r in rows if "tg128" in r or "pp512" in r or "error" in r and "bits_per_byte" not in r]
    ours = {(r["shape"], NOMINAL.get(str(r["precision"]))): r for r in speed if r["engine"] == "mlxbun"}
    print("| shape | engine | precision | pp512 tok/s | tg128 tok/s | peak GPU GiB | mlxbun pp512 ÷ | mlxbun tg128 ÷ |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for r in sorted(speed, key=lambda r: (r["shape"], r["engine"] != "mlxbun", r["engine"], str(r["precision"]))):
        if "error" in r:
            print(f'| {r["shape"]} | {r["engine"]} | {r["precision"]} | {r["error"]} | | | | |')
            continue
        pp, tg = (r.get("pp512") or [None])[0], (r.get("tg128") or [None])[0]
        ratio_pp = ratio_tg = ""
        m = ours.get((r["shape"], NOMINAL.get(str(r["precision"]))))
        if m and r["engine"] != "mlxbun":
            if pp and m.get("pp512"):
                ratio_pp = f'{m["pp512"][0] / pp:.2f}×'
            if tg and m.get("tg128"):
                ratio_tg = f'{m["tg128"][0] / tg:.2f}×'
        print(f'| {r["shape"]} | {r["engine"]} | {r["precision"]} | {fmt(pp)} | {fmt(tg)} | '
              f'{fmt(r.get("peak_gib"), 2)} | {ratio_pp} | {ratio_tg} |')
    qual = [r for r in rows if "bits_per_byte" in r or ("error" in r and r.get("shape") == "pycoder-12m")]
    if qual:
        print()
        print("| engine | precision | bits/byte | note |")
        print("| --- | --- | ---: | --- |")
        for r in qual:
            print(f'| {r["engine"]} | {r["precision"]} | {fmt(r.get("bits_per_byte"), 4)} | '
                  f'{r.get("note", r.get("error", ""))} |')


if __name__ == "__main__":
    main()
