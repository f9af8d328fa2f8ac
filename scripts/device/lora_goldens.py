#!/usr/bin/env python3
"""LoRA goldens: adapters with known random A/B on two fixture models, and the logits HF transformers computes on
the merged weights W + s·B·A (float32, CPU). Runs where torch, transformers, peft, numpy and safetensors are
installed (the GPU machine; no network needed); the Go tests (internal/model: TestAdapterGoldens,
TestAdapterQuantized) read what it writes.

    python3 scripts/device/lora_goldens.py --models .devdata/models --out $OUT/lora

--models is a folder holding the fixture models tiny-qwen3/ and tiny-llama3/ (config.json, model.safetensors,
golden.json: the prompt is the fixture golden's). --out receives one folder per case, named <fixture>_<layout>:

    tiny-qwen3_peft/   adapter_config.json, adapter_model.safetensors  (written by PEFT's save_pretrained)
    tiny-llama3_mlx/   adapter_config.json, adapters.safetensors       (mlx-lm's lora.py layout)
    each also:         golden.json (prompt_ids, logits_shape, greedy_new_ids, checks), prompt_logits.f32

about 0.9 MB in all: copy the folders to internal/model/testdata/lora/ and commit them.

The matrices are drawn from numpy's PCG64 with a fixed seed and rounded to bf16 (every backend holds them
exactly; they are stored as float32). The merge is computed in float64 and rounded once to float32; the model
otherwise runs as the fixture goldens were made (weights as stored, bf16, upcast to float32). As a check of the
layouts' arithmetic, PEFT's own unmerged forward of the same matrices (lora_alpha = s·r) is compared with the
merged logits, and the difference recorded in golden.json (checks.peft_unmerged_vs_merged).
"""

import argparse
import json
import os
import shutil
import sys

import numpy as np
import torch
from safetensors.numpy import save_file

# The cases: fixture, layout, adapted modules (suffixes under model.layers.N), rank, the adapter's scale, seed.
CASES = [
    dict(fixture="tiny-qwen3", layout="peft", rank=8, scale=2.0, seed=1,
         modules=["self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
                  "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"]),
    dict(fixture="tiny-llama3", layout="mlx", rank=4, scale=20.0, seed=2,
         modules=["self_attn.q_proj", "self_attn.v_proj", "self_attn.o_proj", "mlp.gate_proj", "mlp.down_proj"]),
]
STD_A, STD_B = 0.05, 0.02  # with the fixtures' weights at ~0.02: a delta that moves every logit, a sane model
STD_B_MLX = 0.005          # mlx-lm's scale 20 (its default) needs a smaller B for the same delta
GREEDY_TOKENS = 16


def bf16_exact(x):
    """x (float32 numpy) rounded to bf16 and back, round to nearest even as torch (and the Go side) round."""
    return torch.from_numpy(x).to(torch.bfloat16).to(torch.float32).numpy()


def load(model_dir):
    from transformers import AutoModelForCausalLM
    m = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
    m.eval()
    return m


def prompt_logits(model, ids):
    with torch.no_grad():
        out = model(input_ids=torch.tensor([ids]), attention_mask=torch.ones(1, len(ids), dtype=torch.long))
    return out.logits[0].float().numpy()


def greedy(model, ids, n):
    """n tokens by plain argmax (the first index among equals), each step a full forward: no EOS handling, no
    logits processors, as the engine's greedy test picks them."""
    seq = list(ids)
    for _ in range(n):
        seq.append(int(torch.argmax(torch.from_numpy(prompt_logits(model, seq)[-1]))))
    return seq[len(ids):]


def targets(model, case):
    """{module path: (A [r, in], B [out, r])} for every layer module the case adapts."""
    rng = np.random.Generator(np.random.PCG64(case["seed"]))
    std_b = STD_B_MLX if case["layout"] == "mlx" else STD_B
    out = {}
    for name, mod in model.named_modules():
        if not isinstance(mod, torch.nn.Linear) or not name.startswith("model.layers."):
            continue
        if not any(name.endswith("." + s) for s in case["modules"]):
            continue
        o, i = mod.weight.shape
        a = bf16_exact(rng.normal(0, STD_A, size=(case["rank"], i)).astype(np.float32))
        b = bf16_exact(rng.normal(0, std_b, size=(o, case["rank"])).astype(np.float32))
        out[name] = (a, b)
    if not out:
        sys.exit(f"{case['fixture']}: no module ends with {case['modules']}")
    return out


def merge(model, ts, scale):
    """W ← W + s·B·A for every target, in float64, rounded once to float32."""
    mods = dict(model.named_modules())
    with torch.no_grad():
        for name, (a, b) in ts.items():
            w = mods[name].weight
            merged = w.double().numpy() + scale * (b.astype(np.float64) @ a.astype(np.float64))
            w.copy_(torch.from_numpy(merged.astype(np.float32)))


def peft_model(model, ts, case):
    """PEFT's LoRA over model with the case's matrices (lora_alpha = s·r, so PEFT's scaling is s)."""
    from peft import LoraConfig, get_peft_model
    cfg = LoraConfig(r=case["rank"], lora_alpha=case["scale"] * case["rank"], lora_dropout=0.0, bias="none",
                     target_modules=sorted({s.split(".")[-1] for s in case["modules"]}))
    pm = get_peft_model(model, cfg)
    mods = dict(pm.named_modules())
    with torch.no_grad():
        for name, (a, b) in ts.items():
            m = mods["base_model.model." + name]
            m.lora_A["default"].weight.copy_(torch.from_numpy(a))
            m.lora_B["default"].weight.copy_(torch.from_numpy(b))
    unwanted = [n for n, m in pm.named_modules() if hasattr(m, "lora_A") and "default" in m.lora_A
                and n.removeprefix("base_model.model.") not in ts]
    if unwanted:
        sys.exit(f"PEFT adapted modules the case does not: {unwanted[:3]}")
    pm.eval()
    return pm


def write_mlx(dirpath, ts, case, layers):
    tensors = {}
    for name, (a, b) in ts.items():
        tensors[name + ".lora_a"] = np.ascontiguousarray(a.T)  # [in, r]
        tensors[name + ".lora_b"] = np.ascontiguousarray(b.T)  # [r, out]
    save_file(tensors, os.path.join(dirpath, "adapters.safetensors"))
    cfg = {"fine_tune_type": "lora", "num_layers": layers,
           "lora_parameters": {"rank": case["rank"], "scale": case["scale"], "dropout": 0.0, "keys": case["modules"]}}
    with open(os.path.join(dirpath, "adapter_config.json"), "w") as f:
        json.dump(cfg, f, indent=2)


def run_case(models, out, case):
    src = os.path.join(models, case["fixture"])
    with open(os.path.join(src, "golden.json")) as f:
        ids = json.load(f)["prompt_ids"]
    name = f"{case['fixture']}_{case['layout']}"
    tmp = os.path.join(out, "." + name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)

    base = load(src)
    base_logits = prompt_logits(base, ids)
    ts = targets(base, case)

    # PEFT's unmerged LoRA forward of the same matrices (and, for the PEFT case, the adapter files it saves).
    pm = peft_model(load(src), ts, case)
    peft_logits = prompt_logits(pm, ids)
    if case["layout"] == "peft":
        pm.save_pretrained(tmp, safe_serialization=True)
        for extra in ("README.md",):
            p = os.path.join(tmp, extra)
            if os.path.exists(p):
                os.remove(p)
    else:
        write_mlx(tmp, ts, case, base.config.num_hidden_layers)

    merged = load(src)
    merge(merged, ts, case["scale"])
    logits = prompt_logits(merged, ids).astype(np.float32)
    new_ids = greedy(merged, ids, GREEDY_TOKENS)
    logits.tofile(os.path.join(tmp, "prompt_logits.f32"))

    max_ref = float(np.abs(logits).max())
    checks = {
        "peft_unmerged_vs_merged": float(np.abs(peft_logits - logits).max()) / max_ref,
        "adapter_moves_logits_by": float(np.abs(base_logits - logits).max()) / max_ref,
    }
    import peft
    import transformers
    golden = {
        "prompt_ids": ids,
        "logits_file": "prompt_logits.f32",
        "logits_shape": list(logits.shape),
        "greedy_new_ids": new_ids,
        "base": case["fixture"],
        "layout": case["layout"],
        "rank": case["rank"],
        "scale": case["scale"],
        "modules": case["modules"],
        "seed": case["seed"],
        "checks": checks,
        "reference": f"transformers {transformers.__version__}, peft {peft.__version__}, torch {torch.__version__}, "
                     f"float32 on CPU, merged weights W + s·B·A (float64 merge, one rounding to float32), "
                     f"base weights as stored (bf16)",
    }
    with open(os.path.join(tmp, "golden.json"), "w") as f:
        json.dump(golden, f, indent=1)
    dst = os.path.join(out, name)
    shutil.rmtree(dst, ignore_errors=True)
    os.rename(tmp, dst)
    size = sum(os.path.getsize(os.path.join(dst, f)) for f in os.listdir(dst))
    print(f"{name}: {len(ts)} modules, rank {case['rank']}, scale {case['scale']}; {size} bytes; "
          f"PEFT unmerged vs merged {checks['peft_unmerged_vs_merged']:.2e} of max|ref| {max_ref:.3g}; "
          f"the adapter moves the logits by {checks['adapter_moves_logits_by']:.3g} of max|ref|; greedy {new_ids}")
    if not checks["peft_unmerged_vs_merged"] < 1e-5:
        sys.exit(f"{name}: PEFT's own LoRA forward differs from the merged model by "
                 f"{checks['peft_unmerged_vs_merged']:.3g} of max|ref|: the layout's arithmetic is not what was merged")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default=".devdata/models", help="folder holding tiny-qwen3/ and tiny-llama3/")
    ap.add_argument("--out", required=True, help="output folder (one sub-folder per case)")
    args = ap.parse_args()
    torch.manual_seed(0)
    torch.set_num_threads(max(1, min(8, os.cpu_count() or 1)))
    os.makedirs(args.out, exist_ok=True)
    for case in CASES:
        run_case(args.models, args.out, case)


if __name__ == "__main__":
    main()
