package backend

// Attention beyond Backend.Attention, for families whose layers differ (Gemma 2/3/4): per-layer cache geometry
// with sliding-window layers kept in a ring of Window slots, a softmax scale, a sliding window and a score
// softcap per call. A backend offers them by implementing WindowedAttention and answering the ops below in
// Supports; the model asks before loading, so a device without them is passed over by "auto".

// Ops a model with per-layer attention asks about (Query.Name is the first layer that needs the op).
const (
	// OpKVLayers: NewKVCache with KVConfig.PerLayer (per-layer heads and head dims, ring layers, layers without
	// slots).
	OpKVLayers Op = "kv-cache per layer"
	// OpWindowAttention: AttentionWith with Window > 0.
	OpWindowAttention Op = "sliding-window attention"
	// OpSoftcapAttention: AttentionWith with Softcap > 0.
	OpSoftcapAttention Op = "softcapped attention"
)

// KVLayer is one layer's part of a cache whose layers differ.
type KVLayer struct {
	KVHeads, HeadDim int // 0, 0: the layer stores nothing (it attends over another layer's keys and values)
	// Window > 0 keeps only the layer's last Window positions per sequence: a ring of Window slots, position p
	// in slot p mod Window, so the layer's memory is bounded by the window and not by MaxLen. Its attention must
	// use the same window (AttentionWith with Window ≤ this).
	Window int
}

// Slots is how many positions per sequence the layer keeps under a cache of maxLen positions.
func (l KVLayer) Slots(maxLen int) int {
	if l.KVHeads == 0 {
		return 0
	}
	if l.Window > 0 && l.Window < maxLen {
		return l.Window
	}
	return maxLen
}

// Layer is layer i's geometry under c: its PerLayer entry, or the uniform KVHeads and HeadDim.
func (c KVConfig) Layer(i int) KVLayer {
	if c.PerLayer != nil {
		return c.PerLayer[i]
	}
	return KVLayer{KVHeads: c.KVHeads, HeadDim: c.HeadDim}
}

// AttnOptions are the variations of one attention call. The zero value but Scale is Backend.Attention.
type AttnOptions struct {
	Scale float32 // softmax scale applied to q·k
	// Softcap > 0 caps every scaled score s as tanh(s/Softcap)·Softcap (in float32) before the softmax (Gemma 2).
	Softcap float32
	// Window > 0: the row at position p attends positions p−Window+1 … p only (its own included).
	Window int
	// DeferStore: a later call for the same layer (a layer sharing its keys and values) stores these rows, so
	// this one must not evict from a ring the positions that call still reads. A layer without a ring may
	// store them anyway.
	DeferStore bool
}

// WindowedAttention is Attention with options over a cache that may hold per-layer geometry.
//
// AttentionWith(dst, q, k, v, cache, layer, seq, pos, AttnOptions{Scale: s}) is Attention(…, s). With a Window,
// each row attends over the positions of its own sequence inside the window, taken from this call's k and v
// rows where the call holds that position and from the cache otherwise; then the rows are stored. A ring
// layer's rows of one call may therefore span more than the window, but each position the call reads from the
// cache must still be held there: calls for one sequence go forward in position (a rewind by more than the
// window is a programmer error). Heads and head dim come from the cache's layer geometry: q [n, heads·HeadDim],
// k, v [n, KVHeads·HeadDim], dst like q, which it must not alias. A layer sharing another's keys and values
// (Gemma 4) calls it with that layer's index and its k and v; every call for the layer but the last of a step
// defers the store.
type WindowedAttention interface {
	AttentionWith(dst, q, k, v Tensor, cache KVCache, layer int, seq, pos Tensor, o AttnOptions)
}
