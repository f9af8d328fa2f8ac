// The index arithmetic of attention_win.cu's windowed attention transcribed into Go and checked against the CPU
// reference (cpu.AttentionWith) with no GPU: each row's window (win_first), the split of its positions
// (win_chunk, the combine's active count), the per-tile map of the positions the call holds (last row wins, as
// atomicMax), ring slots (t mod slots), the store before attending on full caches and after it on rings
// (kv_store_ring's last-row rule, skipped under DeferStore). A change to those kernel lines must be mirrored here.

package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
	cudashaders "github.com/mlxbun/mlxbun/shaders/cuda"
)

// cuConst reads a #define NAME <integer> of a shaders/cuda source file.
func cuConst(t *testing.T, file, name string) int {
	m := regexp.MustCompile(`#define ` + name + ` +(\d+)`).FindStringSubmatch(cudashaders.Sources[file])
	if m == nil {
		t.Fatalf("%s defines no %s", file, name)
	}
	v, _ := strconv.Atoi(m[1])
	return v
}

// winConst reads a #define of attention_win.cu.
func winConst(t *testing.T, name string) int { return cuConst(t, "attention_win.cu", name) }

// emulRing is one layer's slots as the kernels see them: [seqs, slots, width].
type emulRing struct {
	k, v               []float32
	slots, width, seqs int
	ring               bool
}

// emulAttend is attn_win_body + attn_win_combine (+ the stores around them) for one call, with S splits and a
// source tile of tile positions.
func emulAttend(L *emulRing, q, k, v []float32, seq, pos []int32, heads, hd int, o backend.AttnOptions, S, tile, minChunk int) []float32 {
	n := len(seq)
	width := L.width
	kvHeads := width / hd
	group := heads / kvHeads
	store := func(r int) {
		s, p := int(seq[r]), int(pos[r])
		slot := p
		if L.ring {
			slot = p % L.slots
		}
		off := (s*L.slots + slot) * width
		copy(L.k[off:off+width], k[r*width:(r+1)*width])
		copy(L.v[off:off+width], v[r*width:(r+1)*width])
	}
	if !L.ring { // kv_store before attending
		for r := 0; r < n; r++ {
			store(r)
		}
	}
	out := make([]float32, n*heads*hd)
	for r := 0; r < n; r++ {
		P, sq := int(pos[r]), int(seq[r])
		first := 0
		if o.Window > 0 {
			first = max(0, P-o.Window+1)
		}
		length := P - first + 1
		cl := max((length+S-1)/S, minChunk)
		if S == 1 {
			cl = length // the rows form
		}
		for kvh := 0; kvh < kvHeads; kvh++ {
			for g := 0; g < group; g++ {
				h := kvh*group + g
				type partial struct {
					m, l float32
					acc  []float32
				}
				var parts []partial
				for s := 0; s < S; s++ {
					i0 := s * cl
					if i0 >= length {
						break
					}
					i1 := min(i0+cl, length)
					pt := partial{m: float32(math.Inf(-1)), acc: make([]float32, hd)}
					for a := i0; a < i1; a += tile {
						b := min(a+tile, i1)
						src := make([]int, b-a)
						for j := range src {
							src[j] = -1
						}
						if L.ring {
							for r2 := 0; r2 < n; r2++ {
								j := int(pos[r2]) - first - a
								if int(seq[r2]) == sq && j >= 0 && j < b-a {
									src[j] = max(src[j], r2)
								}
							}
						}
						for i := a; i < b; i++ {
							t := first + i
							var kr, vr []float32
							if from := src[i-a]; from >= 0 {
								off := from*width + kvh*hd
								kr, vr = k[off:off+hd], v[off:off+hd]
							} else {
								slot := t
								if L.ring {
									slot = t % L.slots
								}
								off := (sq*L.slots+slot)*width + kvh*hd
								kr, vr = L.k[off:off+hd], L.v[off:off+hd]
							}
							var d float32
							for e := 0; e < hd; e++ {
								d += q[r*heads*hd+h*hd+e] * kr[e]
							}
							sc := d * o.Scale
							if o.Softcap > 0 {
								sc = float32(math.Tanh(float64(sc/o.Softcap))) * o.Softcap
							}
							mn := max(pt.m, sc)
							corr := float32(math.Exp(float64(pt.m - mn)))
							p := float32(math.Exp(float64(sc - mn)))
							pt.l = pt.l*corr + p
							for e := range pt.acc {
								pt.acc[e] = pt.acc[e]*corr + p*vr[e]
							}
							pt.m = mn
						}
					}
					parts = append(parts, pt)
				}
				if active := (length + cl - 1) / cl; active != len(parts) {
					panic(fmt.Sprintf("combine counts %d splits, the split form wrote %d", active, len(parts)))
				}
				M := float32(math.Inf(-1))
				for _, pt := range parts {
					M = max(M, pt.m)
				}
				var Lsum float32
				res := out[r*heads*hd+h*hd : r*heads*hd+(h+1)*hd]
				for _, pt := range parts {
					w := float32(math.Exp(float64(pt.m - M)))
					Lsum += pt.l * w
					for e := range res {
						res[e] += pt.acc[e] * w
					}
				}
				for e := range res {
					res[e] /= Lsum
				}
			}
		}
	}
	if L.ring && !o.DeferStore { // kv_store_ring: a row is skipped when a later row of its sequence lands in its slot
		for r := 0; r < n; r++ {
			later := false
			for r2 := r + 1; r2 < n; r2++ {
				later = later || (seq[r2] == seq[r] && int(pos[r2])%L.slots == int(pos[r])%L.slots)
			}
			if !later {
				store(r)
			}
		}
	}
	return out
}

// TestWindowedAttentionEmulated: the emulated kernels agree with cpu.AttentionWith within 2e-5·max|ref| on rings
// fed in chunks longer than the window, interleaved sequences, deferred stores, a window over a full cache and
// softcapped scores, for the rows form and the split form at 1, 3 and 128 splits, with the real source tile and a
// 5-position one (several tiles per block).
func TestWindowedAttentionEmulated(t *testing.T) {
	if w, a := winConst(t, "WIN_MAX_SPLITS"), attnMaxSplits; w != a {
		t.Errorf("WIN_MAX_SPLITS %d, attnMaxSplits %d", w, a)
	}
	minChunk := winConst(t, "WIN_MIN_CHUNK")
	if minChunk != attnMinChunk {
		t.Errorf("WIN_MIN_CHUNK %d, attnMinChunk %d", minChunk, attnMinChunk)
	}
	realTile := winConst(t, "WIN_TILE")
	type call struct {
		seq, pos []int32
		deferred bool
	}
	runOf := func(s int32, from, n int) call {
		c := call{}
		for i := 0; i < n; i++ {
			c.seq, c.pos = append(c.seq, s), append(c.pos, int32(from+i))
		}
		return c
	}
	configs := []struct {
		name                string
		heads, kvHeads, hd  int
		layerWindow, maxLen int
		seqs                int
		o                   backend.AttnOptions
		calls               []call
	}{
		{"ring 4, chunks 13/1/3, softcap", 4, 2, 16, 4, 40, 1, backend.AttnOptions{Window: 4, Softcap: 5},
			[]call{runOf(0, 0, 13), runOf(0, 13, 1), runOf(0, 14, 3), runOf(0, 17, 9)}},
		{"ring 6 interleaved", 6, 2, 8, 6, 30, 2, backend.AttnOptions{Window: 6},
			[]call{{seq: []int32{0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1}, pos: []int32{0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7}},
				{seq: []int32{1, 0}, pos: []int32{8, 8}}, {seq: []int32{0, 0, 1}, pos: []int32{9, 10, 9}}}},
		{"ring 8 deferred", 2, 1, 8, 8, 40, 1, backend.AttnOptions{Window: 8},
			[]call{{runOf(0, 0, 13).seq, runOf(0, 0, 13).pos, true}, runOf(0, 0, 13), {[]int32{0}, []int32{13}, true}, runOf(0, 13, 1), runOf(0, 14, 1)}},
		{"full cache, window 5", 4, 4, 8, 0, 30, 1, backend.AttnOptions{Window: 5, Softcap: 3},
			[]call{runOf(0, 0, 11), runOf(0, 11, 1), runOf(0, 12, 4)}},
		{"ring 40 of 100, long chunk", 2, 1, 4, 40, 100, 1, backend.AttnOptions{Window: 40},
			[]call{runOf(0, 0, 60), runOf(0, 60, 2), runOf(0, 62, 30)}},
	}
	rng := rand.New(rand.NewPCG(7, 8))
	randn := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	for _, c := range configs {
		for _, S := range []int{1, 3, 128} {
			for _, tile := range []int{realTile, 5} {
				ref := cpu.New()
				layer := backend.KVLayer{KVHeads: c.kvHeads, HeadDim: c.hd, Window: c.layerWindow}
				cache, err := ref.NewKVCache(backend.KVConfig{Layers: 1, Seqs: c.seqs, MaxLen: c.maxLen, PerLayer: []backend.KVLayer{layer}})
				if err != nil {
					t.Fatal(err)
				}
				slots := layer.Slots(c.maxLen)
				width := c.kvHeads * c.hd
				em := &emulRing{k: make([]float32, c.seqs*slots*width), v: make([]float32, c.seqs*slots*width),
					slots: slots, width: width, seqs: c.seqs, ring: slots < c.maxLen}
				o := c.o
				o.Scale = float32(1 / math.Sqrt(float64(c.hd)))
				for ci, cl := range c.calls {
					n := len(cl.seq)
					q, k, v := randn(n*c.heads*c.hd), randn(n*width), randn(n*width)
					up := func(x []float32, cols int) backend.Tensor {
						tt, err := ref.Upload(backend.HostF32("x", x, len(x)/cols, cols))
						if err != nil {
							t.Fatal(err)
						}
						return tt
					}
					ints := func(x []int32) backend.Tensor {
						tt, err := ref.Alloc(backend.I32, len(x))
						if err == nil {
							err = ref.WriteInt32(tt, x)
						}
						if err != nil {
							t.Fatal(err)
						}
						return tt
					}
					dst, _ := ref.Alloc(backend.F32, n, c.heads*c.hd)
					oc := o
					oc.DeferStore = cl.deferred
					ref.AttentionWith(dst, up(q, c.heads*c.hd), up(k, width), up(v, width), cache, 0, ints(cl.seq), ints(cl.pos), oc)
					want := dst.(*cpu.Tensor).Float32s()
					got := emulAttend(em, q, k, v, cl.seq, cl.pos, c.heads, c.hd, oc, S, tile, minChunk)
					var worst, big float64
					for i := range want {
						worst = max(worst, math.Abs(float64(got[i]-want[i])))
						big = max(big, math.Abs(float64(want[i])))
					}
					if worst > 2e-5*big {
						t.Errorf("%s, S %d, tile %d, call %d: max|err| %.3g of max|ref| %.3g", c.name, S, tile, ci, worst, big)
					}
				}
				ref.Close()
			}
		}
	}
}
