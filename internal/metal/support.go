// What the Metal backend serves, answered before any weight is read and on any platform: a query is served when
// the selection table (kernels.go) has a form for it at every row count the model runs AND the compiled library
// holds every kernel function those forms launch, together with the functions every model needs (embedding,
// norms, rope, the KV store, attention, argmax). So a form listed in the table whose kernels are not written yet
// is refused with the missing function named, and `--device auto` passes over Metal instead of failing mid-load.
// The darwin backend passes the library's own function names (MTLLibrary functionNames).
package metal

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/exl3"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// promptRows is the row count standing for "a prompt" when a query asks about any row count: the first count
// past the decode forms (backend.MaxDecodeRows).
const promptRows = backend.MaxDecodeRows + 1

// baseForms are the table forms every model's forward pass launches whatever its linears.
var baseForms = []string{"embed", "rmsnorm_simd", "rmsnorm_row", "add_rmsnorm", "rope", "add", "swiglu", "kv_store",
	"attn_decode", "attn_rows", "argmax"}

// queryRows are the row counts a query with Rows r is served at: r itself, or for 0 every decode count and a
// prompt.
func queryRows(r int) []int {
	if r > 0 {
		return []int{r}
	}
	rows := make([]int, 0, promptRows)
	for n := 1; n <= promptRows; n++ {
		rows = append(rows, n)
	}
	return rows
}

// geometry is the trellis geometry a query's weights imply (axis 1 stores [out, in], axis 0 the transpose).
func geometry(q backend.Query) trellis.Geometry {
	w := q.Weight
	g := trellis.Geometry{Spec: trellis.Spec{K: w.Bits, L: w.L, T: w.Group, Code: w.Code, Axis: w.Axis}, Interleaved: w.Interleaved}
	g.Rows, g.Cols = q.Out, q.In
	if w.Axis == 0 {
		g.Rows, g.Cols = q.In, q.Out
	}
	return g
}

// extraOpForms are the forms serving the optional ops (backend.ScaledAdder, Scaler, Softcapper, GeGLUer, Rotator,
// WindowedAttention) a model asks about before loading; an op not here is refused.
var extraOpForms = map[backend.Op][]string{
	backend.OpAddScaled: {"add_scaled"},
	backend.OpScale:     {"scale"},
	backend.OpSoftcap:   {"softcap"},
	backend.OpGeGLU:     {"geglu"},
	backend.OpHadamard:  {"hadamard"},
	// Gemma's attention: per-layer caches, windows and softcaps are all served by the windowed forms.
	backend.OpKVLayers:         {"attn_win_decode", "attn_win_rows"},
	backend.OpWindowAttention:  {"attn_win_decode", "attn_win_rows"},
	backend.OpSoftcapAttention: {"attn_win_decode", "attn_win_rows"},
}

// Required lists the kernel functions serving q on family f needs, or why no form serves it.
func Required(f Family, q backend.Query) ([]string, error) {
	if forms, ok := extraOpForms[q.Op]; ok {
		var fns []string
		for _, form := range Forms() {
			if slices.Contains(forms, form.Name) {
				fns = append(fns, form.Functions...)
			}
		}
		return fns, nil
	}
	if q.Op == backend.OpAttention {
		return attnRequired(f, q)
	}
	if q.Op != backend.OpMatMul {
		return nil, fmt.Errorf("no Metal kernel for %s yet", q.Op)
	}
	var fns []string
	add := func(p Plan) {
		for _, l := range p.Launches {
			if !slices.Contains(fns, l.Function) {
				fns = append(fns, l.Function)
			}
		}
	}
	for _, n := range queryRows(q.Rows) {
		switch q.Weight.Format {
		case backend.FormatTrellis:
			p, err := PlanTrellis(f, geometry(q), n, trellis.Reciprocal, true)
			if err != nil {
				return nil, fmt.Errorf("%d rows: %w", n, err)
			}
			add(p)
		case backend.FormatAffine:
			p, err := PlanAffine(f, q.Weight.Bits, q.Weight.Group, q.Out, q.In, n, true)
			if err != nil {
				return nil, fmt.Errorf("%d rows: %w", n, err)
			}
			add(p)
		case backend.FormatEXL3:
			cb, err := exl3.ParseCodebook(q.Weight.Code)
			if err != nil {
				return nil, err
			}
			g := exl3.Geometry{TilesK: exl3.Padded(q.In) / exl3.TileSide, TilesN: exl3.Padded(q.Out) / exl3.TileSide, K: q.Weight.Bits}
			p, err := PlanEXL3(f, g, cb, q.In, q.Out, n, true)
			if err != nil {
				return nil, fmt.Errorf("%d rows: %w", n, err)
			}
			add(p)
		case backend.FormatDense:
			if !q.Weight.DType.Float() {
				return nil, fmt.Errorf("no Metal kernel for %s weights", q.Weight)
			}
			add(PlanDense(f, q.Out, q.In, n, true)) // stored as bf16 on the device, as CUDA stores them
		default:
			return nil, fmt.Errorf("no Metal kernel for %s weights", q.Weight)
		}
	}
	return fns, nil
}

// attnRequired plans an attention query's shape at each row count it runs (PlanAttention, or PlanWinAttention for
// a window or softcap), so a head dim past the kernels' is refused before loading.
func attnRequired(f Family, q backend.Query) ([]string, error) {
	s := q.Attn
	var fns []string
	for _, n := range queryRows(q.Rows) {
		var p Plan
		var err error
		if s.Window || s.Softcap {
			c := WinCase{N: n, Heads: s.Heads, KVHeads: s.KVHeads, HeadDim: s.HeadDim, Seqs: 1, Slots: 1, Store: true}
			if s.Window {
				c.Window = 1
			}
			if s.Softcap {
				c.Softcap = 1
			}
			p, err = PlanWinAttention(f, c)
		} else {
			p, err = PlanAttention(f, AttnCase{N: n, Heads: s.Heads, KV: KVGeometry{Layers: 1, Seqs: 1, MaxLen: 1, KVHeads: s.KVHeads, HeadDim: s.HeadDim}})
		}
		if err != nil {
			return nil, fmt.Errorf("%d rows: %w", n, err)
		}
		for _, l := range p.Launches {
			if !slices.Contains(fns, l.Function) {
				fns = append(fns, l.Function)
			}
		}
	}
	return fns, nil
}

// BaseFunctions are the kernel functions of baseForms.
func BaseFunctions() []string {
	var fns []string
	for _, form := range Forms() {
		if slices.Contains(baseForms, form.Name) {
			fns = append(fns, form.Functions...)
		}
	}
	return fns
}

// Supports is Backend.Supports over a library whose functions has reports: nil, or an *UnsupportedError naming
// the first missing function or the reason no form serves q.
func Supports(has func(string) bool, f Family, q backend.Query) error {
	fns, err := Required(f, q)
	if err != nil {
		return &backend.UnsupportedError{Backend: "metal", Query: q, Why: err.Error()}
	}
	for _, fn := range append(BaseFunctions(), fns...) {
		if !has(fn) {
			return &backend.UnsupportedError{Backend: "metal", Query: q,
				Why: fmt.Sprintf("the Metal library has no kernel %s (written in shaders/metal? not yet)", fn)}
		}
	}
	return nil
}

// FamilyOf is the selection-table row of a GPU from the newest MTLGPUFamily it supports and its name (M3 and M4
// both report Apple9). A GPU older than Apple7 (or an AMD/Intel Mac GPU) has no row: the kernels use SIMD-group
// matrices and the Apple7 SIMD-group functions.
func FamilyOf(gpuFamily, name string) (Family, error) {
	switch gpuFamily {
	case "MTLGPUFamilyApple9":
		if strings.Contains(name, "M4") {
			return M4, nil
		}
		return M3, nil
	case "MTLGPUFamilyApple8":
		return M2, nil
	case "MTLGPUFamilyApple7":
		return M1, nil
	}
	return 0, fmt.Errorf("%s (%s) is not an Apple silicon GPU of family Apple7 or newer, which the Metal kernels need", name, gpuFamily)
}
