// Qwen3-MoE against an independent reference: a tiny model of random float32 weights (two sparse layers around a
// dense one, 6 experts of which 3 route, not renormalised), written in both expert layouts, whose prompt logits
// the engine must reproduce from a float64 transcription of transformers' Qwen3MoeForCausalLM written out below
// in plain loops.
package model_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/safetensors"
)

// refMoE is the tiny model's shape.
var refMoE = struct {
	hidden, inter, moeInter, layers, heads, kvHeads, headDim, vocab, experts, topK int
	theta, eps                                                                     float64
	sparse                                                                         []bool
}{hidden: 64, inter: 48, moeInter: 32, layers: 3, heads: 4, kvHeads: 2, headDim: 16, vocab: 97, experts: 6, topK: 3,
	theta: 10000, eps: 1e-6, sparse: []bool{true, false, true}}

// refWeights draws the model's tensors, with their shapes: uniform projections of scale 0.15 (the router 1.5, so
// routing is far from ties), norm weights near 1.
func refWeights() (map[string][]float32, map[string][]int) {
	c := refMoE
	x := uint64(0x5eed)
	w, shapes := map[string][]float32{}, map[string][]int{}
	put := func(name string, scale, base float32, shape ...int) {
		n := 1
		for _, d := range shape {
			n *= d
		}
		v := make([]float32, n)
		for i := range v {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			v[i] = base + scale*(float32(x>>40)/(1<<24)-0.5)*2
		}
		w[name], shapes[name] = v, shape
	}
	h, q, kv := c.hidden, c.heads*c.headDim, c.kvHeads*c.headDim
	put("model.embed_tokens.weight", 1, 0, c.vocab, h)
	put("model.norm.weight", 0.1, 1, h)
	put("lm_head.weight", 0.15, 0, c.vocab, h)
	for l := range c.layers {
		p := fmt.Sprintf("model.layers.%d.", l)
		put(p+"self_attn.q_proj.weight", 0.15, 0, q, h)
		put(p+"self_attn.k_proj.weight", 0.15, 0, kv, h)
		put(p+"self_attn.v_proj.weight", 0.15, 0, kv, h)
		put(p+"self_attn.o_proj.weight", 0.15, 0, h, q)
		put(p+"self_attn.q_norm.weight", 0.2, 1, c.headDim)
		put(p+"self_attn.k_norm.weight", 0.2, 1, c.headDim)
		put(p+"input_layernorm.weight", 0.2, 1, h)
		put(p+"post_attention_layernorm.weight", 0.2, 1, h)
		mlps, inter := []string{p + "mlp."}, c.inter
		if c.sparse[l] {
			put(p+"mlp.gate.weight", 1.5, 0, c.experts, h)
			mlps, inter = nil, c.moeInter
			for e := range c.experts {
				mlps = append(mlps, fmt.Sprintf("%smlp.experts.%d.", p, e))
			}
		}
		for _, m := range mlps {
			put(m+"gate_proj.weight", 0.15, 0, inter, h)
			put(m+"up_proj.weight", 0.15, 0, inter, h)
			put(m+"down_proj.weight", 0.15, 0, h, inter)
		}
	}
	return w, shapes
}

// writeRefMoE writes the model as a checkpoint: its experts one module each (the published layout) or stacked as
// transformers 5 holds them (gate_up_proj [experts, 2·inter, hidden], down_proj [experts, hidden, inter]).
func writeRefMoE(t *testing.T, w map[string][]float32, shapes map[string][]int, stacked bool) string {
	t.Helper()
	c := refMoE
	dir := t.TempDir()
	cfg := map[string]any{"model_type": "qwen3_moe", "hidden_size": c.hidden, "intermediate_size": c.inter,
		"moe_intermediate_size": c.moeInter, "num_hidden_layers": c.layers, "num_attention_heads": c.heads,
		"num_key_value_heads": c.kvHeads, "head_dim": c.headDim, "vocab_size": c.vocab, "num_experts": c.experts,
		"num_experts_per_tok": c.topK, "norm_topk_prob": false, "decoder_sparse_step": 1, "mlp_only_layers": []int{1},
		"rope_theta": c.theta, "rms_norm_eps": c.eps, "tie_word_embeddings": false, "max_position_embeddings": 64}
	b, err := json.Marshal(cfg)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "config.json"), b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	var ts []backend.Host
	for name, v := range w {
		var l, e int
		var rest string
		if n, _ := fmt.Sscanf(name, "model.layers.%d.mlp.experts.%d.%s", &l, &e, &rest); n == 3 && stacked {
			continue
		}
		ts = append(ts, backend.HostF32(name, v, shapes[name]...))
	}
	if stacked {
		for l, sparse := range c.sparse {
			if !sparse {
				continue
			}
			p := fmt.Sprintf("model.layers.%d.mlp.experts.", l)
			var gateUp, down []float32
			for e := range c.experts {
				gateUp = append(gateUp, w[fmt.Sprintf("%s%d.gate_proj.weight", p, e)]...)
				gateUp = append(gateUp, w[fmt.Sprintf("%s%d.up_proj.weight", p, e)]...)
				down = append(down, w[fmt.Sprintf("%s%d.down_proj.weight", p, e)]...)
			}
			ts = append(ts, backend.HostF32(p+"gate_up_proj", gateUp, c.experts, 2*c.moeInter, c.hidden),
				backend.HostF32(p+"down_proj", down, c.experts, c.hidden, c.moeInter))
		}
	}
	if err := safetensors.WriteFile(filepath.Join(dir, "model.safetensors"), ts, nil); err != nil {
		t.Fatal(err)
	}
	return dir
}

// refForward is Qwen3MoeForCausalLM's forward over ids in float64: logits [len(ids), vocab].
func refForward(w map[string][]float32, ids []int) [][]float64 {
	c := refMoE
	h, hd := c.hidden, c.headDim
	matvec := func(name string, x []float64, out int) []float64 {
		m := w[name]
		in := len(m) / out
		y := make([]float64, out)
		for o := range out {
			for i := range in {
				y[o] += float64(m[o*in+i]) * x[i]
			}
		}
		return y
	}
	rms := func(x []float64, name string) []float64 {
		g := w[name]
		var ss float64
		for _, v := range x {
			ss += v * v
		}
		r := 1 / math.Sqrt(ss/float64(len(x))+c.eps)
		y := make([]float64, len(x))
		for i, v := range x {
			y[i] = v * r * float64(g[i])
		}
		return y
	}
	rope := func(x []float64, pos int) { // rotate_half over one head
		half := hd / 2
		for i := range half {
			f := float64(pos) / math.Pow(c.theta, float64(2*i)/float64(hd))
			a, b := x[i], x[i+half]
			x[i], x[i+half] = a*math.Cos(f)-b*math.Sin(f), b*math.Cos(f)+a*math.Sin(f)
		}
	}
	silu := func(v float64) float64 { return v / (1 + math.Exp(-v)) }
	swiglu := func(prefix string, x []float64, inter int) []float64 {
		g, u := matvec(prefix+"gate_proj.weight", x, inter), matvec(prefix+"up_proj.weight", x, inter)
		for i := range g {
			g[i] = silu(g[i]) * u[i]
		}
		return matvec(prefix+"down_proj.weight", g, h)
	}
	n := len(ids)
	xs := make([][]float64, n)
	for t, id := range ids {
		xs[t] = make([]float64, h)
		for i := range h {
			xs[t][i] = float64(w["model.embed_tokens.weight"][id*h+i])
		}
	}
	for l := range c.layers {
		p := fmt.Sprintf("model.layers.%d.", l)
		qs, ks, vs := make([][]float64, n), make([][]float64, n), make([][]float64, n)
		for t := range n {
			a := rms(xs[t], p+"input_layernorm.weight")
			qs[t], ks[t], vs[t] = matvec(p+"self_attn.q_proj.weight", a, c.heads*hd), matvec(p+"self_attn.k_proj.weight", a, c.kvHeads*hd),
				matvec(p+"self_attn.v_proj.weight", a, c.kvHeads*hd)
			for hh := range c.heads {
				copy(qs[t][hh*hd:], rms(qs[t][hh*hd:(hh+1)*hd], p+"self_attn.q_norm.weight"))
				rope(qs[t][hh*hd:(hh+1)*hd], t)
			}
			for hh := range c.kvHeads {
				copy(ks[t][hh*hd:], rms(ks[t][hh*hd:(hh+1)*hd], p+"self_attn.k_norm.weight"))
				rope(ks[t][hh*hd:(hh+1)*hd], t)
			}
		}
		for t := range n {
			att := make([]float64, c.heads*hd)
			for hh := range c.heads {
				kvh := hh / (c.heads / c.kvHeads)
				s := make([]float64, t+1)
				mx := math.Inf(-1)
				for j := 0; j <= t; j++ {
					for d := range hd {
						s[j] += qs[t][hh*hd+d] * ks[j][kvh*hd+d]
					}
					s[j] /= math.Sqrt(float64(hd))
					mx = math.Max(mx, s[j])
				}
				var sum float64
				for j := range s {
					s[j] = math.Exp(s[j] - mx)
					sum += s[j]
				}
				for j := range s {
					for d := range hd {
						att[hh*hd+d] += s[j] / sum * vs[j][kvh*hd+d]
					}
				}
			}
			o := matvec(p+"self_attn.o_proj.weight", att, h)
			for i := range h {
				xs[t][i] += o[i]
			}
			a := rms(xs[t], p+"post_attention_layernorm.weight")
			var y []float64
			if !c.sparse[l] {
				y = swiglu(p+"mlp.", a, c.inter)
			} else {
				logits := matvec(p+"mlp.gate.weight", a, c.experts)
				mx, sum := math.Inf(-1), 0.0
				for _, v := range logits {
					mx = math.Max(mx, v)
				}
				prob := make([]float64, c.experts)
				for e, v := range logits {
					prob[e] = math.Exp(v - mx)
					sum += prob[e]
				}
				order := make([]int, c.experts)
				for e := range order {
					prob[e] /= sum
					order[e] = e
				}
				sort.SliceStable(order, func(i, j int) bool { return prob[order[i]] > prob[order[j]] })
				y = make([]float64, h)
				for _, e := range order[:c.topK] { // norm_topk_prob false: the softmax weights as they are
					ye := swiglu(fmt.Sprintf("%smlp.experts.%d.", p, e), a, c.moeInter)
					for i := range h {
						y[i] += prob[e] * ye[i]
					}
				}
			}
			for i := range h {
				xs[t][i] += y[i]
			}
		}
	}
	out := make([][]float64, n)
	for t := range n {
		out[t] = matvec("lm_head.weight", rms(xs[t], "model.norm.weight"), c.vocab)
	}
	return out
}

// TestQwen3MoEReference: the engine's prompt logits for the tiny Qwen3-MoE, experts stored either way, are the
// reference's within 1e-5 of max|ref|.
func TestQwen3MoEReference(t *testing.T) {
	w, shapes := refWeights()
	ids := []int{5, 91, 17, 42, 3, 66, 28, 80, 11, 54}
	ref := refForward(w, ids)
	var maxRef float64
	for _, row := range ref {
		for _, v := range row {
			maxRef = max(maxRef, math.Abs(v))
		}
	}
	for _, stacked := range []bool{false, true} {
		t.Run(fmt.Sprintf("stacked=%v", stacked), func(t *testing.T) {
			got := promptLogits(t, writeRefMoE(t, w, shapes, stacked), ids)
			var maxErr float64
			for p, row := range ref {
				for v, r := range row {
					maxErr = max(maxErr, math.Abs(float64(got[p*refMoE.vocab+v])-r))
				}
			}
			t.Logf("max|err| %.3g, max|ref| %.3g", maxErr, maxRef)
			if maxErr > 1e-5*maxRef {
				t.Errorf("max|err| %.3g > 1e-5·max|ref| = %.3g", maxErr, 1e-5*maxRef)
			}
		})
	}
}
