// The CUDA backend's tuning table: the launch choices that measurements decide (which form serves a shape, grid
// and split sizes, launch mechanics), each default with the measurement behind it, and one override setting for
// experiments — MLXBUN_CUDA_TUNE="key=value,key=value" — parsed once when the backend opens and logged with the
// backend's debug lines. An unknown key or a bad value fails the open, naming it.

package cuda

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// envTune is the one override of the tuning table.
const envTune = "MLXBUN_CUDA_TUNE"

// tuning is one device's table. Fields are read on the device thread only after Open.
type tuning struct {
	// pdl launches every kernel with programmatic dependent launch on sm_90+ (each kernel waits in pdl_begin,
	// shaders/cuda/common.cuh), so a kernel's launch and prologue overlap its predecessor's tail. Prediction
	// (2026-12-01, before the first run): ~0.5–1 µs saved on most of the 643 launches of a 3-bit 14B decode step.
	pdl bool
	// gemvGroup serves one-row int8-activation trellis layers of axis 1 that share their input (q/k/v; gate/up with
	// SwiGLU folded) with one launch of trellis_gemvg (warps take units of two rows from a counter), instead of one
	// trellis_gemv1_i8 launch per layer. Prediction (2026-12-01, before the first run): k/v stop running at
	// 0.65 G weights/ms on their own and gate/up lose the 3-against-2.06-round tail of 16-row groups over 528 blocks:
	// ~1 ms of the 6.45 ms 3-bit 14B step.
	gemvGroup bool
	// gemvgPrefetch runs trellis_gemvg_k{K}_pf: each lane's words loaded one run ahead of its arithmetic (and across
	// units). Prediction (2026-12-01, before the first run): the one-row grouped launches are latency-bound (three
	// dependent load rounds per unit at 2.9 G weights/ms in the first H200 profile), so −20 % of their time.
	gemvgPrefetch bool
	// gemvgShape, when set, launches 3-bit trellis_gemvg in a lab shape (gemvgLab: blocks per SM, runs per load);
	// zero: gemvgDefault.
	gemvgShape gemvgShape
}

// defaultTuning is the table for the devices measured so far (the NVIDIA H200).
func defaultTuning() tuning {
	return tuning{pdl: true, gemvGroup: true}
}

// tuneKeys are the override's keys, each setting one field from its text.
var tuneKeys = map[string]func(t *tuning, v string) error{
	"pdl":        func(t *tuning, v string) error { return parseBool(&t.pdl, v) },
	"gemv_group": func(t *tuning, v string) error { return parseBool(&t.gemvGroup, v) },
	"gemvg_pf":   func(t *tuning, v string) error { return parseBool(&t.gemvgPrefetch, v) },
	"gemvg_shape": func(t *tuning, v string) error {
		var s gemvgShape
		if _, err := fmt.Sscanf(v, "%dx%d", &s.bps, &s.u); err != nil || !slices.Contains(gemvgLab, s) {
			return fmt.Errorf("want one of the lab shapes %v as BPSxU, got %q", gemvgLab, v)
		}
		t.gemvgShape = s
		return nil
	},
}

func parseBool(dst *bool, v string) error {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("want 0 or 1, got %q", v)
	}
	*dst = b
	return nil
}

// loadTuning is the default table with the override applied.
func loadTuning(override string) (tuning, error) {
	t := defaultTuning()
	if strings.TrimSpace(override) == "" {
		return t, nil
	}
	for _, kv := range strings.Split(override, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		set := tuneKeys[k]
		if !ok || set == nil {
			return t, fmt.Errorf("%s: unknown setting %q (known: %s)", envTune, kv, strings.Join(tuneKeyNames(), ", "))
		}
		if err := set(&t, v); err != nil {
			return t, fmt.Errorf("%s: %s: %w", envTune, k, err)
		}
	}
	return t, nil
}

func tuneKeyNames() []string {
	var ks []string
	for k := range tuneKeys {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// tuningFromEnv reads the override once (Open).
func tuningFromEnv() (tuning, error) { return loadTuning(os.Getenv(envTune)) }
