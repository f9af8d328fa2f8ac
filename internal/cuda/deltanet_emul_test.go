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

// emulWarpSum is warp_sum over one warp's 32 values: the xor tree at offsets 16, 8, 4, 2, 1; lane 0's result.
func emulWarpSum(v []float32) float32 {
	w := append([]float32(nil), v...)
	for o := 16; o > 0; o >>= 1 {
		nw := make([]float32, 32)
		for l := range 32 {
			nw[l] = w[l] + w[l^o]
		}
		w = nw
	}
	return w[0]
}

// emulDeltaPrep is gated_delta_prep over its whole grid with threads threads a block: qk [n, KH, 2, dk] and
// coef [n, VH, 2].
func emulDeltaPrep(qkv, a, b, aLog, dtBias []float32, n int, cfg backend.RecurrentConfig, threads int) (qk, coef []float32) {
	KH, VH, dk, dv := cfg.KeyHeads, cfg.ValueHeads, cfg.KeyDim, cfg.ValueDim
	C := 2*KH*dk + VH*dv
	scale := float32(1 / math.Sqrt(float64(dk)))
	qk, coef = make([]float32, n*KH*2*dk), make([]float32, n*VH*2)
	for r := 0; r < n; r++ {
		row := qkv[r*C:]
		for kh := 0; kh < KH; kh++ {
			qp, kp := row[kh*dk:], row[KH*dk+kh*dk:]
			pq, pk := make([]float32, threads), make([]float32, threads)
			for t := range threads {
				for i := t; i < dk; i += threads {
					pq[t] = pq[t] + float32(qp[i]*qp[i])
					pk[t] = pk[t] + float32(kp[i]*kp[i])
				}
			}
			var sq, sk float32
			for w := 0; w < threads/32; w++ {
				sq = sq + emulWarpSum(pq[32*w:32*w+32])
				sk = sk + emulWarpSum(pk[32*w:32*w+32])
			}
			iq := 1 / float32(math.Sqrt(float64(sq+1e-6)))
			ik := 1 / float32(math.Sqrt(float64(sk+1e-6)))
			o := qk[(r*KH+kh)*2*dk:]
			for i := 0; i < dk; i++ {
				o[i] = float32(qp[i]*iq) * scale
				o[dk+i] = kp[i] * ik
			}
			G := VH / KH
			for t := 0; t < G; t++ {
				h := kh*G + t
				ab := r*VH + h
				A := -f32exp(aLog[h])
				coef[2*ab] = emSigmoid(b[ab])
				coef[2*ab+1] = f32exp(A * emSoftplus(a[ab]+dtBias[h]))
			}
		}
	}
	return qk, coef
}

// emulDelta is gated_delta_prep then gated_delta over their whole grids for bound kd, cols columns a block and
// lanes lanes a column: S is the state of all layers, [layers, seqs, VH, dk, dv].
func emulDelta(dst, qkv, a, b, aLog, dtBias, S []float32, seq, pos []int32, layer int, cfg backend.RecurrentConfig, kd, cols, lanes, threads int) {
	n := len(seq)
	KH, VH, dk, dv := cfg.KeyHeads, cfg.ValueHeads, cfg.KeyDim, cfg.ValueDim
	C := 2*KH*dk + VH*dv
	qk, coef := emulDeltaPrep(qkv, a, b, aLog, dtBias, n, cfg, threads)
	base := layer * cfg.Seqs * VH * dk * dv
	R := kd / lanes
	// reduce is the shuffle tree over one column's lanes (xor 1, 2, …): lane 0's sum
	reduce := func(p []float32) float32 {
		w := append([]float32(nil), p...)
		for m := 1; m < lanes; m <<= 1 {
			nw := make([]float32, lanes)
			for l := range lanes {
				nw[l] = w[l] + w[l^m]
			}
			w = nw
		}
		return w[0]
	}
	for bx := 0; bx < (dv+cols-1)/cols; bx++ {
		for h := 0; h < VH; h++ {
			for s := 0; s < cfg.Seqs; s++ {
				kh := h / (VH / KH)
				sh := base + (s*VH+h)*dk*dv
				st := make([][]float32, cols*lanes) // per thread: R registers, rows sub + lanes·e of its column
				for tid := range st {
					st[tid] = make([]float32, R)
					sub, j := tid%lanes, bx*cols+tid/lanes
					for e := 0; e < R; e++ {
						if i := sub + lanes*e; j < dv && i < dk {
							st[tid][e] = S[sh+i*dv+j]
						}
					}
				}
				touched := false
				for r := 0; r < n; r++ {
					if int(seq[r]) != s {
						continue
					}
					touched = true
					q := qk[(r*KH+kh)*2*dk:]
					k := q[dk:]
					beta, decay := coef[2*(r*VH+h)], coef[2*(r*VH+h)+1]
					for c0 := 0; c0 < cols; c0++ {
						j := bx*cols + c0
						po, py := make([]float32, lanes), make([]float32, lanes)
						kv := func(sub, e int) (float32, float32) {
							if i := sub + lanes*e; i < dk {
								return k[i], q[i]
							}
							return 0, 0
						}
						for sub := range lanes {
							c := st[c0*lanes+sub]
							if pos[r] == 0 {
								clear(c)
							}
							for e := 0; e < R; e++ {
								ke, _ := kv(sub, e)
								c[e] = c[e] * decay
								po[sub] = po[sub] + float32(c[e]*ke)
							}
						}
						o := reduce(po)
						var vj float32
						if j < dv {
							vj = qkv[r*C+2*KH*dk+h*dv+j]
						}
						d := (vj - o) * beta
						for sub := range lanes {
							c := st[c0*lanes+sub]
							for e := 0; e < R; e++ {
								ke, qe := kv(sub, e)
								c[e] = c[e] + float32(ke*d)
								py[sub] = py[sub] + float32(c[e]*qe)
							}
						}
						if j < dv {
							dst[r*VH*dv+h*dv+j] = reduce(py)
						}
					}
				}
				if touched {
					for tid := range st {
						sub, j := tid%lanes, bx*cols+tid/lanes
						for e := 0; e < R; e++ {
							if i := sub + lanes*e; j < dv && i < dk {
								S[sh+i*dv+j] = st[tid][e]
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
	kmax, cols, lanes := deltaConst(t, "CONV_KMAX"), deltaConst(t, "DELTA_COLS"), deltaConst(t, "DELTA_LANES")
	threads := deltaConst(t, "DN_THREADS")
	if cols != deltaCols || lanes != deltaLanes {
		t.Fatalf("deltanet.cu's DELTA_COLS, DELTA_LANES = %d, %d; deltanet.go's %d, %d", cols, lanes, deltaCols, deltaLanes)
	}
	if kmax != convKMax {
		t.Fatalf("CONV_KMAX %d / convKMax %d", kmax, convKMax)
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
		{"odd: dk 20 (padded to 32), dv 150 (five column tiles, the last short), group 3, kernel 3", backend.RecurrentConfig{Layers: 2, Seqs: 2, ConvKernel: 3, KeyHeads: 2, ValueHeads: 6, KeyDim: 20, ValueDim: 150},
			[]call{runOf(0, 0, 5), {[]int32{1, 0, 1}, []int32{0, 5, 1}}, runOf(0, 6, 2)}},
		{"kernel 1 (no tail), dk 64", backend.RecurrentConfig{Layers: 1, Seqs: 1, ConvKernel: 1, KeyHeads: 1, ValueHeads: 1, KeyDim: 64, ValueDim: 8},
			[]call{runOf(0, 0, 4), runOf(0, 4, 1)}},
		{"dk 256 (two dims a pre-pass thread), group 2", backend.RecurrentConfig{Layers: 1, Seqs: 1, ConvKernel: 4, KeyHeads: 1, ValueHeads: 2, KeyDim: 256, ValueDim: 40},
			[]call{runOf(0, 0, 6), runOf(0, 6, 1)}},
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
			emulDelta(got, xt.(*cpu.Tensor).Float32s(), a, b, aLog, dtBias, S, cl.seq, cl.pos, layer, cfg, kd, cols, lanes, threads)
			if e := relErr(dt.(*cpu.Tensor).Float32s(), got); e > 2e-6 { // the parallel sums' order: f32 rounding
				t.Errorf("%s, call %d: GatedDeltaRule off by %.3g of max", c.name, ci, e)
			}
		}
		ref.Close()
	}
}
