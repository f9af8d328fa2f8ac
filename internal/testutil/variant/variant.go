// Package variant gives tests a tiny model directory of every registered family: the tiny fixtures themselves
// for llama, qwen2, qwen3, the Gemmas and the hybrids (qwen3_5_text, qwen3_next), and fixtures rewritten for the
// families no fixture holds (mistral and smollm3 by their config, phi3 with q/k/v and gate/up fused the way Phi-3
// checkpoints store them, qwen3_moe and qwen3_5_moe_text with MoE blocks of the dense weights, moe.go); and any
// of the multimodal text models as its published wrapper (wrapped.go). A rewritten model computes what its
// source computes (phi3, mistral, qwen3_moe; smollm3 with its NoPE layer and qwen3_5_moe_text with its shared
// expert do not), so the source's golden prompt applies to it. It is a separate package from testutil because
// it reads and writes safetensors, whose own tests use testutil.
package variant

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/safetensors"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

// build says how one model_type's tiny model is made.
type build struct {
	fixture string
	config  func(map[string]any) // nil: the fixture as it is
	tensors func([]backend.Host) []backend.Host
}

var builds = map[string]build{
	"llama":   {fixture: "models/tiny-llama3"},
	"qwen2":   {fixture: "models/tiny-qwen2-yarn"},
	"qwen3":   {fixture: "models/tiny-qwen3"},
	"mistral": {fixture: "models/tiny-llama3", config: func(c map[string]any) { c["model_type"] = "mistral" }},
	// Layer 1 of 2 skips rope, so the NoPE path is part of what is checked.
	"smollm3": {fixture: "models/tiny-llama3", config: func(c map[string]any) {
		c["model_type"], c["no_rope_layers"] = "smollm3", []int{1, 0}
	}},
	"phi3": {fixture: "models/tiny-llama3", config: func(c map[string]any) { c["model_type"] = "phi3" }, tensors: FusePhi3},
	// Gemma: the fixtures as they are (sliding windows, softcaps, Gemma 4's per-layer inputs and wide global heads).
	"gemma2":      {fixture: "models/tiny-gemma2"},
	"gemma3_text": {fixture: "models/tiny-gemma3"},
	"gemma4_text": {fixture: "models/tiny-gemma4"},
	// The hybrids: 3 gated DeltaNet layers and a gated attention layer; qwen3_next with a 4-expert MoE.
	"qwen3_5_text": {fixture: "models/tiny-qwen3_5"},
	"qwen3_next":   {fixture: "models/tiny-qwen3-next-moe"},
	// MoE blocks of the dense weights (moe.go): Qwen3-MoE with a sparse and a dense layer, experts one module
	// each; Qwen3.5-MoE sparse throughout with a shared expert, experts stacked.
	"qwen3_moe":        {fixture: "models/tiny-qwen3", config: qwen3MoE, tensors: qwen3MoELayout.sparseMLPs},
	"qwen3_5_moe_text": {fixture: "models/tiny-qwen3_5", config: qwen3_5MoE, tensors: qwen3_5MoELayout.sparseMLPs},
}

// Types lists the model_type values this package builds, sorted.
func Types() []string {
	out := make([]string, 0, len(builds))
	for t := range builds {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// Model is one family's tiny model.
type Model struct {
	Type    string
	Fixture string // the fixture directory it comes from (its golden.json holds the prompt)
	Dir     string // the model directory: the fixture itself, or a rewritten copy in a test temp directory
}

// For builds modelType's tiny model; an unknown type fails the test. A missing fixture fails under CI=true and
// skips elsewhere (testutil.Fixture).
func For(tb testing.TB, modelType string) Model {
	tb.Helper()
	b, ok := builds[modelType]
	if !ok {
		tb.Fatalf("variant: no tiny model for model_type %q (have %v)", modelType, Types())
	}
	src := testutil.Fixture(tb, b.fixture)
	m := Model{Type: modelType, Fixture: src, Dir: src}
	if b.config == nil {
		return m
	}
	keep := func(ts []backend.Host) []backend.Host { return ts }
	if b.tensors != nil {
		keep = b.tensors
	}
	m.Dir = Rewrite(tb, src, b.config, keep)
	return m
}

// Rewrite copies the model directory src (config.json and its tensors) into a new temporary directory, editing
// the config and the tensor list.
func Rewrite(tb testing.TB, src string, editConfig func(map[string]any), editTensors func([]backend.Host) []backend.Host) string {
	tb.Helper()
	arch, err := safetensors.OpenDir(src)
	if err != nil {
		tb.Fatal(err)
	}
	defer arch.Close()
	var ts []backend.Host
	for _, n := range arch.Names() {
		h, err := arch.Tensor(n)
		if err != nil {
			tb.Fatal(err)
		}
		ts = append(ts, h)
	}
	dir := tb.TempDir()
	if err := safetensors.WriteFile(filepath.Join(dir, "model.safetensors"), editTensors(ts), nil); err != nil {
		tb.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(src, "config.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(b, &c); err != nil {
		tb.Fatal(err)
	}
	editConfig(c)
	if b, err = json.Marshal(c); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), b, 0o644); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// FusePhi3 stacks every layer's q_proj, k_proj, v_proj weights into qkv_proj and gate_proj, up_proj into
// gate_up_proj (gate first) by output rows, as Phi-3 checkpoints store them; other tensors pass through.
func FusePhi3(ts []backend.Host) []backend.Host {
	byName := map[string]backend.Host{}
	for _, h := range ts {
		byName[h.Name] = h
	}
	concat := func(name string, parts ...string) backend.Host {
		first := byName[parts[0]]
		h := backend.Host{Name: name, DType: first.DType, Shape: []int{0, first.Shape[1]}}
		for _, p := range parts {
			h.Data = append(h.Data, byName[p].Data...)
			h.Shape[0] += byName[p].Shape[0]
		}
		return h
	}
	var out []backend.Host
	for _, h := range ts {
		switch {
		case strings.HasSuffix(h.Name, "q_proj.weight"):
			p := strings.TrimSuffix(h.Name, "q_proj.weight")
			out = append(out, concat(p+"qkv_proj.weight", p+"q_proj.weight", p+"k_proj.weight", p+"v_proj.weight"))
		case strings.HasSuffix(h.Name, "gate_proj.weight"):
			p := strings.TrimSuffix(h.Name, "gate_proj.weight")
			out = append(out, concat(p+"gate_up_proj.weight", p+"gate_proj.weight", p+"up_proj.weight"))
		case strings.HasSuffix(h.Name, "k_proj.weight"), strings.HasSuffix(h.Name, "v_proj.weight"),
			strings.HasSuffix(h.Name, "up_proj.weight"):
		default:
			out = append(out, h)
		}
	}
	return out
}
