// The index arithmetic of deltanet.cu transcribed into Go and checked against the CPU reference (cpu.CausalConv,
// cpu.GatedDeltaRule in its recurrent form) with no GPU: the state layouts (a layer's offset, [seqs, K-1, C] conv
// tails, [seqs, VH, dk, dv] matrices), the qkv offsets of a value head's key head, one block per (column tile,
// value head, sequence) scanning all rows for its own with a reset at position 0, the zero padding of a key dim
// below the instantiated bound, the column tiles of a value dim past 128; and gated_delta_chunk, the chunked
// (WY/UT) form a prompt run takes: its chunk boundaries, f64 gate sums, pair products, substitution order and
// state update, against both of the CPU's forms. A change to those kernel lines must be mirrored here. (moe.cu's
// transcription is moe_emul_test.go.)

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

// emFMA is fmaf the fast way: a·b + c through f64, where a·b of two f32 is exact; the sum's double rounding can
// differ from fmaf's single one (fma32, exact but slow) in the last bit, far inside the bound checked.
func emFMA(a, b, c float32) float32 { return float32(math.FMA(float64(a), float64(b), float64(c))) }

// emulDeltaChunk is gated_delta_prep then gated_delta_chunk over their whole grids for bound kd: one run of rows
// of sequence seq[0] at consecutive positions (row 0 restarting the state when its position is 0); ct rows a
// chunk, cols columns a block, nw warps a block (rows w and w + nw of a chunk, state rows w + nw·e). S is the
// state of all layers, [layers, seqs, VH, dk, dv].
func emulDeltaChunk(dst, qkv, a, b, aLog, dtBias, S []float32, seq, pos []int32, layer int, cfg backend.RecurrentConfig, kd, ct, cols, nw, threads int) {
	n := len(seq)
	KH, VH, dk, dv := cfg.KeyHeads, cfg.ValueHeads, cfg.KeyDim, cfg.ValueDim
	C := 2*KH*dk + VH*dv
	qk, coef := emulDeltaPrep(qkv, a, b, aLog, dtBias, n, cfg, threads)
	base := layer * cfg.Seqs * VH * dk * dv
	s := int(seq[0])
	fresh := pos[0] == 0
	for bx := 0; bx < (dv+cols-1)/cols; bx++ {
		for h := 0; h < VH; h++ {
			kh := h / (VH / KH)
			sh := base + (s*VH+h)*dk*dv
			Ss := make([][]float32, kd) // [KD][DC]
			for i := range Ss {
				Ss[i] = make([]float32, cols)
				for x := range cols {
					if j0 := bx*cols + x; !fresh && j0 < dv && i < dk {
						Ss[i][x] = S[sh+i*dv+j0]
					}
				}
			}
			A := -f32exp(aLog[h])
			mat := func(r, c int) [][]float32 {
				m := make([][]float32, r)
				for i := range m {
					m[i] = make([]float32, c)
				}
				return m
			}
			for r0 := 0; r0 < n; r0 += ct {
				nt := min(ct, n-r0)
				Ks, Qs := mat(ct, kd), mat(ct, kd)
				for t := range ct {
					for i := range kd {
						if t < nt && i < dk {
							qr := qk[((r0+t)*KH+kh)*2*dk:]
							Qs[t][i], Ks[t][i] = qr[i], qr[dk+i]
						}
					}
				}
				beta, gate := make([]float32, ct), make([]float32, ct)
				for t := 0; t < nt; t++ {
					ab := (r0+t)*VH + h
					beta[t] = coef[2*ab]
					gate[t] = A * emSoftplus(a[ab]+dtBias[h])
				}
				cum := make([]float64, ct)
				var acc float64
				for t := range ct {
					acc += float64(gate[t])
					cum[t] = acc
				}
				// per thread (x, w): S₀ᵀk_t, S₀ᵀq_t for t = w, w + nw, in i steps of 4 (nested fmaf)
				Us, Os := mat(ct, cols), mat(ct, cols)
				for w := range nw {
					for x := range cols {
						var sk, sq [2]float32
						for i := 0; i < kd; i += 4 {
							for m := range 2 {
								kv, qv := Ks[w+nw*m][i:i+4], Qs[w+nw*m][i:i+4]
								sk[m] = emFMA(Ss[i+3][x], kv[3], emFMA(Ss[i+2][x], kv[2], emFMA(Ss[i+1][x], kv[1], emFMA(Ss[i][x], kv[0], sk[m]))))
								sq[m] = emFMA(Ss[i+3][x], qv[3], emFMA(Ss[i+2][x], qv[2], emFMA(Ss[i+1][x], qv[1], emFMA(Ss[i][x], qv[0], sq[m]))))
							}
						}
						for m := range 2 {
							t, j0 := w+nw*m, bx*cols+x
							c := float32(math.Exp(cum[t]))
							var v float32
							if j0 < dv && t < nt {
								v = qkv[(r0+t)*C+2*KH*dk+h*dv+j0]
							}
							Us[t][x] = beta[t] * (v - c*sk[m])
							Os[t][x] = c * sq[m]
						}
					}
				}
				// per thread (pt, pj): the pair's products in four chains, then its entries of Ms and Ps
				Ms, Ps := mat(ct, ct), mat(ct, ct)
				for pt := range ct {
					for pj := range ct {
						var kk, qq [4]float32
						for i := 0; i < kd; i += 4 {
							for l := range 4 {
								kk[l] = emFMA(Ks[pt][i+l], Ks[pj][i+l], kk[l])
								qq[l] = emFMA(Qs[pt][i+l], Ks[pj][i+l], qq[l])
							}
						}
						e := float32(math.Exp(cum[pt] - cum[pj]))
						if pj < pt {
							Ms[pt][pj] = beta[pt] * e * ((kk[0] + kk[1]) + (kk[2] + kk[3]))
						}
						if pj <= pt {
							Ps[pt][pj] = e * ((qq[0] + qq[1]) + (qq[2] + qq[3]))
						}
					}
				}
				// warp 0: the substitution, a lane a column
				for x := range cols {
					u := make([]float32, ct)
					for t := range ct {
						acc := Us[t][x]
						for j := 0; j < t; j++ {
							acc = emFMA(-Ms[t][j], u[j], acc)
						}
						u[t], Us[t][x] = acc, acc
					}
				}
				cl := cum[nt-1]
				total := float32(math.Exp(cl))
				for w := range nw {
					for x := range cols {
						j0 := bx*cols + x
						for m := range 2 {
							t := w + nw*m
							o := Os[t][x]
							for j := range ct {
								o = emFMA(Ps[t][j], Us[j][x], o)
							}
							if j0 < dv && t < nt {
								dst[(r0+t)*VH*dv+h*dv+j0] = o
							}
						}
						wu := make([]float32, ct)
						for j := 0; j < nt; j++ {
							wu[j] = float32(math.Exp(cl-cum[j])) * Us[j][x]
						}
						for e := 0; e < kd/nw; e++ {
							i := w + nw*e
							acc := total * Ss[i][x]
							for j := range ct {
								acc = emFMA(Ks[j][i], wu[j], acc)
							}
							Ss[i][x] = acc
						}
					}
				}
			}
			for i := 0; i < dk; i++ {
				for x := range cols {
					if j0 := bx*cols + x; j0 < dv {
						S[sh+i*dv+j0] = Ss[i][x]
					}
				}
			}
		}
	}
}

// TestDeltaChunkEmulated: gated_delta_chunk's transcription against the CPU's recurrent form (the semantics) and
// its chunked form, over prompt runs from position 0 and continuing a state: runs not a multiple of the chunk, a
// key dim padded to its bound (20 of 32), a value dim with a short last column block (40: two blocks), groups of
// 1 to 3 value heads a key head, Qwen3.5's dims (128 × 128), and a run continuing a state other calls advanced.
func TestDeltaChunkEmulated(t *testing.T) {
	ct, threads := deltaConst(t, "DELTA_CHUNK"), deltaConst(t, "DN_THREADS")
	cols, nthreads := deltaConst(t, "DELTA_COLS"), deltaConst(t, "DELTA_CHUNK_THREADS")
	if ct != deltaChunk || nthreads != deltaChunkThreads {
		t.Fatalf("deltanet.cu's DELTA_CHUNK, DELTA_CHUNK_THREADS = %d, %d; deltanet.go's %d, %d", ct, nthreads, deltaChunk, deltaChunkThreads)
	}
	mirrored(t, "deltanet.cu", "gated_delta_chunk",
		"for (int t = 0; t < CT; t++) acc += (double)gate[t], cum[t] = acc;",
		"Ms[pt][pj] = pj < pt ? beta[pt] * e * ((kk.x + kk.y) + (kk.z + kk.w)) : 0.f;",
		"Us[t][x] = beta[t] * (v - ct * sk[m]);",
		"for (int j = 0; j < t; j++) acc = fmaf(-Ms[t][j], u[j], acc);",
		"wu[j] = j < nt ? (float)exp(cl - cum[j]) * Us[j][x] : 0.f;",
		"Ss[i][x] = !fresh && col && i < dk ? Sh[(long long)i * dv + j0] : 0.f;")
	nw := nthreads / cols
	type call struct {
		seq, pos []int32
		chunked  bool // a one-sequence run the host gives gated_delta_chunk (emulated here); else the recurrent form
	}
	runOf := func(s int32, from, n int, chunked bool) call {
		c := call{chunked: chunked}
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
		{"fixture dims, 70 rows then 37 more, a decode step, 64 more", backend.RecurrentConfig{Layers: 2, Seqs: 2, ConvKernel: 4, KeyHeads: 2, ValueHeads: 4, KeyDim: 32, ValueDim: 32},
			[]call{runOf(1, 0, 70, true), runOf(1, 70, 37, true), {[]int32{0, 1}, []int32{0, 107}, false}, runOf(1, 108, 64, true)}},
		{"dk 20 (padded to 32), dv 40 (a short second block), group 3, from position 3", backend.RecurrentConfig{Layers: 1, Seqs: 1, ConvKernel: 4, KeyHeads: 1, ValueHeads: 3, KeyDim: 20, ValueDim: 40},
			[]call{runOf(0, 0, 3, false), runOf(0, 3, 50, true), runOf(0, 0, 17, true)}},
		{"Qwen3.5 dims 128 × 128, group 1, 33 rows", backend.RecurrentConfig{Layers: 1, Seqs: 1, ConvKernel: 4, KeyHeads: 1, ValueHeads: 1, KeyDim: 128, ValueDim: 128},
			[]call{runOf(0, 0, 33, true), runOf(0, 33, 1, false), runOf(0, 34, 20, true)}},
	}
	rng := rand.New(rand.NewPCG(21, 22))
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
		kd := 0
		for _, v := range deltaChunkKDs {
			if v >= cfg.KeyDim {
				kd = v
				break
			}
		}
		C, VH, vw := cfg.ConvDim, cfg.ValueHeads, cfg.ValueHeads*cfg.ValueDim
		refs := map[int]hyRef{}
		sts := map[int]backend.RecurrentState{}
		for _, chunk := range []int{-1, 0} { // the CPU's recurrent form, and its chunked one (runs ≥ 64)
			ref := hyRef{cpu.New(), t}
			ref.DeltaChunk = chunk
			st, err := ref.NewRecurrentState(cfg)
			if err != nil {
				t.Fatal(err)
			}
			refs[chunk], sts[chunk] = ref, st
		}
		S := make([]float32, cfg.Layers*cfg.Seqs*VH*cfg.KeyDim*cfg.ValueDim)
		aLog, dtBias := randn(VH, 0.5), randn(VH, 0.5)
		for ci, cl := range c.calls {
			layer := cfg.Layers - 1 - ci%cfg.Layers
			n := len(cl.seq)
			qkv, a, b := randn(n*C, 1), randn(n*VH, 1.5), randn(n*VH, 1.5)
			want := map[int][]float32{}
			for chunk, ref := range refs {
				dt := ref.f(make([]float32, n*vw), n, vw)
				ref.GatedDeltaRule(dt, ref.f(qkv, n, C), ref.f(a, n, VH), ref.f(b, n, VH), ref.f(aLog, VH), ref.f(dtBias, VH),
					sts[chunk], layer, ref.i(cl.seq, n), ref.i(cl.pos, n))
				want[chunk] = dt.(*cpu.Tensor).Float32s()
			}
			got := make([]float32, n*vw)
			if cl.chunked {
				emulDeltaChunk(got, qkv, a, b, aLog, dtBias, S, cl.seq, cl.pos, layer, cfg, kd, ct, cols, nw, threads)
			} else {
				emulDelta(got, qkv, a, b, aLog, dtBias, S, cl.seq, cl.pos, layer, cfg, 32*((cfg.KeyDim+31)/32), deltaCols, deltaLanes, threads)
			}
			for chunk, tag := range map[int]string{-1: "recurrent", 0: "chunked"} {
				if e := relErr(want[chunk], got); e > 2e-6 {
					t.Errorf("%s, call %d (chunked %v): off the CPU's %s form by %.3g of max", c.name, ci, cl.chunked, tag, e)
				} else if ci == 0 && chunk == -1 {
					t.Logf("%s, call %d: %.3g of max off the recurrent form", c.name, ci, e)
				}
			}
		}
		for _, ref := range refs {
			ref.Close()
		}
	}
}
