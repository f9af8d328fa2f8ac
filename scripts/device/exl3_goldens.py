#!/usr/bin/env python3
"""exl3_goldens.py: EXL3 fixtures of settings the shared ones lack, made ON the GPU machine by exllamav3's own
converter and scored by its own forward, in the layout of shared/fixtures/exl3 (its README):

  for each SETTING (BITS:CODEBOOK:HEAD_BITS, e.g. 2.5:3inst:8) convert.py -i pycoder-12m -b BITS -cb CODEBOOK
  -hb HEAD_BITS writes the model directory; then, with exllamav3's forward on it,
    exl3_prompt_logits.f32  the logits of every position of pycoder-12m's golden prompt (float32 LE, [n, vocab])
    exl3_golden.json        prompt_ids, logits_shape, greedy_new_ids (16 tokens, argmax each step, the whole
                            sequence re-run each step), heldout_64k (bits/byte over whole 512-token windows of the
                            first 65,536 bytes of heldout.txt, exl3_bench.py's score())
  and the directory goes back as one tarball $OUT/pycoder-12m-exl3-BITS-CODEBOOK-hbHEAD_BITS.tgz (the device returns
  at most 8 files).

Fractional BITS make the converter mix K across tensors; head bits other than 6 exercise the head's own K. Run through
scripts/device/exl3_goldens.sh (which builds exllamav3 first).
"""
import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tarfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "peers"))
import exl3_bench as eb  # noqa: E402  (the peer benchmark's converter input, loader and scorer)


def golden(model_dir, prompt, new_tokens):
    """exllamav3's logits of every prompt position and its greedy continuation."""
    import torch
    model, _, _ = eb.load(model_dir, None)
    with torch.inference_mode():
        ids = torch.tensor(prompt, dtype=torch.long).unsqueeze(0)
        logits = model.forward(ids, {"attn_mode": "flash_attn_nc"})[0].float().cpu()
        seq = list(prompt)
        for _ in range(new_tokens):
            out = model.forward(torch.tensor(seq, dtype=torch.long).unsqueeze(0), {"attn_mode": "flash_attn_nc"})
            seq.append(int(torch.argmax(out[0, -1]).item()))
    model.unload()
    del model
    torch.cuda.empty_cache()
    if not torch.isfinite(logits).all():
        raise RuntimeError("non-finite prompt logits")
    return logits, seq[len(prompt):]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pycoder", required=True, help="pycoder-12m folder (its files, golden.json and heldout.txt)")
    ap.add_argument("--out", required=True, help="where the tarballs go ($OUT)")
    ap.add_argument("--work", required=True, help="scratch folder for the converter")
    ap.add_argument("settings", nargs="+", help="BITS:CODEBOOK:HEAD_BITS")
    a = ap.parse_args()
    import exllamav3
    src = os.path.dirname(os.path.dirname(exllamav3.__file__))
    convert = os.path.join(src, "convert.py")
    with open(os.path.join(a.pycoder, "golden.json")) as f:
        g = json.load(f)
    prompt, new_tokens = g["prompt_ids"], len(g["greedy_new_ids"])
    ids = eb.heldout_ids(a.pycoder, 65536)
    os.makedirs(a.work, exist_ok=True)
    src_dir = eb.pycoder_input(a.pycoder, os.path.join(a.work, "pycoder-12m-in"))
    rc = 0
    for setting in a.settings:
        bits, cb, hb = setting.split(":")
        name = f"pycoder-12m-exl3-{float(bits):.1f}-{cb}-hb{hb}"
        out, wd = os.path.join(a.work, name), os.path.join(a.work, "job-" + name)
        for d in (out, wd):
            shutil.rmtree(d, ignore_errors=True)
        cmd = [sys.executable, convert, "-i", src_dir, "-o", out, "-w", wd, "-b", bits, "-cb", cb, "-hb", hb]
        eb.log(f"{name}: {' '.join(cmd)}")
        t0 = time.time()
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=src)
        with open(os.path.join(a.work, name + ".convert.log"), "w") as f:
            f.write(p.stdout + p.stderr)
        if p.returncode != 0 or not os.path.isfile(os.path.join(out, "config.json")):
            eb.log(f"FAILED {name}: converter: {eb.last_error(p.stdout + p.stderr)}")
            rc = 1
            continue
        try:
            logits, greedy = golden(out, prompt, new_tokens)
            held = eb.score(out, ids, 512)
        except Exception as e:
            eb.log(f"FAILED {name}: exllamav3 forward: {type(e).__name__}: {e}")
            rc = 1
            continue
        with open(os.path.join(out, "exl3_prompt_logits.f32"), "wb") as f:
            f.write(struct.pack(f"<{logits.numel()}f", *logits.flatten().tolist()))
        for extra in ("tokenizer.json", "tokenizer_config.json", "generation_config.json"):
            if not os.path.isfile(os.path.join(out, extra)) and os.path.isfile(os.path.join(a.pycoder, extra)):
                shutil.copy(os.path.join(a.pycoder, extra), out)
        doc = {"maker": f"exllamav3 convert.py {eb.exl3_commit()}", "bits": float(bits), "codebook": cb,
               "head_bits": int(hb), "prompt_ids": prompt, "prompt_logits_file": "exl3_prompt_logits.f32",
               "logits_shape": list(logits.shape), "greedy_new_ids": greedy, "heldout_64k": held}
        with open(os.path.join(out, "exl3_golden.json"), "w") as f:
            json.dump(doc, f, indent=1)
        tgz = os.path.join(a.out, name + ".tgz")
        with tarfile.open(tgz + ".tmp", "w:gz") as t:
            for fn in sorted(os.listdir(out)):
                t.add(os.path.join(out, fn), arcname=os.path.join(name, fn))
        os.replace(tgz + ".tmp", tgz)
        print("exl3-golden " + json.dumps({"name": name, "convert_s": round(time.time() - t0, 1),
                                           "greedy_new_ids": greedy, **held}), flush=True)
    sys.exit(rc)


if __name__ == "__main__":
    main()
