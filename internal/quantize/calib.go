// Calibration: the input Hessians H = XᵀX of every linear layer, collected by running the unquantized model on the
// calibration device (Options.Device, the CPU by default; gram.go accumulates on a device with a Gram op) over
// calibration text (windows of CalibCtx tokens from the start of the file, as perplexity cuts them) and
// tapping each linear's input (model.Tap). Linears reading the same activation share one Hessian: q/k/v, o,
// gate/up and down of each layer. LDLQ (trellis.QuantizeLDLQ) rounds against them, damped; the report's proxy
// loss tr(ΔW·H·ΔWᵀ)/tokens uses them undamped.
package quantize

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/mlxbun/mlxbun/internal/rht"
	"github.com/mlxbun/mlxbun/internal/trellis"

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

// hessian accumulates XᵀX [n, n] in float64 over tokens rows: the upper triangle only, packed row by row (row i
// holds columns i..n-1), which halves the host memory of a large model's sums (Qwen3-14B: 61 GB rather than 122)
// and is the cache file's layout (hcache.go).
type hessian struct {
	n      int
	h      []float64 // n·(n+1)/2 values
	tokens int64
	// cross is X̃ᵀ·(X − X̃) (Options.Asymmetric): X̃ the inputs through the quantized earlier layers (h's), X the
	// unquantized model's on the same tokens; nil otherwise. Full n×n, row-major: it is not symmetric.
	cross []float64
}

// newHessian returns a zero n-wide sum.
func newHessian(n int) *hessian { return &hessian{n: n, h: make([]float64, n*(n+1)/2)} }

// row is the packed row i: entries (i, i..n-1).
func (hs *hessian) row(i int) []float64 {
	off := i*hs.n - i*(i-1)/2
	return hs.h[off : off+hs.n-i]
}

// add accumulates x [rows, n] (row-major) on the host: the columns are transposed once so each entry is one f32
// dot product of a window's rows (≤ CalibCtx terms), added to the f64 sum.
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
			row := hs.row(i)
			for j := i; j < n; j++ {
				row[j-i] += float64(vec.Dot(a, xt[j*rows:(j+1)*rows]))
			}
		}
	})
	hs.tokens += int64(rows)
}

// addUpper adds the upper triangle of a device accumulator acc [n, n] (row-major f32, read back) to the sum.
func (hs *hessian) addUpper(acc []float32) {
	n := hs.n
	vec.ParallelFor(n, 16, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := hs.row(i)
			for j, v := range acc[i*n+i : (i+1)*n] {
				row[j] += float64(v)
			}
		}
	})
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

// full returns the symmetric matrix [n, n] row-major.
func (hs *hessian) full() []float64 {
	n := hs.n
	h := make([]float64, n*n)
	for i := range n {
		for j, v := range hs.row(i) {
			h[i*n+i+j] = v
			h[(i+j)*n+i] = v
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

// collectHessians runs the model in inDir on the calibration device over the first o.CalibTokens tokens of
// o.Calib (or of its own samples, o.CalibAuto) and returns the Hessian of every site (the previous call's when
// nothing changed). progress gets one event per window. Self-calibration samples and collects with one load
// of the model.
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
	var hs map[site]*hessian
	if o.CalibAuto {
		hs, err = sampleAndCalibrate(inDir, o, progress)
	} else {
		var ids []int
		if ids, err = calibTokens(inDir, o.Calib); err == nil {
			hs, err = runCalibration(inDir, ids, o, progress, nil, -1)
		}
	}
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

// sampleAndCalibrate is --calib auto's whole calibration on one load of the model: the samples (sample.go),
// then the Hessians over them.
func sampleAndCalibrate(inDir string, o Options, progress func(Event)) (map[site]*hessian, error) {
	b, done := calibDevice(o)
	defer done()
	m, err := loadCalibModel(b, inDir, nil, o.CalibCtx)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	ids, err := sampleWith(m, o, progress)
	if err != nil {
		return nil, err
	}
	return calibrate(b, m, ids, o, progress, -1)
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
// (the sequential calibration), with the tensors of over replacing the checkpoint's. The model runs on the
// calibration device (calibDevice); a device with a Gram op accumulates the products there (gram.go), any other
// reads each input to the host (hostCalibration), as does the asymmetric calibration (it needs X − X̃).
func runCalibration(inDir string, ids []int, o Options, progress func(Event), over map[string]backend.Host, layer int) (map[site]*hessian, error) {
	if err := checkWindows(ids, o); err != nil {
		return nil, err
	}
	b, done := calibDevice(o)
	defer done()
	m, err := loadCalibModel(b, inDir, over, o.CalibCtx)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	if o.Asymmetric && layer >= 0 && len(over) > 0 {
		ref, err := loadCalibModel(b, inDir, nil, o.CalibCtx)
		if err != nil {
			return nil, err
		}
		defer ref.Close()
		return hostCalibration(b, m, ref, ids, o, progress, layer)
	}
	return calibrate(b, m, ids, o, progress, layer)
}

// calibrate collects the Hessians of m (loaded on b) over windows of ids: on the device when b has a Gram op.
func calibrate(b backend.Backend, m *model.Model, ids []int, o Options, progress func(Event), layer int) (map[site]*hessian, error) {
	if err := checkWindows(ids, o); err != nil {
		return nil, err
	}
	if g, ok := b.(backend.Grammer); ok && b.ActDType() == backend.F32 {
		return gramCalibration(b, g, m, ids, o, progress, layer)
	}
	return hostCalibration(b, m, nil, ids, o, progress, layer)
}

// calibDevice is the backend the calibration model runs on: Options.Device (left open), else a CPU backend of
// its own (done closes it).
func calibDevice(o Options) (b backend.Backend, done func()) {
	if o.Device != nil {
		return o.Device, func() {}
	}
	c := cpu.New()
	return c, func() { c.Close() }
}

// checkWindows says why ids make no calibration window.
func checkWindows(ids []int, o Options) error {
	if min(len(ids), o.CalibTokens)/o.CalibCtx >= 1 {
		return nil
	}
	what := o.Calib
	if o.CalibAuto {
		what = "auto"
	}
	return fmt.Errorf("quantize: --calib %s: %d tokens (of --calib-tokens %d) make no window of %d", what, len(ids), o.CalibTokens, o.CalibCtx)
}

// stoppedTap reports whether a tap should skip its input: an earlier tap failed, or the run was stopped (then
// it records that in tapErr, which fails the window). A window is one forward pass, but on the host path its
// taps' products are most of the pass's time (n²·rows a site), so a stop skips the rest of them.
func stoppedTap(o Options, tapErr *error) bool {
	if *tapErr != nil {
		return true
	}
	if err := o.Context.Err(); err != nil {
		*tapErr = fmt.Errorf("stopped: %w", err)
		return true
	}
	return false
}

// runWindows runs m over the calibration windows of ids (ref first on each, when set); after, when set, runs
// after each window. tapErr is where the caller's taps record their first error.
func runWindows(m, ref *model.Model, ids []int, o Options, progress func(Event), tapErr *error, after func(w int) error) error {
	ctx := o.CalibCtx
	windows := min(len(ids), o.CalibTokens) / ctx
	var refCache backend.KVCache
	var err error
	if ref != nil {
		if refCache, err = ref.NewCache(1, ctx); err != nil {
			return err
		}
		defer ref.ReleaseCache(refCache)
	}
	cache, err := m.NewCache(1, ctx)
	if err != nil {
		return err
	}
	defer m.ReleaseCache(cache)
	s := model.Step{IDs: make([]int32, ctx), Seq: make([]int32, ctx), Pos: make([]int32, ctx)}
	for w := range windows {
		if err := o.Context.Err(); err != nil {
			return fmt.Errorf("quantize: %w", err)
		}
		progress(Event{Stage: StageCalibrate, Index: w, Count: windows})
		for i, id := range ids[w*ctx : (w+1)*ctx] {
			s.IDs[i], s.Pos[i] = int32(id), int32(i)
		}
		if ref != nil {
			if _, err := ref.Forward(s, refCache, 1); err != nil {
				return fmt.Errorf("quantize: calibration window %d (unquantized): %w", w, err)
			}
			if *tapErr != nil { // a stop during the unquantized pass: not another pass
				return fmt.Errorf("quantize: calibration window %d (unquantized): %w", w, *tapErr)
			}
		}
		if _, err := m.Forward(s, cache, 1); err != nil {
			return fmt.Errorf("quantize: calibration window %d: %w", w, err)
		}
		if *tapErr != nil {
			return fmt.Errorf("quantize: calibration window %d: %w", w, *tapErr)
		}
		if after != nil {
			if err := after(w); err != nil {
				return fmt.Errorf("quantize: calibration window %d: %w", w, err)
			}
		}
		progress(Event{Stage: StageCalibrate, Index: w, Count: windows, Done: true})
	}
	return nil
}

// hostCalibration is the calibration without a device Gram op: every tapped input read to the host and summed
// there (hessian.add), beside the asymmetric cross term when ref (the unquantized model) is set.
func hostCalibration(b backend.Backend, m, ref *model.Model, ids []int, o Options, progress func(Event), layer int) (map[site]*hessian, error) {
	// Asymmetric: the unquantized model runs each window first and its inputs to layer's linears are kept, so the
	// quantized model's pass can add X̃ᵀ·(X − X̃) beside X̃ᵀ·X̃ (hessian.cross).
	fp := map[site][]float32{}
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
			if stoppedTap(o, &tapErr) {
				return
			}
			if l == layer {
				fp[site{l, slot}] = read(x, fp[site{l, slot}])
			}
		})
		defer ref.SetTap(nil)
	}
	m.SetTap(func(l int, slot family.Slot, x backend.Tensor) {
		if stoppedTap(o, &tapErr) || layer >= 0 && l != layer {
			return
		}
		rows, n := x.Shape()[0], x.Shape()[1]
		buf = read(x, buf)
		k := site{l, slot}
		if hs[k] == nil {
			hs[k] = newHessian(n)
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
	defer m.SetTap(nil)
	if err := runWindows(m, ref, ids, o, progress, &tapErr, nil); err != nil {
		return nil, err
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

// SiteHessian is one site's calibration Hessian, for tests and measurement drivers outside the package.
type SiteHessian struct {
	Layer  int
	Slot   family.Slot // the first linear reading the input: Q (q/k/v), O, Gate (gate/up) or Down
	N      int
	Tokens int64
	H      []float64 // [N, N] row-major, symmetric
}

// Hessians collects the calibration Hessians of the model in inDir as Run would with o (its calibration
// settings and Device; Bits must be valid) without quantizing anything, past the in-process memo and any
// --hessians file: every site's, in layer then slot order.
func Hessians(inDir string, o Options) ([]SiteHessian, error) {
	if err := o.normalize(); err != nil {
		return nil, err
	}
	var hs map[site]*hessian
	var err error
	switch {
	case o.CalibAuto:
		hs, err = sampleAndCalibrate(inDir, o, func(Event) {})
	case o.CalibIDs != nil:
		hs, err = runCalibration(inDir, o.CalibIDs, o, func(Event) {}, nil, -1)
	case o.Calib != "":
		var ids []int
		if ids, err = calibTokens(inDir, o.Calib); err == nil {
			hs, err = runCalibration(inDir, ids, o, func(Event) {}, nil, -1)
		}
	default:
		return nil, errors.New("quantize: Hessians: no calibration (Calib, CalibIDs or CalibAuto)")
	}
	if err != nil {
		return nil, err
	}
	out := make([]SiteHessian, 0, len(hs))
	for k, h := range hs {
		out = append(out, SiteHessian{Layer: k.layer, Slot: k.slot, N: h.n, Tokens: h.tokens, H: h.full()})
	}
	slices.SortFunc(out, func(a, b SiteHessian) int {
		return cmp.Or(cmp.Compare(a.Layer, b.Layer), cmp.Compare(a.Slot, b.Slot))
	})
	return out, nil
}
