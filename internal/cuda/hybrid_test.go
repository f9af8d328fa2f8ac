package cuda

import (
	"errors"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
)

// TestRefusesHybridOps: until its kernels exist the CUDA backend refuses the hybrid models' ops (no GPU needed:
// Supports reads only the query), so "auto" runs those models on the CPU.
func TestRefusesHybridOps(t *testing.T) {
	for _, op := range []backend.Op{backend.OpGatedDeltaNet, backend.OpSigmoidGate, backend.OpMoE} {
		err := (&Backend{}).Supports(backend.Query{Op: op, Name: "model.layers.0.x"})
		if !errors.Is(err, backend.ErrUnsupported) || !strings.Contains(err.Error(), "cuda cannot serve "+string(op)+" model.layers.0.x: no CUDA kernel") {
			t.Errorf("%s: %v", op, err)
		}
	}
}
