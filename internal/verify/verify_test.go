package verify

import (
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/rope"
)

// cpuCases are the quick cases a CPU reference runs in seconds here: all but the Qwen3-14B and 1.7B shapes.
func cpuCases(keep func(Case) bool) []Case {
	var cs []Case
	for _, c := range Cases(true) {
		if strings.HasPrefix(c.Shape, "qwen3-14b") || strings.HasPrefix(c.Shape, "qwen3-1.7b") {
			continue
		}
		if keep == nil || keep(c) {
			cs = append(cs, c)
		}
	}
	return cs
}

// TestCasesWellFormed: every case is named uniquely (--only and the GPU subtests select by name), states a
// promise and a bound, and every fused sequence or recording states its launches. The count is at least the 507
// comparisons the CUDA backend's own harness made before it was folded in here.
func TestCasesWellFormed(t *testing.T) {
	all := Cases(false)
	seen := map[string]bool{}
	for _, c := range all {
		name := c.Op + " " + c.Shape
		if seen[name] {
			t.Errorf("two cases named %q", name)
		}
		seen[name] = true
		if c.Promise == "" || c.Tol < 0 || c.run == nil {
			t.Errorf("%s: promise %q, tolerance %g", name, c.Promise, c.Tol)
		}
		fused := strings.HasPrefix(c.Op, "Fused/") || strings.HasPrefix(c.Op, "Record/")
		if fused != (c.Launches != nil) {
			t.Errorf("%s: Launches %v", name, c.Launches)
		}
	}
	quick := Cases(true)
	t.Logf("%d cases (%d quick), %d ops", len(all), len(quick), len(Ops()))
	if len(all) < 507 {
		t.Errorf("%d cases, fewer than the 507 checks of the former CUDA harness", len(all))
	}
}

// bf16 reports whether a case places bf16 tensors on the device (activations or a MatMul output).
func bf16(c Case) bool { return c.Act == backend.BF16 || strings.Contains(c.Shape, "out BF16") }

// TestCPUAgainstItself: the reference agrees with itself on every quick case it can run here (the harness runs
// end to end), and skips exactly the cases with bf16 tensors (the CPU holds none).
func TestCPUAgainstItself(t *testing.T) {
	ref, dut := cpu.New(), cpu.New()
	defer ref.Close()
	defer dut.Close()
	for _, r := range Run(ref, dut, cpuCases(nil), 1) {
		if r.Pass == bf16(r.Case) || r.Skipped != bf16(r.Case) {
			t.Errorf("%s %s: pass %v, skipped %v, metric %g, err %v", r.Op, r.Shape, r.Pass, r.Skipped, r.Metric, r.Err)
		}
	}
}

// skewed is a CPU backend whose MatMul is slightly wrong.
type skewed struct{ *cpu.Backend }

func (s skewed) MatMul(dst, x backend.Tensor, w backend.Linear) {
	s.Backend.MatMul(dst, x, w)
	d := dst.(*cpu.Tensor).Float32s()
	d[len(d)/2] += 1
}

// TestHarnessCatchesBrokenKernels: a backend with a wrong MatMul fails exactly the MatMul cases.
func TestHarnessCatchesBrokenKernels(t *testing.T) {
	ref := cpu.New()
	defer ref.Close()
	dut := skewed{cpu.New()}
	defer dut.Close()
	cases := cpuCases(func(c Case) bool {
		return !bf16(c) && strings.HasPrefix(c.Shape, "pycoder") && (strings.HasPrefix(c.Op, "MatMul") || c.Op == "RMSNorm/row")
	})
	if len(cases) < 10 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, r := range Run(ref, dut, cases, 2) {
		isMatMul := strings.HasPrefix(r.Op, "MatMul")
		if r.Pass == isMatMul {
			t.Errorf("%s %s: pass=%v metric %g; want pass only for non-MatMul", r.Op, r.Shape, r.Pass, r.Metric)
		}
	}
}

// badFusion is a CPU backend that gets every fused op (internal/backend/fused.go) wrong the way a broken fused
// kernel would — each output of AddRMSNorm, NormRope, MatMulGroup, GateUpSwiGLU, MatMulAdd and the norm-folded
// groups corrupted — and a prompt MatMul
// (more rows than a decode batch) of what the last other op wrote (the bf16 copy a fusing backend's launch writes
// for it) corrupted too; every op alone right.
type badFusion struct {
	*cpu.Backend
	lastDst backend.Tensor // dst of the last op other than MatMul
}

// bump breaks one element by more than the tensor's largest magnitude: wrong under any bound a promise gives.
func bump(t backend.Tensor) {
	v := t.(*cpu.Tensor).Float32s()
	var m float32
	for _, x := range v {
		m = max(m, x, -x)
	}
	v[0] += 1 + m
}

func (b *badFusion) AddRMSNorm(sum, y, a, c, w backend.Tensor, eps float32) {
	b.Backend.Add(sum, a, c)
	b.Backend.RMSNorm(y, sum, w, eps)
	bump(sum)
	bump(y)
	b.lastDst = y
}

func (b *badFusion) NormRope(x, pos, w backend.Tensor, heads int, eps float32, table *rope.Table) {
	b.Backend.RMSNorm(x, x, w, eps)
	b.Backend.Rope(x, pos, heads, nil) // the rotation is lost
	b.lastDst = x
}

func (b *badFusion) MatMulGroup(ys []backend.Tensor, x backend.Tensor, ws []backend.Linear) {
	for i, w := range ws {
		b.Backend.MatMul(ys[i], x, w)
		bump(ys[i])
	}
}

func (b *badFusion) GateUpSwiGLU(h, gate, up, x backend.Tensor, wg, wu backend.Linear) {
	b.Backend.MatMul(gate, x, wg)
	b.Backend.MatMul(up, x, wu)
	bump(gate)
	bump(up)
	b.Backend.SwiGLU(h, gate, up)
	bump(h)
	b.lastDst = h
}

func (b *badFusion) MatMulAddFuses(backend.Linear, int) bool { return true }

func (b *badFusion) MatMulAdd(y, t, x backend.Tensor, w backend.Linear, r backend.Tensor) {
	b.Backend.MatMul(t, x, w)
	b.Backend.Add(y, r, t)
	bump(y)
	b.lastDst = y
}

func (b *badFusion) NormMatMulGroup(ys []backend.Tensor, xn, x, nw backend.Tensor, eps float32, ws []backend.Linear) {
	b.Backend.RMSNorm(xn, x, nw, eps)
	bump(xn)
	b.MatMulGroup(ys, xn, ws)
}

func (b *badFusion) NormGateUpSwiGLU(h, gate, up, xn, x, nw backend.Tensor, eps float32, wg, wu backend.Linear) {
	b.Backend.RMSNorm(xn, x, nw, eps)
	bump(xn)
	b.GateUpSwiGLU(h, gate, up, xn, wg, wu)
}

func (b *badFusion) DeltaRuleNormGated(dst, qkv, z, a, bt, aLog, dtBias, nw backend.Tensor, eps float32, st backend.RecurrentState, layer int, seq, pos backend.Tensor) {
	b.Backend.GatedDeltaRule(dst, qkv, a, bt, aLog, dtBias, st, layer, seq, pos)
	bump(dst) // the delta rule's output off by one step before the norm reads it
	b.Backend.RMSNormGated(dst, dst, z, nw, eps)
}

func (b *badFusion) MatMul(dst, x backend.Tensor, w backend.Linear) {
	b.Backend.MatMul(dst, x, w)
	if x.Shape()[0] > backend.MaxDecodeRows && x == b.lastDst {
		bump(dst)
	}
}

func (b *badFusion) RMSNorm(dst, x, w backend.Tensor, eps float32) {
	b.Backend.RMSNorm(dst, x, w, eps)
	b.lastDst = dst
}
func (b *badFusion) Add(dst, x, y backend.Tensor)    { b.Backend.Add(dst, x, y); b.lastDst = dst }
func (b *badFusion) SwiGLU(dst, g, u backend.Tensor) { b.Backend.SwiGLU(dst, g, u); b.lastDst = dst }
func (b *badFusion) Rope(x, pos backend.Tensor, heads int, table *rope.Table) {
	b.Backend.Rope(x, pos, heads, table)
	b.lastDst = x
}
func (b *badFusion) Embed(dst, t, ids backend.Tensor) { b.Backend.Embed(dst, t, ids); b.lastDst = dst }
func (b *badFusion) Attention(dst, q, k, v backend.Tensor, c backend.KVCache, layer int, seq, pos backend.Tensor, scale float32) {
	b.Backend.Attention(dst, q, k, v, c, layer, seq, pos, scale)
	b.lastDst = dst
}

// TestHarnessCatchesBrokenFusions: a backend that breaks every fusable sequence fails every fused case and
// nothing else.
func TestHarnessCatchesBrokenFusions(t *testing.T) {
	ref := cpu.New()
	defer ref.Close()
	dut := &badFusion{Backend: cpu.New()}
	defer dut.Close()
	cases := cpuCases(func(c Case) bool { return !bf16(c) })
	fused := 0
	for _, r := range Run(ref, dut, cases, 3) {
		isFused := strings.HasPrefix(r.Op, "Fused/")
		if isFused {
			fused++
		}
		if r.Pass == isFused {
			t.Errorf("%s %s: pass=%v metric %g err %v; want a failure exactly for the fused sequences", r.Op, r.Shape, r.Pass, r.Metric, r.Err)
		}
	}
	if fused < 20 {
		t.Errorf("only %d fused cases ran", fused)
	}
}

// staleRecorder runs a recorded step only the first time its key is seen: replays leave the outputs as they were.
type staleRecorder struct {
	*cpu.Backend
	seen map[any]bool
}

func (s *staleRecorder) Record(key any, fn func()) error {
	if !s.seen[key] {
		s.seen[key] = true
		fn()
	}
	return nil
}

func (s *staleRecorder) Forget(key any) { delete(s.seen, key) }

// TestHarnessCatchesStaleReplay: a Recorder that does not replay fails every replayed step and passes the
// recording run.
func TestHarnessCatchesStaleReplay(t *testing.T) {
	ref := cpu.New()
	defer ref.Close()
	dut := &staleRecorder{Backend: cpu.New(), seen: map[any]bool{}}
	defer dut.Close()
	cases := cpuCases(func(c Case) bool { return c.Act == backend.F32 && strings.HasPrefix(c.Op, "Record/") })
	if len(cases) != 6 {
		t.Fatalf("%d record cases, want 6", len(cases))
	}
	for _, r := range Run(ref, dut, cases, 4) {
		first := strings.Contains(r.Shape, "step 1 of")
		if r.Pass != first {
			t.Errorf("%s %s: pass=%v metric %g; want a pass only for the recording run", r.Op, r.Shape, r.Pass, r.Metric)
		}
	}
}

// TestRunSurvivesPanics: a case that panics (an op's shape check) fails with the panic as its error, and the run
// goes on.
func TestRunSurvivesPanics(t *testing.T) {
	ref, dut := cpu.New(), cpu.New()
	boom := Case{Op: "Boom", Shape: "none", Promise: "none", run: func(h *harness) float64 {
		x := h.act(h.randn(6, 1), 2, 3)
		h.dut.Add(x.dut, x.dut, h.dut.Rows(x.dut, 0, 1)) // mismatched shapes: a programmer error
		return 0
	}}
	ok := Case{Op: "Fine", Shape: "none", Promise: "none", run: func(h *harness) float64 { return 0 }}
	rs := Run(ref, dut, []Case{boom, ok}, 5)
	if rs[0].Pass || rs[0].Err == nil || !strings.Contains(rs[0].Err.Error(), "panic") || !rs[1].Pass {
		t.Errorf("results %+v / %+v", rs[0].Err, rs[1])
	}
}

// TestArgmaxOnCPU: every Argmax case, the Qwen3-14B sweep included (tie, NaN, all −Inf, an ulp apart at 151,936
// ids), passes with the CPU backend as the device: the Argmaxer that model.ForwardPicks calls on the CPU.
func TestArgmaxOnCPU(t *testing.T) {
	ref, dut := cpu.New(), cpu.New()
	defer ref.Close()
	defer dut.Close()
	var cs []Case
	for _, c := range Cases(false) {
		if c.Op == "Argmax" {
			cs = append(cs, c)
		}
	}
	if len(cs) < 3 {
		t.Fatalf("%d Argmax cases", len(cs))
	}
	for _, r := range Run(ref, dut, cs, 1) {
		if !r.Pass || r.Skipped {
			t.Errorf("%s %s: pass %v, skipped %v, metric %g, err %v", r.Op, r.Shape, r.Pass, r.Skipped, r.Metric, r.Err)
		}
	}
	t.Logf("%d Argmax cases pass on the CPU", len(cs))
}

// plainOnly is a backend with the plain ops only (the interface hides the optional ones).
type plainOnly struct{ backend.Backend }

// gramOverwrites is a CPU backend whose Gram never accumulates (the mistake of a beta left at 0).
type gramOverwrites struct{ *cpu.Backend }

func (g gramOverwrites) Gram(acc, x backend.Tensor, _ bool) { g.Backend.Gram(acc, x, true) }

// TestGramCases: the CPU's Gram meets the promise at every quick shape, one that drops the accumulation fails
// every one, and a backend without the op skips them.
func TestGramCases(t *testing.T) {
	gram := cpuCases(func(c Case) bool { return c.Op == "Gram" })
	if len(gram) < 3 {
		t.Fatalf("%d quick Gram cases", len(gram))
	}
	ref := cpu.New()
	for _, r := range Run(ref, cpu.New(), gram, 1) {
		if !r.Pass {
			t.Errorf("cpu: %s: metric %g (tolerance %g), err %v", r.Shape, r.Metric, r.Tol, r.Err)
		}
		t.Logf("cpu: %s: metric %.3g of %.3g", r.Shape, r.Metric, r.Tol)
	}
	for _, r := range Run(ref, gramOverwrites{cpu.New()}, gram, 1) {
		if r.Pass {
			t.Errorf("overwriting Gram: %s passed (metric %g)", r.Shape, r.Metric)
		}
	}
	for _, r := range Run(ref, plainOnly{cpu.New()}, gram, 1) {
		if !r.Skipped {
			t.Errorf("backend without Gram: %s not skipped (pass %v, err %v)", r.Shape, r.Pass, r.Err)
		}
	}
}
