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
	t.Setenv(envHybrid, "")
	for _, op := range []backend.Op{backend.OpGatedDeltaNet, backend.OpSigmoidGate, backend.OpMoE} {
		err := (&Backend{}).Supports(backend.Query{Op: op, Name: "model.layers.0.x"})
		if !errors.Is(err, backend.ErrUnsupported) || !strings.Contains(err.Error(), envHybrid+"=1") {
			t.Errorf("%s without %s: %v", op, envHybrid, err)
		}
	}
	t.Setenv(envHybrid, "1")
	for _, op := range []backend.Op{backend.OpGatedDeltaNet, backend.OpSigmoidGate, backend.OpMoE} {
		if err := (&Backend{}).Supports(backend.Query{Op: op, Name: "model.layers.0.x"}); err != nil {
			t.Errorf("%s: %v", op, err)
		}
	}
	if err := (&Backend{}).Supports(backend.Query{Op: "no_such_op", Name: "model.layers.0.x"}); err == nil {
		t.Error("an unknown op was accepted")
	}
}

// TestServesHybridFixtures: every query the hybrid fixtures ask (their matmuls and ops) is one the CUDA backend
// serves, so "--device auto" picks it for them.
func TestServesHybridFixtures(t *testing.T) {
	t.Setenv(envHybrid, "1")
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
