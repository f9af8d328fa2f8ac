#!/usr/bin/env python3
"""gguf_synth.py: writes a Qwen3 GGUF for llama.cpp (issue 9's peer benchmark) with llama.cpp's own gguf-py.

Two sources: --preset qwen3-14b|qwen3-0.6b writes the published architecture with random bf16 weights (made on the
GPU with torch, streamed tensor by tensor, so a 14B file needs no 30 GB of host arrays); --hf DIR converts a
Hugging Face Qwen3 directory (config.json, model.safetensors, tokenizer.json) such as pycoder-12m. The vocabulary
comes from a tokenizer.json (--tokenizer, or DIR's): ids in order, added tokens as control tokens, padding to the
config's vocab_size as llama.cpp's converter does. llama-quantize then makes the k-/i-quants from the bf16 file.

  python3 gguf_synth.py --gguf-py PATH --preset qwen3-14b --tokenizer TOKDIR --out model-bf16.gguf
  python3 gguf_synth.py --gguf-py PATH --hf pycoder-12m --out pycoder-bf16.gguf
"""
import argparse
import json
import os
import sys

PRESETS = {  # the published config.json values (the same as mlxbun's internal/model/synthetic.go)
    "qwen3-14b": dict(hidden_size=5120, intermediate_size=17408, num_hidden_layers=40, num_attention_heads=40,
                      num_key_value_heads=8, head_dim=128, vocab_size=151936, rope_theta=1e6, rms_norm_eps=1e-6,
                      max_position_embeddings=40960, tie_word_embeddings=False),
    "qwen3-0.6b": dict(hidden_size=1024, intermediate_size=3072, num_hidden_layers=28, num_attention_heads=16,
                       num_key_value_heads=8, head_dim=128, vocab_size=151936, rope_theta=1e6, rms_norm_eps=1e-6,
                       max_position_embeddings=40960, tie_word_embeddings=True),
}

LAYER_MAP = {  # HF leaf → GGUF leaf, per layer
    "input_layernorm.weight": "attn_norm.weight", "post_attention_layernorm.weight": "ffn_norm.weight",
    "self_attn.q_proj.weight": "attn_q.weight", "self_attn.k_proj.weight": "attn_k.weight",
    "self_attn.v_proj.weight": "attn_v.weight", "self_attn.o_proj.weight": "attn_output.weight",
    "self_attn.q_norm.weight": "attn_q_norm.weight", "self_attn.k_norm.weight": "attn_k_norm.weight",
    "mlp.gate_proj.weight": "ffn_gate.weight", "mlp.up_proj.weight": "ffn_up.weight",
    "mlp.down_proj.weight": "ffn_down.weight",
}


def shapes(c):
    """GGUF name → (HF name, torch-order shape) for every tensor of a Qwen3 config."""
    h, f, hd = c["hidden_size"], c["intermediate_size"], c["head_dim"]
    q, kv = c["num_attention_heads"] * hd, c["num_key_value_heads"] * hd
    per = {"input_layernorm.weight": [h], "post_attention_layernorm.weight": [h],
           "self_attn.q_proj.weight": [q, h], "self_attn.k_proj.weight": [kv, h], "self_attn.v_proj.weight": [kv, h],
           "self_attn.o_proj.weight": [h, q], "self_attn.q_norm.weight": [hd], "self_attn.k_norm.weight": [hd],
           "mlp.gate_proj.weight": [f, h], "mlp.up_proj.weight": [f, h], "mlp.down_proj.weight": [h, f]}
    out = {"token_embd.weight": ("model.embed_tokens.weight", [c["vocab_size"], h])}
    for i in range(c["num_hidden_layers"]):
        for k, s in per.items():
            out[f"blk.{i}.{LAYER_MAP[k]}"] = (f"model.layers.{i}.{k}", s)
    out["output_norm.weight"] = ("model.norm.weight", [h])
    if not c.get("tie_word_embeddings", False):
        out["output.weight"] = ("lm_head.weight", [c["vocab_size"], h])
    return out


def vocab(tokdir, n_vocab, gguf):
    t = json.load(open(os.path.join(tokdir, "tokenizer.json")))
    cfg_path = os.path.join(tokdir, "tokenizer_config.json")
    tcfg = json.load(open(cfg_path)) if os.path.exists(cfg_path) else {}
    rev = {i: s for s, i in t["model"]["vocab"].items()}
    special = {}
    for a in t.get("added_tokens", []):
        rev[a["id"]] = a["content"]
        special[a["id"]] = a.get("special", False)
    toks, types = [], []
    for i in range(n_vocab):
        if i not in rev:
            toks.append(f"[PAD{i}]"), types.append(gguf.TokenType.UNUSED)
        elif i in special:
            toks.append(rev[i]), types.append(gguf.TokenType.CONTROL if special[i] else gguf.TokenType.USER_DEFINED)
        else:
            toks.append(rev[i]), types.append(gguf.TokenType.NORMAL)
    merges = [m if isinstance(m, str) else " ".join(m) for m in t["model"].get("merges", [])]
    if not merges:  # a byte-level vocabulary without merges: llama.cpp needs the key; this pair never occurs in text
        pads = [x for x in toks if x.startswith("[PAD")]
        merges = [f"{pads[0]} {pads[1]}"]
    ids = {s: i for i, s in enumerate(toks)}
    eos = ids.get(tcfg.get("eos_token") or "", None)
    pad = ids.get(tcfg.get("pad_token") or "", None)
    return toks, types, merges, eos, pad


def write_uniform_imatrix(gguf, np, plan, path):
    """An imatrix GGUF as llama-imatrix writes it (<tensor>.in_sum2, <tensor>.counts, imatrix.* keys), all ones."""
    w = gguf.GGUFWriter(path + ".tmp", arch="")
    w.add_array("imatrix.datasets", ["uniform"])
    w.add_uint32("imatrix.chunk_count", 1)
    w.add_uint32("imatrix.chunk_size", 512)
    for g, (_, s) in plan.items():
        if len(s) == 2 and g != "token_embd.weight":
            w.add_tensor(g + ".in_sum2", np.ones(s[1], dtype=np.float32))
            w.add_tensor(g + ".counts", np.ones(1, dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    os.replace(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gguf-py", required=True, help="llama.cpp's gguf-py folder")
    ap.add_argument("--preset", choices=sorted(PRESETS))
    ap.add_argument("--hf", help="a Hugging Face Qwen3 directory to convert")
    ap.add_argument("--tokenizer", help="folder with tokenizer.json (default: --hf's)")
    ap.add_argument("--pre", default="qwen2", help="llama.cpp pre-tokenizer name")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--imatrix", help="also write a uniform importance matrix (every input column weighted 1) here: "
                    "llama-quantize refuses the i-quants without one; on random weights no column is more important")
    a = ap.parse_args()
    if (a.preset is None) == (a.hf is None):
        sys.exit("gguf_synth: give exactly one of --preset and --hf")
    sys.path.insert(0, a.gguf_py)
    import gguf  # noqa: E402
    import numpy as np  # noqa: E402
    import torch  # noqa: E402

    if a.preset:
        c, name = dict(PRESETS[a.preset]), a.preset + "-random"
    else:
        c, name = json.load(open(os.path.join(a.hf, "config.json"))), os.path.basename(a.hf.rstrip("/"))
        c.setdefault("rope_theta", (c.get("rope_parameters") or {}).get("rope_theta", 1e6))
        c.setdefault("head_dim", c["hidden_size"] // c["num_attention_heads"])
    tokdir = a.tokenizer or a.hf
    if tokdir is None:
        sys.exit("gguf_synth: --preset needs --tokenizer")
    src = None
    if a.hf:
        from safetensors import safe_open
        src = safe_open(os.path.join(a.hf, "model.safetensors"), framework="pt")

    tmp = a.out + ".tmp"
    w = gguf.GGUFWriter(tmp, "qwen3")
    w.add_name(name)
    w.add_context_length(c["max_position_embeddings"])
    w.add_embedding_length(c["hidden_size"])
    w.add_block_count(c["num_hidden_layers"])
    w.add_feed_forward_length(c["intermediate_size"])
    w.add_head_count(c["num_attention_heads"])
    w.add_head_count_kv(c["num_key_value_heads"])
    w.add_key_length(c["head_dim"])
    w.add_value_length(c["head_dim"])
    w.add_rope_freq_base(float(c["rope_theta"]))
    w.add_layer_norm_rms_eps(float(c["rms_norm_eps"]))
    w.add_file_type(gguf.LlamaFileType.MOSTLY_BF16)
    toks, types, merges, eos, pad = vocab(tokdir, c["vocab_size"], gguf)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre(a.pre)
    w.add_token_list(toks)
    w.add_token_types(types)
    w.add_token_merges(merges)
    if eos is not None:
        w.add_eos_token_id(eos)
    if pad is not None:
        w.add_pad_token_id(pad)
    w.add_add_bos_token(False)

    plan = shapes(c)
    for g, (_, s) in plan.items():
        if len(s) == 1:
            w.add_tensor_info(g, s, np.dtype(np.float32), 4 * s[0])
        else:
            w.add_tensor_info(g, s, np.dtype(np.uint16), 2 * s[0] * s[1], raw_dtype=gguf.GGMLQuantizationType.BF16)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_ti_data_to_file()
    gen = torch.Generator(device="cuda").manual_seed(a.seed)
    for g, (hf, s) in plan.items():
        if src is not None:
            t = src.get_tensor(hf)
        elif len(s) == 1:
            t = torch.ones(s)
        else:  # N(0, 0.02): the initializer scale of the published configs
            t = torch.randn(s, generator=gen, device="cuda", dtype=torch.float32).mul_(0.02)
        if len(s) == 1:
            w.write_tensor_data(t.float().cpu().numpy())
        else:
            w.write_tensor_data(t.to(torch.bfloat16).cpu().view(torch.int16).numpy().view(np.uint16))
    w.close()
    os.replace(tmp, a.out)
    if a.imatrix:
        write_uniform_imatrix(gguf, np, plan, a.imatrix)
    print(f"gguf_synth: wrote {a.out} ({os.path.getsize(a.out) / 2**30:.2f} GiB)")


if __name__ == "__main__":
    main()
