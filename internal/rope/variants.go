// The rope_type constructors of mlx-lm's rope_utils.py, one per builders entry.
//
// mlx computes its frequency tables with float32 array ops at module init; each constructor here repeats those
// ops one float32 rounding at a time (float32 pow, then ·, /, +), so InvFreq is what mlx's kernel would derive
// from them. Python-float math in the original (correction ranges, mscale, su scale) stays float64, as it is
// IEEE double there too. Where mlx passes a `freqs` table (periods) to fast_rope, the kernel uses 1/freqs in
// float32; InvFreq stores that reciprocal.
package rope

import (
	"fmt"
	"math"
)

// pow32 is mlx's float32 power: base**exponent with both rounded to float32 first (a Python float base is a
// weak scalar that takes the array's float32 dtype). The float64 pow of float32 inputs, rounded once, is what
// a correctly rounded powf returns.
func pow32(base, exponent float32) float32 {
	return float32(math.Pow(float64(base), float64(exponent)))
}

// periodExponent is mlx's `arange(0, dims, 2) / dims` entry for pair i: a float32 division, exact when dims is
// a power of two.
func periodExponent(i, dims int) float32 {
	return float32(2*i) / float32(dims)
}

// defaultInvFreq is the table mlx's fast_rope derives from `base` on the GPU (rope.metal): with
// d = float32(i) / float32(dims/2) and L = log2f(float32(base)), inv[i] = exp2(−d·L), all in float32.
// mlx's CPU fallback spells it exp(−i·(ln base / (dims/2))) instead, a few float32 ulps away for large bases;
// the Metal form is the one mlx-lm runs.
func defaultInvFreq(dims int, base float64) []float32 {
	half := dims / 2
	log2Base := float32(math.Log2(float64(float32(base))))
	inv := make([]float32, half)
	for i := range inv {
		d := float32(i) / float32(half)
		inv[i] = float32(math.Exp2(float64(-d * log2Base)))
	}
	return inv
}

// table wraps InvFreq with the common fields.
func (s spec) table(inv []float32, preScale float32) *Table {
	return &Table{Dims: s.dims, Traditional: s.traditional, InvFreq: inv, PreScale: preScale}
}

// buildDefault is nn.RoPE(dims, traditional, base, scale=1).
func buildDefault(s spec) (*Table, error) {
	return s.table(defaultInvFreq(s.dims, s.base), 1), nil
}

// buildMrope is what initialize_rope does for "mrope": plain nn.RoPE once mrope_section is checked to have three
// sections (text-only positions make the three sections coincide).
func buildMrope(s spec) (*Table, error) {
	v, ok := s.p.value("mrope_section")
	n := -1
	switch l := v.(type) {
	case []any:
		n = len(l)
	case []int:
		n = len(l)
	case []float64:
		n = len(l)
	}
	if !ok || n != 3 {
		return nil, fmt.Errorf("rope_scaling.mrope_section must be a list of 3 sections, got %v", v)
	}
	return buildDefault(s)
}

// buildLinear is nn.RoPE with scale = 1/factor. mlx multiplies the position by that scale (float32) before the
// inverse frequency; here the scale is folded into InvFreq (float32(1/factor)·inv[i], rounded once) so Apply
// stays p·InvFreq[i]. That is not bit-identical to mlx's (scale·p)·inv but equal to within float32 rounding.
func buildLinear(s spec) (*Table, error) {
	factor, err := s.p.positive("factor", -1)
	if err != nil {
		return nil, err
	}
	scale := float32(1 / factor)
	inv := defaultInvFreq(s.dims, s.base)
	for i := range inv {
		inv[i] *= scale
	}
	return s.table(inv, 1), nil
}

// buildLlama3 is Llama3RoPE: periods base^(2i/dims) stretched by factor for long wavelengths and blended
// smoothly between the high- and low-frequency wavelength bounds.
func buildLlama3(s spec) (*Table, error) {
	factor, err := s.p.positive("factor", -1)
	if err != nil {
		return nil, err
	}
	low, err := s.p.positive("low_freq_factor", 1)
	if err != nil {
		return nil, err
	}
	high, err := s.p.positive("high_freq_factor", 4)
	if err != nil {
		return nil, err
	}
	oldCtx, err := s.p.positive("original_max_position_embeddings", 8192)
	if err != nil {
		return nil, err
	}
	// Python floats, compared against float32 wavelengths as float32 weak scalars.
	lowWavelen := float32(oldCtx / low)
	highWavelen := float32(oldCtx / high)
	factor32, low32, span32, old32 := float32(factor), float32(low), float32(high-low), float32(oldCtx)
	twoPi := float32(2 * math.Pi)

	base32 := float32(s.base)
	inv := make([]float32, s.dims/2)
	for i := range inv {
		freq := pow32(base32, periodExponent(i, s.dims))
		wavelen := twoPi * freq
		if wavelen > lowWavelen {
			freq *= factor32
		}
		// mlx evaluates the smooth blend everywhere and selects it by mask; only the selected lanes matter, and a
		// high == low config (division by zero) never selects any.
		if wavelen > highWavelen && wavelen < lowWavelen {
			smooth := (old32/wavelen - low32) / span32
			freq /= (1-smooth)/factor32 + smooth
		}
		inv[i] = 1 / freq
	}
	return s.table(inv, 1), nil
}

// buildYarn is YarnRoPE (types yarn, deepseek_yarn, telechat3-yarn): periods blend interpolation (factor·base^e)
// and extrapolation (base^e) over a linear ramp between the correction dims of beta_fast and beta_slow, and x is
// pre-scaled by mscale. HF applies the same mscale as attention_factor on cos/sin, which is the same product.
//
// attention_factor, when present, replaces the computed mscale (HF semantics, honored by current mlx-lm).
// truncate (HF; default true) floors/ceils the correction range; mlx-lm ignores the key and always truncates, so
// truncate: false (gpt-oss) follows HF, not mlx-lm. The mscale/mscale_all_dim ratio follows mlx-lm (defaults 1
// and 0); HF uses plain get_mscale(factor) unless both keys are set, which differs when only mscale is given.
func buildYarn(s spec) (*Table, error) {
	factor, err := s.p.positive("factor", -1)
	if err != nil {
		return nil, err
	}
	origMax, err := s.p.positive("original_max_position_embeddings", 4096)
	if err != nil {
		return nil, err
	}
	betaFast, err := s.p.positive("beta_fast", 32)
	if err != nil {
		return nil, err
	}
	betaSlow, err := s.p.positive("beta_slow", 1)
	if err != nil {
		return nil, err
	}
	mscale, err := s.p.num("mscale", 1)
	if err != nil {
		return nil, err
	}
	mscaleAllDim, err := s.p.num("mscale_all_dim", 0)
	if err != nil {
		return nil, err
	}
	truncate, err := s.p.boolean("truncate", true)
	if err != nil {
		return nil, err
	}
	if s.base == 1 {
		return nil, fmt.Errorf("rope_theta 1 leaves the yarn correction range undefined (divides by ln 1)")
	}

	dims := float64(s.dims)
	correctionDim := func(rotations float64) float64 {
		return dims * math.Log(origMax/(rotations*2*math.Pi)) / (2 * math.Log(s.base))
	}
	low, high := correctionDim(betaFast), correctionDim(betaSlow)
	if truncate {
		low, high = math.Floor(low), math.Ceil(high)
	}
	low, high = math.Max(low, 0), math.Min(high, dims-1)
	if math.IsNaN(low) || math.IsNaN(high) {
		return nil, fmt.Errorf("yarn correction range [%v, %v] is undefined; check beta_fast, beta_slow, original_max_position_embeddings", low, high)
	}

	getMscale := func(scale, m float64) float64 {
		if scale <= 1 {
			return 1
		}
		return 0.1*m*math.Log(scale) + 1
	}
	pre := getMscale(factor, mscale) / getMscale(factor, mscaleAllDim)
	if s.p.has("attention_factor") {
		if pre, err = s.p.num("attention_factor", 1); err != nil {
			return nil, err
		}
	}

	// yarn_linear_ramp_mask(low, high, dims//2): (arange − low)/(high − low) clipped to [0, 1], in float32.
	rampTop := high
	if low == rampTop {
		rampTop += 0.001 // mlx's guard against a zero-width ramp
	}
	low32, width32 := float32(low), float32(rampTop-low)
	factor32, base32 := float32(factor), float32(s.base)

	inv := make([]float32, s.dims/2)
	for i := range inv {
		extra := pow32(base32, periodExponent(i, s.dims))
		inter := factor32 * extra
		ramp := min(max((float32(i)-low32)/width32, 0), 1)
		mask := 1 - ramp // weight of extrapolation (the original period)
		// Each product rounded on its own: mlx runs them as separate float32 array ops (no fused multiply-add).
		den := float32(inter*mask) + float32(extra*(1-mask))
		freq := float32(inter*extra) / den
		inv[i] = 1 / freq
	}
	return s.table(inv, float32(pre)), nil
}

// buildLongrope is SuScaledRoPE: periods base^(2i/dims) times a per-pair factor, and x pre-scaled by
// sqrt(1 + ln(max/original)/ln(original)) when the context is extended.
//
// The factor list is long_factor when maxPositions > original_max_position_embeddings and short_factor
// otherwise. mlx-lm always takes long_factor; the two agree for every model that actually extends its context
// (max > original, e.g. Phi-3 128k), and for one that does not, short_factor is what HF uses at every
// reachable length. The traditional argument is ignored: SuScaledRoPE always rotates halves.
// Not read (mlx-lm's initialize_rope does not pass them): attention_factor, short_mscale, long_mscale.
// Phi-3-style configs keep original_max_position_embeddings at the top level; callers copy it into the dict.
func buildLongrope(s spec) (*Table, error) {
	origMax, err := s.p.positive("original_max_position_embeddings", -1)
	if err != nil {
		return nil, err
	}
	if s.maxPositions <= 0 {
		return nil, fmt.Errorf("max_position_embeddings is %d; longrope needs it to pick long or short factors", s.maxPositions)
	}
	half := s.dims / 2
	short, err := s.p.factors("short_factor", half)
	if err != nil {
		return nil, err
	}
	long, err := s.p.factors("long_factor", half)
	if err != nil {
		return nil, err
	}
	ext := short
	if float64(s.maxPositions) > origMax {
		ext = long
	}
	pre := 1.0
	if ratio := float64(s.maxPositions) / origMax; ratio > 1 {
		if origMax == 1 {
			return nil, fmt.Errorf("rope_scaling.original_max_position_embeddings 1 makes the su scale divide by ln 1")
		}
		pre = math.Sqrt(1 + math.Log(ratio)/math.Log(origMax))
	}
	base32 := float32(s.base)
	inv := make([]float32, half)
	for i := range inv {
		freq := float32(ext[i]) * pow32(base32, periodExponent(i, s.dims))
		inv[i] = 1 / freq
	}
	t := s.table(inv, float32(pre))
	t.Traditional = false
	return t, nil
}

// buildProportional is ProportionalRoPE: the first int(dims·partial_rotary_factor) dims rotate with periods
// factor·base^(2i/dims) (note: exponent over all dims, not the rotated ones); the remaining pairs get an infinite
// period, i.e. InvFreq 0, so they never rotate.
func buildProportional(s spec) (*Table, error) {
	prf, err := s.p.num("partial_rotary_factor", 1)
	if err != nil {
		return nil, err
	}
	factor, err := s.p.positive("factor", 1)
	if err != nil {
		return nil, err
	}
	r := float64(s.dims) * prf
	rotated := -1 // out of range: rejected below without converting a huge float to int
	if r > -1 && r < float64(s.dims+1) {
		rotated = int(r) // Python int(): truncates toward zero
	}
	if rotated < 0 || rotated > s.dims {
		return nil, fmt.Errorf("rope_scaling.partial_rotary_factor %v rotates %d of %d dims, want 0..%d", prf, rotated, s.dims, s.dims)
	}
	factor32, base32 := float32(factor), float32(s.base)
	inv := make([]float32, s.dims/2)
	for i := 0; 2*i < rotated; i++ { // arange(0, rotated, 2)
		inv[i] = 1 / (factor32 * pow32(base32, periodExponent(i, s.dims)))
	}
	return s.table(inv, 1), nil
}
