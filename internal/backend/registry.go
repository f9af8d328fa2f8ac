package backend

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Device is a registered backend kind: a name, a preference rank for "auto", and how to open it.
type Device struct {
	Name string
	Rank int // higher wins under "auto"
	Open func() (Backend, error)
}

var devices []Device

// Register adds a device kind; backends call it from init.
func Register(d Device) {
	devices = append(devices, d)
	sort.SliceStable(devices, func(i, j int) bool { return devices[i].Rank > devices[j].Rank })
}

// Devices lists the registered kinds, best first.
func Devices() []string {
	out := make([]string, len(devices))
	for i, d := range devices {
		out[i] = d.Name
	}
	return out
}

// Open opens the named device, or for "auto" the best one that opens on this machine.
func Open(name string) (Backend, error) {
	if name == "auto" {
		var errs []error
		for _, d := range devices {
			b, err := d.Open()
			if err == nil {
				return b, nil
			}
			errs = append(errs, fmt.Errorf("%s: %w", d.Name, err))
		}
		return nil, fmt.Errorf("no device could be opened: %w", errors.Join(errs...))
	}
	for _, d := range devices {
		if d.Name == name {
			b, err := d.Open()
			if err != nil {
				return nil, fmt.Errorf("device %s: %w", name, err)
			}
			return b, nil
		}
	}
	return nil, fmt.Errorf("unknown device %q (this build has: auto, %s)", name, strings.Join(Devices(), ", "))
}
