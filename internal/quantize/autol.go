// The trellis L of a run that leaves it to the quantizer (Options.L 0, `quantize --L auto`): the largest L the
// search device affords. L 16 codes about 8 % lower MSE than L 12 (docs/perf.md: unit-Gaussian rows, 2 and 3 bits)
// and took pycoder-12m's whole-heldout 2-bit artifact from 0.8252 to 0.8171 bits/byte, but its search costs ~16× L
// 12's (2^L states a position): on a GPU that is seconds (tiny-qwen3 2-bit L 16: 0.77 s on an H200 against 20.2 s
// on 16 CPU cores), on the CPU hours for a 1B model, so the CPU keeps L 12 and stays inside the CI budget.
package quantize

import (
	"fmt"
	"strings"

	"github.com/mlxbun/mlxbun/internal/trellis"
)

// ResolveL returns the L a run with o codes at and why, for the log and the summary: o.L when given; else DeviceL
// when o.Searcher is a device search (trellis.SpecSearcher) that serves every width in use (--bits and the
// --bits-per-path rules) at DeviceL itself, else DefaultL. One L serves the whole run (the run record and the
// config's default spec hold one), so a width the device would hand back to the CPU at DeviceL keeps the run at
// DefaultL. Run records the resolved L: a resume resolves again and must arrive at the same L (or name it).
func ResolveL(o Options) (L int, why string) {
	if o.L != 0 {
		return o.L, "given by --L"
	}
	s, ok := o.Searcher.(trellis.SpecSearcher)
	if !ok {
		return DefaultL, "auto: the trellis search runs on the CPU"
	}
	dev := "the device"
	if n, ok := s.(interface{ Name() string }); ok {
		dev = n.Name()
	}
	T := o.GroupSize
	if T == 0 {
		T = DefaultGroupSize
	}
	widths := []int{o.Bits}
	for _, r := range o.Rules {
		widths = append(widths, r.Bits)
	}
	for _, k := range widths {
		if err := s.SupportsSearch(trellis.Spec{K: k, L: DeviceL, T: T, Code: "1mad", Axis: 1}); err != nil {
			return DefaultL, fmt.Sprintf("auto: %s does not search %d-bit codes at L %d (%v), so L %d", dev, k, DeviceL, err, DefaultL)
		}
	}
	return DeviceL, "auto: the trellis search runs on " + dev
}

// resumeHint adds to --resume's refusal of a work folder made at another L when this run chose its L itself: the
// run was started where the search ran elsewhere (a GPU run resumed on the CPU, or the reverse), and an explicit
// --L resumes it here.
func (o *Options) resumeHint(name string) string {
	if name != "--L" || !strings.HasPrefix(o.lWhy, "auto") {
		return ""
	}
	return fmt.Sprintf("--L auto chose %d here (%s); give the --L it was made with to resume it", o.L, strings.TrimPrefix(o.lWhy, "auto: "))
}
