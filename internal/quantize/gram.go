// Calibration on a device with a Gram op (backend.Grammer): each tapped linear input is multiplied into an f32
// accumulator acc [n, n] += xᵀ·x where it was computed, so no activation crosses to the host; every gramFlush
// terms (windows) the accumulators are read back and added to the f64 sums (hessian.addUpper), and only those
// sums leave the function. Where the accumulators of every site do not fit beside the model (Qwen3-14B: 40 ×
// (3·5120² + 17408²) f32 ≈ 61 GB), the windows run in passes, each over the sites that fit, re-running the
// forwards; the pass count is logged.
//
// The f32 error bound. An entry of an accumulator is an f32 sum of m products x_ri·x_rj (exact in an FMA), m the
// rows added since the last flush; its rounding error is at most ~m·2^-24·Σ_r|x_ri·x_rj| (the classic bound
// γ_m ≈ m·u, u = 2^-24; by Cauchy–Schwarz Σ|x_i·x_j| ≤ √(H_ii·H_jj), so for a diagonal entry it is relative to
// the entry itself). Flushing every gramFlush = 16,384 terms keeps it at 2^-10 ≈ 1e-3 relative at worst, below
// the 2^-9 rounding of the bf16 activations a checkpoint's model computes from and 30 times below LDLQ's damping
// (0.03·mean diag H); typical errors grow as √m·u ≈ 8e-6. The f64 sum of the flushed parts adds nothing
// visible. With CalibCtx ≥ gramFlush every window is flushed, and the CPU's Gram reproduces the host path's
// per-window f32 dot products bit for bit. At the default 512-token windows that is a flush every 32 windows
// (8 over the 131,072 tokens of the defaults).
package quantize

import (
	"fmt"
	"math"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/family"
	"github.com/mlxbun/mlxbun/internal/model"
)

// gramFlush is the most rows an f32 accumulator sums before it is flushed into the f64 sums (see the file comment
// for the bound it keeps). A variable only so a test can flush every window.
var gramFlush = 16384

// gramMargin is the device memory left free beside the accumulators for the forward pass's transient buffers
// (a 512-token window of Qwen3-14B needs well under 1 GiB): 2 GiB and a sixteenth of the device.
func gramMargin(total int64) int64 { return 2<<30 + total/16 }

// gramSite is one site's accumulator on the device.
type gramSite struct {
	acc       backend.Tensor // F32 [n, n]
	n         int
	overwrite bool // the next product overwrites acc (it was just allocated or flushed)
}

// gramCalibration is calibrate on a device with a Gram op.
func gramCalibration(b backend.Backend, g backend.Grammer, m *model.Model, ids []int, o Options, progress func(Event), layer int) (map[site]*hessian, error) {
	flushEvery := max(1, gramFlush/o.CalibCtx)
	hs := map[site]*hessian{}
	finished := map[site]bool{} // sites whose sums a pass completed
	var buf []float32           // one accumulator read back
	for pass := 0; ; pass++ {
		active := map[site]*gramSite{}
		later := map[site]bool{} // sites seen this pass that did not fit
		var used int64
		var tapErr error
		// fits says whether a new accumulator of bytes fits: Options.CalibMemory when set, else the device's free
		// memory less gramMargin, else (a device that does not say) always. The first site of a pass always goes.
		fits := func(bytes int64) bool {
			if len(active) == 0 {
				return true
			}
			if o.CalibMemory > 0 {
				return used+bytes <= o.CalibMemory
			}
			if mf, ok := b.(backend.MemoryFree); ok {
				if free, total, err := mf.MemoryFree(); err == nil {
					return free-bytes >= gramMargin(total)
				}
			}
			return true
		}
		free := func() {
			for _, gs := range active {
				b.Free(gs.acc)
			}
		}
		m.SetTap(func(l int, slot family.Slot, x backend.Tensor) {
			k := site{l, slot}
			if stoppedTap(o, &tapErr) || (layer >= 0 && l != layer) || finished[k] || later[k] {
				return
			}
			rows, n := x.Shape()[0], x.Shape()[1]
			gs := active[k]
			if gs == nil {
				bytes := 4 * int64(n) * int64(n)
				if !fits(bytes) {
					later[k] = true
					return
				}
				acc, err := b.Alloc(backend.F32, n, n)
				if err != nil {
					tapErr = fmt.Errorf("layer %d %s: a %d × %d f32 accumulator: %w", l, slot, n, n, err)
					return
				}
				gs = &gramSite{acc: acc, n: n, overwrite: true}
				active[k], used = gs, used+bytes
				if hs[k] == nil {
					hs[k] = newHessian(n)
				}
			}
			if gs.n != n {
				tapErr = fmt.Errorf("layer %d %s: an input of width %d after %d", l, slot, n, gs.n)
				return
			}
			g.Gram(gs.acc, x, gs.overwrite)
			gs.overwrite = false
			hs[k].tokens += int64(rows)
		})
		windows := min(len(ids), o.CalibTokens) / o.CalibCtx
		flushes := (windows + flushEvery - 1) / flushEvery
		flush := func(w int) error {
			if (w+1)%flushEvery != 0 && w+1 != windows {
				return nil
			}
			ev := Event{Stage: StageFlush, Index: w / flushEvery, Count: flushes}
			progress(ev)
			defer func() { ev.Done = true; progress(ev) }()
			for k, gs := range active {
				if cap(buf) < gs.n*gs.n {
					buf = make([]float32, gs.n*gs.n)
				}
				if err := b.ReadFloat32(gs.acc, buf[:gs.n*gs.n]); err != nil {
					return fmt.Errorf("layer %d %s: reading the accumulator: %w", k.layer, k.slot, err)
				}
				hs[k].addUpper(buf[:gs.n*gs.n])
				gs.overwrite = true
			}
			return nil
		}
		err := runWindows(m, nil, ids, o, progress, &tapErr, flush)
		m.SetTap(nil)
		free()
		if err != nil {
			return nil, err
		}
		for k := range active {
			finished[k] = true
		}
		if len(later) == 0 {
			return hs, nil
		}
		progress(Event{Stage: StageNote, Note: fmt.Sprintf("calibration pass %d collected %d sites (%.1f GiB of f32 accumulators on %s); "+
			"%d more did not fit beside the model and take pass %d, re-running the %d windows", pass+1, len(active),
			float64(used)/(1<<30), b.Name(), len(later), pass+2, windows)})
	}
}

// hessianBound is the f32 accumulation bound of gram.go's comment for m rows: the largest |error| of an entry
// over Σ|x_i·x_j|.
func hessianBound(m int) float64 { return float64(m) * math.Ldexp(1, -24) }
