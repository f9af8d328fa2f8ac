package model_test

// sdpaGemma2 is Gemma 2's config as HF transformers 5.17's default attention computes it: its SDPA path drops
// attn_logit_softcapping without a word (eager and flex apply it), and the tiny-gemma2 golden was made that way.
// TestGemma2AttentionSoftcap checks the model with its cap against the same golden.
func sdpaGemma2(c map[string]any) { c["attn_logit_softcapping"] = nil }
