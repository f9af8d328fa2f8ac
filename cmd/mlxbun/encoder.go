// The quantizer's search device (quantize --device): which backend runs the trellis encoder's block searches
// (trellis.Searcher, an optional capability of a backend). cpu is package trellis's own search; auto takes the
// best registered device that opens and has a search, else the CPU. The codes are the same on every device.
package main

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// encoderHelp is quantize's --device usage. The default stays cpu until a GPU has run the CUDA search and matched
// the CPU's codes bit for bit (scripts/device/quant.sh viterbi): until then cuda and auto are opt-in.
const encoderHelp = "device of the trellis search and the calibration model: cpu (the default), cuda, or auto (cuda when it opens, else the CPU); the codes are the same on each, the calibration Hessians equal to rounding"

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
		b.Close()
		if device == "auto" {
			log.Debug().Str("device", "cpu").Msg("trellis search: no device with a search kernel opened")
			return cpuOnly, nil
		}
		return quantDevice{}, fmt.Errorf("quantize: --device %s has no trellis search (use cpu or cuda)", device)
	}
	_, gram := b.(backend.Grammer)
	log.Info().Str("device", b.Name()).Bool("gram", gram).Msg("trellis search and calibration on the device")
	return quantDevice{search: s, calib: b, done: func() { b.Close() }}, nil
}
