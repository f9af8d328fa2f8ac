// Command mkdemo writes a small deterministic demo model for `make demo`: a real Qwen3-architecture checkpoint
// (bf16 safetensors, config.json) with its own byte-level tokenizer. Its transformer layers hold small seeded
// random weights; the embedding is one-hot per byte and the output head holds byte-bigram log-probabilities
// counted from the text below, so what it generates reads like that text rather than noise. Nothing is trained
// and nothing is downloaded.
package main

import (
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/dtype"
	"github.com/mlxbun/mlxbun/internal/safetensors"
)

const corpus = `mlxbun runs language models on the machine in front of you. It reads the weights of a model as they
were published, checks every tensor against the config, and runs each layer on the best device it finds: the
processor, an NVIDIA card or the graphics unit of a Mac. Trellis codes store each weight in two to four bits and
still keep the quality of the model, so a large model fits where it did not fit before. The engine is written in
Go, one static binary, with kernels chosen per row count and checked against the reference on the processor.
Run the tests, read the numbers, and trust what was measured.`

const (
	vocab        = 257 // 256 bytes + <|endoftext|>
	hidden       = 384
	heads        = 6
	kvHeads      = 2
	headDim      = 64
	intermediate = 1024
	layers       = 4
	eos          = 256
)

func main() {
	out := flag.String("out", "build/demo", "output directory")
	seed := flag.Uint64("seed", 1, "seed for the layers' random weights")
	flag.Parse()
	if err := write(*out, *seed); err != nil {
		fmt.Fprintf(os.Stderr, "mkdemo: %v\n", err)
		os.Exit(1)
	}
}

func write(dir string, seed uint64) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(seed, 0x6d6c7862756e))
	var ts []backend.Host
	add := func(name string, data []float32, shape ...int) {
		b := make([]byte, 2*len(data))
		for i, v := range data {
			binary.LittleEndian.PutUint16(b[2*i:], dtype.F32ToBF16(v))
		}
		ts = append(ts, backend.Host{Name: name, DType: backend.BF16, Shape: shape, Data: b})
	}
	random := func(n int, std float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64() * std)
		}
		return v
	}
	ones := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = 1
		}
		return v
	}
	// One-hot embedding: token t lights dimension t, so the residual stream carries the current byte.
	embed := make([]float32, vocab*hidden)
	for t := 0; t < vocab; t++ {
		embed[t*hidden+t] = 1
	}
	add("model.embed_tokens.weight", embed, vocab, hidden)
	for l := 0; l < layers; l++ {
		p := fmt.Sprintf("model.layers.%d.", l)
		add(p+"input_layernorm.weight", ones(hidden), hidden)
		add(p+"post_attention_layernorm.weight", ones(hidden), hidden)
		add(p+"self_attn.q_proj.weight", random(heads*headDim*hidden, 0.05), heads*headDim, hidden)
		add(p+"self_attn.k_proj.weight", random(kvHeads*headDim*hidden, 0.05), kvHeads*headDim, hidden)
		add(p+"self_attn.v_proj.weight", random(kvHeads*headDim*hidden, 0.05), kvHeads*headDim, hidden)
		add(p+"self_attn.o_proj.weight", random(hidden*heads*headDim, 0.0002), hidden, heads*headDim)
		add(p+"self_attn.q_norm.weight", ones(headDim), headDim)
		add(p+"self_attn.k_norm.weight", ones(headDim), headDim)
		add(p+"mlp.gate_proj.weight", random(intermediate*hidden, 0.05), intermediate, hidden)
		add(p+"mlp.up_proj.weight", random(intermediate*hidden, 0.05), intermediate, hidden)
		add(p+"mlp.down_proj.weight", random(hidden*intermediate, 0.0002), hidden, intermediate)
	}
	add("model.norm.weight", ones(hidden), hidden)
	add("lm_head.weight", bigramHead(), vocab, hidden)
	if err := safetensors.WriteFile(filepath.Join(dir, "model.safetensors"), ts, map[string]string{"format": "pt"}); err != nil {
		return err
	}
	return writeJSONs(dir)
}

// bigramHead sets logit(next | current) = log P(next | current) with add-one smoothing over the corpus bytes. The
// final RMSNorm scales the one-hot stream to sqrt(hidden), which the head divides back out.
func bigramHead() []float32 {
	var counts [vocab][vocab]float64
	text := []byte(corpus)
	for i := 0; i+1 < len(text); i++ {
		counts[text[i]][text[i+1]]++
	}
	counts[text[len(text)-1]][eos]++
	head := make([]float32, vocab*hidden)
	norm := math.Sqrt(hidden)
	for cur := 0; cur < vocab; cur++ {
		var total float64
		for next := 0; next < vocab; next++ {
			total += counts[cur][next] + 1e-6
		}
		for next := 0; next < vocab; next++ {
			head[next*hidden+cur] = float32(math.Log((counts[cur][next]+1e-6)/total) / norm)
		}
	}
	return head
}

func writeJSONs(dir string) error {
	cfg := map[string]any{
		"architectures": []string{"Qwen3ForCausalLM"}, "model_type": "qwen3", "hidden_size": hidden,
		"intermediate_size": intermediate, "num_hidden_layers": layers, "num_attention_heads": heads,
		"num_key_value_heads": kvHeads, "head_dim": headDim, "vocab_size": vocab, "rms_norm_eps": 1e-6,
		"max_position_embeddings": 2048, "rope_theta": 10000.0, "tie_word_embeddings": false,
		"hidden_act": "silu", "eos_token_id": eos, "torch_dtype": "bfloat16",
	}
	byteVocab := map[string]int{}
	for b, r := range byteLevelAlphabet() {
		byteVocab[string(r)] = b
	}
	tok := map[string]any{
		"version": "1.0",
		"added_tokens": []map[string]any{{"id": eos, "content": "<|endoftext|>", "single_word": false,
			"lstrip": false, "rstrip": false, "normalized": false, "special": true}},
		"normalizer":     nil,
		"pre_tokenizer":  map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false},
		"post_processor": nil,
		"decoder":        map[string]any{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
		"model": map[string]any{"type": "BPE", "dropout": nil, "unk_token": nil, "fuse_unk": false,
			"byte_fallback": false, "ignore_merges": false, "vocab": byteVocab, "merges": []string{}},
	}
	files := map[string]any{
		"config.json":            cfg,
		"generation_config.json": map[string]any{"eos_token_id": eos},
		"tokenizer.json":         tok,
		"tokenizer_config.json":  map[string]any{"eos_token": "<|endoftext|>", "tokenizer_class": "PreTrainedTokenizerFast"},
	}
	for name, v := range files {
		b, err := json.MarshalIndent(v, "", " ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// byteLevelAlphabet is GPT-2's bytes-to-unicode map: printable bytes stand for themselves, the rest shift to 256+.
func byteLevelAlphabet() [256]rune {
	var m [256]rune
	n := 0
	for b := 0; b < 256; b++ {
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			m[b] = rune(b)
		} else {
			m[b] = rune(256 + n)
			n++
		}
	}
	return m
}
