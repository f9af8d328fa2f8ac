#!/usr/bin/env python3
"""exl3_bench.py: exllamav3's side of the peer benchmark (issue 9), run ON the GPU machine after exl3_build.sh.

  speed    loads one EXL3 model directory (exl3_synth.py's) and measures
             pp512  one 512-token prefill from an empty cache, tokens/s (model.forward with last_tokens_only=1: the
                    head runs on the last position only, and its argmax is read back, as a generator's prefill does)
             tg128  128 one-token decode steps after a 16-token prompt, greedy (argmax fed back), the argmax copied to
                    the host after every step (the per-token sync of exllamav3's eval/perf.py), tokens/s
           each the median of --runs (>= 3) timed runs after --warmup untimed ones, plus peak GPU memory:
           torch.cuda.max_memory_allocated / max_memory_reserved over the whole process (weights included) and
           nvidia-smi's used memory of this process. Prints one line `exl3-result {json}`.
  quality  exllamav3's converter (convert.py, default settings: mul1 codebook, 6-bit head, its own calibration
           texts) quantizes pycoder-12m (a byte-level Qwen3, ../shared/fixtures/trained/pycoder-12m) at each --bits,
           then scores bits/byte on the first 64 KiB of heldout.txt the way mlxbun's `perplexity --ctx 512` does:
           whole windows of 512 tokens from token 0, each from an empty state, every token after a window's first
           scored from the logits before it (127 windows, 64,897 bytes). The unquantized model (exllamav3's fp16 path)
           is scored too, as the reference. One `exl3-quality {json}` line per precision; a precision exllamav3
           cannot make or load gets one line with "error" saying why.

Attention: no flash-attn on the GPU machine. exllamav3 then takes its own Triton kernels (attention_fn/dispatch.py
puts them first; flash-attn would only be tried after them, xformers and torch SDPA are the last fallbacks), and for
decode its graph-captured attention block (attention_fn/bc_attn.py: the same Triton kernels compiled ahead and
launched from one CUDA graph per layer). The result line names the dispatch functions that actually ran and how many
layers ran the graph path.

    source build/exl3/env.sh   # exl3_build.sh's PYTHONPATH
    python3 scripts/peers/exl3_bench.py speed --model-dir build/exl3/models/qwen3-14b-4.0 --label qwen3-14b --bpw 4.0
    python3 scripts/peers/exl3_bench.py quality --pycoder .peers/fixtures/pycoder-12m --bits 2 3 4
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time


def log(msg):
    print(f"{time.strftime('%H:%M:%S', time.gmtime())} exl3_bench: {msg}", file=sys.stderr, flush=True)


def die(msg):
    log(f"ERROR: {msg}")
    sys.exit(1)


def exl3_commit():
    if os.environ.get("EXL3_COMMIT"):
        return os.environ["EXL3_COMMIT"]
    try:
        import exllamav3
        p = os.path.join(os.path.dirname(os.path.dirname(exllamav3.__file__)), ".commit")
        return open(p).read().strip()
    except Exception:
        return "unknown"


def smi(query, pid=None):
    """nvidia-smi figures: this process's used memory (MiB) when pid is given, else the GPU's used memory."""
    try:
        if pid is not None:
            out = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits"],
                                 capture_output=True, text=True, timeout=30).stdout
            for line in out.splitlines():
                p, _, mem = line.partition(",")
                if p.strip() == str(pid):
                    return int(mem.strip())
            return None
        out = subprocess.run(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=30).stdout
        return out.splitlines()[0].strip()
    except Exception:
        return None


def load(model_dir, cache_size=None):
    """Model (and cache) through exllamav3's own model_init, as its eval scripts load one."""
    from exllamav3 import model_init
    ap = argparse.ArgumentParser()
    model_init.add_args(ap, cache=cache_size is not None, default_cache_size=cache_size or 8192)
    argv = ["-m", model_dir] + (["-cs", str(cache_size)] if cache_size else [])
    args = ap.parse_args(argv)
    model, config, cache, _ = model_init.init(args, load_tokenizer=False, quiet=True, progress=False)
    return model, config, cache


class AttnTrace:
    """Records which attention functions exllamav3's dispatcher picks: each candidate in dispatch's lists is wrapped
    (one extra Python call per attention call, some 0.1 µs against milliseconds a token)."""

    def __init__(self):
        from exllamav3.modules.attention_fn import dispatch
        self.used = {}
        for lst in (dispatch.attn_fns, dispatch._fns_qc):
            for i, fn in enumerate(lst):
                lst[i] = self._wrap(fn)
        self.has_fa2, self.has_triton = dispatch.has_fa2, dispatch.has_triton

    def _wrap(self, fn):
        used = self.used

        def wrapped(args):
            o = fn(args)
            if o is not None:
                used[fn.__name__] = used.get(fn.__name__, 0) + 1
            return o
        wrapped.__name__ = fn.__name__
        return wrapped


def graph_layers(model):
    """(attention layers that built the graph-captured decode block, attention layers)."""
    built = total = 0
    for m in model:
        d = getattr(m, "bc_attn", None)
        if isinstance(d, dict):
            total += 1
            built += any(bool(v) for v in d.values())
    return built, total


def cmd_speed(a):
    import torch
    if not torch.cuda.is_available():
        die("no CUDA device")
    if a.runs < 3:
        die(f"--runs {a.runs}: the table wants the median of at least 3")
    for f in ("config.json",):
        if not os.path.isfile(os.path.join(a.model_dir, f)):
            die(f"{a.model_dir}: no {f}")
    smi_before = smi("memory.used")
    trace = AttnTrace()
    t0 = time.time()
    cache_size = 2048  # pp512 and the 16 + 128 decode both fit; a multiple of exllamav3's 256-token page
    model, config, cache = load(a.model_dir, cache_size)
    load_s = time.time() - t0
    bpw_layer, bpw_head, _ = model.get_storage_info()
    log(f"loaded {a.model_dir} in {load_s:.1f} s: {bpw_layer:.3f} bpw layers, {bpw_head:.3f} bpw head")

    vocab = config.vocab_size
    g = torch.Generator().manual_seed(1234)
    pp_ids = torch.randint(0, vocab, (1, a.pp), generator=g)
    prompt = torch.randint(0, vocab, (1, a.prompt), generator=g)

    def params(past):
        return {"attn_mode": "flash_attn", "cache": cache, "past_len": past, "batch_shape": (1, cache_size)}

    @torch.inference_mode()
    def run_pp():
        torch.cuda.synchronize()
        t = time.perf_counter()
        p = params(0)
        p["last_tokens_only"] = 1
        logits = model.forward(pp_ids, p)
        torch.argmax(logits[0, -1]).item()
        return a.pp / (time.perf_counter() - t)

    @torch.inference_mode()
    def run_tg():
        model.prefill(prompt[:, :-1], params(0))
        tok = prompt[:, -1:]
        torch.cuda.synchronize()
        t = time.perf_counter()
        for i in range(a.tg):
            logits = model.forward(tok, params(a.prompt - 1 + i))
            tok = torch.argmax(logits[0, -1]).view(1, 1).cpu()  # the per-token sync
        dt = time.perf_counter() - t
        if not torch.isfinite(logits).all():
            die(f"{a.model_dir}: non-finite logits in decode (the synthetic weights are out of range)")
        return a.tg / dt

    for _ in range(a.warmup):
        run_pp()
        run_tg()
    pp = [run_pp() for _ in range(a.runs)]
    tg = [run_tg() for _ in range(a.runs)]
    torch.cuda.synchronize()
    built, total = graph_layers(model)
    res = {
        "engine": "exllamav3", "commit": exl3_commit(), "model": a.label or os.path.basename(a.model_dir.rstrip("/")),
        "bpw": a.bpw, "bpw_stored_layers": round(bpw_layer, 4), "bpw_stored_head": round(bpw_head, 4),
        f"pp{a.pp}": round(statistics.median(pp), 1), f"tg{a.tg}": round(statistics.median(tg), 2),
        f"pp{a.pp}_runs": [round(x, 1) for x in pp], f"tg{a.tg}_runs": [round(x, 2) for x in tg],
        "peak_alloc_gib": round(torch.cuda.max_memory_allocated() / 2 ** 30, 3),
        "peak_reserved_gib": round(torch.cuda.max_memory_reserved() / 2 ** 30, 3),
        "smi_process_mib": smi(None, os.getpid()),
        "smi_used_mib_before_after": [smi_before, smi("memory.used")],
        "attention": {"dispatch": trace.used, "decode_graph_layers": f"{built}/{total}",
                      "flash_attn": trace.has_fa2, "triton": trace.has_triton},
        "load_s": round(load_s, 1), "runs": a.runs, "warmup": a.warmup, "prompt": a.prompt,
        "torch": torch.__version__, "gpu": torch.cuda.get_device_name(), "driver": smi("driver_version"),
    }
    print("exl3-result " + json.dumps(res), flush=True)


def heldout_ids(pycoder, nbytes):
    """The first nbytes of heldout.txt as token ids: pycoder-12m's vocabulary is the 256 bytes (id = byte value) plus
    <|endoftext|>; checked against its tokenizer.json when the tokenizers package imports."""
    raw = open(os.path.join(pycoder, "heldout.txt"), "rb").read()[:nbytes]
    ids = list(raw)
    try:
        from tokenizers import Tokenizer
        tok = Tokenizer.from_file(os.path.join(pycoder, "tokenizer.json"))
        text = raw.decode("utf-8")
        enc = tok.encode(text, add_special_tokens=False).ids
        if enc != ids:
            die(f"{pycoder}/tokenizer.json does not map bytes to ids 0..255 one to one ({len(enc)} ids for "
                f"{len(ids)} bytes): bits/byte would need the tokenizer's byte lengths")
    except UnicodeDecodeError:
        log("the first bytes of heldout.txt cut a UTF-8 sequence: byte ids not checked against tokenizer.json")
    except ImportError:
        log("tokenizers not installed: byte ids not checked against tokenizer.json")
    return ids


def score(model_dir, ids, ctx):
    """bits/byte over whole windows of ctx tokens from token 0 (mlxbun internal/eval.Perplexity's windows)."""
    import torch
    model, config, _ = load(model_dir, None)
    windows = (len(ids) - 1) // ctx
    nll, n = 0.0, 0
    with torch.inference_mode():
        for w in range(windows):
            win = torch.tensor(ids[w * ctx:(w + 1) * ctx], dtype=torch.long).unsqueeze(0)
            logits = model.forward(win, {"attn_mode": "flash_attn_nc"})
            lp = torch.log_softmax(logits[0, :-1].double(), dim=-1)
            tgt = win[0, 1:].to(lp.device)
            v = -lp.gather(1, tgt[:, None]).sum().item()
            if not math.isfinite(v):
                raise RuntimeError(f"non-finite logits in window {w}")
            nll += v
            n += ctx - 1
    bpw_layer, bpw_head, _ = model.get_storage_info()
    model.unload()
    del model
    torch.cuda.empty_cache()
    return {"windows": windows, "bytes_scored": n, "bits_per_byte": round(nll / math.log(2) / n, 5),
            "perplexity": round(math.exp(nll / n), 4), "bpw_stored_layers": round(bpw_layer, 4),
            "bpw_stored_head": round(bpw_head, 4)}


def last_error(text):
    """The line of a failed run's output that says why: the exception line, else the converter's '!! Error', else
    the last line."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in reversed(lines):
        if "Error" in ln or "error" in ln or "assert" in ln.lower():
            return ln[:300]
    return lines[-1][:300] if lines else "no output"


def pycoder_input(pycoder, dst):
    """pycoder-12m as exllamav3 can open it: its config.json (written by transformers 5) has no "architectures" list,
    which exllamav3's Config.from_directory needs to pick the architecture class, so a copy of the config gets
    ["Qwen3ForCausalLM"] (its model_type is qwen3); the weights and tokenizer files are linked, not copied."""
    subprocess.run(["rm", "-rf", dst], check=True)
    os.makedirs(dst)
    with open(os.path.join(pycoder, "config.json")) as f:
        cfg = json.load(f)
    if cfg.get("model_type") != "qwen3":
        die(f"{pycoder}/config.json: model_type {cfg.get('model_type')!r}, expected qwen3")
    cfg.setdefault("architectures", ["Qwen3ForCausalLM"])
    with open(os.path.join(dst, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
    for name in ("model.safetensors", "tokenizer.json", "tokenizer_config.json", "generation_config.json"):
        if os.path.isfile(os.path.join(pycoder, name)):
            os.symlink(os.path.abspath(os.path.join(pycoder, name)), os.path.join(dst, name))
    return dst


def cmd_quality(a):
    import torch
    if not torch.cuda.is_available():
        die("no CUDA device")
    for f in ("config.json", "model.safetensors", "heldout.txt", "tokenizer.json"):
        if not os.path.isfile(os.path.join(a.pycoder, f)):
            die(f"{a.pycoder}: no {f}")
    import exllamav3
    src = os.path.dirname(os.path.dirname(exllamav3.__file__))
    convert = os.path.join(src, "convert.py")
    if not os.path.isfile(convert):
        die(f"no convert.py beside {exllamav3.__file__}")
    os.makedirs(a.work, exist_ok=True)
    ids = heldout_ids(a.pycoder, a.bytes)
    src_dir = pycoder_input(a.pycoder, os.path.join(a.work, "pycoder-12m-in"))
    base = {"engine": "exllamav3", "commit": exl3_commit(), "model": "pycoder-12m", "ctx": a.ctx,
            "text": f"heldout.txt first {len(ids)} bytes"}

    def emit(extra):
        print("exl3-quality " + json.dumps({**base, **extra}), flush=True)

    try:
        emit({"precision": "fp16 (unquantized, exllamav3 fp16 path)", **score(src_dir, ids, a.ctx)})
    except Exception as e:
        emit({"precision": "fp16", "error": f"exllamav3 cannot load or run pycoder-12m: {type(e).__name__}: {e}"})
        return
    for bits in a.bits:
        out = os.path.join(a.work, f"pycoder-12m-exl3-{bits:g}")
        wd = os.path.join(a.work, f"job-{bits:g}")
        for d in (out, wd):
            subprocess.run(["rm", "-rf", d], check=True)
        cmd = [sys.executable, convert, "-i", src_dir, "-o", out, "-w", wd, "-b", f"{bits:g}"]
        if a.cal_rows:
            cmd += ["-cr", str(a.cal_rows)]
        if a.cal_cols:
            cmd += ["-cc", str(a.cal_cols)]
        log(f"converting at {bits:g} bpw: {' '.join(cmd)}")
        t0 = time.time()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=a.convert_timeout, cwd=src)
            outtxt = p.stdout + p.stderr
            ok = p.returncode == 0 and os.path.isfile(os.path.join(out, "config.json"))
        except subprocess.TimeoutExpired:
            outtxt = f"converter ran past {a.convert_timeout} s"
            ok = False
        with open(os.path.join(a.work, f"convert-{bits:g}.log"), "w") as f:
            f.write(outtxt)
        if ok:
            with open(os.path.join(out, "config.json")) as f:
                ok = json.load(f).get("quantization_config", {}).get("quant_method") == "exl3"
            if not ok:
                outtxt += "\nconverter wrote no exl3 quantization_config"
        if not ok:
            emit({"precision": f"exl3 {bits:g} bpw", "error": f"converter failed: {last_error(outtxt)}"})
            continue
        conv_s = time.time() - t0
        try:
            emit({"precision": f"exl3 {bits:g} bpw", "convert_s": round(conv_s, 1), **score(out, ids, a.ctx)})
        except Exception as e:
            emit({"precision": f"exl3 {bits:g} bpw", "error": f"load/score failed: {type(e).__name__}: {e}"})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("speed")
    s.add_argument("--model-dir", required=True)
    s.add_argument("--label", default=None, help="model name for the result line (default: the folder's name)")
    s.add_argument("--bpw", type=float, default=None, help="nominal bits per weight for the result line")
    s.add_argument("--runs", type=int, default=3)
    s.add_argument("--warmup", type=int, default=1)
    s.add_argument("--pp", type=int, default=512)
    s.add_argument("--tg", type=int, default=128)
    s.add_argument("--prompt", type=int, default=16)
    q = sub.add_parser("quality")
    q.add_argument("--pycoder", required=True, help="pycoder-12m folder (config, model.safetensors, tokenizer, heldout.txt)")
    q.add_argument("--bits", type=float, nargs="+", default=[2, 3, 4])
    q.add_argument("--ctx", type=int, default=512)
    q.add_argument("--bytes", type=int, default=65536)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    q.add_argument("--work", default=os.path.join(os.environ.get("EXL3_WORK", os.path.join(root, "build", "exl3")),
                                                  "quality"))
    q.add_argument("--cal-rows", type=int, default=None, help="converter --cal_rows (its default 250)")
    q.add_argument("--cal-cols", type=int, default=None, help="converter --cal_cols (its default 2048)")
    q.add_argument("--convert-timeout", type=int, default=300)
    a = ap.parse_args()
    try:
        import exllamav3  # noqa: F401
    except Exception as e:
        die(f"import exllamav3 failed ({type(e).__name__}: {e}): run scripts/peers/exl3_build.sh and source its env.sh")
    {"speed": cmd_speed, "quality": cmd_quality}[a.cmd](a)


if __name__ == "__main__":
    main()
