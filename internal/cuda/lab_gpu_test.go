// The GEMV kernel lab (MLXBUN_CUDA=1): every instantiated (R, U) form of the vector GEMV and every k-split at the
// Qwen3-14B and Qwen3-0.6B decode shapes, single linears and the q/k/v and gate/up groups the backend fuses,
// timed with the weights rotating through enough copies to miss L2. It prints the production choice beside the
// best variant per shape; a variant that wins by more than the run-to-run spread is promoted by editing
// gemvTables (kernels.go) with this table as the source.

package cuda

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
)

func TestBackendGEMVLab(t *testing.T) {
	g, _ := bk(t)
	type shape struct {
		name string
		in   int
		outs []int
	}
	shapes := []shape{
		{"14b q/o", 5120, []int{5120}}, {"14b k/v", 5120, []int{1024}}, {"14b gate", 5120, []int{17408}},
		{"14b down", 17408, []int{5120}}, {"14b qkv", 5120, []int{5120, 1024, 1024}}, {"14b gate+up", 5120, []int{17408, 17408}},
		{"14b lm_head", 5120, []int{151936}},
		{"0.6b q", 1024, []int{2048}}, {"0.6b k/v", 1024, []int{1024}}, {"0.6b o", 2048, []int{1024}},
		{"0.6b gate", 1024, []int{3072}}, {"0.6b down", 3072, []int{1024}}, {"0.6b qkv", 1024, []int{2048, 1024, 1024}},
		{"0.6b gate+up", 1024, []int{3072, 3072}}, {"0.6b lm_head", 1024, []int{151936}},
	}
	const copyBW = 4.25e12
	for _, s := range shapes {
		total := 0
		for _, o := range s.outs {
			total += o
		}
		wbytes := 2 * s.in * total
		copies := max(1, (512<<20)/wbytes)
		base, err := g.allocExact(copies * wbytes)
		if err != nil {
			t.Fatal(err)
		}
		vals := make([]byte, wbytes)
		for i := range vals {
			vals[i] = byte(i*7+i>>9) & 0x3f // small bf16 values, never all zero
		}
		for c := 0; c < copies; c++ {
			if err := g.uploadBytes(base.Add(c*wbytes), wbytes, func(buf []byte, off int) { copy(buf, vals[off:]) }); err != nil {
				t.Fatal(err)
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
			forms := append(gemvProductionForms(n), gemvLab[n]...)
			type result struct {
				f   gemvForm
				ks  int
				sec float64
			}
			var prod, best result
			pf, pks := gemvChoose(n, s.in, total)
			seen := map[gemvForm]bool{}
			for _, f := range forms {
				if seen[f] {
					continue
				}
				seen[f] = true
				for _, ks := range []int{0, 1, 2, 4, 8} {
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
					for i := 0; i < copies; i++ {
						enqueue(i)
					}
					if err := g.Sync(); err != nil {
						t.Fatal(err)
					}
					g.StartProfile()
					reps := max(40, 2*copies)
					for i := 0; i < reps; i++ {
						enqueue(i)
					}
					prof := g.StopProfile()
					if err := g.Sync(); err != nil {
						t.Fatal(err)
					}
					sec := prof[0].Seconds / float64(prof[0].Calls)
					r := result{f, ks, sec}
					if f == pf && (ks == pks || pks == 0 && ks == 0) {
						prod = r
					}
					if best.sec == 0 || sec < best.sec {
						best = r
					}
				}
			}
			bytes := float64(wbytes + 2*n*s.in + 2*n*total)
			label := func(r result) string {
				ks := fmt.Sprint(r.ks)
				if r.ks == 0 {
					ks = fmt.Sprintf("rule(%d)", gemvSplit(total, r.f.R, g.info.SMs))
				}
				return fmt.Sprintf("r%d u%d ks %-8s %6.1f µs %4.1f%%", r.f.R, r.f.U, ks, r.sec*1e6, 100*bytes/r.sec/copyBW)
			}
			record("lab         %-12s %5d->%-17s n=%d: prod %s | best %s", s.name, s.in, fmt.Sprint(s.outs), n, label(prod), label(best))
			g.Free(x)
			g.Free(y)
		}
		g.dev.Do(func() error { return g.mem.release(base) })
	}
}
