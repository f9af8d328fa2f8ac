// The two on-disk layouts: PEFT's save_pretrained output and mlx-lm's lora.py output, each read into Targets.
package lora

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/mlxbun/mlxbun/internal/safetensors"
)

// peftConfig is what adapter_config.json of a PEFT LoRA says about the arithmetic. TargetModules is a list of
// module-name suffixes or one regular expression (or "all-linear"); the patterns map module-name regular
// expressions to a rank or alpha of their own.
type peftConfig struct {
	PEFTType      string             `json:"peft_type"`
	R             int                `json:"r"`
	Alpha         float64            `json:"lora_alpha"`
	TargetModules json.RawMessage    `json:"target_modules"`
	RSLoRA        bool               `json:"use_rslora"`
	DoRA          bool               `json:"use_dora"`
	FanInFanOut   bool               `json:"fan_in_fan_out"`
	Bias          string             `json:"bias"`
	LoRABias      bool               `json:"lora_bias"`
	RankPattern   map[string]int     `json:"rank_pattern"`
	AlphaPattern  map[string]float64 `json:"alpha_pattern"`
}

// peftPrefix is what PEFT's saved names put before the base model's module path.
const peftPrefix = "base_model.model."

// unsupported lists the PEFT options whose arithmetic the engine does not do, with why.
func (c *peftConfig) unsupported() string {
	switch {
	case c.PEFTType != "" && c.PEFTType != "LORA":
		return fmt.Sprintf("peft_type %q (only LORA adapters are supported)", c.PEFTType)
	case c.DoRA:
		return "use_dora (DoRA's magnitude rescaling is not supported)"
	case c.FanInFanOut:
		return "fan_in_fan_out (Conv1D-style transposed weights)"
	case c.Bias != "" && c.Bias != "none", c.LoRABias:
		return "trained biases (bias \"" + c.Bias + "\" / lora_bias)"
	case c.R <= 0:
		return fmt.Sprintf("r = %d", c.R)
	}
	return ""
}

// patternFor returns the value of the first pattern key matching module as PEFT matches them (the key a whole
// trailing run of dotted components: `(.*\.)?(key)$`).
func patternFor[V any](patterns map[string]V, module string) (V, bool, error) {
	var zero V
	for key, v := range patterns {
		re, err := regexp.Compile(`^(.*\.)?(` + key + `)$`)
		if err != nil {
			return zero, false, fmt.Errorf("pattern %q: %w", key, err)
		}
		if re.MatchString(module) {
			return v, true, nil
		}
	}
	return zero, false, nil
}

// targeted reports whether target_modules selects module (PEFT: a list entry equal to the name or to a trailing
// run of its components, or a regular expression matching the whole name; "all-linear" selects every linear).
func targeted(raw json.RawMessage, module string) (bool, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return true, nil // no statement to check against
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err == nil {
		for _, k := range list {
			if module == k || strings.HasSuffix(module, "."+k) {
				return true, nil
			}
		}
		return false, nil
	}
	var expr string
	if err := json.Unmarshal(raw, &expr); err != nil {
		return false, fmt.Errorf("target_modules is neither a list of names nor a string")
	}
	if expr == "all-linear" {
		return true, nil
	}
	re, err := regexp.Compile(`^(?:` + expr + `)$`)
	if err != nil {
		return false, fmt.Errorf("target_modules %q: %w", expr, err)
	}
	return re.MatchString(module), nil
}

func (a *Adapter) readPEFT(raw []byte, f *safetensors.File) error {
	var c peftConfig
	if err := json.Unmarshal(raw, &c); err != nil {
		return fmt.Errorf("%s: %w", ConfigFile, err)
	}
	if why := c.unsupported(); why != "" {
		return fmt.Errorf("%s: %s", ConfigFile, why)
	}
	split := func(name string) (string, bool, bool) {
		rest, ok := strings.CutPrefix(name, peftPrefix)
		if !ok {
			return "", false, false
		}
		if mod, ok := strings.CutSuffix(rest, ".lora_A.weight"); ok {
			return mod, true, true
		}
		if mod, ok := strings.CutSuffix(rest, ".lora_B.weight"); ok {
			return mod, false, true
		}
		return "", false, false
	}
	mods, order, err := collect(f, split, "PEFT names them "+peftPrefix+"<module>.lora_A.weight and .lora_B.weight")
	if err != nil {
		return err
	}
	for _, mod := range order {
		p := mods[mod]
		ok, err := targeted(c.TargetModules, mod)
		if err != nil {
			return fmt.Errorf("%s: %w", ConfigFile, err)
		}
		if !ok {
			return fmt.Errorf("tensor %q adapts module %s, which %s's target_modules %s does not select",
				p.aName, mod, ConfigFile, string(c.TargetModules))
		}
		r, alpha := c.R, c.Alpha
		if v, ok, err := patternFor(c.RankPattern, mod); err != nil {
			return fmt.Errorf("%s: rank_pattern: %w", ConfigFile, err)
		} else if ok {
			r = v
		}
		if v, ok, err := patternFor(c.AlphaPattern, mod); err != nil {
			return fmt.Errorf("%s: alpha_pattern: %w", ConfigFile, err)
		} else if ok {
			alpha = v
		}
		if err := rankOf(p, r, ConfigFile+" says r = %d"); err != nil {
			return err
		}
		scale := alpha / float64(r)
		if c.RSLoRA {
			scale = alpha / math.Sqrt(float64(r))
		}
		a.Targets = append(a.Targets, Target{Module: mod, A: p.a, B: p.b, ATensor: p.aName, BTensor: p.bName, Scale: scale})
	}
	return nil
}

// rankOf checks A [r, ·] and B [·, r] (the [out, in] orientation) against the rank the config states.
func rankOf(p *pair, r int, says string) error {
	if got := p.a.Shape[0]; got != r {
		return fmt.Errorf("tensor %q has shape %v: rank %d, but "+says, p.a.Name, p.a.Shape, got, r)
	}
	if got := p.b.Shape[1]; got != r {
		return fmt.Errorf("tensor %q has shape %v: rank %d, but "+says, p.b.Name, p.b.Shape, got, r)
	}
	return nil
}

// mlxConfig is mlx-lm's adapter_config.json (the training arguments, of which these matter here).
type mlxConfig struct {
	FineTuneType string `json:"fine_tune_type"`
	LoRA         *struct {
		Rank  int      `json:"rank"`
		Scale *float64 `json:"scale"`
	} `json:"lora_parameters"`
}

func (a *Adapter) readMLX(raw []byte, f *safetensors.File) error {
	var c mlxConfig
	if err := json.Unmarshal(raw, &c); err != nil {
		return fmt.Errorf("%s: %w", ConfigFile, err)
	}
	switch {
	case c.FineTuneType != "" && c.FineTuneType != "lora":
		return fmt.Errorf("%s: fine_tune_type %q (only lora adapters are supported)", ConfigFile, c.FineTuneType)
	case c.LoRA == nil || c.LoRA.Scale == nil || c.LoRA.Rank <= 0:
		return fmt.Errorf("%s: lora_parameters needs a rank > 0 and a scale", ConfigFile)
	}
	split := func(name string) (string, bool, bool) {
		if mod, ok := strings.CutSuffix(name, ".lora_a"); ok {
			return mod, true, true
		}
		if mod, ok := strings.CutSuffix(name, ".lora_b"); ok {
			return mod, false, true
		}
		return "", false, false
	}
	mods, order, err := collect(f, split, "mlx-lm names them <module>.lora_a and .lora_b")
	if err != nil {
		return err
	}
	for _, mod := range order {
		p := mods[mod]
		// mlx-lm multiplies x·lora_a·lora_b: lora_a is [in, r] and lora_b [r, out], the transposes of A and B.
		r := c.LoRA.Rank
		for _, m := range []struct {
			got int
			n   string
			sh  []int
		}{{got: p.a.Shape[1], n: p.aName, sh: p.a.Shape}, {got: p.b.Shape[0], n: p.bName, sh: p.b.Shape}} {
			if m.got != r {
				return fmt.Errorf("tensor %q has shape %v: rank %d, but %s says lora_parameters.rank = %d", m.n, m.sh, m.got, ConfigFile, r)
			}
		}
		at, err := transpose(p.a, p.aName)
		if err != nil {
			return err
		}
		bt, err := transpose(p.b, p.bName)
		if err != nil {
			return err
		}
		a.Targets = append(a.Targets, Target{Module: mod, A: at, B: bt, ATensor: p.aName, BTensor: p.bName, Scale: *c.LoRA.Scale})
	}
	return nil
}
