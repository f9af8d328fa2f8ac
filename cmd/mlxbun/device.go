// Opening the device a model runs on: the registry picks a device that serves every query (one per linear layer),
// or fails a named one that cannot, before any weight is read. The choice and its reason are one log line.
package main

import (
	"github.com/mlxbun/mlxbun/internal/backend"
)

// openFor opens device for a model with the given queries and logs which device it is and why.
func openFor(device string, qs []backend.Query) (backend.Backend, error) {
	b, choice, err := backend.OpenFor(device, qs)
	if err != nil {
		return nil, err
	}
	if choice.FellBack {
		log.Warn().Msg(choice.Line) // a GPU is here but this model runs on a slower device: say so by default
	} else {
		log.Info().Msg(choice.Line)
	}
	return b, nil
}
