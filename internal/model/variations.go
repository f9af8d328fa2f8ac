// The optional steps of the forward pass and their binding: what a family varies beyond the pre-norm SwiGLU
// layout (family.Variations; Gemma 2/3/4). Sandwich norms, GeGLU, the √hidden embedding scale, per-layer
// attention geometry over a per-layer KV cache (sliding-window rings, wider global heads, layers sharing another
// layer's keys and values, values from the key projection), attention and final logit softcaps, Gemma 4's
// per-layer inputs and layer scalars. A family that varies nothing takes none of these steps and asks its
// backend for nothing beyond the Backend interface.
package model

import (
	"fmt"
	"math"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/family"
	"github.com/mlxbun/mlxbun/internal/rope"
)

// variations is the model-wide part, embedded in Model.
type variations struct {
	perLayerKV   bool    // the cache takes per-layer geometry (kvLayers) and attention goes through AttentionWith
	fullKV       bool    // tests: sliding layers keep every position (masking still by the window), the ring's reference
	embedScale   float32 // ≠ 0: embeddings × this (√hidden in the activation dtype)
	finalSoftcap float32 // > 0: logits capped
	inputs       *inputs // Gemma 4's per-layer inputs; nil without
	pw           pointwise
}

// pointwise holds the optional backend ops the model needs, found at bind (nil when not needed).
type pointwise struct {
	scale   backend.Scaler
	softcap backend.Softcapper
	geglu   backend.GeGLUer
	attn    backend.WindowedAttention
}

// sandwich is a layer's part, embedded in layer.
type sandwich struct {
	attnOutNorm, mlpOutNorm backend.Tensor // nil: the output goes to the residual as it is
	vNorm                   backend.Tensor // ones [headDim]: values RMS-normalized without a weight
	deferStore              bool           // a later layer reads the same keys and values and stores them
	scalar                  float32        // the residual stream × this after the layer, when scaled
	scaled                  bool
	input                   *layerInput
}

// inputs are the per-layer input embeddings, split per layer: tables[i] [vocab, dim] (the stored table's
// columns of layer i) and proj[i] (rows of per_layer_model_projection).
type inputs struct {
	dim                             int
	tables                          []backend.Tensor
	proj                            []backend.Linear
	norm                            backend.Tensor
	tableScale, projScale, mixScale float32
}

type layerInput struct {
	gate, proj backend.Linear
	norm       backend.Tensor
}

// needs lists the ops beyond the Backend interface a model of map tm asks its device for, with the first
// layer or tensor that needs each (what Queries adds and bind type-asserts).
func needs(c *config.Model, f family.Family, tm *family.Map) []backend.Query {
	var qs []backend.Query
	seen := map[backend.Op]bool{}
	perLayer := layerKV(c, tm)
	add := func(op backend.Op, name string) {
		if !seen[op] {
			seen[op] = true
			qs = append(qs, backend.Query{Op: op, Name: name})
		}
	}
	for i, L := range tm.Layers {
		name := fmt.Sprintf("model.layers.%d.self_attn", i)
		a := L.Attn
		if a.Window > 0 {
			add(backend.OpWindowAttention, name)
		}
		if a.Softcap > 0 {
			add(backend.OpSoftcapAttention, name)
		}
		if perLayer {
			add(backend.OpKVLayers, name)
		}
		if a.VFromK || L.Scalar != nil || L.Input != nil {
			add(backend.OpScale, name)
		}
		if f.GeGLU {
			add(backend.OpGeGLU, fmt.Sprintf("model.layers.%d.mlp", i))
		}
	}
	if f.ScaleEmbed || tm.Inputs != nil {
		add(backend.OpScale, tm.Embed.Name)
	}
	if tm.FinalSoftcap > 0 {
		add(backend.OpSoftcap, "logits")
	}
	if c.Quant != nil && c.Quant.Rotation != nil && len(tm.Layers) > 0 { // rotate.go
		add(backend.OpHadamard, "model.layers.0")
	}
	return qs
}

// layerKV reports whether the cache needs per-layer geometry: a window, a layer sharing another's keys and
// values, or a layer whose heads differ from the config's.
func layerKV(c *config.Model, tm *family.Map) bool {
	for i, L := range tm.Layers {
		a := L.Attn
		if a.Window > 0 || a.KVFrom != i || a.KVHeads != c.NumKVHeads || a.HeadDim != c.HeadDim {
			return true
		}
	}
	return false
}

// kvLayers is the cache's per-layer geometry, nil when the layers are uniform.
func (m *Model) kvLayers() []backend.KVLayer {
	if !m.perLayerKV {
		return nil
	}
	out := make([]backend.KVLayer, len(m.layers))
	for i, L := range m.layers {
		if L.attn.KVFrom != i {
			continue
		}
		out[i] = backend.KVLayer{KVHeads: L.attn.KVHeads, HeadDim: L.attn.HeadDim, Window: L.attn.Window}
		if m.fullKV {
			out[i].Window = 0
		}
	}
	return out
}

// bindVariations binds the map's further tensors and finds the optional ops the model needs.
func (m *Model) bindVariations(w *binder, tm *family.Map) {
	c, f := m.Config, m.Family
	m.perLayerKV = layerKV(c, tm)
	for _, q := range needs(c, f, tm) {
		var ok bool
		switch q.Op {
		case backend.OpScale:
			m.pw.scale, ok = m.b.(backend.Scaler)
		case backend.OpSoftcap:
			m.pw.softcap, ok = m.b.(backend.Softcapper)
		case backend.OpGeGLU:
			m.pw.geglu, ok = m.b.(backend.GeGLUer)
		case backend.OpKVLayers, backend.OpWindowAttention, backend.OpSoftcapAttention:
			m.pw.attn, ok = m.b.(backend.WindowedAttention)
		case backend.OpHadamard:
			m.rotor, ok = m.b.(backend.Rotator)
		}
		if !ok {
			w.fail(fmt.Errorf("%s: %w", q, backend.ErrUnsupported))
			return
		}
	}
	if f.ScaleEmbed {
		m.embedScale = m.actRound(float32(math.Sqrt(float64(c.HiddenSize))))
	}
	m.finalSoftcap = float32(tm.FinalSoftcap)
	ones := map[int]backend.Tensor{}
	for i, lt := range tm.Layers {
		L := &m.layers[i]
		for _, later := range tm.Layers[i+1:] {
			L.deferStore = L.deferStore || later.Attn.KVFrom == lt.Attn.KVFrom
		}
		if lt.AttnOutNorm != nil {
			L.attnOutNorm = w.vector(*lt.AttnOutNorm)
		}
		if lt.MLPOutNorm != nil {
			L.mlpOutNorm = w.vector(*lt.MLPOutNorm)
		}
		if hd := lt.Attn.HeadDim; lt.VNorm && lt.Attn.KVFrom == i {
			if ones[hd] == nil {
				v := make([]float32, hd)
				for j := range v {
					v[j] = 1
				}
				ones[hd] = w.upload(backend.HostF32(fmt.Sprintf("ones[%d]", hd), v, hd))
			}
			L.vNorm = ones[hd]
		}
		if lt.Scalar != nil {
			if h, ok := w.host(lt.Scalar.Name, lt.Scalar.Shape...); ok {
				v, err := h.Float32s()
				if err != nil {
					w.fail(fmt.Errorf("tensor %q: %w", h.Name, err))
				} else if v[0] != 1 {
					L.scalar, L.scaled = v[0], true
				}
			}
		}
		if in := lt.Input; in != nil {
			L.input = &layerInput{gate: w.linear(in.Gate)[0], proj: w.linear(in.Proj)[0], norm: w.vector(in.Norm)}
		}
	}
	if in := tm.Inputs; in != nil {
		m.inputs = &inputs{dim: in.Dim, proj: w.linear(in.Proj), norm: w.vector(in.Norm),
			tableScale: m.actRound(float32(math.Sqrt(float64(in.Dim)))),
			projScale:  float32(math.Pow(float64(c.HiddenSize), -0.5)),
			mixScale:   float32(math.Pow(2, -0.5))}
		if h, ok := w.table(in.Table); ok {
			for i := range c.NumLayers {
				m.inputs.tables = append(m.inputs.tables, w.upload(columns(h, i*in.Dim, in.Dim)))
			}
		}
	}
}

// actRound rounds a scale to the backend's activation dtype, as HF rounds Gemma's embedding scales to the
// weights' dtype (√3072 becomes 55.5 in bf16).
func (m *Model) actRound(v float32) float32 {
	switch m.b.ActDType() {
	case backend.BF16:
		return backend.BF16ToF32(backend.F32ToBF16(v))
	case backend.F16:
		return backend.F16ToF32(backend.F32ToF16(v))
	}
	return v
}

// columns is columns [start, start+n) of a 2-D host tensor, copied.
func columns(h backend.Host, start, n int) backend.Host {
	rows, cols, size := h.Shape[0], h.Shape[1], h.DType.Size()
	out := backend.Host{Name: fmt.Sprintf("%s[:, %d:%d]", h.Name, start, start+n), DType: h.DType, Shape: []int{rows, n},
		Data: make([]byte, 0, rows*n*size)}
	for r := range rows {
		out.Data = append(out.Data, h.Data[(r*cols+start)*size:(r*cols+start+n)*size]...)
	}
	return out
}

// table fetches an embedding table (dequantized when the checkpoint holds it quantized) without uploading it.
func (w *binder) table(v family.Vector) (backend.Host, bool) {
	if w.err == nil && w.m.arch.Has(quantScales(v.Name)) {
		return w.dequantized(v.Name, v.Shape...)
	}
	return w.host(v.Name, v.Shape...)
}

// rope builds a layer's own rope table; layers of equal specs share one.
func (w *binder) rope(s family.RopeSpec, maxPositions int) (*rope.Table, error) {
	key := fmt.Sprint(s.Dims, s.Theta, s.Scaling)
	if t := w.ropes[key]; t != nil {
		return t, nil
	}
	t, err := rope.New(s.Dims, s.Theta, false, s.Scaling, maxPositions)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", config.ConfigFile, err)
	}
	if w.ropes == nil {
		w.ropes = map[string]*rope.Table{}
	}
	w.ropes[key] = t
	return t, nil
}

// embedSteps scales the embeddings and computes the per-layer inputs from them.
func (m *Model) embedSteps(ws *workspace) {
	b, eps := m.b, float32(m.Config.RMSNormEps)
	if m.embedScale != 0 {
		m.pw.scale.Scale(ws.x, ws.x, m.embedScale)
	}
	in := m.inputs
	if in == nil {
		return
	}
	for i := range m.layers {
		t := ws.inputs[i]
		b.Embed(t, in.tables[i], ws.ids)
		m.pw.scale.Scale(t, t, in.tableScale)
		b.MatMul(ws.inputTmp, ws.x, in.proj[i])
		m.pw.scale.Scale(ws.inputTmp, ws.inputTmp, in.projScale)
		b.RMSNorm(ws.inputTmp, ws.inputTmp, in.norm, eps)
		b.Add(t, ws.inputTmp, t)
		m.pw.scale.Scale(t, t, in.mixScale)
	}
}

// values fills a layer's v: the value projection, or a copy of the key projection (attention_k_eq_v).
func (m *Model) values(ws *workspace, a *layerBufs, in *rotInput, L *layer) {
	if L.attn.VFromK {
		m.pw.scale.Scale(a.v, a.k, 1)
		return
	}
	m.projectFinish(ws, a.v, in, L, family.V) // its product came with q's and k's (attention)
}

// attend attends q over the cache of the layer whose keys and values the layer reads.
func (m *Model) attend(dst, q, k, v backend.Tensor, cache backend.KVCache, a family.Attn, deferStore bool, ws *workspace) {
	cache, slot := kvOf(cache), m.layers[a.KVFrom].kv // the KV cache inside a hybrid's, and its slot
	if m.pw.attn == nil {
		m.b.Attention(dst, q, k, v, cache, slot, ws.seq, ws.pos, float32(a.Scale))
		return
	}
	m.pw.attn.AttentionWith(dst, q, k, v, cache, slot, ws.seq, ws.pos,
		backend.AttnOptions{Scale: float32(a.Scale), Softcap: float32(a.Softcap), Window: a.Window, DeferStore: deferStore})
}

// residual adds ws.proj, normalized first when the layer has a sandwich norm there, to the residual stream (a
// deferred output projection, with the add in its launch).
func (m *Model) residual(ws *workspace, norm backend.Tensor, eps float32) {
	if m.residualProj(ws) {
		return
	}
	if norm != nil {
		m.b.RMSNorm(ws.proj, ws.proj, norm, eps)
	}
	m.b.Add(ws.x, ws.x, ws.proj)
}

// residualNorm is residual, then ws.xn = RMSNorm(ws.x, next): the add and the norm after it as one op — or, after a
// deferred output projection, the add in the projection's launch and the norm deferred to the projections that
// read ws.xn (residual.go).
func (m *Model) residualNorm(ws *workspace, norm, next backend.Tensor, eps float32) {
	if m.residualProj(ws) {
		if m.tapFn != nil {
			m.b.RMSNorm(ws.xn, ws.x, next, eps) // the tap reads ws.xn before any projection
			return
		}
		ws.pend = next
		return
	}
	if norm != nil {
		m.b.RMSNorm(ws.proj, ws.proj, norm, eps)
	}
	backend.AddRMSNorm(m.b, ws.x, ws.xn, ws.x, ws.proj, next, eps)
}

// glu is the MLP's gate: SwiGLU, or GeGLU for the families that say so.
func (m *Model) glu(dst, gate, up backend.Tensor) {
	if m.pw.geglu != nil {
		m.pw.geglu.GeGLU(dst, gate, up)
		return
	}
	m.b.SwiGLU(dst, gate, up)
}

// layerSteps ends a layer: its per-layer input block, then its scalar.
func (m *Model) layerSteps(ws *workspace, L *layer, i int, eps float32) {
	b := m.b
	if in := L.input; in != nil {
		b.MatMul(ws.inputTmp, ws.x, in.gate)
		m.pw.geglu.GeGLU(ws.inputTmp, ws.inputTmp, ws.inputs[i])
		b.MatMul(ws.proj, ws.inputTmp, in.proj)
		b.RMSNorm(ws.proj, ws.proj, in.norm, eps)
		b.Add(ws.x, ws.x, ws.proj)
	}
	if L.scaled {
		m.pw.scale.Scale(ws.x, ws.x, L.scalar)
	}
}
