#!/usr/bin/env python3
"""exl3_synth.py: writes an EXL3 model directory (exllamav3's quantized format) of a real architecture with random
weights, for the peer benchmark of issue 9: the Qwen3-14B or Qwen3-0.6B shapes at 2.0/3.0/4.0 bits per weight, so
exllamav3 runs the very shapes mlxbun's `bench --synthetic` runs, without a 28 GB download or hours of quantizing.

What the directory holds, as exllamav3's converter (conversion/convert_model.py + compile.py) writes it by default:
  config.json        the published config + quantization_config {quant_method exl3, version, bits, head_bits,
                     out_scales "always", codebook "mul1"} (no "calibration" entry: nothing was calibrated)
  model.safetensors  or model-0000i-of-0000n.safetensors + model.safetensors.index.json (shards of --shard-mb, 8192
                     as the converter), per projection <key>.trellis int16 [in/16, out/16, 16*K], <key>.suh fp16
                     [in], <key>.svh fp16 [out] and <key>.mul1 int32 scalar (the default mul1 codebook's marker:
                     the converter stores 0x83DCD12D; the kernels only test its presence); lm_head likewise at
                     --head-bits (6, the converter's default; Qwen3-0.6B's tied head is written as its own lm_head,
                     as the converter does); embeddings and norms fp16
  quantization_config.json   made by exllamav3's own create_quantization_config_json when exllamav3 imports
  tokenizer.json, tokenizer_config.json   copied from --tokenizer-dir (tokenizer.json.gz is unpacked)

Why random codes are valid: an EXL3 trellis is a bit stream read K bits per weight through a 16-bit sliding window,
and every 16-bit window decodes (the mul1 hash) to a codebook value, so any int16 words are a decodable trellis; the
only structure the quantizer adds is the choice of path. The sign vectors take |suh| = 1 and |svh| = 1/sqrt(in) so
that, with the orthonormal 128-point Hadamards around the unit-scale codebook, a projection keeps its input's RMS
(the converter's suh/svh are likewise signs times channel scales): activations stay finite through 40 layers.

    python3 scripts/peers/exl3_synth.py --arch qwen3-14b --bits 4.0 --out build/exl3/models/qwen3-14b-4.0 \
        --tokenizer-dir .peers/fixtures/qwen3-tokenizer

Runs on the GPU machine (torch draws the codes on the GPU: a 14B directory at 4 bpw, ~8.7 GB, takes seconds plus the
disk), or on a CPU with --device cpu (slow). Writes into <out>.tmp-<pid> and renames it to <out> at the end.
"""
import argparse
import gzip
import json
import math
import os
import shutil
import sys
import time

# Published configs (huggingface.co/Qwen/Qwen3-14B and Qwen3-0.6B config.json), the same numbers as mlxbun's
# internal/model/synthetic.go presets.
ARCHS = {
    "qwen3-14b": {
        "architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "bos_token_id": 151643, "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu",
        "hidden_size": 5120, "initializer_range": 0.02, "intermediate_size": 17408,
        "max_position_embeddings": 40960, "max_window_layers": 40, "model_type": "qwen3",
        "num_attention_heads": 40, "num_hidden_layers": 40, "num_key_value_heads": 8, "rms_norm_eps": 1e-06,
        "rope_scaling": None, "rope_theta": 1000000, "sliding_window": None, "tie_word_embeddings": False,
        "torch_dtype": "bfloat16", "transformers_version": "4.51.0", "use_cache": True,
        "use_sliding_window": False, "vocab_size": 151936,
    },
    "qwen3-0.6b": {
        "architectures": ["Qwen3ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
        "bos_token_id": 151643, "eos_token_id": 151645, "head_dim": 128, "hidden_act": "silu",
        "hidden_size": 1024, "initializer_range": 0.02, "intermediate_size": 3072,
        "max_position_embeddings": 40960, "max_window_layers": 28, "model_type": "qwen3",
        "num_attention_heads": 16, "num_hidden_layers": 28, "num_key_value_heads": 8, "rms_norm_eps": 1e-06,
        "rope_scaling": None, "rope_theta": 1000000, "sliding_window": None, "tie_word_embeddings": True,
        "torch_dtype": "bfloat16", "transformers_version": "4.51.0", "use_cache": True,
        "use_sliding_window": False, "vocab_size": 151936,
    },
}

MUL1_MULT = 0x83DCD12D  # exllamav3 quantize.py codebook_mul1_mult, stored as a 0-dim int32 (its uint32 bits)
MCG_MULT = 0xCBAC1FED   # codebook_mcg_mult, for --codebook mcg


def log(msg):
    print(f"{time.strftime('%H:%M:%S', time.gmtime())} exl3_synth: {msg}", file=sys.stderr, flush=True)


def die(msg):
    log(f"ERROR: {msg}")
    sys.exit(1)


def plan_tensors(cfg, bits, head_bits):
    """The model's tensors in exllamav3's module order, grouped per module (a module never spans two shards, as in
    compile.py): a list of (module key, [(tensor key, kind, shape, scale)]); scale is |svh| for an svh, else 1."""
    h, L = cfg["hidden_size"], cfg["num_hidden_layers"]
    hd, nq, nkv = cfg["head_dim"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
    inter, vocab = cfg["intermediate_size"], cfg["vocab_size"]

    def linear(key, fin, fout, K):
        for dim, name in ((fin, "in"), (fout, "out")):
            if dim % 128:
                die(f"{key}: {name}_features {dim} is not a multiple of 128 (EXL3 needs 128-divisible projections)")
        return (key, [(f"{key}.trellis", "trellis", (fin // 16, fout // 16, 16 * K), 1.0),
                      (f"{key}.suh", "suh", (fin,), 1.0),
                      (f"{key}.svh", "svh", (fout,), 1.0 / math.sqrt(fin)),
                      (f"{key}.marker", "marker", (), 1.0)])

    def norm(key, dim):
        return (key, [(f"{key}.weight", "norm", (dim,), 1.0)])

    mods = [("model.embed_tokens", [("model.embed_tokens.weight", "embed", (vocab, h), 1.0)])]
    for i in range(L):
        p = f"model.layers.{i}"
        mods += [
            norm(f"{p}.input_layernorm", h),
            linear(f"{p}.self_attn.q_proj", h, nq * hd, bits),
            linear(f"{p}.self_attn.k_proj", h, nkv * hd, bits),
            linear(f"{p}.self_attn.v_proj", h, nkv * hd, bits),
            linear(f"{p}.self_attn.o_proj", nq * hd, h, bits),
            norm(f"{p}.self_attn.q_norm", hd),
            norm(f"{p}.self_attn.k_norm", hd),
            norm(f"{p}.post_attention_layernorm", h),
            linear(f"{p}.mlp.up_proj", h, inter, bits),
            linear(f"{p}.mlp.gate_proj", h, inter, bits),
            linear(f"{p}.mlp.down_proj", inter, h, bits),
        ]
    mods += [norm("model.norm", h), linear("lm_head", h, vocab, head_bits)]
    return mods


def nbytes(kind, shape):
    n = math.prod(shape) if shape else 1
    return n * (4 if kind == "marker" else 2)


def make_tensor(torch, kind, shape, scale, gen, device, marker_value):
    """One tensor's values, on the CPU and contiguous for safetensors."""
    if kind == "trellis":
        t = torch.randint(-32768, 32768, shape, dtype=torch.int16, device=device, generator=gen)
    elif kind in ("suh", "svh"):
        t = ((torch.randint(0, 2, shape, device=device, generator=gen) * 2 - 1).float() * scale).to(torch.float16)
    elif kind == "embed":
        t = torch.randn(shape, device=device, generator=gen, dtype=torch.float32).to(torch.float16)
    elif kind == "norm":
        t = torch.ones(shape, dtype=torch.float16, device=device)
    elif kind == "marker":
        t = torch.tensor(marker_value, dtype=torch.int64).to(torch.int32)  # two's-complement bits of the uint32
    else:
        raise ValueError(kind)
    return t.contiguous().cpu()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arch", required=True, choices=sorted(ARCHS))
    ap.add_argument("--bits", required=True, type=float, help="decoder bits per weight: an integer 1..8 (2.0/3.0/4.0)")
    ap.add_argument("--head-bits", type=int, default=6, help="lm_head bits per weight (converter default 6)")
    ap.add_argument("--codebook", default="mul1", choices=["mul1", "mcg", "3inst"],
                    help="codebook marker (converter default mul1; 3inst stores no marker)")
    ap.add_argument("--out", required=True, help="output directory (replaced if it exists)")
    ap.add_argument("--tokenizer-dir", default=None,
                    help="folder with tokenizer.json (or tokenizer.json.gz) and tokenizer_config.json to copy")
    ap.add_argument("--shard-mb", type=int, default=8192, help="max shard size in MiB (converter default 8192)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default=None, help="where to draw the codes: cuda (default when present) or cpu")
    ap.add_argument("--exl3-version", default=None,
                    help="quantization_config version string (default: EXL3_SRC's exllamav3/version.py, else 1.4.1)")
    a = ap.parse_args()

    if a.bits != int(a.bits) or not 1 <= a.bits <= 8:
        die(f"--bits {a.bits}: random codes make a uniform K-bit model, so bits must be an integer from 1 to 8")
    if not (1 <= a.head_bits <= 8):
        die(f"--head-bits {a.head_bits}: must be 1..8 (an fp16 head is not written by this script)")
    K = int(a.bits)

    try:
        import torch
        from safetensors.torch import save_file
    except ImportError as e:
        die(f"needs torch and safetensors: {e}")

    device = a.device or ("cuda" if torch.cuda.is_available() else "cpu")
    cfg = dict(ARCHS[a.arch])
    version = a.exl3_version
    if version is None:
        vp = os.path.join(os.environ.get("EXL3_SRC", ""), "exllamav3", "version.py")
        version = "1.4.1"
        if os.path.isfile(vp):
            ns = {}
            exec(open(vp, encoding="utf8").read(), ns)
            version = ns.get("__version__", version)
    cfg["quantization_config"] = {
        "quant_method": "exl3", "version": version, "bits": float(K), "head_bits": a.head_bits,
        "out_scales": "always", "codebook": a.codebook,
    }

    mods = plan_tensors(cfg, K, a.head_bits)
    marker_name = {"mul1": "mul1", "mcg": "mcg", "3inst": None}[a.codebook]
    marker_value = {"mul1": MUL1_MULT, "mcg": MCG_MULT, "3inst": 0}[a.codebook]
    marker_value = marker_value - (1 << 32) if marker_value >= 1 << 31 else marker_value

    # Shards as compile.py allocates them: modules in order, a new shard when the next module would overflow.
    limit = a.shard_mb * 1024 ** 2
    shards, cur, total = [[]], 0, 0
    for mkey, ts in mods:
        ts = [t for t in ts if t[1] != "marker" or marker_name]
        msize = sum(nbytes(kind, shape) for _, kind, shape, _ in ts)
        if cur + msize > limit and cur > 0:
            shards.append([])
            cur = 0
        shards[-1].append((mkey, ts))
        cur += msize
        total += msize
    n = len(shards)

    out = os.path.abspath(a.out)
    tmp = f"{out}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    gen = torch.Generator(device=device)
    gen.manual_seed(a.seed * 1000003 + K * 101 + a.head_bits)
    log(f"{a.arch} K={K} head K={a.head_bits} codebook {a.codebook}: {total / 1e9:.2f} GB in {n} shard(s), "
        f"codes drawn on {device}")
    t0 = time.time()
    weight_map = {}
    numel_w, bits_w = 0, 0
    try:
        for i, shard in enumerate(shards):
            fname = "model.safetensors" if n == 1 else f"model-{i + 1:05}-of-{n:05}.safetensors"
            tensors = {}
            for mkey, ts in shard:
                for key, kind, shape, scale in ts:
                    if kind == "marker":
                        key = f"{mkey}.{marker_name}"
                    tensors[key] = make_tensor(torch, kind, shape, scale, gen, device, marker_value)
                    weight_map[key] = fname
                    if kind == "trellis" and mkey != "lm_head":
                        numel_w += shape[0] * 16 * shape[1] * 16
                    if mkey != "lm_head" and kind in ("trellis", "suh", "svh"):
                        bits_w += 8 * nbytes(kind, shape)
            save_file(tensors, os.path.join(tmp, fname), metadata={"format": "pt"})
            log(f"wrote {fname} ({sum(t.numel() * t.element_size() for t in tensors.values()) / 1e9:.2f} GB, "
                f"{time.time() - t0:.1f} s)")
            del tensors
        if n > 1:
            with open(os.path.join(tmp, "model.safetensors.index.json"), "w") as f:
                json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=4)
        with open(os.path.join(tmp, "config.json"), "w") as f:
            json.dump(cfg, f, indent=4)
        if a.tokenizer_dir:
            copied = []
            for name in ("tokenizer.json", "tokenizer_config.json"):
                src = os.path.join(a.tokenizer_dir, name)
                if os.path.isfile(src):
                    shutil.copyfile(src, os.path.join(tmp, name))
                    copied.append(name)
                elif os.path.isfile(src + ".gz"):
                    with gzip.open(src + ".gz", "rb") as fi, open(os.path.join(tmp, name), "wb") as fo:
                        shutil.copyfileobj(fi, fo)
                    copied.append(name + " (gunzipped)")
            if "tokenizer.json" not in " ".join(copied):
                die(f"--tokenizer-dir {a.tokenizer_dir}: no tokenizer.json or tokenizer.json.gz in it")
            log(f"copied {', '.join(copied)}")
        qc = write_quantization_config(tmp)
        shutil.rmtree(out, ignore_errors=True)
        os.rename(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    log(f"done {out} in {time.time() - t0:.1f} s: decoder projections {bits_w / numel_w:.3f} bits/weight stored "
        f"(trellis {K} + sign/scale vectors), quantization_config.json {qc}")


def write_quantization_config(model_dir):
    """quantization_config.json as the converter's last step makes it (exllamav3 reads it only for its Transformers
    integration, not to load a model): by exllamav3's own function when exllamav3 imports here."""
    try:
        from exllamav3.conversion.quant_config import create_quantization_config_json
    except Exception as e:  # exllamav3 is not built or not on PYTHONPATH: the loader does not need the file
        return f"not written (exllamav3 does not import: {type(e).__name__}: {e})"
    try:
        create_quantization_config_json(model_dir)
    except Exception as e:  # not fatal for the same reason; say why
        return f"not written (exllamav3 failed on it: {type(e).__name__}: {e})"
    return "written by exllamav3"


if __name__ == "__main__":
    main()
