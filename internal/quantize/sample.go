// Self-calibration (--calib auto, the default): calibration tokens sampled from the unquantized model itself on
// the calibration device (Options.Device, the CPU by default), so quantizing needs no corpus. Each calibration window is one sampled sequence of CalibCtx tokens:
// it starts from the model's BOS token, else its EOS token (a document boundary, as the model saw between
// training documents), else a random vocabulary token, and continues at temperature 1 with top-p 0.95 (the tail
// of the distribution, which the model itself finds unlikely, is left out; inside the nucleus the text is as
// varied as the model makes it). Half the sequences start from a random vocabulary token instead, so the
// samples do not all open the same way. Sequences are sampled a batch at a time (one decode row per
// sequence), every draw seeded from CalibSeed and the sequence's index: the same seed gives the same tokens.
// The tokens then go through the same Hessian collection as a calibration file's (calibrate), on the same load
// of the model.
//
// Devices: on the CPU the tokens are those of the seed, whatever the run. Another device computes the logits
// in its own rounding (its GEMMs sum in another order; CUDA rounds a prompt GEMM's f32 input to bf16), so a
// draw that falls within that rounding of a boundary between two tokens can pick the other one, and the
// sequence continues differently from there: the same seed gives the same tokens on the CPU, on another device
// as far as its kernels are deterministic, and not across devices. The Hessians are then those of other (equally distributed) samples.
package quantize

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/sample"
)

const (
	// autoBatch is how many sequences are sampled together: on the CPU a decode step's cost grows slowly with
	// its rows (the weights are read once per step), so a wide batch is nearly free per token.
	autoBatch = 32
	autoTemp  = 1
	autoTopP  = 0.95
)

// sampleCalibration samples o.CalibTokens/o.CalibCtx sequences of o.CalibCtx tokens from the model in inDir on
// the calibration device and returns them concatenated (one calibration window each). progress gets a
// StageSample event per batch.
func sampleCalibration(inDir string, o Options, progress func(Event)) ([]int, error) {
	if err := checkSeqs(o); err != nil {
		return nil, err
	}
	b, done := calibDevice(o)
	defer done()
	m, err := loadCalibModel(b, inDir, nil, o.CalibCtx)
	if err != nil {
		return nil, err
	}
	defer m.Close()
	return sampleWith(m, o, progress)
}

// checkSeqs says why o samples no sequence.
func checkSeqs(o Options) error {
	if o.CalibTokens/o.CalibCtx < 1 {
		return fmt.Errorf("quantize: --calib auto: --calib-tokens %d make no window of %d tokens", o.CalibTokens, o.CalibCtx)
	}
	return nil
}

// sampleWith is sampleCalibration with the model loaded.
func sampleWith(m *model.Model, o Options, progress func(Event)) ([]int, error) {
	if err := checkSeqs(o); err != nil {
		return nil, err
	}
	ctx := o.CalibCtx
	seqs := o.CalibTokens / ctx
	var err error
	vocab := m.Config.VocabSize
	rng := rand.New(rand.NewPCG(o.CalibSeed, 0xca11b))
	ids := make([]int, 0, seqs*ctx)
	batches := (seqs + autoBatch - 1) / autoBatch
	for bi := range batches {
		if err := o.Context.Err(); err != nil {
			return nil, fmt.Errorf("quantize: %w", err)
		}
		progress(Event{Stage: StageSample, Index: bi, Count: batches})
		n := min(autoBatch, seqs-bi*autoBatch)
		seq := make([][]int, n)
		samplers := make([]*sample.Sampler, n)
		for i := range n {
			k := bi*autoBatch + i
			seq[i] = []int{startToken(m.Config.BOS, m.Config.EOS, vocab, k, rng)}
			if samplers[i], err = sample.New(sample.Params{Temp: autoTemp, TopP: autoTopP, Seed: signSeed(o.CalibSeed, fmt.Sprint("sequence ", k))}); err != nil {
				return nil, fmt.Errorf("quantize: --calib auto: %w", err)
			}
		}
		if err := sampleBatch(o.Context, m, seq, samplers, ctx); err != nil {
			return nil, err
		}
		for _, s := range seq {
			ids = append(ids, s...)
		}
		progress(Event{Stage: StageSample, Index: bi, Count: batches, Done: true})
	}
	return ids, nil
}

// startToken is sequence k's first token: odd sequences and models without BOS or EOS start from a random
// vocabulary token, the others from BOS (else EOS).
func startToken(bos, eos []int, vocab, k int, rng *rand.Rand) int {
	r := rng.IntN(vocab) // drawn for every sequence, so the choice below does not shift the others' tokens
	switch {
	case k%2 == 1:
		return r
	case len(bos) > 0 && bos[0] >= 0 && bos[0] < vocab:
		return bos[0]
	case len(eos) > 0 && eos[0] >= 0 && eos[0] < vocab:
		return eos[0]
	}
	return r
}

// sampleBatch extends every sequence of seq (each holding its first token) to ctx tokens, one decode row per
// sequence per step. It stops before a step once run is done: a batch is ctx steps (512 forward passes at the
// defaults, minutes of a large model on the CPU), too long to finish after a Ctrl-C.
func sampleBatch(run context.Context, m *model.Model, seq [][]int, samplers []*sample.Sampler, ctx int) error {
	n := len(seq)
	cache, err := m.NewCache(n, ctx)
	if err != nil {
		return fmt.Errorf("quantize: --calib auto: %w", err)
	}
	defer m.ReleaseCache(cache)
	vocab := m.Config.VocabSize
	s := model.Step{IDs: make([]int32, n), Seq: make([]int32, n), Pos: make([]int32, n)}
	for pos := 0; pos+1 < ctx; pos++ {
		if err := run.Err(); err != nil {
			return fmt.Errorf("quantize: --calib auto: sampling stopped at position %d: %w", pos+1, err)
		}
		for i := range n {
			s.IDs[i], s.Seq[i], s.Pos[i] = int32(seq[i][pos]), int32(i), int32(pos)
		}
		logits, err := m.Forward(s, cache, n)
		if err != nil {
			return fmt.Errorf("quantize: --calib auto: sampling position %d: %w", pos+1, err)
		}
		for i := range n {
			id, err := samplers[i].Sample(logits[i*vocab:(i+1)*vocab], nil, nil)
			if err != nil {
				return fmt.Errorf("quantize: --calib auto: sampling position %d: %w", pos+1, err)
			}
			seq[i] = append(seq[i], id)
		}
	}
	return nil
}
