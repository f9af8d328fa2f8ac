// The hybrid models' ops on CUDA without a GPU: what Supports answers for them.
package cuda

import (
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
)

// TestServesHybridOps: the CUDA backend serves the hybrid models' ops (hybrid.go; no GPU needed: Supports reads
// only the query), so "auto" runs those models on the GPU, and still refuses an op it does not know.
func TestServesHybridOps(t *testing.T) {
	for _, op := range []backend.Op{backend.OpGatedDeltaNet, backend.OpSigmoidGate, backend.OpMoE} {
		if err := (&Backend{}).Supports(backend.Query{Op: op, Name: "model.layers.0.x"}); err != nil {
			t.Errorf("%s: %v", op, err)
		}
	}
	if err := (&Backend{}).Supports(backend.Query{Op: "no_such_op", Name: "model.layers.0.x"}); err == nil {
		t.Error("an unknown op was accepted")
	}
}
