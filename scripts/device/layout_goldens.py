#!/usr/bin/env python3
"""Layout goldens: tiny random multimodal models saved by HF transformers as their ForConditionalGeneration
classes publish them (text_config + vision_config, language model under a prefix beside the towers), a tiny
Qwen3-MoE, and the float32 logits and greedy tokens transformers computes for each. Runs with torch and
transformers only (the GPU machine; no network, no GPU needed); the Go test internal/model TestLayoutGoldens
reads what it writes.

    python3 scripts/device/layout_goldens.py $OUT/layouts.tar.gz

The tarball holds layouts/, to be unpacked into internal/model/testdata/ and committed (about 2 MB):

    layouts/MANIFEST.json           the cases written, the ones skipped (a class transformers lacks) and the ones
                                    that failed, each with why (the script then exits 1, the tarball still written)
    layouts/<case>/golden.json      prompt_ids, logits_shape, greedy_new_ids, the directories below, checks
    layouts/<case>/prompt_logits.f32  float32 little-endian [positions, vocab]
    wrapped cases (gemma3, gemma4, qwen3_5, qwen3_5_moe):
      new/   save_pretrained's output as transformers writes it (sharded, with its index), renamed to the
             model.language_model.* prefixes if transformers wrote the older ones
      old/   the same tensors with the language model under language_model.model.* (language_model.lm_head.*),
             the towers without their leading "model." (one file)
      text/  the text-only class (Gemma3ForCausalLM, ...) holding the same text weights, save_pretrained's output
    qwen3_moe:
      saved/     Qwen3MoeForCausalLM's save_pretrained output
      experts/   the same model with the experts in the other layout (one module each ↔ stacked)

Each model is built from a fixed seed with initializer_range 0.08 and its routers scaled up, cast to bf16, saved,
and reloaded from its files in float32: the goldens are of the files. Seeds are tried in order until every
greedy step's top-2 logit gap is above 1e-4 of max|logit| and every router's k-th and (k+1)-th
logits are 1e-3 apart, so an engine computing in another order cannot flip a choice. checks in golden.json record how far
each directory's transformers logits are from the golden (text-only class vs wrapped, old prefixes loaded with a
key_mapping, the other expert layout): a case fails when the text-only class or the other expert layout is above
1e-5 of max|ref|.
"""

import json
import os
import shutil
import sys
import tarfile
import tempfile
import traceback

import torch

VOCAB, HIDDEN, PROMPT, GREEDY = 512, 64, 24, 16
GAP, ROUTER_GAP, AGREE = 1e-4, 1e-3, 1e-5
SEEDS = range(1, 21)


class CaseFailed(Exception):
    """A case whose golden cannot be trusted (recorded in the manifest; the other cases go on)."""


def text_common(**kw):
    base = dict(vocab_size=VOCAB, hidden_size=HIDDEN, num_attention_heads=2, num_key_value_heads=1, head_dim=32,
                max_position_embeddings=256, initializer_range=0.08, rms_norm_eps=1e-6)
    base.update(kw)
    return base


def build_gemma3(tf):
    text = text_common(intermediate_size=128, num_hidden_layers=3, sliding_window=6, query_pre_attn_scalar=32,
                       layer_types=["sliding_attention", "sliding_attention", "full_attention"])
    vision = dict(model_type="siglip_vision_model", hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                  num_attention_heads=2, image_size=16, patch_size=8)
    cfg = tf.Gemma3Config(text_config=text, vision_config=vision, mm_tokens_per_image=4)
    return cfg, tf.Gemma3ForConditionalGeneration, tf.Gemma3ForCausalLM


def build_gemma4(tf):
    text = text_common(intermediate_size=128, num_hidden_layers=3, sliding_window=6, global_head_dim=64,
                       layer_types=["sliding_attention", "sliding_attention", "full_attention"],
                       hidden_size_per_layer_input=16, vocab_size_per_layer_input=VOCAB, final_logit_softcapping=30.0)
    vision = dict(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
                  num_key_value_heads=2, head_dim=8, patch_size=4, pooling_kernel_size=2, position_embedding_size=64)
    try:
        audio = dict(hidden_size=16, num_hidden_layers=1, num_attention_heads=2, subsampling_conv_channels=[4, 4],
                     conv_kernel_size=3, output_proj_dims=16, attention_chunk_size=4, attention_context_left=5,
                     attention_context_right=0)
        cfg = tf.Gemma4Config(text_config=text, vision_config=vision, audio_config=audio)
        tf.Gemma4ForConditionalGeneration(cfg)  # the audio tower builds
    except Exception as e:  # noqa: BLE001 (a tiny audio config the tower refuses: go on without it)
        print(f"gemma4: no audio tower ({type(e).__name__}: {e})")
        cfg = tf.Gemma4Config(text_config=text, vision_config=vision)
    return cfg, tf.Gemma4ForConditionalGeneration, tf.Gemma4ForCausalLM


def qwen3_5_text(**kw):
    # rotary dims 32·0.25 = 8: 4 frequencies split 2/1/1 over the mrope sections (text positions equal on all three)
    return text_common(num_hidden_layers=4, tie_word_embeddings=False,
                       layer_types=["linear_attention"] * 3 + ["full_attention"],
                       linear_num_key_heads=2, linear_num_value_heads=4, linear_key_head_dim=16,
                       linear_value_head_dim=16, linear_conv_kernel_dim=4,
                       rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.25,
                                        "mrope_section": [2, 1, 1], "mrope_interleaved": True}, **kw)


QWEN_VISION = dict(depth=1, hidden_size=16, intermediate_size=32, num_heads=2, patch_size=4, temporal_patch_size=2,
                   spatial_merge_size=2, out_hidden_size=HIDDEN, num_position_embeddings=16)


def build_qwen3_5(tf):
    cfg = tf.Qwen3_5Config(text_config=qwen3_5_text(intermediate_size=128), vision_config=dict(QWEN_VISION),
                           tie_word_embeddings=False)
    return cfg, tf.Qwen3_5ForConditionalGeneration, tf.Qwen3_5ForCausalLM


def build_qwen3_5_moe(tf):
    text = qwen3_5_text(num_experts=4, num_experts_per_tok=2, moe_intermediate_size=32, shared_expert_intermediate_size=32)
    cfg = tf.Qwen3_5MoeConfig(text_config=text, vision_config=dict(QWEN_VISION), tie_word_embeddings=False)
    return cfg, tf.Qwen3_5MoeForConditionalGeneration, tf.Qwen3_5MoeForCausalLM


def build_qwen3_moe(tf):
    cfg = tf.Qwen3MoeConfig(**text_common(intermediate_size=128, num_hidden_layers=3, num_experts=8,
                                          num_experts_per_tok=2, moe_intermediate_size=32, norm_topk_prob=True,
                                          decoder_sparse_step=1, mlp_only_layers=[1], tie_word_embeddings=False,
                                          rope_theta=1000000.0))
    return cfg, tf.Qwen3MoeForCausalLM, None


CASES = [("gemma3", build_gemma3, ["Gemma3ForConditionalGeneration", "Gemma3ForCausalLM"]),
         ("gemma4", build_gemma4, ["Gemma4ForConditionalGeneration", "Gemma4ForCausalLM"]),
         ("qwen3_5", build_qwen3_5, ["Qwen3_5ForConditionalGeneration", "Qwen3_5ForCausalLM"]),
         ("qwen3_5_moe", build_qwen3_5_moe, ["Qwen3_5MoeForConditionalGeneration", "Qwen3_5MoeForCausalLM"]),
         ("qwen3_moe", build_qwen3_moe, ["Qwen3MoeForCausalLM"])]

# transformers' key mapping from the older wrapped prefixes to the ≥ 4.52 ones, for loading old/ back.
OLD_TO_NEW = {r"^language_model\.model\.": "model.language_model.", r"^language_model\.lm_head\.": "lm_head.",
              r"^vision_tower\.": "model.vision_tower.", r"^multi_modal_projector\.": "model.multi_modal_projector.",
              r"^visual\.": "model.visual.", r"^embed_vision\.": "model.embed_vision.",
              r"^audio_tower\.": "model.audio_tower.", r"^embed_audio\.": "model.embed_audio."}


def logits_of(model, ids):
    with torch.no_grad():
        out = model(input_ids=torch.tensor([ids]), attention_mask=torch.ones(1, len(ids), dtype=torch.long))
    return out.logits[0].float()


def greedy(model, ids, n):
    """n tokens by plain argmax (the first index among equals), each a full forward, and the smallest top-2 gap."""
    seq, gap = list(ids), float("inf")
    for _ in range(n):
        row = logits_of(model, seq)[-1]
        top = torch.topk(row, 2).values
        gap = min(gap, float(top[0] - top[1]) / float(row.abs().max()))
        seq.append(int(torch.argmax(row)))
    return seq[len(ids):], gap


def router_gap(model, ids, k):
    """The smallest gap between the k-th and (k+1)-th routing logits over every router (mlp.gate) and token: the
    routers return logits or their softmax (transformers 5's TopKRouter), read back as log-probabilities, whose
    gaps are the logits'."""
    gaps, hooks = [], []

    def hook(_mod, _inp, out):
        x = (out[0] if isinstance(out, tuple) else out).float()
        x = x.reshape(-1, x.shape[-1])
        if bool((x >= 0).all()) and torch.allclose(x.sum(-1), torch.ones(x.shape[0]), atol=1e-4):
            x = torch.log(x.clamp_min(1e-30))
        s = torch.sort(x, dim=-1, descending=True).values
        gaps.append(float((s[:, k - 1] - s[:, k]).min()))

    for name, mod in model.named_modules():
        if name.endswith("mlp.gate"):
            hooks.append(mod.register_forward_hook(hook))
    logits_of(model, ids)
    for h in hooks:
        h.remove()
    return min(gaps) if gaps else float("inf")


def scale_routers(model, factor=4.0):
    """Routers far from ties: their weights times factor (initializer_range leaves the logits within a few 0.1)."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("mlp.gate.weight"):
                p.mul_(factor)


def prompt_ids(seed):
    g = torch.Generator().manual_seed(seed)
    return [int(x) for x in torch.randint(4, VOCAB, (PROMPT,), generator=g)]


def style_of(names):
    if any(n.startswith("model.language_model.") for n in names):
        return "new"
    if any(n.startswith("language_model.model.") for n in names):
        return "old"
    sys.exit(f"no language-model prefix among {sorted(names)[:5]}")


def renamed(name, to):
    """A wrapped checkpoint's tensor name in prefix style to ("new" or "old")."""
    if to == "old":
        for new, old in (("model.language_model.", "language_model.model."), ("lm_head.", "language_model.lm_head.")):
            if name.startswith(new):
                return old + name[len(new):]
        return name[len("model."):] if name.startswith("model.") else name  # the towers; mtp.* stays
    for old, new in (("language_model.model.", "model.language_model."), ("language_model.lm_head.", "lm_head.")):
        if name.startswith(old):
            return new + name[len(old):]
    return name if name.startswith(("model.", "lm_head.", "mtp.")) else "model." + name


def read_tensors(d):
    from safetensors.torch import load_file
    out = {}
    for f in sorted(os.listdir(d)):
        if f.endswith(".safetensors"):
            out.update(load_file(os.path.join(d, f)))
    return out


def write_copy(src, dst, tensors):
    """dst: src's config files and tensors as one model.safetensors."""
    from safetensors.torch import save_file
    os.makedirs(dst)
    for f in os.listdir(src):
        if f.endswith(".json") and f != "model.safetensors.index.json":
            shutil.copy(os.path.join(src, f), dst)
    save_file({k: v.contiguous() for k, v in tensors.items()}, os.path.join(dst, "model.safetensors"), metadata={"format": "pt"})


def restack(tensors):
    """The experts in the other layout: one module each (mlp.experts.E.gate_proj.weight) ↔ stacked
    (mlp.experts.gate_up_proj [E, 2·I, H], gate rows first; mlp.experts.down_proj [E, H, I])."""
    out, stacks = {}, {}
    for k, v in tensors.items():
        if k.endswith("mlp.experts.gate_up_proj"):
            base = k[:-len("gate_up_proj")]
            inter = v.shape[1] // 2
            for e in range(v.shape[0]):
                out[f"{base}{e}.gate_proj.weight"] = v[e, :inter].clone()
                out[f"{base}{e}.up_proj.weight"] = v[e, inter:].clone()
        elif k.endswith("mlp.experts.down_proj"):
            base = k[:-len("down_proj")]
            for e in range(v.shape[0]):
                out[f"{base}{e}.down_proj.weight"] = v[e].clone()
        elif ".mlp.experts." in k:
            base, rest = k.split(".mlp.experts.")
            e, mod = rest.split(".", 1)
            stacks.setdefault(base, {}).setdefault(int(e), {})[mod] = v
        else:
            out[k] = v
    for base, experts in stacks.items():
        es = [experts[e] for e in sorted(experts)]
        out[base + ".mlp.experts.gate_up_proj"] = torch.stack([torch.cat([x["gate_proj.weight"], x["up_proj.weight"]]) for x in es])
        out[base + ".mlp.experts.down_proj"] = torch.stack([x["down_proj.weight"] for x in es])
    return out


def attempt(tf, name, build, seed, work):
    """One seed's model, saved, reloaded and checked; None when a choice is too close to call."""
    cfg, cls, text_cls = build(tf)
    torch.manual_seed(seed)
    model = cls(cfg).eval()
    scale_routers(model)
    model = model.to(torch.bfloat16)
    case = os.path.join(work, name)
    shutil.rmtree(case, ignore_errors=True)
    os.makedirs(case)
    wrapped = text_cls is not None
    saved = os.path.join(case, "new" if wrapped else "saved")
    model.save_pretrained(saved, max_shard_size="100KB" if wrapped else "5GB")
    ref = cls.from_pretrained(saved, dtype=torch.float32).eval()
    ids = prompt_ids(seed)
    logits = logits_of(ref, ids)
    new_ids, gap = greedy(ref, ids, GREEDY)
    rgap = router_gap(ref, ids, getattr(cfg.get_text_config(), "num_experts_per_tok", 1))
    max_ref = float(logits.abs().max())
    print(f"{name} seed {seed}: top-2 gap {gap:.2e} of max|logit|, router gap {rgap:.2e}")
    if gap < GAP or rgap < ROUTER_GAP:
        return None
    checks, dirs = {}, {}
    names = set(read_tensors(saved))
    if wrapped:
        style = style_of(names)
        dirs["saved_style"] = style
        if style == "old":  # make new/ the ≥ 4.52 spelling, old/ what transformers wrote
            os.rename(saved, os.path.join(case, "old-saved"))
            write_copy(os.path.join(case, "old-saved"), saved, {renamed(k, "new"): v for k, v in read_tensors(os.path.join(case, "old-saved")).items()})
            os.rename(os.path.join(case, "old-saved"), os.path.join(case, "old"))
        else:
            write_copy(saved, os.path.join(case, "old"), {renamed(k, "old"): v for k, v in read_tensors(saved).items()})
        try:
            old = cls.from_pretrained(os.path.join(case, "old"), dtype=torch.float32, key_mapping=OLD_TO_NEW).eval()
            checks["old_prefixes_vs_golden"] = float((logits_of(old, ids) - logits).abs().max()) / max_ref
        except Exception as e:  # noqa: BLE001 (recorded: the Go side still reads old/)
            checks["old_prefixes_vs_golden"] = f"transformers did not load old/: {type(e).__name__}: {e}"
        # The text-only class with the same text weights.
        text = text_cls(cfg.get_text_config()).eval()
        sd = {}
        for k, v in ref.state_dict().items():
            if k.startswith("model.language_model."):
                sd["model." + k[len("model.language_model."):]] = v
            elif k.startswith("lm_head."):
                sd[k] = v
        missing, unexpected = text.load_state_dict(sd, strict=False)
        missing = [m for m in missing if not m.startswith("lm_head.")]
        if missing or unexpected:
            raise CaseFailed(f"the text-only class misses {missing[:4]} and does not take {unexpected[:4]}")
        if getattr(cfg, "tie_word_embeddings", False):
            text.tie_weights()
        text.to(torch.bfloat16).save_pretrained(os.path.join(case, "text"))
        text_ref = text_cls.from_pretrained(os.path.join(case, "text"), dtype=torch.float32).eval()
        checks["text_only_vs_wrapped"] = float((logits_of(text_ref, ids) - logits).abs().max()) / max_ref
        dirs["dirs"] = ["new", "old", "text"]
    else:
        flat = read_tensors(saved)
        dirs["saved_experts"] = "stacked" if any(k.endswith("experts.gate_up_proj") for k in flat) else "one module each"
        write_copy(saved, os.path.join(case, "experts"), restack(flat))
        other = cls.from_pretrained(os.path.join(case, "experts"), dtype=torch.float32).eval()
        checks["other_expert_layout_vs_golden"] = float((logits_of(other, ids) - logits).abs().max()) / max_ref
        dirs["dirs"] = ["saved", "experts"]
    # old/ loaded back through a key mapping is a check of the copy, recorded; these two are the goldens' promise.
    for k in ("text_only_vs_wrapped", "other_expert_layout_vs_golden"):
        if k in checks and not checks[k] <= AGREE:
            raise CaseFailed(f"{k} = {checks[k]:.3g}: above {AGREE} of max|ref|")
    logits.numpy().astype("<f4").tofile(os.path.join(case, "prompt_logits.f32"))
    golden = dict(prompt_ids=ids, logits_file="prompt_logits.f32", logits_shape=list(logits.shape),
                  greedy_new_ids=new_ids, **{"class": cls.__name__}, text_class=text_cls.__name__ if text_cls else None,
                  seed=seed, checks=checks, top2_gap=gap, router_gap=rgap if rgap != float("inf") else None,
                  reference=f"transformers {tf.__version__}, torch {torch.__version__}, float32 on CPU, "
                            f"weights as stored (bf16), reloaded from the saved files", **dirs)
    with open(os.path.join(case, "golden.json"), "w") as f:
        json.dump(golden, f, indent=1)
    return golden


def main():
    if len(sys.argv) != 2 or not sys.argv[1].endswith(".tar.gz"):
        sys.exit("usage: layout_goldens.py OUT.tar.gz")
    import transformers as tf
    torch.set_num_threads(max(1, min(8, os.cpu_count() or 1)))
    work = tempfile.mkdtemp(prefix="layouts-")
    root = os.path.join(work, "layouts")
    os.makedirs(root)
    manifest = {"transformers": tf.__version__, "torch": torch.__version__, "cases": [], "skipped": {}, "failed": {}}
    for name, build, classes in CASES:
        lacking = [c for c in classes if not hasattr(tf, c)]
        why = f"transformers {tf.__version__} has no {', '.join(lacking)}" if lacking else None
        if why is None:
            try:
                build(tf)
            except (AttributeError, TypeError, ValueError) as e:
                why = f"transformers {tf.__version__} refuses the tiny config: {type(e).__name__}: {e}"
        if why is not None:
            print(f"{name}: skipped: {why}")
            manifest["skipped"][name] = why
            continue
        try:
            for seed in SEEDS:
                if attempt(tf, name, build, seed, root) is not None:
                    break
            else:
                raise CaseFailed(f"no seed in {SEEDS} gives choices apart by {GAP} (logits) and {ROUTER_GAP} (routers)")
        except Exception as e:  # noqa: BLE001 (one case's failure is recorded; the others are still written)
            traceback.print_exc()
            print(f"{name}: FAILED: {type(e).__name__}: {e}")
            manifest["failed"][name] = f"{type(e).__name__}: {e}"
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)
            continue
        manifest["cases"].append(name)
        size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(os.path.join(root, name)) for f in fs)
        print(f"{name}: written, {size} bytes")
    with open(os.path.join(root, "MANIFEST.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    with tarfile.open(sys.argv[1] + ".tmp", "w:gz") as t:
        t.add(root, arcname="layouts")
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    print(f"{sys.argv[1]}: {os.path.getsize(sys.argv[1])} bytes; cases {manifest['cases']}, "
          f"skipped {manifest['skipped']}, failed {manifest['failed']}")
    if manifest["failed"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
