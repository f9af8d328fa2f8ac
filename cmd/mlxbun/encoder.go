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
const encoderHelp = "device of the trellis search: cpu (the default), cuda, or auto (cuda when it opens, else the CPU); the codes are the same on each"

// openEncoder opens the search device for quantize: a nil Searcher means the CPU's. done releases the device.
func openEncoder(device string) (s trellis.Searcher, done func(), err error) {
	none := func() {}
	if device == "cpu" {
		return nil, none, nil
	}
	b, err := backend.Open(device)
	if err != nil {
		return nil, nil, fmt.Errorf("quantize: --device %s: %w", device, err)
	}
	s, ok := b.(trellis.Searcher)
	if !ok {
		b.Close()
		if device == "auto" {
			log.Debug().Str("device", "cpu").Msg("trellis search: no device with a search kernel opened")
			return nil, none, nil
		}
		return nil, nil, fmt.Errorf("quantize: --device %s has no trellis search (use cpu or cuda)", device)
	}
	log.Info().Str("device", b.Name()).Msg("trellis search on the device")
	return s, func() { b.Close() }, nil
}
