// Named adapter sets, chosen per Forward call: a server loads several LoRA adapters once (serve --adapter
// NAME=DIR) and each request names the one it wants. Deltas attached by AttachAdapters apply always; those of a
// named set only while it is selected, so one batch step serves the requests of one set (the scheduler groups its
// rows by set). A recorded graph is keyed by the set as well, since the set's deltas are part of its ops.
package model

import (
	"fmt"
	"slices"

	"github.com/mlxbun/mlxbun/internal/lora"
)

// adapterSets are the named sets attached and the one selected (0: none).
type adapterSets struct {
	setNames  []string // set k is setNames[k-1]
	activeSet int
}

// AttachAdapterSet uploads ads as the named set name, applied only to Forward calls made while it is selected
// (UseAdapterSet). The adapters are checked against the model and asked of the device first, as AttachAdapters
// does.
func (m *Model) AttachAdapterSet(name string, ads []*lora.Adapter) error {
	if name == "" || slices.Contains(m.setNames, name) {
		return fmt.Errorf("adapter set %q: the name is empty or already taken", name)
	}
	if err := m.attachAdapters(ads, len(m.setNames)+1); err != nil {
		return fmt.Errorf("adapter set %q: %w", name, err)
	}
	m.setNames = append(m.setNames, name)
	return nil
}

// UseAdapterSet selects the named set for the Forward calls that follow; "" selects none (the base model, with
// the adapters of AttachAdapters only).
func (m *Model) UseAdapterSet(name string) error {
	if name == "" {
		m.activeSet = 0
		return nil
	}
	i := slices.Index(m.setNames, name)
	if i < 0 {
		return fmt.Errorf("no adapter set %q (loaded: %v)", name, m.setNames)
	}
	m.activeSet = i + 1
	return nil
}

// AdapterSets lists the named sets in the order they were attached.
func (m *Model) AdapterSets() []string { return slices.Clone(m.setNames) }
