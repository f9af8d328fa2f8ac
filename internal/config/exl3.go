// exllamav3's quantization_config block (quant_method "exl3", docs/exl3-format.md section 1): what the converter
// wrote about an EXL3 model. The per-tensor storage (bits per weight, codebook) is read from the tensors
// themselves, as exllamav3's loader reads it; the block is validated so a malformed or unknown setting fails here.
package config

import (
	"fmt"
	"math"
)

// EXL3 is an exl3 quantization_config block.
type EXL3 struct {
	Version  string  // the converter's version ("1.4.1"); informational
	Bits     float64 // average bits per weight of the layers' projections: fractional rates mix K across tensors
	HeadBits int     // bits per weight of the output head
	// Codebook is the converter's codebook: "mul1", "mcg" or "3inst" (absent in files older than the key: "3inst",
	// the only codebook then). Each tensor's marker (<path>.mul1, <path>.mcg, none for 3inst) is what decodes it.
	Codebook string
	// OutScales is how the converter chose per-output-channel scales ("always", "never", "auto"); the scales, if
	// any, are folded into each tensor's svh, so decoding does not depend on it.
	OutScales        string
	CalRows, CalCols int // the calibration set's size (informational)
}

// EXL3Codebooks are the codebook names a block may give (the converter's -cb choices).
var EXL3Codebooks = map[string]bool{"mul1": true, "mcg": true, "3inst": true}

var exl3OutScales = map[string]bool{"always": true, "never": true, "auto": true}

// exl3Keys are the keys an exl3 block may hold (compile.py and quant_config.py write them; tensor_storage is
// quantization_config.json's per-module listing, original_quantization_config the source model's block).
var exl3Keys = map[string]bool{"quant_method": true, "version": true, "bits": true, "head_bits": true, "calibration": true,
	"out_scales": true, "codebook": true, "tensor_storage": true, "original_quantization_config": true}

// exl3 reads quantization_config when its quant_method is "exl3"; nil otherwise (quantization() judges other
// methods). A model with both an MLX quantization block and an exl3 one is refused: the two describe different
// tensors.
func (r *reader) exl3() *EXL3 {
	block, _ := r.m["quantization_config"].(map[string]any)
	if block == nil || block["quant_method"] != "exl3" {
		return nil
	}
	const key = "quantization_config"
	if r.m["quantization"] != nil {
		r.fail("both quantization (MLX) and an exl3 %s: a checkpoint is one or the other", key)
		return nil
	}
	qr := r.sub(key, block)
	for _, k := range sortedKeys(block) {
		if !exl3Keys[k] {
			qr.fail("%s: unknown key in an exl3 block (known: %s)", qr.name(k), joinKeys(exl3Keys))
			return nil
		}
	}
	e := &EXL3{Version: qr.str("version"), Codebook: qr.str("codebook"), OutScales: qr.str("out_scales")}
	if block["bits"] == nil {
		qr.fail("missing %s", qr.name("bits"))
	}
	e.Bits = qr.positiveFloat("bits", 0)
	if e.Bits > 8 || math.IsNaN(e.Bits) {
		qr.fail("%s %g is outside (0, 8]: EXL3 codes have 1 to 8 bits per weight", qr.name("bits"), e.Bits)
	}
	e.HeadBits = qr.positiveInt("head_bits", true)
	if e.HeadBits > 8 {
		qr.fail("%s %d is outside 1..8", qr.name("head_bits"), e.HeadBits)
	}
	if e.Codebook == "" && block["codebook"] == nil {
		e.Codebook = "3inst"
	}
	if !EXL3Codebooks[e.Codebook] {
		qr.fail("%s %q is not an EXL3 codebook (known: %s)", qr.name("codebook"), e.Codebook, joinKeys(EXL3Codebooks))
	}
	if e.OutScales != "" && !exl3OutScales[e.OutScales] {
		qr.fail("%s %q is not one of %s", qr.name("out_scales"), e.OutScales, joinKeys(exl3OutScales))
	}
	if cal := qr.object("calibration"); cal != nil {
		cr := qr.sub("calibration", cal)
		e.CalRows, e.CalCols = cr.positiveInt("rows", false), cr.positiveInt("cols", false)
	}
	return e
}

// String is the block as a log line.
func (e *EXL3) String() string {
	return fmt.Sprintf("exl3 %g bpw, head %d, codebook %s", e.Bits, e.HeadBits, e.Codebook)
}
