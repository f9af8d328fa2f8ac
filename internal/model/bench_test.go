package model_test

import (
	"testing"

	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

// BenchmarkPycoderCPU reports CPU prompt (pp) and decode (tg) throughput on the trained 12M-parameter model.
func BenchmarkPycoderCPU(b *testing.B) {
	dir := testutil.Fixture(b, "trained/pycoder-12m")
	be := cpu.New()
	defer be.Close()
	m, err := model.Load(dir, be)
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	const pp, tg = 256, 64
	step := func(start, n int) model.Step {
		s := model.Step{}
		for p := start; p < start+n; p++ {
			s.IDs = append(s.IDs, int32(32+p%90))
			s.Seq = append(s.Seq, 0)
			s.Pos = append(s.Pos, int32(p))
		}
		return s
	}
	b.Run("pp256", func(b *testing.B) {
		cache, _ := m.NewCache(1, pp)
		for i := 0; i < b.N; i++ {
			if _, err := m.Forward(step(0, pp), cache, 1); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(pp*b.N)/b.Elapsed().Seconds(), "tok/s")
	})
	b.Run("tg64", func(b *testing.B) {
		cache, _ := m.NewCache(1, pp+tg)
		if _, err := m.Forward(step(0, pp), cache, 1); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			for t := 0; t < tg; t++ {
				if _, err := m.Forward(step(pp+t, 1), cache, 1); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(tg*b.N)/b.Elapsed().Seconds(), "tok/s")
	})
}
