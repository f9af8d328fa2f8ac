// Benchmarks that isolate the cost of the exponential the filters and the draw take per logit (issue 21: top-p on
// a 152k-token row ran ~30× slower on the GPU host's Intel microVM than on an AMD EPYC, its profile in math.Exp).
// BenchmarkExp times each exp implementation per argument range; BenchmarkWeigh times the per-logit weight pass
// on the benchmark rows at the temperatures the Sample benchmarks use; BenchmarkTopPPhases times each step of the
// top-p path apart. Run on a host that is slow, they say whether the time is exp's arguments, exp's code or the
// loop around it. Ranges of d = (l − l_max)·invT on the benchmark rows: flat row at temperature 1 (keep's partition
// function) [-9, 0], at 0.7 (drawKept, drawAll) [-13, 0]; peaked row [-31, -13] for all but its 30 planted tokens
// at 1, [-44, -18] at 0.7; none near the cutoff or subnormal.
package sample

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

const (
	// expArgs is how many arguments a "short" BenchmarkExp iteration evaluates: at -benchtime 20x ~3·10⁵ calls,
	// a few milliseconds, too short for sysmon's asynchronous preemption (10 ms).
	expArgs = 16384
	// longReps: a "long" iteration evaluates them this many times, ~2.6·10⁶ calls at 20x, long enough to be
	// preempted asynchronously mid-run as Sample's 152k-token loops are (see expWeight).
	longReps = 8
)

var expSink float64 // keeps the compiler from dropping the benchmarked calls

// portableExp is Go's pure-Go math.exp (src/math/exp.go and its expmulti, BSD licence), which amd64 does not use:
// math.Exp there is assembly, and with AVX+FMA it mixes VEX (VFMADD213SD) with legacy SSE instructions. The float64
// conversions keep a compiler from fusing its products into FMAs (amd64 at GOAMD64=v3, arm64), so that it rounds
// the same everywhere; at GOAMD64=v1 they change nothing.
func portableExp(x float64) float64 {
	const (
		overflow  = 7.09782712893383973096e+02
		underflow = -7.45133219101941108420e+02
	)
	switch {
	case x != x:
		return x
	case x > overflow:
		return math.Inf(1)
	case x < underflow:
		return 0
	case -nearZero < x && x < nearZero:
		return 1 + x
	}
	var k int
	switch {
	case x < 0:
		k = int(float64(log2e*x) - 0.5)
	case x > 0:
		k = int(float64(log2e*x) + 0.5)
	}
	hi := x - float64(float64(k)*ln2Hi)
	lo := float64(k) * ln2Lo
	r := hi - lo
	t := r * r
	c := r - float64(t*(p1+float64(t*(p2+float64(t*(p3+float64(t*(p4+float64(t*p5)))))))))
	y := 1 - ((lo - float64(r*c)/(2-c)) - hi)
	return math.Ldexp(y, k)
}

// mathWeight is expWeight's cutoff in front of math.Exp: what the weights would cost with the assembly.
func mathWeight(d float64) float64 {
	if !(d >= minLogWeight) {
		return 0
	}
	return math.Exp(d)
}

// BenchmarkExp: ns per call of each implementation over arguments uniform in a range. The ranges: [-9,0] is
// keep's partition function on the flat row, [-31,-13] on the peaked one, [-44,-18] drawAll on the peaked row at
// temperature 0.7; [-745,-708] gives subnormal results (the assembly's denormal branch and a subnormal multiply),
// [-1000,-746] and -1e30 give 0 through its underflow branch, -Inf through its not-finite test. Implementations:
// math.Exp, portableExp, mathcut (math.Exp behind the cutoff) and weight (expWeight, what the Sampler uses).
// "short" cases finish before sysmon would preempt them, "long" ones do not (on the GPU host in issue 21 only
// loops that long slowed down, and only with math.Exp).
func BenchmarkExp(b *testing.B) {
	ranges := []struct {
		name   string
		lo, hi float64
	}{
		{"[-1,0]", -1, 0},
		{"[-9,0]", -9, 0},
		{"[-30,0]", -30, 0},
		{"[-31,-13]", -31, -13},
		{"[-44,-18]", -44, -18},
		{"[-700,-600]", -700, -600},
		{"[-745,-708]", -745, -708},
		{"[-1000,-746]", -1000, -746},
		{"-1e30", -1e30, -1e30},
		{"-Inf", math.Inf(-1), math.Inf(-1)},
	}
	impls := []struct {
		name string
		f    func(float64) float64
	}{
		{"math", math.Exp},
		{"portable", portableExp},
		{"mathcut", mathWeight},
		{"weight", expWeight},
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, state := range []struct {
		name string
		reps int
	}{{"short", 1}, {"long", longReps}} {
		for _, r := range ranges {
			xs := make([]float64, expArgs)
			for i := range xs {
				xs[i] = r.lo
				if r.hi != r.lo {
					xs[i] = r.lo + (r.hi-r.lo)*rng.Float64()
				}
			}
			for _, im := range impls {
				b.Run(state.name+"/"+im.name+"/"+r.name, func(b *testing.B) {
					sum := 0.0
					for b.Loop() {
						for range state.reps {
							for _, x := range xs {
								sum += im.f(x)
							}
						}
					}
					expSink += sum
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*state.reps*len(xs)), "ns/exp")
				})
			}
		}
	}
}

// BenchmarkWeigh times the weight pass over a whole 152k row the way keep (temperature 1) and drawAll (0.7) take
// it, on both benchmark rows: "weight" is Sampler.weigh itself, "math" the same loop with math.Exp behind the same
// cutoff. Each case runs 20 passes of ~1.5 ms at -benchtime 20x, past sysmon's 10 ms preemption.
func BenchmarkWeigh(b *testing.B) {
	peaked, flat := benchRows()
	mathWeigh := func(s *Sampler, logits []float32, mf, invT float64) float64 {
		s.w = slices.Grow(s.w[:0], len(logits))[:len(logits)]
		total := 0.0
		for i, l := range logits {
			s.w[i] = mathWeight((float64(l) - mf) * invT)
			total += s.w[i]
		}
		return total
	}
	impls := []struct {
		name string
		f    func(s *Sampler, logits []float32, mf, invT float64) float64
	}{{"weight", (*Sampler).weigh}, {"math", mathWeigh}}
	for _, im := range impls {
		for _, r := range []struct {
			name string
			row  []float32
		}{{"peaked", peaked}, {"flat", flat}} {
			mf := float64(slices.Max(r.row))
			for _, temp := range []float32{1, 0.7} {
				b.Run(fmt.Sprintf("%s/%s/T%g", im.name, r.name, temp), func(b *testing.B) {
					s := mustNew(b, Params{Temp: temp})
					for b.Loop() {
						expSink += im.f(s, r.row, mf, 1/float64(temp))
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(r.row)), "ns/logit")
				})
			}
		}
	}
}

// BenchmarkTopPPhases times the steps of Sample's top-p path on the flat row (Temp 0.7, TopP 0.9) apart: the
// partition function, gather, selectMass and drawKept, each on the state the steps before it leave.
func BenchmarkTopPPhases(b *testing.B) {
	_, flat := benchRows()
	p := Params{Temp: 0.7, TopP: 0.9}
	mf := float64(slices.Max(flat))
	s := mustNew(b, p)
	pz := float64(p.TopP) * s.weigh(flat, mf, 1)
	b.Run("partition", func(b *testing.B) {
		for b.Loop() {
			expSink += s.weigh(flat, mf, 1)
		}
	})
	ninf := math.Inf(-1)
	b.Run("gather", func(b *testing.B) {
		for b.Loop() {
			s.gather(flat, mf, ninf, false, true, pz)
		}
	})
	c := slices.Clone(s.gather(flat, mf, ninf, false, true, pz))
	for i := range c {
		c[i].e = s.w[c[i].id]
	}
	work := make([]cand, len(c))
	b.Run("selectMass", func(b *testing.B) {
		for b.Loop() {
			copy(work, c)
			selectMass(work, pz)
		}
	})
	copy(work, c)
	kept := work[:selectMass(work, pz)]
	b.Run("drawKept", func(b *testing.B) {
		for b.Loop() {
			s.drawKept(kept, mf, 1/float64(p.Temp), false)
		}
	})
}
