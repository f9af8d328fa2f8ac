// The device registry: backends register a kind from init, and a caller opens one by name or lets "auto" pick
// the best that opens and serves the whole model (OpenFor, asked with the model's queries before any weight is
// read).
package backend

import (
	"fmt"
	"slices"
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

// Open opens the named device, or for "auto" the best one that opens on this machine (OpenFor with no queries).
func Open(name string) (Backend, error) {
	b, _, err := OpenFor(name, nil)
	return b, err
}

// OpenFor opens a device for a model whose linear layers are qs (model.Queries) and returns one line saying
// which device it is and why, for the caller to log. "auto" tries the devices best first and passes over one
// that does not open or does not serve every query, naming the first layer it cannot serve; a named device that
// cannot serve one fails with its *UnsupportedError, naming the layer and its format. Either way no weight has
// been read: the queries come from the config and the tensor headers.
// Choice is the device OpenFor picked and why, as one line. FellBack is set when a better device opened but could
// not serve the model (the user has that device and gets a slower one: worth a warning, not just an info line).
type Choice struct {
	Line     string
	FellBack bool
}

func OpenFor(name string, qs []Query) (Backend, Choice, error) {
	serves := fmt.Sprintf("serves all %d linear layers", len(qs))
	if len(qs) == 0 {
		serves = "opened (no layers asked about)"
	}
	if name != "auto" {
		i := slices.IndexFunc(devices, func(d Device) bool { return d.Name == name })
		if i < 0 {
			return nil, Choice{}, fmt.Errorf("unknown device %q (this build has: auto, %s)", name, strings.Join(Devices(), ", "))
		}
		b, err := devices[i].Open()
		if err != nil {
			return nil, Choice{}, fmt.Errorf("device %s: %w", name, err)
		}
		if err := SupportsAll(b, qs); err != nil {
			b.Close()
			return nil, Choice{}, err
		}
		return b, Choice{Line: fmt.Sprintf("device %s: as named; it %s", name, serves)}, nil
	}
	var passed passedOver
	opened := false // a device passed over had opened: it exists here but cannot serve the model
	for _, d := range devices {
		b, err := d.Open()
		if err != nil {
			passed = append(passed, fmt.Errorf("%s did not open: %w", d.Name, err))
			continue
		}
		if err := SupportsAll(b, qs); err != nil {
			b.Close()
			passed = append(passed, err)
			opened = true
			continue
		}
		if len(passed) == 0 {
			return b, Choice{Line: fmt.Sprintf("device %s: the best device; it %s", d.Name, serves)}, nil
		}
		return b, Choice{Line: fmt.Sprintf("device %s: %s", d.Name, passed.Error()), FellBack: opened}, nil
	}
	return nil, Choice{}, fmt.Errorf("no device can run this model: %w", passed)
}

// passedOver is why "auto" passed over each better device, as one line; errors.Is and errors.As see each.
type passedOver []error

func (p passedOver) Error() string {
	s := make([]string, len(p))
	for i, e := range p {
		s[i] = e.Error()
	}
	return strings.Join(s, "; ")
}

func (p passedOver) Unwrap() []error { return p }
