// Package quantize turns an unquantized Hugging Face checkpoint (bf16/f16/f32 safetensors) into an mlxbun
// trellis model directory: every attention and MLP projection QTIP trellis-coded (internal/trellis), the output
// head stored as MLX affine 8-bit (or bf16), embeddings and norms kept in bf16 (or the embeddings affine 8-bit too),
// a config.json with the quantization block that internal/config parses, and the tokenizer files copied. It is the engine of
// `mlxbun quantize`; tests and quality checks call Run directly.
//
// Choices worth knowing:
//   - Which tensors exist, their shapes and coded axes come from the family's tensor map (internal/family), the one
//     the loader binds through: q/k/v/o, gate/up (and Phi-3's fused qkv_proj, gate_up_proj, split by rows at load)
//     are coded along axis 1, down_proj along axis 0; 3-bit down projections use the block interleave
//     [out/512, in, 48] when T 256, L 12 and out % 512 == 0.
//   - A projection whose coded dimension is not a multiple of the group size is an error naming the tensor (with a
//     group size that would divide it), not silently left in bf16: a model quantized "mostly" is a surprise.
//   - The config block holds the default spec (axis 1) and an entry for every tensor that differs from it (each
//     down_proj for its axis, per-path bits, the affine head and embeddings), and `false` for a table kept in
//     bf16, so Quantization.For answers correctly for every quantizable module.
//   - A tied model (no lm_head tensor: the embedding table is the output projection) keeps its tie: the one
//     table is stored affine 8-bit when either the head or the embeddings ask for it (the head does by default),
//     bf16 only when both say bf16. Untying would add a second vocab×hidden table to the file for no speed.
//   - Tensors are encoded one at a time (the encoder is parallel across blocks, GOMAXPROCS goroutines); memory is
//     the input's mapping, one tensor in f32 (plus its transpose for axis 0), and at most one shard of output.
package quantize

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/family"
	"github.com/mlxbun/mlxbun/internal/modeldir"
	"github.com/mlxbun/mlxbun/internal/safetensors"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// Table storage choices (Options.Embeddings, Options.Head): bf16, or MLX affine with affine.TableBits bits in
// groups of affine.TableGroup.
const (
	EmbeddingsBF16    = "bf16"
	EmbeddingsAffine8 = "affine8"
	HeadBF16          = EmbeddingsBF16
	HeadAffine8       = EmbeddingsAffine8
)

// Defaults applied to zero Options fields.
const (
	DefaultL          = 12 // L of a run whose search is the CPU's (ResolveL)
	DeviceL           = 16 // L of a run whose search a device serves at it (ResolveL, autol.go)
	DefaultGroupSize  = 256
	DefaultShardBytes = 4 << 30 // a shard is closed before it would pass this many bytes of tensor data

	DefaultCalibTokens = 32768 // calibration tokens (--calib-tokens)
	DefaultCalibCtx    = 512   // tokens per calibration window
	DefaultDamp        = 0.03  // LDLQ damping λ: H + λ·mean(diag H)·I (the best of 0.01-0.1 on pycoder-12m)
	DefaultSeed        = 0x5eed_51605
	DefaultCalibSeed   = 0xca11b_5eed // seed of the self-calibration's sampled tokens (--calib-seed)

	// BestCalibTokens and BestLDLQRows are what Best asks for: the measured best of pycoder-12m's settings
	// (docs/quantize.md, "Defaults").
	BestCalibTokens = 131072
	BestLDLQRows    = 4
)

// Best returns the recommended options for bits: random-Hadamard incoherence processing, axis-0 coding,
// self-calibration (CalibAuto) with LDLQ against the Hessians, damped by DefaultDamp, a feedback block of
// BestLDLQRows inputs and the scales refit. These are the CLI's defaults; the zero Options (the plain coder:
// no rotation, no calibration) are what --fast gives.
func Best(bits int) Options {
	return Options{Bits: bits, RHT: true, Axis0: true, CalibAuto: true, CalibSeed: DefaultCalibSeed,
		CalibTokens: BestCalibTokens, Damp: DefaultDamp, RefitScales: true, LDLQRows: BestLDLQRows}
}

// Options choose how a model is quantized. Bits is required; zero values of the others take the defaults.
type Options struct {
	Bits       int    // bits per weight of the coded projections, 1..8 (2, 3, 4 are the useful ones)
	L          int    // trellis state bits, Bits..16; 0 chooses (ResolveL): 16 with a device search, else 12
	GroupSize  int    // positions per coded block (T); 0 means 256; T·bits must be a multiple of 32
	Rules      []Rule // per-path bits (ParseRules); first match wins, unmatched projections get Bits
	Embeddings string // embed_tokens, Gemma 4's per-layer table: EmbeddingsBF16 ("" too) or EmbeddingsAffine8
	Head       string // lm_head: HeadAffine8 ("" too) or HeadBF16; a tied table is affine if either asks
	Force      bool   // replace an existing output model directory
	ShardBytes int64  // 0 means DefaultShardBytes

	// RHT codes R_out·W·R_inᵀ with random Hadamard rotations (incoherence processing) and stores the sign
	// vectors beside the codes (docs/trellis-format.md section 11); Seed draws the signs (0: DefaultSeed).
	RHT  bool
	Seed uint64
	// Calib, when set, is a text file the unquantized model is run over (on Device) to collect each linear's input
	// Hessian; the codes are then chosen by LDLQ against it (damped by Damp, 0: DefaultDamp). CalibTokens (0:
	// DefaultCalibTokens) tokens from its start, in windows of CalibCtx (0: DefaultCalibCtx).
	Calib    string
	CalibIDs []int // calibration token ids instead of a file (tests: models without a tokenizer)
	// CalibAuto calibrates on tokens sampled from the unquantized model itself (sample.go) instead of a file:
	// CalibTokens/CalibCtx sequences of CalibCtx tokens, drawn with CalibSeed (0: DefaultCalibSeed).
	CalibAuto bool
	CalibSeed uint64
	// Axis0 codes every unfused projection whose out-features are whole blocks along its output dimension (axis 0,
	// the down projection's layout; the config block records it per path): LDLQ then feeds errors back every
	// 16 input features instead of every group-size of them (trellis.QuantizeLDLQ).
	Axis0       bool
	CalibTokens int
	CalibCtx    int
	Damp        float64
	// Sequential collects each layer's Hessians from a model whose earlier layers are already quantized (their
	// codes decoded back to bf16), GPTQ's order, instead of all from the unquantized model: one calibration pass
	// per layer. RefitScales re-solves the axis-0 scales jointly against the Hessian after LDLQ
	// (trellis.LDLQOptions); LDLQRows is the axis-0 feedback block (0: the trellis package's 16).
	Sequential bool
	// Asymmetric (with Sequential) also keeps the unquantized model's inputs X beside the quantized one's X̃ and
	// codes the weight that best maps X̃ to the unquantized outputs, W' = W + W·Eᵀ·(H̃ + λ·mean(diag H̃)·I)⁻¹ with
	// E = X̃ᵀ·(X − X̃) (GPTAQ's asymmetric calibration, damped like LDLQ): each layer then also undoes what the
	// earlier layers' rounding did to its inputs. Experimental: on pycoder-12m (2 bits, L 8, 16,384 tokens, first
	// 20,000 bytes of heldout.txt) it scored 1.0561 bits/byte against 1.0261 sequential without it.
	Asymmetric  bool
	RefitScales bool
	LDLQRows    int
	// Hessians, when set with Calib, is a cache file: read when it holds this model's and calibration's Hessians,
	// else written after collecting them (not used by Sequential, whose Hessians depend on the quantized layers).
	Hessians string

	// Resume continues the interrupted run for the same output from its work folder's checkpoints (resume.go)
	// when one is left and was made with the same input and settings; a differing one is an error. Without it
	// the work folders of dead runs are removed.
	Resume bool

	// Device runs the calibration model (the --calib auto sampling and the Hessian collection; nil: a CPU backend
	// of the run's own). The caller opens and closes it; a device with a Gram op (backend.Grammer) accumulates
	// XᵀX where the activations are (gram.go). CalibMemory, when positive, caps the bytes of the accumulators on
	// it (0: its free memory less a margin); sites beyond it are collected in further passes over the windows.
	Device      backend.Backend
	CalibMemory int64

	// Searcher does the trellis block searches (nil: the CPU's, trellis.CPU); a device's (cuda --device) returns
	// the same paths, so the artifact does not depend on it.
	Searcher trellis.Searcher

	// Context, when set, is checked between tensors, before every trellis search batch and at every calibration
	// forward pass (cancel.go); cancelling it stops the run with a *Stopped error, which keeps the work folder
	// for Resume when it holds a finished layer or the calibration Hessians. The batch in flight finishes first.
	Context context.Context

	lWhy string // normalize: why L is what it is (ResolveL's reason), for the report and --resume's refusal
}

// TensorReport is one quantized (trellis or affine) tensor's outcome.
type TensorReport struct {
	Name        string           // module path, e.g. "model.layers.0.mlp.down_proj"
	Spec        config.QuantSpec // exactly what the written config gives for Name
	Shape       [2]int           // the linear layer's [out, in]
	Interleaved bool             // stored as the 3-bit axis-0 block interleave
	SNRdB       float64          // 10·log10(Σw² / Σ(w−ŵ)²), ŵ decoded from the stored bits (trellis: Exact variant)
	Bits        float64          // stored bits per weight, scales (and biases) included
	Elapsed     time.Duration
	// Trellis tensors: Proxy is tr(ΔW·H·ΔWᵀ)/tokens with the calibration Hessian (H = I without --calib, which
	// makes it Σ(w−ŵ)²), ProxyRel the same divided by tr(W·H·Wᵀ)/tokens. RotatedIn/Out say which sides carry
	// Hadamard signs; LDLQ whether the codes were chosen against a Hessian.
	Proxy, ProxyRel       float64
	RotatedIn, RotatedOut bool
	LDLQ                  bool
}

// Report sums up a run.
type Report struct {
	Tensors []TensorReport // every quantized tensor, in the order encoded (sorted by name)
	Kept    []string       // tensors written as bf16
	Dropped []string       // tensors not written
	Copied  []string       // a wrapped checkpoint's tensors outside its language model, written as read

	Params        int64   // parameters of the model (elements of every tensor written)
	CodedWeights  int64   // weights of the trellis-coded projections
	BitsPerWeight float64 // stored bits per weight over the trellis-coded projections (fp16 scales included)
	BitsPerParam  float64 // stored bits per parameter over every tensor written
	MeanSNRdB     float64 // mean over the trellis-coded projections not reproduced exactly (+Inf SNR)
	MinSNRdB      float64
	MinSNRTensor  string
	MeanProxyRel  float64 // mean ProxyRel over the trellis-coded projections
	Calibrated    bool    // the proxy losses are against calibration Hessians (else H = I)
	L             int     // the trellis L the run coded at (Options.L, or what ResolveL chose)
	LWhy          string  // ResolveL's reason: "given by --L", or "auto: the trellis search runs on cuda"

	Files   []string // files written into the output directory, sorted
	Elapsed time.Duration
}

// Stages of a run an Event belongs to.
const (
	StageEncode    = ""          // a tensor
	StageCalibrate = "calibrate" // a calibration window (Index, Count count windows)
	StageNote      = "note"      // a sentence for the log (Note): work folders of killed runs removed
	StageSample    = "sample"    // a batch of self-calibration sequences sampled (Index, Count count batches)
	StageLayer     = "layer"     // a layer finished and checkpointed (Tensor names it; Index, Count count layers)
	StageFlush     = "flush"     // device accumulators read back into the f64 sums (gram.go; Index, Count count a pass's flushes)
)

// Event reports progress: one with Done false when a tensor (or calibration window) starts, one with Done true
// when it is written.
type Event struct {
	Stage        string        // StageEncode or StageCalibrate
	Tensor       string        // input tensor name
	Index, Count int           // position among all input tensors (0-based) and their number
	Done         bool          // false: starting; true: finished
	Work, Total  int64         // trellis weights encoded so far (after this tensor when Done) and in all
	Result       *TensorReport // Done events of quantized tensors
	Note         string        // StageNote events
	// Encode events: the tensor's layer (a checkpoint unit: a model layer, or a coded table outside the layers;
	// -1 for tensors of neither) among Layers, and the trellis weights of that layer encoded so far and in all.
	// Resumed marks the tensors taken from a checkpoint rather than encoded (their Work costs no time).
	Layer, Layers         int
	LayerWork, LayerTotal int64
	Resumed               bool
}

// Run quantizes the model in inDir into outDir. The output is built in a temporary directory beside outDir and
// renamed into place at the end; an existing outDir is an error unless o.Force (and even then only an empty
// directory or one holding a config.json is replaced). On error nothing is left behind, except that a run
// stopped by o.Context keeps its work folder for o.Resume (the error is a *Stopped naming it). progress may be
// nil.
func Run(inDir, outDir string, o Options, progress func(Event)) (_ *Report, err error) {
	start := time.Now()
	if progress == nil {
		progress = func(Event) {}
	}
	if err := o.normalize(); err != nil {
		return nil, err
	}
	dest, err := checkOut(inDir, outDir, o.Force)
	if err != nil {
		return nil, err
	}
	dir, err := modeldir.Open(inDir)
	if err != nil {
		return nil, err
	}
	cfg, err := dir.Config()
	if err != nil {
		return nil, err
	}
	fam, err := family.For(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", inDir, err)
	}
	if cfg.Quant != nil || cfg.EXL3 != nil {
		return nil, fmt.Errorf("%s: config.json already has a quantization block; quantize an unquantized checkpoint", inDir)
	}
	arch, err := safetensors.OpenDir(inDir)
	if err != nil {
		return nil, err
	}
	defer arch.Close()
	var headers []backend.Host
	for _, n := range arch.Names() {
		h, err := arch.Tensor(n)
		if err != nil {
			return nil, err
		}
		headers = append(headers, h)
	}
	items, err := plan(headers, fam, cfg, o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", inDir, err)
	}

	settings, err := runSettings(inDir, o)
	if err != nil {
		return nil, err
	}
	calibrated := o.Calib != "" || o.CalibIDs != nil || o.CalibAuto
	seq := calibrated && o.Sequential
	us := unitsOf(items)
	ck := &checkpoints{items: map[string]ckptItem{}, done: map[int]bool{}}
	note := func(msg string) { progress(Event{Stage: StageNote, Note: "quantize: " + msg}) }
	var tmp string
	if o.Resume {
		if tmp, err = dest.resume(settings, note, o.resumeHint); err != nil {
			return nil, err
		}
	}
	dest.sweep(note)
	if tmp == "" {
		if tmp, err = dest.makeTemp(); err != nil {
			return nil, err
		}
	}
	committed := false
	defer func() { // after ck.close (deferred below): nothing in tmp is open
		switch {
		case committed:
		case o.Context.Err() != nil && errors.Is(err, o.Context.Err()): // stopped (Ctrl-C): kept for --resume
			err = dest.stopped(tmp, !seq, len(ck.done), len(us.names), err)
		default:
			dest.removeTemp(tmp)
		}
	}()
	if !seq { // a sequential run is not resumable (resume.go), so it keeps no checkpoints
		if err := writeRunRecord(tmp, settings); err != nil {
			return nil, err
		}
		if ck, err = openCheckpoints(tmp, us); err != nil {
			return nil, err
		}
		defer ck.close()
		if len(ck.done) > 0 {
			note(fmt.Sprintf("resuming %s: %d of %d layers are done", tmp, len(ck.done), len(us.names)))
		}
	}
	encodeLeft := false
	for u := range us.names {
		encodeLeft = encodeLeft || !ck.done[u] && us.total[u] > 0
	}

	var hs map[site]*hessian
	var ids []int
	switch {
	case seq:
		if ids, err = calibIDs(inDir, o, progress); err != nil {
			return nil, err
		}
		items = layerOrder(items)
		us = unitsOf(items)
	case calibrated && encodeLeft:
		if hs, err = workHessians(tmp, inDir, o, settings, progress); err != nil {
			return nil, err
		}
	}
	rep := &Report{Calibrated: calibrated, L: o.L, LWhy: o.lWhy}
	over := map[string]backend.Host{} // sequential: the layers quantized so far, decoded
	hsLayer := -1
	sink := newSink(tmp, o.ShardBytes)
	var total, work int64
	for _, it := range items {
		if it.role == roleCoded {
			total += int64(it.out) * int64(it.in)
		}
	}
	left := append([]int(nil), us.left...)
	layerWork := make([]int64, len(us.names))
	pend := map[int]*capture{} // the unfinished units' quantized items, for their checkpoints
	pendItems := map[int][]ckptItem{}
	for i, it := range items {
		if err := o.Context.Err(); err != nil {
			return nil, fmt.Errorf("quantize: %w", err)
		}
		u := us.of[i]
		ev := Event{Tensor: it.name, Index: i, Count: len(items), Work: work, Total: total, Layer: u, Layers: len(us.names)}
		if u >= 0 {
			ev.LayerWork, ev.LayerTotal = layerWork[u], us.total[u]
		}
		quantized := it.role == roleCoded || it.role == roleAffine
		ev.Resumed = quantized && ck.done[u]
		progress(ev)
		h, err := arch.Tensor(it.name)
		if err != nil {
			return nil, err
		}
		var res *TensorReport
		resumed := false
		if ev.Resumed {
			if res, resumed, err = ck.replay(it.name, sink); err != nil {
				return nil, err
			}
		}
		if quantized && !resumed && !seq {
			sink.rec = &capture{}
		}
		switch {
		case resumed:
		case it.role == roleDrop:
			rep.Dropped = append(rep.Dropped, it.name)
		case it.role == roleKeep:
			rep.Kept = append(rep.Kept, it.name)
			err = keepBF16(h, sink)
		case it.role == roleCopy:
			rep.Copied = append(rep.Copied, it.name)
			err = sink.add(h)
		case it.role == roleCoded:
			if seq && it.site.layer >= 0 && it.site.layer != hsLayer {
				hsLayer = it.site.layer
				if hs, err = runCalibration(inDir, ids, o, progress, over, hsLayer); err != nil {
					return nil, err
				}
			}
			var w *trellis.Weights
			res, w, err = encodeTrellis(it, h, sink, hs[it.site], o)
			if err == nil && seq && it.site.layer >= 0 {
				over[it.text] = decodedBF16(it, w)
			}
		case it.role == roleAffine:
			res, err = encodeAffine(it, h, sink)
		}
		if err != nil {
			return nil, err
		}
		if it.role == roleCoded {
			work += int64(it.out) * int64(it.in)
			if u >= 0 {
				layerWork[u] += int64(it.out) * int64(it.in)
			}
		}
		if rec := sink.rec; rec != nil {
			sink.rec = nil
			if pend[u] == nil {
				pend[u] = &capture{}
			}
			pendItems[u] = append(pendItems[u], ckptItem{Name: it.name, Writes: rec.writes, Report: res})
			pend[u].tensors = append(pend[u].tensors, rec.tensors...)
		}
		if it.role != roleDrop {
			rep.Params += int64(h.Elements())
		}
		if res != nil {
			rep.Tensors = append(rep.Tensors, *res)
		}
		progress(Event{Tensor: it.name, Index: i, Count: len(items), Done: true, Work: work, Total: total, Result: res,
			Layer: ev.Layer, Layers: ev.Layers, LayerWork: layerWork[max(u, 0)], LayerTotal: ev.LayerTotal, Resumed: resumed})
		if quantized && u >= 0 {
			if left[u]--; left[u] == 0 {
				if !ck.done[u] && !seq {
					if err := ck.write(u, us.names[u], pendItems[u], pend[u].tensors); err != nil {
						return nil, err
					}
					delete(pend, u)
					delete(pendItems, u)
				}
				progress(Event{Stage: StageLayer, Tensor: us.names[u], Index: u, Count: len(us.names), Work: work, Total: total, Resumed: resumed})
			}
		}
	}
	files, bytes, err := sink.finish()
	if err != nil {
		return nil, err
	}
	if err := clearWork(tmp); err != nil {
		return nil, err
	}
	written, err := writeConfig(inDir, dir.ConfigJSON(), tmp, o, items)
	if err != nil {
		return nil, err
	}
	rep.Files = append(files, written...)
	slices.Sort(rep.Files)
	if err := verifyConfig(tmp, items); err != nil {
		return nil, err
	}
	rep.summarize(bytes)
	if err := dest.commit(tmp); err != nil {
		return nil, err
	}
	committed = true
	rep.Elapsed = time.Since(start)
	return rep, nil
}

// normalize applies defaults and rejects out-of-range options with one line each.
func (o *Options) normalize() error {
	if o.L == 0 {
		o.L, o.lWhy = ResolveL(*o)
	} else if o.lWhy == "" {
		o.lWhy = "given by --L"
	}
	if o.GroupSize == 0 {
		o.GroupSize = DefaultGroupSize
	}
	if o.ShardBytes == 0 {
		o.ShardBytes = DefaultShardBytes
	}
	if o.Embeddings == "" {
		o.Embeddings = EmbeddingsBF16
	}
	if o.Head == "" {
		o.Head = HeadAffine8
	}
	if o.Context == nil {
		o.Context = context.Background()
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	if o.CalibTokens == 0 {
		o.CalibTokens = DefaultCalibTokens
	}
	if o.CalibCtx == 0 {
		o.CalibCtx = DefaultCalibCtx
	}
	if o.Damp == 0 {
		o.Damp = DefaultDamp
	}
	if o.CalibSeed == 0 {
		o.CalibSeed = DefaultCalibSeed
	}
	calib := o.Calib != "" || o.CalibIDs != nil || o.CalibAuto
	for _, c := range []struct {
		bad bool
		msg string
	}{
		{!calib && (o.Sequential || o.RefitScales || o.Hessians != "" || o.LDLQRows != 0),
			"--sequential, --asymmetric, --refit-scales, --hessians and --ldlq-rows apply to LDLQ: they need --calib"},
		{o.Asymmetric && !o.Sequential, "--asymmetric needs --sequential (the quantized earlier layers' inputs)"},
		{o.Sequential && o.Hessians != "", "--hessians caches the unquantized model's Hessians; --sequential collects others per layer"},
		{o.CalibAuto && (o.Calib != "" || o.CalibIDs != nil), "--calib auto samples its own calibration tokens; it takes no calibration file"},
		{o.Resume && o.Sequential, "--resume does not resume --sequential runs (each layer's Hessians depend on the earlier layers' codes); drop one of them"},
	} {
		if c.bad {
			return errors.New("quantize: " + c.msg)
		}
	}
	if o.LDLQRows < 0 {
		return fmt.Errorf("quantize: --ldlq-rows %d must be positive (0: the default)", o.LDLQRows)
	}
	checks := []struct {
		bad bool
		msg string
	}{
		{o.Bits < trellis.MinK || o.Bits > trellis.MaxK, fmt.Sprintf("--bits %d outside %d..%d", o.Bits, trellis.MinK, trellis.MaxK)},
		{o.L > trellis.MaxL, fmt.Sprintf("--L %d above %d", o.L, trellis.MaxL)},
		{o.L < 1, fmt.Sprintf("--L %d must be positive", o.L)},
		{o.GroupSize < 1, fmt.Sprintf("--group-size %d must be positive", o.GroupSize)},
		{o.ShardBytes < 0, fmt.Sprintf("shard size %d must be positive", o.ShardBytes)},
		{o.CalibTokens < 0 || o.CalibCtx < 2, fmt.Sprintf("--calib-tokens %d and a window of %d tokens must be positive", o.CalibTokens, o.CalibCtx)},
		{o.Damp < 0 || math.IsNaN(o.Damp), fmt.Sprintf("--damp %g must be non-negative", o.Damp)},
		{o.Embeddings != EmbeddingsBF16 && o.Embeddings != EmbeddingsAffine8,
			fmt.Sprintf("--embeddings %q: want %s or %s", o.Embeddings, EmbeddingsBF16, EmbeddingsAffine8)},
		{o.Head != HeadBF16 && o.Head != HeadAffine8, fmt.Sprintf("--head %q: want %s or %s", o.Head, HeadAffine8, HeadBF16)},
	}
	for _, c := range checks {
		if c.bad {
			return errors.New("quantize: " + c.msg)
		}
	}
	// Every bit width in use must make a valid spec with L and the group size (L ≥ bits, T·bits % 32 == 0).
	bits := []int{o.Bits}
	for _, r := range o.Rules {
		bits = append(bits, r.Bits)
	}
	for _, k := range bits {
		s := trellis.Spec{K: k, L: o.L, T: o.GroupSize, Code: "1mad", Axis: 1}
		if err := s.Validate(); err != nil {
			return fmt.Errorf("quantize: bits %d with --L %d and --group-size %d: %w", k, o.L, o.GroupSize, err)
		}
	}
	return nil
}

// summarize fills the totals from the tensor reports; dataBytes is every written tensor's data.
func (r *Report) summarize(dataBytes int64) {
	var codedBits, snrSum, proxySum float64
	n, np := 0, 0
	r.MinSNRdB = math.Inf(1)
	for _, t := range r.Tensors {
		if t.Spec.Mode != "trellis" {
			continue
		}
		w := int64(t.Shape[0]) * int64(t.Shape[1])
		r.CodedWeights += w
		codedBits += t.Bits * float64(w)
		if !math.IsInf(t.SNRdB, 1) {
			snrSum += t.SNRdB
			n++
		}
		if !math.IsNaN(t.ProxyRel) {
			proxySum += t.ProxyRel
			np++
		}
		if t.SNRdB < r.MinSNRdB {
			r.MinSNRdB, r.MinSNRTensor = t.SNRdB, t.Name
		}
	}
	if r.CodedWeights == 0 {
		r.MinSNRdB = 0
	} else {
		r.BitsPerWeight = codedBits / float64(r.CodedWeights)
	}
	r.MeanSNRdB = r.MinSNRdB // every coded tensor exact (or none)
	if n > 0 {
		r.MeanSNRdB = snrSum / float64(n)
	}
	if np > 0 {
		r.MeanProxyRel = proxySum / float64(np)
	}
	if r.Params > 0 {
		r.BitsPerParam = float64(dataBytes) * 8 / float64(r.Params)
	}
}
