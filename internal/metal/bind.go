// Argument packing between a kernels.go Launch and the encoder, platform-neutral so it is tested on Linux: each
// buffer argument gets the tensor playing its role, at its index, and the parameter struct goes at ParamIndex
// by setBytes. Anything Metal would take silently — a role with no tensor bound (a stale binding from the
// previous launch), two arguments at one index, the parameters over a buffer — is an error naming the kernel.
package metal

import (
	"fmt"
	"slices"
)

// maxBufferIndex is Metal's argument-table size for buffers (indices 0..30).
const maxBufferIndex = 30

// Bound is one buffer argument resolved to the value playing its role.
type Bound[T any] struct {
	Index int
	Value T
}

// Bind resolves l's buffer arguments from roles, in argument order.
func Bind[T any](l Launch, roles map[Role]T) ([]Bound[T], error) {
	used := map[int]Role{}
	out := make([]Bound[T], 0, len(l.Args))
	for _, a := range l.Args {
		v, ok := roles[a.Role]
		if !ok {
			return nil, fmt.Errorf("metal: launch %s: no tensor bound to %s (buffer %d)", l.Function, a.Role, a.Index)
		}
		if a.Index < 0 || a.Index > maxBufferIndex {
			return nil, fmt.Errorf("metal: launch %s: %s at buffer index %d outside 0..%d", l.Function, a.Role, a.Index, maxBufferIndex)
		}
		if r, dup := used[a.Index]; dup {
			return nil, fmt.Errorf("metal: launch %s: %s and %s both at buffer index %d", l.Function, r, a.Role, a.Index)
		}
		used[a.Index] = a.Role
		out = append(out, Bound[T]{a.Index, v})
	}
	if len(l.Params) > 0 {
		if r, dup := used[l.ParamIndex]; dup {
			return nil, fmt.Errorf("metal: launch %s: parameters at buffer index %d, where %s is bound", l.Function, l.ParamIndex, r)
		}
		if l.ParamIndex < 0 || l.ParamIndex > maxBufferIndex {
			return nil, fmt.Errorf("metal: launch %s: parameters at buffer index %d outside 0..%d", l.Function, l.ParamIndex, maxBufferIndex)
		}
		if len(l.Params) > 4096 {
			return nil, fmt.Errorf("metal: launch %s: %d parameter bytes, setBytes takes at most 4096", l.Function, len(l.Params))
		}
	}
	return out, nil
}

// Roles lists the roles a plan's launches bind, each once, in first-use order: what a caller must provide.
func (p Plan) Roles() []Role {
	var out []Role
	for _, l := range p.Launches {
		for _, a := range l.Args {
			if !slices.Contains(out, a.Role) {
				out = append(out, a.Role)
			}
		}
	}
	return out
}
