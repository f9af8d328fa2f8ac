// GPU benchmarks of the backend (MLXBUN_CUDA=1, `-test.bench`), reporting device time from the profiler besides
// the wall-clock ns/op:
//
//   - BenchmarkGEMV: MatMul at the Qwen3-14B dense shapes, n = 1, 8 (GEMV, µs and % of 4.25 TB/s) and 512
//     (cuBLASLt, TFLOP/s, with the f32 input's conversion to bf16 included), weights rotating through copies
//     larger than L2, activations in ActDType;
//   - BenchmarkGEMVLab: the kernel lab, every instantiated (R, U) form of the vector GEMV and every k-split at the
//     Qwen3-14B and Qwen3-0.6B decode shapes, single linears and the q/k/v and gate/up groups the backend fuses; the
//     production choice is the sub-benchmark ending in "-prod". A variant that wins by more than the run-to-run
//     spread is promoted by editing gemvTables (kernels.go) with its numbers as the source;
//   - BenchmarkDecode: pycoder-12m decode steps with and without graphs (µs and launches per token).

package cuda

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/model"
)

// copyBW is the H200's device-to-device copy bandwidth (read + write, driver/MEASUREMENTS.md) that GEMV traffic
// is reported against.
const copyBW = 4.25e12

// profiled calls enqueue(i) b.N times under the profiler (syncing every 64 calls so queue and events stay small)
// and returns the device seconds per call of every kernel it launched, and their names with their shares.
func profiled(b *testing.B, g *Backend, enqueue func(i int)) (float64, string) {
	b.Helper()
	for i := 0; i < 4; i++ { // warm-up: plans, first-launch costs
		enqueue(i)
	}
	if err := g.Sync(); err != nil {
		b.Fatal(err)
	}
	g.StartProfile()
	b.ResetTimer()
	for i := range b.N {
		enqueue(i)
		if i%64 == 63 {
			g.Sync()
		}
	}
	prof := g.StopProfile()
	b.StopTimer()
	if err := g.Sync(); err != nil {
		b.Fatal(err)
	}
	var total float64
	for _, k := range prof {
		total += k.Seconds
	}
	var names []string
	for _, k := range prof {
		names = append(names, fmt.Sprintf("%s %.0f%%", k.Name, 100*k.Seconds/total))
	}
	return total / float64(b.N), strings.Join(names, ", ")
}

// BenchmarkGEMV: the four Qwen3-14B dense shapes at n = 1, 8 and 512.
func BenchmarkGEMV(b *testing.B) {
	g, _ := bk(b)
	act := g.ActDType()
	for _, s := range []struct {
		name    string
		in, out int
	}{{"gate-up", 5120, 17408}, {"down", 17408, 5120}, {"q-o", 5120, 5120}, {"k-v", 5120, 1024}} {
		wbytes := 2 * s.in * s.out
		copies := max(1, (400<<20)/wbytes)
		vals := make([]float32, s.in*s.out)
		for i := range vals {
			vals[i] = float32(i%97)/97*0.1 - 0.05
		}
		host := backend.HostF32(s.name, vals, s.out, s.in)
		var ls []backend.Linear
		for range copies {
			l, err := g.LoadLinear(backend.LinearSpec{Name: s.name, Out: s.out, In: s.in, Dense: &host})
			if err != nil {
				b.Fatal(err)
			}
			ls = append(ls, l)
		}
		for _, n := range []int{1, 8, 512} {
			b.Run(fmt.Sprintf("14b-%s-%dx%d-n%d", s.name, s.in, s.out, n), func(b *testing.B) {
				x, err := g.Alloc(act, n, s.in)
				if err != nil {
					b.Fatal(err)
				}
				defer g.Free(x)
				xv := make([]float32, n*s.in)
				for i := range xv {
					xv[i] = float32(i%13)/13 - 0.5
				}
				if err := g.WriteFloat32(x, xv); err != nil {
					b.Fatal(err)
				}
				y, err := g.Alloc(act, n, s.out)
				if err != nil {
					b.Fatal(err)
				}
				defer g.Free(y)
				sec, kname := profiled(b, g, func(i int) { g.MatMul(y, x, ls[i%len(ls)]) })
				b.ReportMetric(sec*1e6, "µs/call")
				if n > maxGemvRows {
					b.ReportMetric(2*float64(n)*float64(s.in)*float64(s.out)/sec/1e12, "TFLOP/s")
				} else {
					bytes := float64(wbytes + act.Size()*n*(s.in+s.out))
					b.ReportMetric(100*bytes/sec/copyBW, "%copy-bw")
				}
				b.Logf("%s", kname)
			})
		}
	}
}

// BenchmarkGEMVLab times every GEMV form and k-split at the decode shapes (see the file comment).
func BenchmarkGEMVLab(b *testing.B) {
	g, _ := bk(b)
	shapes := []struct {
		name string
		in   int
		outs []int
	}{
		{"14b-q-o", 5120, []int{5120}}, {"14b-k-v", 5120, []int{1024}}, {"14b-gate", 5120, []int{17408}},
		{"14b-down", 17408, []int{5120}}, {"14b-qkv", 5120, []int{5120, 1024, 1024}}, {"14b-gate+up", 5120, []int{17408, 17408}},
		{"14b-lm_head", 5120, []int{151936}},
		{"0.6b-q", 1024, []int{2048}}, {"0.6b-k-v", 1024, []int{1024}}, {"0.6b-o", 2048, []int{1024}},
		{"0.6b-gate", 1024, []int{3072}}, {"0.6b-down", 3072, []int{1024}}, {"0.6b-qkv", 1024, []int{2048, 1024, 1024}},
		{"0.6b-gate+up", 1024, []int{3072, 3072}}, {"0.6b-lm_head", 1024, []int{151936}},
	}
	for _, s := range shapes {
		total := 0
		for _, o := range s.outs {
			total += o
		}
		wbytes := 2 * s.in * total
		copies := max(1, (512<<20)/wbytes)
		base, err := g.allocExact(copies * wbytes)
		if err != nil {
			b.Fatal(err)
		}
		vals := make([]byte, wbytes)
		for i := range vals {
			vals[i] = byte(i*7+i>>9) & 0x3f // small bf16 values, never all zero
		}
		for c := 0; c < copies; c++ {
			if err := g.uploadBytes(base.Add(c*wbytes), wbytes, func(buf []byte, off int) { copy(buf, vals[off:]) }); err != nil {
				b.Fatal(err)
			}
		}
		for _, n := range []int{1, 8} {
			if n == 8 && (len(s.outs) > 1 || strings.Contains(s.name, "lm_head") || strings.HasPrefix(s.name, "0.6b")) {
				continue
			}
			x, _ := g.Alloc(backend.BF16, n, s.in)
			xv := make([]float32, n*s.in)
			for i := range xv {
				xv[i] = float32(i%13)/13 - 0.5
			}
			g.WriteFloat32(x, xv)
			y, _ := g.Alloc(backend.BF16, n, total)
			pf, pks := gemvChoose(n, s.in, total)
			seen := map[gemvForm]bool{}
			for _, f := range append(gemvProductionForms(n), gemvLab[n]...) {
				if seen[f] {
					continue
				}
				seen[f] = true
				for _, ks := range []int{0, 1, 2, 4, 8} {
					label := fmt.Sprint(ks)
					if ks == 0 {
						label = fmt.Sprintf("rule%d", gemvSplit(total, f.R, g.info.SMs))
					}
					if f == pf && ks == pks {
						label += "-prod"
					}
					b.Run(fmt.Sprintf("%s-%dx%v-n%d/r%d-u%d-ks%s", s.name, s.in, s.outs, n, f.R, f.U, label), func(b *testing.B) {
						enqueue := func(i int) {
							c := i % copies
							grp := &gemvGroup{c: matmulCase{n: n, in: s.in, x: backend.BF16, dst: backend.BF16}, x: x.(*Tensor).ptr, lab: &f, ksplit: ks}
							w, yp := base.Add(c*wbytes), y.(*Tensor).ptr
							for _, o := range s.outs {
								grp.segs = append(grp.segs, gemvSeg{W: w, Y: yp, Out: int32(o)})
								w, yp = w.Add(2*o*s.in), yp.Add(2*n*o)
							}
							g.enqueue(grp.launch(g))
						}
						sec, _ := profiled(b, g, enqueue)
						bytes := float64(wbytes + 2*n*s.in + 2*n*total)
						b.ReportMetric(sec*1e6, "µs/call")
						b.ReportMetric(100*bytes/sec/copyBW, "%copy-bw")
					})
				}
			}
			g.Free(x)
			g.Free(y)
		}
		g.dev.Do(func() error { return g.mem.release(base) })
	}
}

// BenchmarkDecode: pycoder-12m single-token decode steps (the generate loop's shape) after a 16-token prompt,
// replayed from graphs and launched plainly; caches of 256 steps are refilled outside the timer.
func BenchmarkDecode(b *testing.B) {
	g, _ := bk(b)
	m, err := model.Load(fixture(b, "trained/pycoder-12m"), g)
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	vocab := m.Config.VocabSize
	tok := func(i int) int32 { return int32((uint64(i)*2654435761 + 7) % uint64(vocab)) }
	const prompt, chunk = 16, 256
	for _, graphs := range []bool{true, false} {
		name := "plain"
		if graphs {
			name = "graphs"
		}
		b.Run("pycoder-12m-"+name, func(b *testing.B) {
			g.SetGraphs(graphs)
			defer g.SetGraphs(true)
			var launches, graphLaunches int64
			step := func(cache backend.KVCache, p int) {
				if _, err := m.Forward(model.Step{IDs: []int32{tok(p)}, Seq: []int32{0}, Pos: []int32{int32(p)}}, cache, 1); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			for done := 0; done < b.N; done += chunk {
				steps := min(chunk, b.N-done)
				cache, err := m.NewCache(1, prompt+chunk+1)
				if err != nil {
					b.Fatal(err)
				}
				s := model.Step{}
				for p := 0; p < prompt; p++ {
					s.IDs, s.Seq, s.Pos = append(s.IDs, tok(p)), append(s.Seq, 0), append(s.Pos, int32(p))
				}
				if _, err := m.Forward(s, cache, 1); err != nil {
					b.Fatal(err)
				}
				step(cache, prompt) // untimed: the first step compiles plans and records the graph
				before := g.Stats()
				b.StartTimer()
				for p := prompt + 1; p < prompt+1+steps; p++ {
					step(cache, p)
				}
				b.StopTimer()
				after := g.Stats()
				launches += after.Launches - before.Launches
				graphLaunches += after.GraphLaunches - before.GraphLaunches
				m.ReleaseCache(cache)
			}
			b.ReportMetric(float64(launches)/float64(b.N), "launches/token")
			b.ReportMetric(float64(graphLaunches)/float64(b.N), "graphs/token")
			if graphs {
				b.ReportMetric(float64(g.Stats().LastGraph), "nodes/graph")
			}
		})
	}
}
