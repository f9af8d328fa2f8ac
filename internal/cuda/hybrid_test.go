// The hybrid models' ops on CUDA without a GPU: what Supports answers for them.
package cuda

import (
	"errors"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/model"
)

// TestServesHybridOps: the CUDA backend serves the hybrid models' ops (hybrid.go; no GPU needed: Supports reads
// only the query), so "auto" runs those models on the GPU, and still refuses an op it does not know.
func TestServesHybridOps(t *testing.T) {
	for _, op := range []backend.Op{backend.OpGatedDeltaNet, backend.OpSigmoidGate, backend.OpMoE} {
		if err := (&Backend{}).Supports(backend.Query{Op: op, Name: "model.layers.0.x"}); err != nil {
			t.Errorf("%s: %v", op, err)
		}
	}
	err := (&Backend{}).Supports(backend.Query{Op: "no_such_op", Name: "model.layers.0.x"})
	if !errors.Is(err, backend.ErrUnsupported) || !strings.Contains(err.Error(), "no_such_op") {
		t.Errorf("an unknown op: %v", err)
	}
}

// TestServesHybridFixtures: every query the hybrid fixtures ask (their matmuls and ops) is one the CUDA backend
// serves, so "--device auto" picks it for them.
func TestServesHybridFixtures(t *testing.T) {
	for _, name := range []string{"models/tiny-qwen3_5", "models/tiny-qwen3-next-moe"} {
		qs, err := model.Queries(fixture(t, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := backend.SupportsAll(&Backend{}, qs); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestServesFusedOps: Supports answers yes for every fused op of the contract (fused.go implements them all).
func TestServesFusedOps(t *testing.T) {
	for _, op := range backend.FusedOps {
		if err := (&Backend{}).Supports(backend.Query{Op: op}); err != nil {
			t.Errorf("%s: %v", op, err)
		}
	}
}
