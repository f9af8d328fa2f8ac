package main

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/mlxbun/mlxbun/internal/lora"
	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/testutil/loratest"
)

// TestGenerateAdapter: generate --adapter continues the golden prompt as the model with the adapter merged into
// its weights does (two adapters, one with --adapter-scale), and an adapter that does not fit the model, or a
// count of scales that does not match the adapters, is one error line.
func TestGenerateAdapter(t *testing.T) {
	qwen := testutil.Fixture(t, "models/tiny-qwen3")
	ids := "--prompt-ids=1326,617,1617,197,296,385,1497,237"
	q := loratest.Random(t, qwen, lora.PEFT, []string{"self_attn.q_proj", "mlp.down_proj"}, 8, 2, 3)
	o := loratest.Random(t, qwen, lora.MLXLM, []string{"self_attn.o_proj", "mlp.up_proj"}, 4, 10, 4)
	greedy := func(args ...string) []int {
		t.Helper()
		r := mlxbun(t, "", append([]string{"generate", ids, "--max-tokens", "6", "--json", "--device", "cpu", "--ignore-eos"}, args...)...)
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		var rec struct {
			Generated []int `json:"generated_ids"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &rec); err != nil {
			t.Fatalf("stdout: %v\n%s", err, r.stdout)
		}
		return rec.Generated
	}
	open := func(dir string, s float64) *lora.Adapter {
		a, err := lora.Open(dir, s)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	got := greedy("--model", qwen, "--adapter", q, "--adapter", o, "--adapter-scale", "1", "--adapter-scale", "0.5")
	want := greedy("--model", loratest.Merged(t, qwen, open(q, 1), open(o, 0.5)))
	base := greedy("--model", qwen)
	t.Logf("adapted %v, merged %v, base %v", got, want, base)
	if !slices.Equal(got, want) {
		t.Errorf("generate --adapter continues %v, the merged model %v", got, want)
	}
	t.Run("other model", func(t *testing.T) {
		llama := loratest.Random(t, testutil.Fixture(t, "models/tiny-llama3"), lora.PEFT, []string{"self_attn.k_proj"}, 8, 2, 5)
		oneErrorLine(t, mlxbun(t, "", "generate", "--model", qwen, ids, "--device", "cpu", "--adapter", llama),
			"base_model.model.model.layers.0.self_attn.k_proj.lora_B.weight", "256→64", "256→128")
	})
	t.Run("scale count", func(t *testing.T) {
		oneErrorLine(t, mlxbun(t, "", "generate", "--model", qwen, ids, "--device", "cpu", "--adapter", q, "--adapter", o,
			"--adapter-scale", "0.5"), "--adapter-scale")
	})
}
