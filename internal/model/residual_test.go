package model_test

import (
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

// foldingCPU is the CPU reference serving the residual seam's fused ops (MatMulAdd for every layer and row count,
// NormMatMulGroup, NormGateUpSwiGLU) by their plain sequences, counting the calls: the model's deferred seam
// (residual.go) then issues exactly the reference's arithmetic in another order of ops, so any op that reads ws.xn
// before its deferred norm is issued, or a projection issued twice or never, changes the logits.
type foldingCPU struct {
	*cpu.Backend
	calls map[backend.Op]int
}

func (f *foldingCPU) MatMulAddFuses(backend.Linear, int) bool { return true }

func (f *foldingCPU) MatMulAdd(y, t, x backend.Tensor, w backend.Linear, r backend.Tensor) {
	f.calls[backend.OpMatMulAdd]++
	f.Backend.MatMul(t, x, w)
	f.Backend.Add(y, r, t)
}

func (f *foldingCPU) NormMatMulGroup(ys []backend.Tensor, xn, x, nw backend.Tensor, eps float32, ws []backend.Linear) {
	f.calls[backend.OpNormMatMulGroup]++
	f.Backend.RMSNorm(xn, x, nw, eps)
	backend.MatMulGroup(f.Backend, ys, xn, ws)
}

func (f *foldingCPU) NormGateUpSwiGLU(h, gate, up, xn, x, nw backend.Tensor, eps float32, wg, wu backend.Linear) {
	f.calls[backend.OpNormGateUpSwiGLU]++
	f.Backend.RMSNorm(xn, x, nw, eps)
	backend.GateUpSwiGLU(f.Backend, h, gate, up, xn, wg, wu)
}

// TestResidualSeamFolds: on every golden family, a backend that folds the residual seam gives the plain CPU's prompt
// logits bit for bit and the same greedy continuation, and the folds are taken (each fused op called) on the
// families whose layers allow them.
func TestResidualSeamFolds(t *testing.T) {
	plain := cpu.New()
	defer plain.Close()
	fold := &foldingCPU{Backend: cpu.New(), calls: map[backend.Op]int{}}
	defer fold.Close()
	total := map[backend.Op]int{}
	for _, name := range goldenModels {
		t.Run(filepath.Base(name), func(t *testing.T) {
			dir := testutil.Fixture(t, name)
			g, _ := readGolden(t, dir)
			var logits [2][]float32
			var greedy [2][]int
			clear(fold.calls)
			for i, b := range []backend.Backend{plain, fold} {
				m, err := model.Load(dir, b)
				if err != nil {
					t.Fatal(err)
				}
				n := len(g.PromptIDs)
				cache, err := m.NewCache(1, n)
				if err != nil {
					t.Fatal(err)
				}
				s := model.Step{}
				for p, id := range g.PromptIDs {
					s.IDs, s.Seq, s.Pos = append(s.IDs, int32(id)), append(s.Seq, 0), append(s.Pos, int32(p))
				}
				if logits[i], err = m.Forward(s, cache, n); err != nil {
					t.Fatal(err)
				}
				res, err := m.Generate(g.PromptIDs, model.GenOptions{MaxTokens: 6, Picker: argmax{}, EOS: m.Config.EOS})
				if err != nil {
					t.Fatal(err)
				}
				greedy[i] = res.Generated
				m.Close()
			}
			for i := range logits[0] {
				if math.Float32bits(logits[0][i]) != math.Float32bits(logits[1][i]) {
					t.Fatalf("logit %d: folded %g, plain %g", i, logits[1][i], logits[0][i])
				}
			}
			if !slices.Equal(greedy[0], greedy[1]) {
				t.Errorf("greedy: folded %v, plain %v", greedy[1], greedy[0])
			}
			t.Logf("folds taken: %v", fold.calls)
			for op, c := range fold.calls {
				total[op] += c
			}
		})
	}
	for _, op := range []backend.Op{backend.OpMatMulAdd, backend.OpNormMatMulGroup, backend.OpNormGateUpSwiGLU} {
		if total[op] == 0 {
			t.Errorf("%s never called: the seam was not folded on any family", op)
		}
	}
}
