// The quantizer's search device (quantize --device) and the L it affords (--L auto): which backend runs the
// trellis encoder's block searches (trellis.Searcher, an optional capability of a backend). cpu is package
// trellis's own search; auto (the default) takes the best registered device that opens and has a search, else the
// CPU. The codes are the same on every device; the L auto chooses is not (16 on a GPU, 12 on the CPU).
package main

import (
	"fmt"
	"strconv"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/quantize"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// encoderHelp is quantize's --device usage. The default is auto since the H200 ran the CUDA search and matched the
// CPU's codes bit for bit through quantize (docs/perf.md, "Encoder on the GPU": scripts/device/quant.sh viterbi).
const encoderHelp = "device of the trellis search and the calibration model: auto (cuda when it opens, else the CPU), cpu or cuda; the codes are the same on each, the calibration Hessians equal to rounding"

// lHelp is quantize's --L usage (quantize.ResolveL chooses for auto).
var lHelp = fmt.Sprintf("trellis state bits: auto (%d when the trellis search runs on a GPU, %d on the CPU) or bits..%d; encoding time grows as 2^L",
	quantize.DeviceL, quantize.DefaultL, trellis.MaxL)

// parseL reads --L: auto is 0 (quantize.ResolveL chooses once the device is open), else a number of state bits of
// at least 1 (the quantizer checks it against --bits and the largest L).
func parseL(s string) (int, error) {
	if s == "auto" {
		return 0, nil
	}
	L, err := strconv.Atoi(s)
	if err != nil || L < 1 {
		return 0, fmt.Errorf("quantize: --L %s: want auto or a number of trellis state bits, --bits..%d", s, trellis.MaxL)
	}
	return L, nil
}

// quantDevice is what --device opened for quantize: the search (nil: the CPU's) and the calibration model's
// backend (nil: the quantizer's own CPU backend). done releases the device.
type quantDevice struct {
	search trellis.Searcher
	calib  backend.Backend
	done   func()
}

// openEncoder opens the device for quantize. A device serves both the trellis search and the calibration model
// (sampling and Hessians, accumulated on it when it has a Gram op); auto without a device that has a search is
// the CPU for both.
func openEncoder(device string) (quantDevice, error) {
	cpuOnly := quantDevice{done: func() {}}
	if device == "cpu" {
		return cpuOnly, nil
	}
	b, err := backend.Open(device)
	if err != nil {
		return quantDevice{}, fmt.Errorf("quantize: --device %s: %w", device, err)
	}
	s, ok := b.(trellis.Searcher)
	if !ok {
		name := b.Name()
		b.Close()
		if device == "auto" {
			log.Debug().Str("device", "cpu").Str("opened", name).Msg("trellis search and calibration on the CPU: no device with a search kernel opened")
			return cpuOnly, nil
		}
		return quantDevice{}, fmt.Errorf("quantize: --device %s has no trellis search (use cpu or cuda)", device)
	}
	_, gram := b.(backend.Grammer)
	log.Info().Str("device", b.Name()).Bool("gram", gram).Msg("trellis search and calibration on the device")
	return quantDevice{search: s, calib: b, done: func() { b.Close() }}, nil
}
