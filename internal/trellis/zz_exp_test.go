package trellis

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestZZExp(t *testing.T) {
	if os.Getenv("EXP") == "" {
		t.Skip()
	}
	L, _ := strconv.Atoi(os.Getenv("EXPL"))
	nb, _ := strconv.Atoi(os.Getenv("EXPB"))
	ks := []int{2, 3, 4}
	if e := os.Getenv("EXPK"); e != "" {
		ks = nil
		for _, c := range strings.Split(e, ",") {
			k, _ := strconv.Atoi(c)
			ks = append(ks, k)
		}
	}
	fs := []float32{1.0, 1.05, 1.1, 1.15, 1.2}
	if e := os.Getenv("EXPF"); e != "" {
		fs = nil
		for _, c := range strings.Split(e, ",") {
			f, _ := strconv.ParseFloat(c, 32)
			fs = append(fs, float32(f))
		}
	}
	for _, k := range ks {
		for _, f := range fs {
			scaleFactorL12[k] = float64(f) + 0.0125*float64(L-12)
			rng := rand.New(rand.NewPCG(1, 2))
			rows, cols := nb/4, 1024
			w := make([]float32, rows*cols)
			for i := range w {
				w[i] = float32(rng.NormFloat64())
			}
			st := time.Now()
			wt, err := Encode(w, rows, cols, Spec{K: k, L: L, T: 256, Code: "1mad", Axis: 1})
			if err != nil {
				t.Fatal(err)
			}
			el := time.Since(st)
			d := wt.Dense(Exact)
			var se float64
			for i := range d {
				e := float64(d[i] - w[i])
				se += e * e
			}
			fmt.Printf("L%d k%d f%.2f mse %.5f  %.2f Mw/s\n", L, k, f, se/float64(len(d)), float64(len(w))/el.Seconds()/1e6)
		}
	}
}

func BenchmarkZZSearch(b *testing.B) {
	for _, k := range []int{2, 3, 4} {
		b.Run(fmt.Sprint(k), func(b *testing.B) {
			spec := Spec{K: k, L: 12, T: 256, Code: "1mad", Axis: 1}
			v := newViterbi(spec)
			rng := rand.New(rand.NewPCG(1, 2))
			x := make([]float32, 256)
			for i := range x {
				x[i] = float32(rng.NormFloat64())
			}
			st := make([]uint32, 256)
			c0 := cpuNS()
			for b.Loop() {
				v.search(x, -1, st)
			}
			b.ReportMetric(float64(cpuNS()-c0)/float64(b.N)/(256*4096), "cpuns/state")
		})
	}
}

func cpuNS() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
