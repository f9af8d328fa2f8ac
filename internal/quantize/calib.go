// Calibration: the input Hessians H = XᵀX of every linear layer, collected by running the unquantized model on the
// CPU over calibration text (windows of CalibCtx tokens from the start of the file, as perplexity cuts them) and
// tapping each linear's input (model.Tap). Linears reading the same activation share one Hessian: q/k/v, o,
// gate/up and down of each layer. LDLQ (trellis.QuantizeLDLQ) rounds against them, damped; the report's proxy
// loss tr(ΔW·H·ΔWᵀ)/tokens uses them undamped.
package quantize

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/family"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/modeldir"
	"github.com/mlxbun/mlxbun/internal/vec"
)

// site is one shared linear input: a layer and the slot of the first linear reading it (Q for q/k/v, O, Gate for
// gate/up, Down).
type site struct {
	layer int
	slot  family.Slot
}

// siteOf maps a layer slot to the site of its input.
var siteOf = [family.Head]family.Slot{family.Q: family.Q, family.K: family.Q, family.V: family.Q, family.O: family.O,
	family.Gate: family.Gate, family.Up: family.Gate, family.Down: family.Down}

// hessian accumulates XᵀX [n, n] (float64, upper triangle while collecting) over tokens rows.
type hessian struct {
	n      int
	h      []float64
	tokens int64
}

// add accumulates x [rows, n] (row-major): the columns are transposed once so each entry is one f32 dot product
// of a window's rows (≤ CalibCtx terms), added to the f64 sum.
func (hs *hessian) add(x []float32, rows int) {
	n := hs.n
	xt := make([]float32, len(x))
	for r := range rows {
		for i, v := range x[r*n : (r+1)*n] {
			xt[i*rows+r] = v
		}
	}
	vec.ParallelFor(n, 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			a := xt[i*rows : (i+1)*rows]
			row := hs.h[i*n : (i+1)*n]
			for j := i; j < n; j++ {
				row[j] += float64(vec.Dot(a, xt[j*rows:(j+1)*rows]))
			}
		}
	})
	hs.tokens += int64(rows)
}

// full returns the symmetric matrix (the lower triangle mirrored from the upper).
func (hs *hessian) full() []float64 {
	n := hs.n
	h := append([]float64(nil), hs.h...)
	for i := range n {
		for j := range i {
			h[i*n+j] = h[j*n+i]
		}
	}
	return h
}

// damped returns H + λ·mean(diag H)·I.
func damped(h []float64, n int, lambda float64) []float64 {
	d := append([]float64(nil), h...)
	var tr float64
	for i := range n {
		tr += h[i*n+i]
	}
	add := lambda * tr / float64(n)
	if add <= 0 {
		add = lambda
	}
	for i := range n {
		d[i*n+i] += add
	}
	return d
}

// calibKey identifies a calibration run; calibMemo keeps the last one's Hessians, so a process quantizing one model
// at several widths (tests, measurement drivers) runs the model over the text once. The Hessians are read only.
type calibKey struct {
	inDir, calib string
	size         int64
	mtime        time.Time
	tokens, ctx  int
}

var calibMemo struct {
	sync.Mutex
	key calibKey
	hs  map[site]*hessian
}

// collectHessians runs the model in inDir on the CPU over the first o.CalibTokens tokens of o.Calib and returns
// the Hessian of every site (the previous call's when nothing changed). progress gets one event per window.
func collectHessians(inDir string, o Options, progress func(Event)) (map[site]*hessian, error) {
	if o.CalibIDs != nil {
		return runCalibration(inDir, o.CalibIDs, o, progress)
	}
	st, err := os.Stat(o.Calib)
	if err != nil {
		return nil, fmt.Errorf("quantize: --calib: %w", err)
	}
	abs, _ := filepath.Abs(inDir)
	key := calibKey{abs, o.Calib, st.Size(), st.ModTime(), o.CalibTokens, o.CalibCtx}
	calibMemo.Lock()
	defer calibMemo.Unlock()
	if calibMemo.hs != nil && calibMemo.key == key {
		return calibMemo.hs, nil
	}
	ids, err := calibTokens(inDir, o.Calib)
	if err != nil {
		return nil, err
	}
	hs, err := runCalibration(inDir, ids, o, progress)
	if err == nil {
		calibMemo.key, calibMemo.hs = key, hs
	}
	return hs, err
}

// calibTokens tokenizes the calibration file with the model's tokenizer (no special tokens).
func calibTokens(inDir, file string) ([]int, error) {
	text, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("quantize: --calib: %w", err)
	}
	dir, err := modeldir.Open(inDir)
	if err != nil {
		return nil, err
	}
	tok, err := dir.Tokenizer()
	if err != nil {
		return nil, fmt.Errorf("quantize: --calib needs the model's tokenizer: %w", err)
	}
	return tok.Encode(string(text), false), nil
}

// runCalibration runs the model over windows of ids and taps every linear input.
func runCalibration(inDir string, ids []int, o Options, progress func(Event)) (map[site]*hessian, error) {
	ctx := o.CalibCtx
	windows := min(len(ids), o.CalibTokens) / ctx
	if windows < 1 {
		return nil, fmt.Errorf("quantize: --calib %s: %d tokens (of --calib-tokens %d) make no window of %d", o.Calib, len(ids), o.CalibTokens, ctx)
	}
	b := cpu.New()
	defer b.Close()
	m, err := model.Load(inDir, b)
	if err != nil {
		return nil, fmt.Errorf("quantize: calibration: %w", err)
	}
	defer m.Close()
	if mp := m.Config.MaxPositions; mp > 0 && ctx > mp {
		return nil, fmt.Errorf("quantize: --calib-ctx %d exceeds the model's %d positions", ctx, mp)
	}
	hs := map[site]*hessian{}
	var buf []float32
	var tapErr error
	m.SetTap(func(layer int, slot family.Slot, x backend.Tensor) {
		sh := x.Shape()
		rows, n := sh[0], sh[1]
		if cap(buf) < rows*n {
			buf = make([]float32, rows*n)
		}
		buf = buf[:rows*n]
		if err := b.ReadFloat32(x, buf); err != nil && tapErr == nil {
			tapErr = err
			return
		}
		k := site{layer, slot}
		if hs[k] == nil {
			hs[k] = &hessian{n: n, h: make([]float64, n*n)}
		}
		hs[k].add(buf, rows)
	})
	cache, err := m.NewCache(1, ctx)
	if err != nil {
		return nil, err
	}
	defer m.ReleaseCache(cache)
	s := model.Step{IDs: make([]int32, ctx), Seq: make([]int32, ctx), Pos: make([]int32, ctx)}
	for w := range windows {
		progress(Event{Stage: StageCalibrate, Index: w, Count: windows})
		for i, id := range ids[w*ctx : (w+1)*ctx] {
			s.IDs[i], s.Pos[i] = int32(id), int32(i)
		}
		if _, err := m.Forward(s, cache, 1); err != nil {
			return nil, fmt.Errorf("quantize: calibration window %d: %w", w, err)
		}
		if tapErr != nil {
			return nil, fmt.Errorf("quantize: calibration window %d: %w", w, tapErr)
		}
		progress(Event{Stage: StageCalibrate, Index: w, Count: windows, Done: true})
	}
	return hs, nil
}
