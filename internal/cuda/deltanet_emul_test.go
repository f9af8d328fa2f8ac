// The index arithmetic of deltanet.cu transcribed into Go and checked against the CPU reference (cpu.CausalConv,
// cpu.GatedDeltaRule in its recurrent form) with no GPU: the state layouts (a layer's offset, [seqs, K-1, C] conv
// tails, [seqs, VH, dk, dv] matrices), the qkv offsets of a value head's key head, one block per (column tile,
// value head, sequence) scanning all rows for its own with a reset at position 0, the zero padding of a key dim
// below the instantiated bound, the column tiles of a value dim past 128. A change to those kernel lines must be
// mirrored here. (moe.cu's transcription is moe_emul_test.go.)

package cuda

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
)

// deltaConst reads a #define of deltanet.cu.
func deltaConst(t *testing.T, name string) int { return cuConst(t, "deltanet.cu", name) }

func f32exp(x float32) float32 { return float32(math.Exp(float64(x))) }

func emSigmoid(x float32) float32 { return 1 / (1 + float32(math.Exp(-float64(x)))) }

func emSilu(x float32) float32 { return x / (1 + float32(math.Exp(-float64(x)))) }

func emSoftplus(x float32) float32 {
	if x > 20 {
		return x
	}
	return float32(math.Log1p(math.Exp(float64(x))))
}

// emulConv is causal_conv over a whole grid: conv is the state of all layers, [layers, seqs, K-1, C].
func emulConv(dst, x, w, conv []float32, seq, pos []int32, layer, seqs, C, K, kmax int) {
	n := len(seq)
	base := layer * seqs * (K - 1) * C // the host's s.conv.Add(layer * convBytes)
	for bx := 0; bx < (C+127)/128; bx++ {
		for s := 0; s < seqs; s++ {
			for tid := 0; tid < 128; tid++ {
				c := bx*128 + tid
				if c >= C {
					continue
				}
				st := base + s*(K-1)*C + c
				win := make([]float32, kmax-1)
				wc := make([]float32, kmax)
				for j := 0; j < kmax-1; j++ {
					if j < K-1 {
						win[j] = conv[st+j*C]
					}
				}
				for j := 0; j < kmax; j++ {
					if j < K {
						wc[j] = w[c*K+j]
					}
				}
				touched := false
				for r := 0; r < n; r++ {
					if int(seq[r]) != s {
						continue
					}
					touched = true
					if pos[r] == 0 {
						clear(win)
					}
					xv := x[r*C+c]
					var acc float32
					for j := 0; j < kmax-1; j++ {
						if j < K-1 {
							acc = acc + float32(wc[j]*win[j])
						}
					}
					acc = acc + float32(wc[K-1]*xv)
					for j := 0; j < kmax-2; j++ {
						if j < K-2 {
							win[j] = win[j+1]
						}
					}
					if K >= 2 {
						win[K-2] = xv
					}
					dst[r*C+c] = emSilu(acc)
				}
				if touched {
					for j := 0; j < K-1; j++ {
						conv[st+j*C] = win[j]
					}
				}
			}
		}
	}
}

// emulDelta is gated_delta over a whole grid for bound kd: S is the state of all layers,
// [layers, seqs, VH, dk, dv].
func emulDelta(dst, qkv, a, b, aLog, dtBias, S []float32, seq, pos []int32, layer int, cfg backend.RecurrentConfig, kd, cols int) {
	n := len(seq)
	KH, VH, dk, dv := cfg.KeyHeads, cfg.ValueHeads, cfg.KeyDim, cfg.ValueDim
	C := 2*KH*dk + VH*dv
	scale := float32(1 / math.Sqrt(float64(dk)))
	base := layer * cfg.Seqs * VH * dk * dv
	for bx := 0; bx < (dv+cols-1)/cols; bx++ {
		for h := 0; h < VH; h++ {
			for s := 0; s < cfg.Seqs; s++ {
				kh := h / (VH / KH)
				sh := base + (s*VH+h)*dk*dv
				A := -f32exp(aLog[h])
				st := make([][]float32, cols) // per thread: its column, kd registers
				for tid := range cols {
					st[tid] = make([]float32, kd)
					j := bx*cols + tid
					for i := 0; i < kd; i++ {
						if j < dv && i < dk {
							st[tid][i] = S[sh+i*dv+j]
						}
					}
				}
				touched := false
				qs, ks := make([]float32, kd), make([]float32, kd)
				for r := 0; r < n; r++ {
					if int(seq[r]) != s {
						continue
					}
					touched = true
					row := qkv[r*C:]
					for i := 0; i < kd; i++ {
						qs[i], ks[i] = 0, 0
						if i < dk {
							qs[i], ks[i] = row[kh*dk+i], row[KH*dk+kh*dk+i]
						}
					}
					var sq, sk float32
					for i := 0; i < dk; i++ {
						sq = sq + float32(qs[i]*qs[i])
						sk = sk + float32(ks[i]*ks[i])
					}
					iq := 1 / float32(math.Sqrt(float64(sq+1e-6)))
					ik := 1 / float32(math.Sqrt(float64(sk+1e-6)))
					for i := 0; i < dk; i++ {
						qs[i] = float32(qs[i]*iq) * scale
						ks[i] = float32(ks[i]*ik) * 1
					}
					ab := r*VH + h
					beta := emSigmoid(b[ab])
					decay := f32exp(A * emSoftplus(a[ab]+dtBias[h]))
					for tid := range cols {
						j := bx*cols + tid
						if j >= dv {
							continue
						}
						c := st[tid]
						if pos[r] == 0 {
							clear(c)
						}
						var o float32
						for i := 0; i < kd; i++ {
							c[i] = c[i] * decay
							o = o + float32(c[i]*ks[i])
						}
						d := (row[2*KH*dk+h*dv+j] - o) * beta
						o = 0
						for i := 0; i < kd; i++ {
							c[i] = c[i] + float32(ks[i]*d)
							o = o + float32(c[i]*qs[i])
						}
						dst[r*VH*dv+h*dv+j] = o
					}
				}
				if touched {
					for tid := range cols {
						j := bx*cols + tid
						for i := 0; i < kd && i < dk; i++ {
							if j < dv {
								S[sh+i*dv+j] = st[tid][i]
							}
						}
					}
				}
			}
		}
	}
}

// hyRef is a CPU backend with helpers to place test data.
type hyRef struct {
	*cpu.Backend
	t *testing.T
}

func (r hyRef) f(x []float32, shape ...int) backend.Tensor {
	tt, err := r.Alloc(backend.F32, shape...)
	if err == nil {
		err = r.WriteFloat32(tt, x)
	}
	if err != nil {
		r.t.Fatal(err)
	}
	return tt
}

func (r hyRef) i(x []int32, shape ...int) backend.Tensor {
	tt, err := r.Alloc(backend.I32, shape...)
	if err == nil {
		err = r.WriteInt32(tt, x)
	}
	if err != nil {
		r.t.Fatal(err)
	}
	return tt
}

func relErr(want, got []float32) float64 {
	var worst, big float64
	for i := range want {
		if math.IsNaN(float64(got[i])) {
			return math.Inf(1)
		}
		worst = max(worst, math.Abs(float64(got[i]-want[i])))
		big = max(big, math.Abs(float64(want[i])))
	}
	if big == 0 {
		return worst
	}
	return worst / big
}

func TestDeltaNetEmulated(t *testing.T) {
	kmax, cols := deltaConst(t, "CONV_KMAX"), deltaConst(t, "DELTA_COLS")
	if kmax != convKMax || cols != deltaCols {
		t.Fatalf("CONV_KMAX %d / convKMax %d, DELTA_COLS %d / deltaCols %d", kmax, convKMax, cols, deltaCols)
	}
	type call struct{ seq, pos []int32 }
	runOf := func(s int32, from, n int) call {
		var c call
		for i := range n {
			c.seq, c.pos = append(c.seq, s), append(c.pos, int32(from+i))
		}
		return c
	}
	configs := []struct {
		name  string
		cfg   backend.RecurrentConfig
		calls []call
	}{
		{"fixture, prompt then batched decode", backend.RecurrentConfig{Layers: 3, Seqs: 3, ConvKernel: 4, KeyHeads: 2, ValueHeads: 4, KeyDim: 32, ValueDim: 32},
			[]call{runOf(1, 0, 11), {[]int32{0, 1, 2}, []int32{0, 11, 0}}, {[]int32{2, 0, 2, 1}, []int32{1, 1, 2, 12}}, runOf(1, 0, 3)}},
		{"odd: dk 20 (padded to 32), dv 150 (two column tiles), group 3, kernel 3", backend.RecurrentConfig{Layers: 2, Seqs: 2, ConvKernel: 3, KeyHeads: 2, ValueHeads: 6, KeyDim: 20, ValueDim: 150},
			[]call{runOf(0, 0, 5), {[]int32{1, 0, 1}, []int32{0, 5, 1}}, runOf(0, 6, 2)}},
		{"kernel 1 (no tail), dk 64", backend.RecurrentConfig{Layers: 1, Seqs: 1, ConvKernel: 1, KeyHeads: 1, ValueHeads: 1, KeyDim: 64, ValueDim: 8},
			[]call{runOf(0, 0, 4), runOf(0, 4, 1)}},
	}
	rng := rand.New(rand.NewPCG(11, 12))
	randn := func(n int, std float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64() * std)
		}
		return v
	}
	for _, c := range configs {
		cfg := c.cfg
		cfg.ConvDim = 2*cfg.KeyHeads*cfg.KeyDim + cfg.ValueHeads*cfg.ValueDim
		ref := hyRef{cpu.New(), t}
		ref.DeltaChunk = -1 // the recurrent form: what the kernel computes
		st, err := ref.NewRecurrentState(cfg)
		if err != nil {
			t.Fatal(err)
		}
		kd := deltaKDs[len(deltaKDs)-1]
		for _, v := range deltaKDs {
			if v >= cfg.KeyDim {
				kd = v
				break
			}
		}
		C, VH, vw := cfg.ConvDim, cfg.ValueHeads, cfg.ValueHeads*cfg.ValueDim
		conv := make([]float32, cfg.Layers*cfg.Seqs*(cfg.ConvKernel-1)*C)
		S := make([]float32, cfg.Layers*cfg.Seqs*VH*cfg.KeyDim*cfg.ValueDim)
		w, aLog, dtBias := randn(C*cfg.ConvKernel, 0.5), randn(VH, 0.5), randn(VH, 0.5)
		for ci, cl := range c.calls {
			layer := cfg.Layers - 1 - ci%cfg.Layers // different layers in turn: the per-layer offsets
			n := len(cl.seq)
			x, a, b := randn(n*C, 1), randn(n*VH, 1.5), randn(n*VH, 1.5)
			sq, ps := ref.i(cl.seq, n), ref.i(cl.pos, n)
			xt := ref.f(x, n, C)
			ref.CausalConv(xt, xt, ref.f(w, C, cfg.ConvKernel), st, layer, sq, ps)
			conved := make([]float32, n*C)
			emulConv(conved, x, w, conv, cl.seq, cl.pos, layer, cfg.Seqs, C, cfg.ConvKernel, kmax)
			if e := relErr(xt.(*cpu.Tensor).Float32s(), conved); e > 1e-6 {
				t.Errorf("%s, call %d: CausalConv off by %.3g of max", c.name, ci, e)
			}
			dt := ref.f(make([]float32, n*vw), n, vw)
			ref.GatedDeltaRule(dt, xt, ref.f(a, n, VH), ref.f(b, n, VH), ref.f(aLog, VH), ref.f(dtBias, VH), st, layer, sq, ps)
			got := make([]float32, n*vw)
			emulDelta(got, xt.(*cpu.Tensor).Float32s(), a, b, aLog, dtBias, S, cl.seq, cl.pos, layer, cfg, kd, cols)
			if e := relErr(dt.(*cpu.Tensor).Float32s(), got); e > 1e-6 {
				t.Errorf("%s, call %d: GatedDeltaRule off by %.3g of max", c.name, ci, e)
			}
		}
		ref.Close()
	}
}
