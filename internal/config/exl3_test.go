package config

import (
	"errors"
	"testing"

	"github.com/mlxbun/mlxbun/internal/testutil"
)

// TestEXL3Fixtures parses the config.json exllamav3's converter wrote for each shared EXL3 fixture.
func TestEXL3Fixtures(t *testing.T) {
	for _, c := range []struct {
		dir      string
		bits     float64
		codebook string
	}{
		{"exl3/pycoder-12m-exl3-2.0-mul1", 2, "mul1"},
		{"exl3/pycoder-12m-exl3-3.0-mul1", 3, "mul1"},
		{"exl3/pycoder-12m-exl3-4.0-mul1", 4, "mul1"},
		{"exl3/pycoder-12m-exl3-3.0-mcg", 3, "mcg"},
	} {
		t.Run(c.dir, func(t *testing.T) {
			m, err := load(testutil.Fixture(t, c.dir))
			if err != nil {
				t.Fatal(err)
			}
			want := EXL3{Version: "1.4.1", Bits: c.bits, HeadBits: 6, Codebook: c.codebook, OutScales: "always", CalRows: 250, CalCols: 2048}
			if m.EXL3 == nil || *m.EXL3 != want {
				t.Errorf("exl3 block %+v, want %+v", m.EXL3, want)
			}
			if m.Quant != nil {
				t.Errorf("an exl3 model has an MLX quantization block %+v", m.Quant)
			}
		})
	}
}

func TestEXL3Block(t *testing.T) {
	m := parse(t, `"quantization_config":{"quant_method":"exl3","bits":2.25,"head_bits":8}`, "")
	if want := (EXL3{Bits: 2.25, HeadBits: 8, Codebook: "3inst"}); m.EXL3 == nil || *m.EXL3 != want {
		t.Errorf("block without codebook: %+v, want %+v (3inst, the codebook before the key existed)", m.EXL3, want)
	}
	m = parse(t, `"quantization_config":{"quant_method":"exl3","bits":5,"head_bits":6,"codebook":"3inst","out_scales":"auto",`+
		`"tensor_storage":{},"original_quantization_config":{"quant_method":"fp8"}}`, "")
	if want := (EXL3{Bits: 5, HeadBits: 6, Codebook: "3inst", OutScales: "auto"}); m.EXL3 == nil || *m.EXL3 != want {
		t.Errorf("block %+v, want %+v", m.EXL3, want)
	}
}

func TestEXL3Rejects(t *testing.T) {
	full := func(extra string) string { return "{" + base + "," + extra + "}" }
	const q = `"quantization_config":{"quant_method":"exl3",`
	for _, c := range []struct{ name, cfg, want string }{
		{"no bits", full(q + `"head_bits":6}`), "config.json: missing quantization_config.bits"},
		{"bits 9", full(q + `"bits":9,"head_bits":6}`), "config.json: quantization_config.bits 9 is outside (0, 8]: EXL3 codes have 1 to 8 bits per weight"},
		{"bits string", full(q + `"bits":"3","head_bits":6}`), `config.json: quantization_config.bits must be a positive number, got "3"`},
		{"no head bits", full(q + `"bits":3}`), "config.json: missing quantization_config.head_bits"},
		{"head bits 9", full(q + `"bits":3,"head_bits":9}`), "config.json: quantization_config.head_bits 9 is outside 1..8"},
		{"fractional head bits", full(q + `"bits":3,"head_bits":6.5}`), "config.json: quantization_config.head_bits must be a positive integer, got 6.5"},
		{"unknown codebook", full(q + `"bits":3,"head_bits":6,"codebook":"1mad"}`),
			`config.json: quantization_config.codebook "1mad" is not an EXL3 codebook (known: 3inst, mcg, mul1)`},
		{"bad out scales", full(q + `"bits":3,"head_bits":6,"out_scales":"sometimes"}`),
			`config.json: quantization_config.out_scales "sometimes" is not one of always, auto, never`},
		{"bad calibration", full(q + `"bits":3,"head_bits":6,"calibration":{"rows":-1}}`),
			"config.json: quantization_config.calibration.rows must be a positive integer, got -1"},
		{"unknown key", full(q + `"bits":3,"head_bits":6,"group_size":128}`),
			"config.json: quantization_config.group_size: unknown key in an exl3 block (known: bits, calibration, codebook, head_bits, " +
				"original_quantization_config, out_scales, quant_method, tensor_storage, version)"},
		{"with an MLX block", full(`"quantization":{"bits":4,"group_size":64},` + q + `"bits":3,"head_bits":6}`),
			"config.json: both quantization (MLX) and an exl3 quantization_config: a checkpoint is one or the other"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := Parse([]byte(c.cfg), nil)
			if err == nil {
				t.Fatalf("accepted: %+v", m.EXL3)
			}
			if err.Error() != c.want {
				t.Errorf("error\n got %s\nwant %s", err, c.want)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Error("error does not wrap ErrInvalid")
			}
		})
	}
}
