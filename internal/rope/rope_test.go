// Tests for the rope factory: every table is checked against an independent float64 computation of the
// formula (HF's spelling where it differs from mlx-lm's), Apply against hand-rotated vectors, and bad configs
// against the errors they must produce.
package rope

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/testutil"
)

// checkRel fails when got is not within tol (relative) of want.
func checkRel(t *testing.T, what string, got float32, want, tol float64) {
	t.Helper()
	if want == 0 {
		if got != 0 {
			t.Errorf("%s = %v, want 0", what, got)
		}
		return
	}
	if rel := math.Abs(float64(got)-want) / math.Abs(want); !(rel <= tol) {
		t.Errorf("%s = %.9g, want %.9g (rel err %.3g > %.3g)", what, got, want, rel, tol)
	}
}

func mustNew(t *testing.T, dims int, base float64, traditional bool, scaling map[string]any, maxPos int) *Table {
	t.Helper()
	tab, err := New(dims, base, traditional, scaling, maxPos)
	if err != nil {
		t.Fatalf("New(%d, %v, %v, %v, %d): %v", dims, base, traditional, scaling, maxPos, err)
	}
	if len(tab.InvFreq) != dims/2 || tab.Dims != dims {
		t.Fatalf("table has Dims %d and %d inverse frequencies, want %d and %d", tab.Dims, len(tab.InvFreq), dims, dims/2)
	}
	return tab
}

// fixtureRope reads a fixture model's rope arguments the way a model loader would.
func fixtureRope(t *testing.T, model string) (dims int, theta float64, scaling map[string]any, maxPos int) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(testutil.Fixture(t, filepath.Join("models", model)), "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		HeadDim   int            `json:"head_dim"`
		Hidden    int            `json:"hidden_size"`
		Heads     int            `json:"num_attention_heads"`
		MaxPos    int            `json:"max_position_embeddings"`
		RopeParam map[string]any `json:"rope_parameters"`
	}
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	dims = cfg.HeadDim
	if dims == 0 {
		dims = cfg.Hidden / cfg.Heads
	}
	theta, _ = cfg.RopeParam["rope_theta"].(float64)
	return dims, theta, cfg.RopeParam, cfg.MaxPos
}

func sameTable(t *testing.T, what string, got, want *Table) {
	t.Helper()
	if got.Dims != want.Dims || got.Traditional != want.Traditional || got.PreScale != want.PreScale || len(got.InvFreq) != len(want.InvFreq) {
		t.Fatalf("%s: table %+v, want %+v", what, got, want)
	}
	for i := range got.InvFreq {
		if got.InvFreq[i] != want.InvFreq[i] {
			t.Errorf("%s: InvFreq[%d] = %v, want %v", what, i, got.InvFreq[i], want.InvFreq[i])
		}
	}
}

// (1) Default rope: exp2(−d·log2 base) in float32 is within a few ulps of base^(−2i/dims). The bound follows from
// the two float32 roundings in the exponent (log2 base, d·log2 base), each ≤ |x|·2⁻²⁴ where x is the exponent,
// plus the final rounding.
func TestDefaultInvFreq(t *testing.T) {
	for _, c := range []struct {
		dims int
		base float64
	}{{64, 1e6}, {32, 5e5}, {128, 1e4}, {64, 1e4}, {80, 1e4}, {256, 1e7}} {
		tab := mustNew(t, c.dims, c.base, false, nil, 0)
		if tab.PreScale != 1 || tab.Traditional || tab.Type != "default" {
			t.Errorf("default table: PreScale %v, Traditional %v, Type %q", tab.PreScale, tab.Traditional, tab.Type)
		}
		for i, got := range tab.InvFreq {
			x := -2 * float64(i) / float64(c.dims) * math.Log2(c.base)
			want := math.Exp2(x)
			tol := math.Ldexp(1, -24) * (1.01 + 2*math.Ln2*math.Abs(x)) * 1.01
			checkRel(t, "default InvFreq", got, want, tol)
		}
		if tab.InvFreq[0] != 1 {
			t.Errorf("InvFreq[0] = %v, want exactly 1", tab.InvFreq[0])
		}
	}
	// With a power-of-two base every step is exact: inv[i] = 2^(−16·2i/16).
	tab := mustNew(t, 16, 65536, true, nil, 0)
	for i, got := range tab.InvFreq {
		if want := math.Ldexp(1, -2*i); float64(got) != want {
			t.Errorf("base 65536: InvFreq[%d] = %v, want exactly %v", i, got, want)
		}
	}
	if !tab.Traditional {
		t.Error("traditional flag lost")
	}
	// A rope_parameters dict of type default (tiny-qwen3) builds the same table as no dict.
	dims, theta, params, maxPos := fixtureRope(t, "tiny-qwen3")
	sameTable(t, "tiny-qwen3", mustNew(t, dims, theta, false, params, maxPos), mustNew(t, dims, theta, false, nil, maxPos))
}

func TestLinearFoldsScale(t *testing.T) {
	def := mustNew(t, 64, 1e4, false, nil, 0)
	lin := mustNew(t, 64, 1e4, false, map[string]any{"type": "linear", "factor": 4.0}, 0)
	for i := range lin.InvFreq {
		checkRel(t, "linear InvFreq", lin.InvFreq[i], float64(def.InvFreq[i])/4, 1e-7)
	}
	// factor 3: 1/3 is inexact, the fold rounds once more; still within float32 rounding of mlx's (p/3)·inv.
	lin3 := mustNew(t, 64, 1e4, false, map[string]any{"rope_type": "linear", "factor": 3}, 0)
	for i := range lin3.InvFreq {
		checkRel(t, "linear/3 InvFreq", lin3.InvFreq[i], float64(def.InvFreq[i])/3, 2e-7)
	}
}

// llama3InvFreq is HF's _compute_llama3_parameters in float64 (the inverse-frequency spelling, unlike mlx-lm's
// period spelling), and counts how many pairs fall in each wavelength regime.
func llama3InvFreq(dims int, base, factor, low, high, old float64) (inv []float64, regimes [3]int) {
	lowWavelen, highWavelen := old/low, old/high
	for i := 0; i < dims/2; i++ {
		f := 1 / math.Pow(base, 2*float64(i)/float64(dims))
		wavelen := 2 * math.Pi / f
		switch {
		case wavelen < highWavelen:
			regimes[0]++
		case wavelen > lowWavelen:
			f /= factor
			regimes[2]++
		default:
			smooth := (old/wavelen - low) / (high - low)
			f = (1-smooth)*f/factor + smooth*f
			regimes[1]++
		}
		inv = append(inv, f)
	}
	return inv, regimes
}

// (2) llama3 against HF's formula: tiny-llama3's parameters, then Llama 3.1's, which also exercise the
// unchanged high-frequency regime.
func TestLlama3(t *testing.T) {
	dims, theta, params, maxPos := fixtureRope(t, "tiny-llama3")
	if dims != 32 || theta != 500000 {
		t.Fatalf("tiny-llama3 fixture: dims %d theta %v, want 32 and 500000", dims, theta)
	}
	tiny := map[string]any{"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 16}
	tab := mustNew(t, 32, 500000, false, tiny, 4096)
	want, regimes := llama3InvFreq(32, 500000, 8, 1, 4, 16)
	if regimes[1] == 0 || regimes[2] == 0 {
		t.Fatalf("tiny-llama3 parameters should cover the smooth and stretched regimes, got %v", regimes)
	}
	for i := range want {
		checkRel(t, "tiny-llama3 InvFreq", tab.InvFreq[i], want[i], 1e-6)
	}
	if tab.PreScale != 1 {
		t.Errorf("llama3 PreScale = %v, want 1", tab.PreScale)
	}
	sameTable(t, "tiny-llama3 fixture", mustNew(t, dims, theta, false, params, maxPos), tab)

	l31 := mustNew(t, 128, 500000, true, map[string]any{"rope_type": "llama3", "factor": 8, "original_max_position_embeddings": 8192}, 131072)
	want, regimes = llama3InvFreq(128, 500000, 8, 1, 4, 8192)
	if regimes[0] == 0 || regimes[1] == 0 || regimes[2] == 0 {
		t.Fatalf("Llama 3.1 parameters should cover all three regimes, got %v", regimes)
	}
	for i := range want {
		checkRel(t, "llama3.1 InvFreq", l31.InvFreq[i], want[i], 1e-6)
	}
	if !l31.Traditional {
		t.Error("llama3 lost the traditional flag")
	}
}

// hfYarn is HF's _compute_yarn_parameters in float64: inverse frequencies and the attention factor.
func hfYarn(dims int, base, factor, origMax, betaFast, betaSlow float64, truncate bool) ([]float64, float64, float64, float64) {
	corr := func(rot float64) float64 {
		return float64(dims) * math.Log(origMax/(rot*2*math.Pi)) / (2 * math.Log(base))
	}
	low, high := corr(betaFast), corr(betaSlow)
	if truncate {
		low, high = math.Floor(low), math.Ceil(high)
	}
	low, high = math.Max(low, 0), math.Min(high, float64(dims-1))
	top := high
	if low == top {
		top += 0.001
	}
	var inv []float64
	for i := 0; i < dims/2; i++ {
		pos := math.Pow(base, 2*float64(i)/float64(dims))
		extrapolation, interpolation := 1/pos, 1/(factor*pos)
		ramp := math.Min(math.Max((float64(i)-low)/(top-low), 0), 1)
		extrapolationFactor := 1 - ramp
		inv = append(inv, interpolation*(1-extrapolationFactor)+extrapolation*extrapolationFactor)
	}
	return inv, 0.1*math.Log(factor) + 1, low, high
}

// (3) yarn against HF: tiny-qwen2-yarn's parameters (a 0..1 ramp), a long-context case with a fractional ramp,
// and truncate: false.
func TestYarn(t *testing.T) {
	dims, theta, params, maxPos := fixtureRope(t, "tiny-qwen2-yarn")
	if dims != 64 || theta != 10000 {
		t.Fatalf("tiny-qwen2-yarn fixture: dims %d theta %v, want 64 and 10000", dims, theta)
	}
	tab := mustNew(t, 64, 10000, false, map[string]any{"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 8}, 4096)
	want, mscale, low, high := hfYarn(64, 10000, 4, 8, 32, 1, true)
	if low != 0 || high != 1 {
		t.Fatalf("independent correction range [%v, %v], want [0, 1]", low, high)
	}
	for i := range want {
		checkRel(t, "tiny-qwen2-yarn InvFreq", tab.InvFreq[i], want[i], 1e-6)
	}
	if tab.InvFreq[0] != 1 { // pair 0 extrapolates: period base^0 = 1
		t.Errorf("InvFreq[0] = %v, want 1", tab.InvFreq[0])
	}
	checkRel(t, "tiny-qwen2-yarn PreScale", tab.PreScale, 0.1*math.Log(4)+1, 1e-7)
	checkRel(t, "tiny-qwen2-yarn PreScale", tab.PreScale, mscale, 1e-7)
	sameTable(t, "tiny-qwen2-yarn fixture", mustNew(t, dims, theta, false, params, maxPos), tab)

	for _, truncate := range []bool{true, false} {
		cfg := map[string]any{"type": "yarn", "factor": 4, "original_max_position_embeddings": 32768, "truncate": truncate}
		tab := mustNew(t, 128, 1e6, false, cfg, 131072)
		want, mscale, low, high := hfYarn(128, 1e6, 4, 32768, 32, 1, truncate)
		if !(high-low > 2) || low <= 0 {
			t.Fatalf("correction range [%v, %v] should be an interior ramp", low, high)
		}
		for i := range want {
			checkRel(t, "yarn InvFreq", tab.InvFreq[i], want[i], 1e-6)
		}
		checkRel(t, "yarn PreScale", tab.PreScale, mscale, 1e-7)
	}
}

func TestYarnMscaleVariants(t *testing.T) {
	base := map[string]any{"rope_type": "deepseek_yarn", "factor": 40, "original_max_position_embeddings": 4096}
	with := func(extra map[string]any) map[string]any {
		m := map[string]any{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	// DeepSeek-V3 sets mscale == mscale_all_dim, so the ratio is 1 and x is not scaled.
	if tab := mustNew(t, 64, 1e4, true, with(map[string]any{"mscale": 1.0, "mscale_all_dim": 1.0}), 163840); tab.PreScale != 1 {
		t.Errorf("mscale == mscale_all_dim: PreScale %v, want 1", tab.PreScale)
	}
	tab := mustNew(t, 64, 1e4, false, with(map[string]any{"mscale": 0.707, "mscale_all_dim": 0.5}), 163840)
	checkRel(t, "mscale ratio", tab.PreScale, (0.1*0.707*math.Log(40)+1)/(0.1*0.5*math.Log(40)+1), 1e-7)
	// attention_factor overrides the computed value; factor ≤ 1 means no scaling at all.
	if tab := mustNew(t, 64, 1e4, false, with(map[string]any{"attention_factor": 1.25}), 0); tab.PreScale != 1.25 {
		t.Errorf("attention_factor: PreScale %v, want 1.25", tab.PreScale)
	}
	if tab := mustNew(t, 64, 1e4, false, map[string]any{"rope_type": "telechat3-yarn", "factor": 1}, 0); tab.PreScale != 1 {
		t.Errorf("factor 1: PreScale %v, want 1", tab.PreScale)
	}
}

// (4) longrope: long factors and the su scale when the context is extended, short factors and no scale otherwise.
func TestLongrope(t *testing.T) {
	short := []any{1.0, 1.5, 2.0, 2.5}
	long := []any{2.0, 3.0, 5.0, 7.0}
	cfg := map[string]any{"rope_type": "longrope", "original_max_position_embeddings": 4096, "short_factor": short, "long_factor": long}
	for _, c := range []struct {
		maxPos  int
		factors []any
		scale   float64
	}{
		{131072, long, math.Sqrt(1 + math.Log(32)/math.Log(4096))},
		{4096, short, 1},
		{2048, short, 1},
	} {
		tab := mustNew(t, 8, 10000, true, cfg, c.maxPos)
		if tab.Traditional {
			t.Error("longrope must rotate halves whatever traditional says")
		}
		checkRel(t, "longrope PreScale", tab.PreScale, c.scale, 1e-7)
		for i, f := range c.factors {
			want := 1 / (f.(float64) * math.Pow(10000, 2*float64(i)/8))
			checkRel(t, "longrope InvFreq", tab.InvFreq[i], want, 4e-7)
		}
	}
	// A scalar factor applies to every pair; "su" is the legacy spelling.
	scalar := map[string]any{"type": "su", "original_max_position_embeddings": 4096, "short_factor": 1, "long_factor": 4.0}
	tab := mustNew(t, 8, 10000, false, scalar, 8192)
	for i := range tab.InvFreq {
		checkRel(t, "su scalar InvFreq", tab.InvFreq[i], 1/(4*math.Pow(10000, 2*float64(i)/8)), 4e-7)
	}
}

// rotate is a float64 rotation of (x, y) by theta, the hand reference for Apply.
func rotate(x, y, theta float64) (float64, float64) {
	return x*math.Cos(theta) - y*math.Sin(theta), x*math.Sin(theta) + y*math.Cos(theta)
}

// (5) Apply in both layouts against hand-rotated pairs.
func TestApplyLayouts(t *testing.T) {
	// A quarter turn of (1, 0) is (0, 1), in a one-pair table.
	quarter := &Table{Dims: 2, InvFreq: []float32{float32(math.Pi / 2)}, PreScale: 1}
	v := []float32{1, 0}
	quarter.Apply(v, 1)
	if math.Abs(float64(v[0])) > 1e-7 || math.Abs(float64(v[1]-1)) > 1e-7 {
		t.Errorf("quarter turn of (1,0) = %v, want (0,1)", v)
	}

	inv := []float32{1, 0.5}
	x := []float64{1, 2, 3, 4, 5}
	const pos = 2 // angles 2 and 1
	for _, c := range []struct {
		traditional bool
		pairs       [2][2]int // the indices each pair rotates
	}{
		{false, [2][2]int{{0, 2}, {1, 3}}}, // halves: (x0, x2), (x1, x3)
		{true, [2][2]int{{0, 1}, {2, 3}}},  // interleaved: (x0, x1), (x2, x3)
	} {
		want := append([]float64(nil), x...)
		for i, pr := range c.pairs {
			want[pr[0]], want[pr[1]] = rotate(x[pr[0]], x[pr[1]], pos*float64(inv[i]))
		}
		tab := &Table{Dims: 4, Traditional: c.traditional, InvFreq: inv, PreScale: 1}
		head := []float32{1, 2, 3, 4, 5}
		tab.Apply(head, pos)
		for j := range head {
			if math.Abs(float64(head[j])-want[j]) > 1e-6 {
				t.Errorf("traditional=%v: head[%d] = %v, want %v", c.traditional, j, head[j], want[j])
			}
		}
		if head[4] != 5 {
			t.Errorf("traditional=%v: dim past Dims changed to %v", c.traditional, head[4])
		}
	}
}

// Apply's rotation is CosSin's, bit for bit, and PreScale multiplies only x[:Dims].
func TestApplyMatchesCosSin(t *testing.T) {
	tab := mustNew(t, 64, 10000, false, map[string]any{"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 8}, 0)
	head := make([]float32, 80)
	for j := range head {
		head[j] = float32(j%7) - 2.5
	}
	orig := append([]float32(nil), head...)
	const pos = 1234
	cos, sin := make([]float32, 32), make([]float32, 32)
	tab.CosSin(pos, cos, sin)
	tab.Apply(head, pos)
	for i := 0; i < 32; i++ {
		x1, x2 := tab.PreScale*orig[i], tab.PreScale*orig[i+32]
		w1 := float32(x1*cos[i]) - float32(x2*sin[i])
		w2 := float32(x1*sin[i]) + float32(x2*cos[i])
		if head[i] != w1 || head[i+32] != w2 {
			t.Fatalf("pair %d: Apply (%v, %v), CosSin gives (%v, %v)", i, head[i], head[i+32], w1, w2)
		}
		// The angle is float32(pos)·InvFreq in float32.
		if theta := float32(pos) * tab.InvFreq[i]; cos[i] != float32(math.Cos(float64(theta))) {
			t.Fatalf("pair %d: cos %v, want cos(%v)", i, cos[i], theta)
		}
	}
	for j := 64; j < 80; j++ {
		if head[j] != orig[j] {
			t.Errorf("head[%d] past Dims changed: %v → %v", j, orig[j], head[j])
		}
	}
	// At position 0 the rotation is the identity, leaving exactly the pre-scaled input.
	zero := append([]float32(nil), orig...)
	tab.Apply(zero, 0)
	for j := 0; j < 64; j++ {
		if zero[j] != tab.PreScale*orig[j] {
			t.Fatalf("pos 0: head[%d] = %v, want PreScale·x = %v", j, zero[j], tab.PreScale*orig[j])
		}
	}
}

// NoPE layers pass a nil table: Apply is the identity, CosSin the identity rotation.
func TestNilTableIsNoPE(t *testing.T) {
	var tab *Table
	head := []float32{1, 2, 3, 4}
	tab.Apply(head, 99)
	if head[0] != 1 || head[1] != 2 || head[2] != 3 || head[3] != 4 {
		t.Errorf("nil Apply changed the head: %v", head)
	}
	cos, sin := []float32{7, 7}, []float32{7, 7}
	tab.CosSin(5, cos, sin)
	if cos[0] != 1 || cos[1] != 1 || sin[0] != 0 || sin[1] != 0 {
		t.Errorf("nil CosSin = %v, %v, want ones and zeros", cos, sin)
	}
}

// (6) Partial rotary: a table of fewer dims than the head rotates only its dims; proportional rope leaves the
// pairs past int(dims·partial_rotary_factor) at InvFreq 0.
func TestPartialDims(t *testing.T) {
	tab := mustNew(t, 16, 10000, false, nil, 0) // head_dim 64 × partial_rotary_factor 0.25
	head := make([]float32, 64)
	for j := range head {
		head[j] = 1 + float32(j)
	}
	orig := append([]float32(nil), head...)
	tab.Apply(head, 3)
	for j := 0; j < 8; j++ { // pair j rotates (x_j, x_{j+8}) by 3·InvFreq[j]
		w1, w2 := rotate(float64(orig[j]), float64(orig[j+8]), 3*float64(tab.InvFreq[j]))
		if math.Abs(float64(head[j])-w1) > 1e-5 || math.Abs(float64(head[j+8])-w2) > 1e-5 {
			t.Errorf("pair %d = (%v, %v), want (%v, %v)", j, head[j], head[j+8], w1, w2)
		}
	}
	for j := 16; j < 64; j++ {
		if head[j] != orig[j] {
			t.Fatalf("head[%d] past the rotated dims changed", j)
		}
	}

	prop := mustNew(t, 16, 10000, false, map[string]any{"rope_type": "proportional", "partial_rotary_factor": 0.25, "factor": 2.0}, 0)
	for i, got := range prop.InvFreq {
		want := 0.0
		if 2*i < 4 { // rotated dims int(16·0.25) = 4: pairs 0 and 1, exponent over all 16 dims
			want = 1 / (2 * math.Pow(10000, 2*float64(i)/16))
		}
		checkRel(t, "proportional InvFreq", got, want, 2e-7)
	}
	head = append([]float32(nil), orig[:16]...)
	prop.Apply(head, 1000)
	for j := 2; j < 8; j++ {
		if head[j] != orig[j] || head[j+8] != orig[j+8] {
			t.Errorf("proportional pair %d (period ∞) rotated: (%v, %v)", j, head[j], head[j+8])
		}
	}
	if head[0] == orig[0] {
		t.Error("proportional pair 0 did not rotate")
	}
}

// (7) Unknown types and bad configs are errors that name the problem, never panics.
func TestErrors(t *testing.T) {
	yarn := func(k string, v any) map[string]any {
		return map[string]any{"rope_type": "yarn", "factor": 4.0, k: v}
	}
	for _, c := range []struct {
		name    string
		dims    int
		base    float64
		scaling map[string]any
		maxPos  int
		want    []string
	}{
		{"unknown type", 64, 1e4, map[string]any{"rope_type": "dynamic", "factor": 2.0}, 0,
			append([]string{`"dynamic"`}, KnownTypes()...)},
		{"type not a string", 64, 1e4, map[string]any{"type": 3}, 0, []string{"rope_scaling.type"}},
		{"odd dims", 63, 1e4, nil, 0, []string{"dims 63"}},
		{"zero dims", 0, 1e4, nil, 0, []string{"dims 0"}},
		{"bad base", 64, -1, nil, 0, []string{"rope_theta"}},
		{"linear without factor", 64, 1e4, map[string]any{"rope_type": "linear"}, 0, []string{"rope_scaling.factor missing or not a number"}},
		{"linear factor string", 64, 1e4, map[string]any{"rope_type": "linear", "factor": "4"}, 0, []string{"rope_scaling.factor missing or not a number"}},
		{"linear factor zero", 64, 1e4, map[string]any{"rope_type": "linear", "factor": 0}, 0, []string{"rope_scaling.factor", "positive"}},
		{"llama3 low zero", 64, 1e4, map[string]any{"rope_type": "llama3", "factor": 8, "low_freq_factor": 0}, 0, []string{"rope_scaling.low_freq_factor"}},
		{"yarn truncate string", 64, 1e4, yarn("truncate", "no"), 0, []string{"rope_scaling.truncate"}},
		{"yarn beta zero", 64, 1e4, yarn("beta_fast", 0), 0, []string{"rope_scaling.beta_fast"}},
		{"yarn base one", 64, 1, yarn("beta_fast", 32), 0, []string{"rope_theta 1"}},
		{"yarn mscale blows up", 64, 1e4, yarn("mscale_all_dim", -1/(0.1*math.Log(4))), 0, []string{"attention scale"}},
		{"longrope no max", 8, 1e4, map[string]any{"rope_type": "longrope", "original_max_position_embeddings": 4096, "short_factor": 1, "long_factor": 1}, 0, []string{"max_position_embeddings"}},
		{"longrope no original", 8, 1e4, map[string]any{"rope_type": "longrope", "short_factor": 1, "long_factor": 1}, 8192, []string{"rope_scaling.original_max_position_embeddings"}},
		{"longrope short length", 8, 1e4, map[string]any{"rope_type": "longrope", "original_max_position_embeddings": 4096, "short_factor": []any{1.0, 2.0}, "long_factor": 1}, 8192, []string{"rope_scaling.short_factor", "2 entries, want 4"}},
		{"longrope long entry", 8, 1e4, map[string]any{"rope_type": "longrope", "original_max_position_embeddings": 4096, "short_factor": 1, "long_factor": []any{1.0, "x", 1.0, 1.0}}, 8192, []string{"rope_scaling.long_factor[1]"}},
		{"proportional too wide", 16, 1e4, map[string]any{"rope_type": "proportional", "partial_rotary_factor": 1.5}, 0, []string{"rope_scaling.partial_rotary_factor"}},
		{"proportional huge", 16, 1e4, map[string]any{"rope_type": "proportional", "partial_rotary_factor": 1e300}, 0, []string{"rope_scaling.partial_rotary_factor"}},
		{"mrope two sections", 64, 1e4, map[string]any{"rope_type": "mrope", "mrope_section": []any{16.0, 24.0}}, 0, []string{"rope_scaling.mrope_section"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tab, err := New(c.dims, c.base, false, c.scaling, c.maxPos)
			if err == nil {
				t.Fatalf("New succeeded with %+v, want an error", tab)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// initialize_rope's type lookup: "type" wins over "rope_type" unless it is null or empty; nothing means default.
func TestTypeResolution(t *testing.T) {
	for _, c := range []struct {
		scaling map[string]any
		want    string
	}{
		{nil, "default"},
		{map[string]any{}, "default"},
		{map[string]any{"rope_type": nil}, "default"},
		{map[string]any{"type": "linear", "rope_type": "llama3", "factor": 2.0}, "linear"},
		{map[string]any{"type": nil, "rope_type": "linear", "factor": 2.0}, "linear"},
		{map[string]any{"type": "", "rope_type": "linear", "factor": 2.0}, "linear"},
		{map[string]any{"rope_type": "mrope", "mrope_section": []any{16, 24, 24}}, "mrope"},
	} {
		tab := mustNew(t, 64, 1e4, false, c.scaling, 0)
		if tab.Type != c.want {
			t.Errorf("%v resolved to %q, want %q", c.scaling, tab.Type, c.want)
		}
	}
	// json.Number and int values read like float64.
	a := mustNew(t, 32, 500000, false, map[string]any{"rope_type": "llama3", "factor": json.Number("8"), "original_max_position_embeddings": 16}, 0)
	b := mustNew(t, 32, 500000, false, map[string]any{"rope_type": "llama3", "factor": 8.0, "original_max_position_embeddings": 16.0}, 0)
	sameTable(t, "json.Number vs float64", a, b)
}
