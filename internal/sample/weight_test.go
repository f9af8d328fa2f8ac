// Tests of the per-token weights (expWeight, the minLogWeight cutoff): the exponential against Go's portable exp
// and math.Exp, and whole draws on rows with huge negative logits against an exact float64 reference that takes
// math.Exp of every term.
package sample

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// ulpsApart is how many float64 steps lie between a and b (both finite and ≥ 0).
func ulpsApart(a, b float64) uint64 {
	x, y := math.Float64bits(a), math.Float64bits(b)
	if x < y {
		x, y = y, x
	}
	return x - y
}

func TestExpWeight(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	ds := []float64{0, math.Copysign(0, -1), -1.0 / (1 << 28), -1.0/(1<<28) - 1e-18, -1e-300, -0.5 * math.Ln2,
		-math.Ln2, minLogWeight, math.Nextafter(minLogWeight, 0), math.Nextafter(minLogWeight, -1), -64.5, -700,
		-720, -745.1, -800, -1e30, math.Inf(-1)}
	for range 200000 {
		ds = append(ds, minLogWeight*rng.Float64(), -math.Exp(-40*rng.Float64()), -1000*rng.Float64())
	}
	worst := uint64(0)
	for _, d := range ds {
		got := expWeight(d)
		if d < minLogWeight {
			if got != 0 {
				t.Fatalf("expWeight(%g) = %g below the cutoff %g, want 0", d, got, minLogWeight)
			}
			if bound := math.Exp(minLogWeight); math.Exp(d) >= bound {
				t.Fatalf("exp(%g) = %g is not below e^minLogWeight = %g", d, math.Exp(d), bound)
			}
			continue
		}
		if want := portableExp(d); got != want {
			t.Fatalf("expWeight(%g) = %v, portable exp %v", d, got, want)
		}
		worst = max(worst, ulpsApart(got, math.Exp(d)))
	}
	// Both are within an ulp of e^d (Go's documented accuracy for each), so within two of each other.
	if worst > 2 {
		t.Fatalf("expWeight is %d ulps from math.Exp somewhere in [%g, 0]", worst, float64(minLogWeight))
	}
	t.Logf("expWeight vs math.Exp: at most %d ulp on [%g, 0]", worst, float64(minLogWeight))
}

// hugeNegativeRow is a row of normal logits (scale·N(0,1)) of which about a third are replaced by ones far below
// the top: -1e30, -800 (plus noise), offsets whose scaled weight is subnormal in [-745, -708] or straddles the cutoff
// in [-70, -58] at temperature temp, -Inf and NaN.
func hugeNegativeRow(rng *rand.Rand, v int, scale, temp float64) []float32 {
	row := make([]float32, v)
	for i := range row {
		row[i] = float32(scale * rng.NormFloat64())
	}
	m := float64(slices.Max(row))
	for i := range row {
		switch rng.IntN(18) {
		case 0:
			row[i] = -1e30
		case 1:
			row[i] = float32(-800 + rng.NormFloat64())
		case 2:
			row[i] = float32(m - temp*(708+37*rng.Float64()))
		case 3, 4:
			row[i] = float32(m - temp*(58+12*rng.Float64()))
		case 5:
			row[i] = float32(math.Inf(-1))
		case 6:
			row[i] = float32(math.NaN())
		}
	}
	return row
}

// TestHugeNegativeLogits: on rows with huge negative logits, each draw of the filtered path (top-p, min-p,
// temperature alone, top-k with top-p) keeps what the full-sort reference keeps, picks the token an exact
// computation picks from the same Float64 (math.Exp of every kept term, summed in float64, walked in the order
// the sampler walks its candidates), and gives every kept token its exact probability to 1e-12 relative; a token
// under the cutoff weighs 0 where its exact probability is below e^minLogWeight. A second Sampler on the same seed
// draws the same tokens through Sample.
func TestHugeNegativeLogits(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	params := []Params{
		{Temp: 1, TopP: 0.9},
		{Temp: 0.7, TopP: 0.95},
		{Temp: 1.3, TopP: 0.5},
		{Temp: 1, MinP: 1e-30},
		{Temp: 0.6, MinP: 0.05},
		{Temp: 1},
		{Temp: 0.5},
		{Temp: 0.9, TopK: 2000, TopP: 0.99},
	}
	const draws = 150
	seen := map[int]bool{}
	for pi, p := range params {
		p.Seed = uint64(100 + pi)
		s, twin := mustNew(t, p), mustNew(t, p)
		u := rand.New(rand.NewPCG(p.Seed, pcgStream)) // the reference's own copy of the sampler's generator
		for rowN := range 3 {
			row := hugeNegativeRow(rng, 4000+rng.IntN(2000), []float64{1, 3, 8}[rowN], float64(p.Temp))
			want := refKeep(row, p)
			for d := range draws {
				work := slices.Clone(row)
				kept, mf, all, err := s.keep(work)
				if err != nil {
					t.Fatal(err)
				}
				invT := 1 / float64(p.Temp)
				var ids []int
				var got int
				if all {
					got = s.drawAll(work, mf, invT)
					for i := range work {
						ids = append(ids, i)
					}
				} else {
					got = s.drawKept(kept, mf, invT, invT == 1 && p.usesTopP())
					for _, c := range kept {
						ids = append(ids, int(c.id))
					}
				}
				w := s.w[:len(ids)] // the weights the draw used, in its order
				if d == 0 {
					n := 0
					for _, id := range ids {
						if !math.IsInf(float64(work[id]), -1) {
							n++
							if !want[id] {
								t.Fatalf("%+v row %d: token %d (logit %g) kept, the reference drops it", p, rowN, id, row[id])
							}
						}
					}
					if n != len(want) {
						t.Fatalf("%+v row %d: %d tokens kept, the reference keeps %d", p, rowN, n, len(want))
					}
				}

				// The exact computation: every finite kept term through math.Exp, none cut off.
				exact := make([]float64, len(ids))
				total, wTotal := 0.0, 0.0
				for r, id := range ids {
					exact[r] = math.Exp((float64(work[id]) - mf) * invT)
					total += exact[r]
					wTotal += w[r]
				}
				target := u.Float64() * total
				acc, ref := 0.0, -1
				for r, e := range exact {
					if e == 0 {
						continue
					}
					acc += e
					ref = ids[r]
					if acc > target {
						break
					}
				}
				if got != ref {
					t.Fatalf("%+v row %d draw %d: drew %d, the exact computation %d", p, rowN, d, got, ref)
				}
				if twinGot, err := twin.Sample(slices.Clone(row), nil, nil); err != nil || twinGot != got {
					t.Fatalf("%+v row %d draw %d: Sample drew %d (%v), the filter path %d", p, rowN, d, twinGot, err, got)
				}
				seen[got] = true
				if d > 0 {
					continue
				}
				for r := range ids {
					pw, pe := w[r]/wTotal, exact[r]/total
					d := (float64(work[ids[r]]) - mf) * invT
					switch {
					case d < minLogWeight:
						if w[r] != 0 || pe >= math.Exp(minLogWeight) {
							t.Fatalf("%+v: token %d at %g: weight %g, exact probability %g", p, ids[r], d, w[r], pe)
						}
					case math.Abs(pw-pe) > 1e-12*pe:
						t.Fatalf("%+v: token %d at %g: probability %.17g, exact %.17g", p, ids[r], d, pw, pe)
					}
				}
			}
		}
	}
	if len(seen) < 50 {
		t.Fatalf("only %d distinct tokens drawn: the rows exercise too little", len(seen))
	}
}
