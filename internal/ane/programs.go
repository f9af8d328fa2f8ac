// The Neural Engine programs a model's graph loads, computed from its config alone through the family's tensor
// map (internal/family): one program per distinct projection shape of the prompt path, a gated-MLP program
// where a layer stores its gate and up projections apart, deduplicated by content key and listed with the
// layers that use each. What stays on the GPU, and why: routed MoE experts (a gather per token, not a static
// shape), the small kept linears (routers, DeltaNet's β/decay, Gemma 4's per-layer inputs: too small to pay a
// Neural Engine request), the embedding table and the output head (a table lookup; a vocabulary-wide head).
package ane

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/family"
)

// Use is one place a model loads a program: a module (or gate+up pair) of one layer.
type Use struct {
	Layer  int
	Module string // under model.layers.N: "self_attn.q_proj", "mlp.gate_proj+mlp.up_proj"
}

// Program is one distinct program of a model and every use of it, in layer order.
type Program struct {
	Spec
	Key  string
	Uses []Use
}

// gluPairs are the slot pairs a layer may hold as separate gate and up linears, fused into one gated program.
var gluPairs = [][2]family.Slot{{family.Gate, family.Up}, {family.SharedGate, family.SharedUp}}

// Programs lists c's programs in order of first use (layer 0's first projection first).
func Programs(c *config.Model) ([]Program, error) {
	f, err := family.For(c)
	if err != nil {
		return nil, err
	}
	m := f.Tensors(c)
	act := ActSiLU
	if f.GeGLU {
		act = ActGELUTanh
	}
	var out []Program
	index := map[string]int{}
	add := func(s Spec, layer int, module string) error {
		if err := s.Check(); err != nil {
			return fmt.Errorf("%s: layer %d %s: %w", config.ConfigFile, layer, module, err)
		}
		k := s.Key()
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, Program{Spec: s, Key: k})
		}
		out[i].Uses = append(out[i].Uses, Use{Layer: layer, Module: module})
		return nil
	}
	for li, L := range m.Layers {
		prefix := fmt.Sprintf("model.layers.%d.", li)
		module := func(l family.Linear) string { return strings.TrimPrefix(l.Path, prefix) }
		paired := map[int]int{} // gate linear index -> up linear index
		done := map[int]bool{}
		for _, pair := range gluPairs {
			g, u := single(L.Linears, pair[0]), single(L.Linears, pair[1])
			if g >= 0 && u >= 0 && L.Linears[g].In == L.Linears[u].In && L.Linears[g].Out == L.Linears[u].Out {
				paired[g] = u
				done[u] = true
			}
		}
		for i, l := range L.Linears {
			if done[i] || l.Keep || l.Experts > 0 || l.Table {
				continue
			}
			s := Spec{Kind: KindLinear, Rows: PromptRows, In: l.In, Out: l.Out, X: F32, Y: F32, W: F16}
			name := module(l)
			if u, ok := paired[i]; ok {
				s.Kind, s.Act = KindGLU, act
				name += "+" + module(L.Linears[u])
			}
			if err := add(s, li, name); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// single is the index of the unfused linear holding only slot s, or -1.
func single(ls []family.Linear, s family.Slot) int {
	for i, l := range ls {
		if len(l.Parts) == 1 && l.Parts[0].Slot == s && l.Experts == 0 && !l.Keep {
			return i
		}
	}
	return -1
}

// UsedBy says which layers use p, one clause per set of modules used by the same layers:
// "self_attn.k_proj, self_attn.v_proj (layers 0-27)".
func (p Program) UsedBy() string {
	var modules []string
	layers := map[string][]int{}
	for _, u := range p.Uses {
		if _, ok := layers[u.Module]; !ok {
			modules = append(modules, u.Module)
		}
		layers[u.Module] = append(layers[u.Module], u.Layer)
	}
	var clauses []string
	seen := map[string]int{} // layer set -> clause index
	var names [][]string
	for _, m := range modules {
		set := ranges(layers[m])
		if i, ok := seen[set]; ok {
			names[i] = append(names[i], m)
			continue
		}
		seen[set] = len(clauses)
		clauses = append(clauses, set)
		names = append(names, []string{m})
	}
	parts := make([]string, len(clauses))
	for i, set := range clauses {
		word := "layers"
		if !strings.ContainsAny(set, ",-") {
			word = "layer"
		}
		parts[i] = fmt.Sprintf("%s (%s %s)", strings.Join(names[i], ", "), word, set)
	}
	return strings.Join(parts, "; ")
}

// ranges writes sorted distinct layer numbers as runs: [0 1 2 5 7 8] -> "0-2,5,7-8".
func ranges(ls []int) string {
	ls = slices.Compact(slices.Sorted(slices.Values(ls)))
	var b strings.Builder
	for i := 0; i < len(ls); {
		j := i
		for j+1 < len(ls) && ls[j+1] == ls[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(ls[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(ls[j]))
		}
		i = j + 1
	}
	return b.String()
}
