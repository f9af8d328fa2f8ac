// Calibration: the input Hessians H = XᵀX of every linear layer, collected by running the unquantized model on the
// CPU over calibration text (windows of CalibCtx tokens from the start of the file, as perplexity cuts them) and
// tapping each linear's input (model.Tap). Linears reading the same activation share one Hessian: q/k/v, o,
// gate/up and down of each layer. LDLQ (trellis.QuantizeLDLQ) rounds against them, damped; the report's proxy
// loss tr(ΔW·H·ΔWᵀ)/tokens uses them undamped.
package quantize

import (
	"cmp"
	"slices"

	"fmt"
	"github.com/mlxbun/mlxbun/internal/rht"
	"github.com/mlxbun/mlxbun/internal/trellis"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cpu"
	"github.com/mlxbun/mlxbun/internal/family"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/modeldir"
	"github.com/mlxbun/mlxbun/internal/userfile"
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
	// cross is X̃ᵀ·(X − X̃) (Options.Asymmetric): X̃ the inputs through the quantized earlier layers (h's), X the
	// unquantized model's on the same tokens; nil otherwise.
	cross []float64
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

// addCross accumulates cross += X̃ᵀ·(X − X̃) [n, n] (full, row-major) for the quantized model's inputs xq and the
// unquantized model's xf, both [rows, n].
func (hs *hessian) addCross(xq, xf []float32, rows int) {
	n := hs.n
	qt := make([]float32, len(xq))
	dt := make([]float32, len(xq))
	for r := range rows {
		for i := range n {
			qt[i*rows+r] = xq[r*n+i]
			dt[i*rows+r] = xf[r*n+i] - xq[r*n+i]
		}
	}
	vec.ParallelFor(n, 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			a := qt[i*rows : (i+1)*rows]
			row := hs.cross[i*n : (i+1)*n]
			for j := range n {
				row[j] += float64(vec.Dot(a, dt[j*rows:(j+1)*rows]))
			}
		}
	})
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
		return runCalibration(inDir, o.CalibIDs, o, progress, nil, -1)
	}
	abs, _ := filepath.Abs(inDir)
	var key calibKey
	if o.CalibAuto {
		key = calibKey{inDir: abs, calib: fmt.Sprintf("auto seed %d", o.CalibSeed), tokens: o.CalibTokens, ctx: o.CalibCtx}
	} else {
		st, err := os.Stat(o.Calib)
		if err != nil {
			return nil, fmt.Errorf("quantize: --calib: %w", err)
		}
		key = calibKey{abs, o.Calib, st.Size(), st.ModTime(), o.CalibTokens, o.CalibCtx}
	}
	calibMemo.Lock()
	defer calibMemo.Unlock()
	if calibMemo.hs != nil && calibMemo.key == key {
		return calibMemo.hs, nil
	}
	var hkey hcacheHeader
	var err error
	if o.Hessians != "" {
		if hkey, err = hcacheKey(inDir, o); err != nil {
			return nil, err
		}
		hs, ok, err := loadHessians(o.Hessians, hkey)
		if err != nil || ok {
			if ok {
				calibMemo.key, calibMemo.hs = key, hs
			}
			return hs, err
		}
	}
	ids, err := calibIDs(inDir, o, progress)
	if err != nil {
		return nil, err
	}
	hs, err := runCalibration(inDir, ids, o, progress, nil, -1)
	if err != nil {
		return nil, err
	}
	calibMemo.key, calibMemo.hs = key, hs
	if o.Hessians != "" {
		if err := saveHessians(o.Hessians, hkey, hs); err != nil {
			return nil, err
		}
	}
	return hs, nil
}

// calibTokens tokenizes the calibration file with the model's tokenizer (no special tokens).
func calibTokens(inDir, file string) ([]int, error) {
	text, err := userfile.Read(file, userfile.Text)
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

// overlay is a model's tensors with some replaced: the sequential calibration's earlier layers, quantized and
// decoded back to bf16 in the checkpoint's basis.
type overlay struct {
	model.Source
	over map[string]backend.Host
}

func (s overlay) Has(name string) bool {
	_, ok := s.over[name]
	return ok || s.Source.Has(name)
}

func (s overlay) Tensor(name string) (backend.Host, error) {
	if h, ok := s.over[name]; ok {
		return h, nil
	}
	return s.Source.Tensor(name)
}

// calibIDs is the calibration text's token ids (o.CalibIDs, the self-calibration's samples, or o.Calib
// tokenized).
func calibIDs(inDir string, o Options, progress func(Event)) ([]int, error) {
	switch {
	case o.CalibIDs != nil:
		return o.CalibIDs, nil
	case o.CalibAuto:
		return sampleCalibration(inDir, o, progress)
	}
	return calibTokens(inDir, o.Calib)
}

// workHessians is collectHessians through the work folder: the Hessians a run killed earlier left there (the
// run record, already checked, says they are this run's), else collected and, when not too large, kept there
// for a resumed run.
func workHessians(tmp, inDir string, o Options, settings []setting, progress func(Event)) (map[site]*hessian, error) {
	file, key := filepath.Join(tmp, hessFile), runHessKey(settings)
	if hs, ok, err := loadHessians(file, key); err == nil && ok {
		return hs, nil
	}
	hs, err := collectHessians(inDir, o, progress)
	if err != nil {
		return nil, err
	}
	if hessianBytes(hs) <= maxKeepHes {
		if err := saveHessians(file, key, hs); err != nil {
			return nil, err
		}
	}
	return hs, nil
}

// runCalibration runs the model over windows of ids and taps every linear input: of layer only when layer ≥ 0
// (the sequential calibration), with the tensors of over replacing the checkpoint's.
func runCalibration(inDir string, ids []int, o Options, progress func(Event), over map[string]backend.Host, layer int) (map[site]*hessian, error) {
	ctx := o.CalibCtx
	windows := min(len(ids), o.CalibTokens) / ctx
	if windows < 1 {
		what := o.Calib
		if o.CalibAuto {
			what = "auto"
		}
		return nil, fmt.Errorf("quantize: --calib %s: %d tokens (of --calib-tokens %d) make no window of %d", what, len(ids), o.CalibTokens, ctx)
	}
	b := cpu.New()
	defer b.Close()
	m, err := loadCalibModel(b, inDir, over, ctx)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	// Asymmetric: the unquantized model runs each window first and its inputs to layer's linears are kept, so the
	// quantized model's pass can add X̃ᵀ·(X − X̃) beside X̃ᵀ·X̃ (hessian.cross).
	var ref *model.Model
	fp := map[site][]float32{}
	if o.Asymmetric && layer >= 0 && len(over) > 0 {
		if ref, err = loadCalibModel(b, inDir, nil, ctx); err != nil {
			return nil, err
		}
		defer ref.Close()
	}
	hs := map[site]*hessian{}
	var buf []float32
	var tapErr error
	read := func(x backend.Tensor, dst []float32) []float32 {
		sh := x.Shape()
		if cap(dst) < sh[0]*sh[1] {
			dst = make([]float32, sh[0]*sh[1])
		}
		dst = dst[:sh[0]*sh[1]]
		if err := b.ReadFloat32(x, dst); err != nil && tapErr == nil {
			tapErr = err
		}
		return dst
	}
	if ref != nil {
		ref.SetTap(func(l int, slot family.Slot, x backend.Tensor) {
			if l == layer {
				fp[site{l, slot}] = read(x, fp[site{l, slot}])
			}
		})
	}
	m.SetTap(func(l int, slot family.Slot, x backend.Tensor) {
		if layer >= 0 && l != layer {
			return
		}
		rows, n := x.Shape()[0], x.Shape()[1]
		buf = read(x, buf)
		k := site{l, slot}
		if hs[k] == nil {
			hs[k] = &hessian{n: n, h: make([]float64, n*n)}
			if ref != nil {
				hs[k].cross = make([]float64, n*n)
			}
		}
		if ref != nil {
			if len(fp[k]) != len(buf) {
				if tapErr == nil {
					tapErr = fmt.Errorf("layer %d: the unquantized model's input of %d values for %d", l, len(fp[k]), len(buf))
				}
				return
			}
			hs[k].addCross(buf, fp[k], rows)
		}
		hs[k].add(buf, rows)
	})
	var refCache backend.KVCache
	if ref != nil {
		if refCache, err = ref.NewCache(1, ctx); err != nil {
			return nil, err
		}
		defer ref.ReleaseCache(refCache)
	}
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
		if ref != nil {
			if _, err := ref.Forward(s, refCache, 1); err != nil {
				return nil, fmt.Errorf("quantize: calibration window %d (unquantized): %w", w, err)
			}
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

// loadCalibModel loads inDir's model on b with the tensors of over replacing the checkpoint's.
func loadCalibModel(b backend.Backend, inDir string, over map[string]backend.Host, ctx int) (*model.Model, error) {
	d, err := modeldir.Open(inDir)
	if err != nil {
		return nil, err
	}
	cfg, err := d.Config()
	if err != nil {
		return nil, err
	}
	arch, err := d.Weights()
	if err != nil {
		return nil, err
	}
	m, err := model.LoadFrom(cfg, overlay{arch, over}, b)
	if err != nil {
		return nil, fmt.Errorf("quantize: calibration: %w", err)
	}
	if mp := m.Config.MaxPositions; mp > 0 && ctx > mp {
		m.Close()
		return nil, fmt.Errorf("quantize: --calib-ctx %d exceeds the model's %d positions", ctx, mp)
	}
	return m, nil
}

// layerOrder returns items with the coded linears of the layers in layer order (the sequential calibration quantizes
// layer l against a model whose layers below l are done; name order puts model.layers.10 before model.layers.2),
// every other tensor first in its place: the output's content does not depend on the order tensors are written.
func layerOrder(items []item) []item {
	res := slices.Clone(items)
	key := func(it item) int {
		if it.role == roleCoded && it.site.layer >= 0 {
			return it.site.layer
		}
		return -1
	}
	slices.SortStableFunc(res, func(a, b item) int { return cmp.Compare(key(a), key(b)) })
	return res
}

// decodedBF16 is a coded linear decoded (Exact) and rotated back to the checkpoint's basis, W = R_outᵀ·Ŵ·R_in,
// as the bf16 weight the sequential calibration's later passes run the layer with.
func decodedBF16(it item, w *trellis.Weights) backend.Host {
	q := w.Dense(trellis.Exact)
	m := make([]float64, len(q))
	for i, v := range q {
		m[i] = float64(v)
	}
	unrotateRows(m, it.out, it.in, it.rotIn)
	if it.rotOut != nil {
		t := make([]float64, len(m))
		for o := range it.out {
			for i := range it.in {
				t[i*it.out+o] = m[o*it.in+i]
			}
		}
		unrotateRows(t, it.in, it.out, it.rotOut)
		for i := range it.in {
			for o := range it.out {
				m[o*it.in+i] = t[i*it.out+o]
			}
		}
	}
	f := make([]float32, len(m))
	for i, v := range m {
		f[i] = float32(v)
	}
	_, b := roundBF16(f)
	return backend.Host{Name: it.text, DType: backend.BF16, Shape: []int{it.out, it.in}, Data: b}
}

// unrotateRows maps each row x of m [rows, cols] to Rᵀ·x, undoing rht's x ↦ R·x: R = H·diag(signs)/√b (signs
// first, then the butterfly), so Rᵀ·x = signs ⊙ (H·x)/√b, rht.Apply64 with the signs after the butterfly.
func unrotateRows(m []float64, rows, cols int, r *rht.Side) {
	if r == nil {
		return
	}
	for i := range rows {
		row := m[i*cols : (i+1)*cols]
		rht.Apply64(row, row, nil, r.Signs, r.Block)
	}
}
