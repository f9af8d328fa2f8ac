package model_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/testutil/variant"
)

// TestQueries: one matmul query per linear layer, in binding order, with the shapes and formats the loader will
// hand LoadLinear; Phi-3's fused projections give one query per part, named by its rows; then the one attention
// shape of the layers.
func TestQueries(t *testing.T) {
	for _, c := range []struct {
		typ   string
		names []string // layer 0's queries
		head  string
	}{
		{"qwen3", []string{"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}, "model.embed_tokens"},
		{"phi3", []string{"qkv_proj[0:256]", "qkv_proj[256:320]", "qkv_proj[320:384]", "o_proj",
			"gate_up_proj[0:768]", "gate_up_proj[768:1536]", "down_proj"}, "lm_head"},
	} {
		t.Run(c.typ, func(t *testing.T) {
			qs, err := model.Queries(variant.For(t, c.typ).Dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(qs) != 2*7+1+1 {
				t.Fatalf("%d queries, want 15 matmuls and one attention shape", len(qs))
			}
			if a := qs[15]; a.Op != backend.OpAttention || a.Name != "model.layers.0.self_attn" || a.Attn.Window || a.Attn.Softcap || a.Attn.Heads*a.Attn.HeadDim != 256 {
				t.Errorf("last query %s, want layer 0's plain attention over 256-wide queries", a)
			}
			for i, n := range c.names {
				q := qs[i]
				if !strings.HasSuffix(q.Name, "layers.0.self_attn."+n) && !strings.HasSuffix(q.Name, "layers.0.mlp."+n) {
					t.Errorf("query %d is %s, want layer 0's %s", i, q.Name, n)
				}
				if q.Op != backend.OpMatMul || q.Weight.Format != backend.FormatDense || q.Weight.DType != backend.BF16 {
					t.Errorf("%s", q)
				}
			}
			if h := qs[14]; h.Name != c.head || h.Out != 2048 || h.In != 256 {
				t.Errorf("head %s, want %s 256→2048", h, c.head)
			}
			if gate := qs[4]; gate.Out != 768 || gate.In != 256 {
				t.Errorf("gate %s, want 256→768", gate)
			}
		})
	}
}

// refusing is the CPU backend refusing one layer by name, counting what reaches the device.
type refusing struct {
	*cpu.Backend
	layer            string
	uploads, linears int
}

func (r *refusing) Supports(q backend.Query) error {
	if q.Name == r.layer {
		return &backend.UnsupportedError{Backend: "fake", Query: q, Why: "refused for the test"}
	}
	return r.Backend.Supports(q)
}

func (r *refusing) Upload(h backend.Host) (backend.Tensor, error) {
	r.uploads++
	return r.Backend.Upload(h)
}

func (r *refusing) LoadLinear(s backend.LinearSpec) (backend.Linear, error) {
	r.linears++
	return r.Backend.LoadLinear(s)
}

// TestLoadAsksFirst: a backend that cannot serve the last layer fails the load naming it, with nothing uploaded.
func TestLoadAsksFirst(t *testing.T) {
	b := &refusing{Backend: cpu.New(), layer: "model.layers.1.mlp.down_proj"}
	defer b.Close()
	_, err := model.Load(variant.For(t, "qwen3").Dir, b)
	var ue *backend.UnsupportedError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "fake cannot serve matmul model.layers.1.mlp.down_proj (dense BF16, 768→256)") {
		t.Fatalf("got %v", err)
	}
	if b.uploads+b.linears != 0 {
		t.Errorf("%d uploads and %d linears before the refusal", b.uploads, b.linears)
	}
}
