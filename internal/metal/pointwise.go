// The Metal backend's optional element-wise ops and the rotation: backend.ScaledAdder (LoRA adapters),
// backend.Scaler, backend.Softcapper and backend.GeGLUer (Gemma) and backend.Rotator (rotated trellis models),
// each one launch of pointwise.metal planned by kernels.go. Supports answers them from extraOpForms (support.go).
package metal

import (
	"fmt"

	"github.com/mlxbun/mlxbun/internal/backend"
)

var (
	_ backend.ScaledAdder = (*Backend)(nil)
	_ backend.Scaler      = (*Backend)(nil)
	_ backend.Softcapper  = (*Backend)(nil)
	_ backend.GeGLUer     = (*Backend)(nil)
	_ backend.Rotator     = (*Backend)(nil)
)

// AddScaled: dst = a + f32(s·b) (dst may alias a or b).
func (b *Backend) AddScaled(dst, a, x backend.Tensor, s float32) {
	d, aa, xx := tensorOf("AddScaled", dst), tensorOf("AddScaled", a), tensorOf("AddScaled", x)
	sameShape("AddScaled", d, aa)
	sameShape("AddScaled", aa, xx)
	if !b.f32("AddScaled", d, aa, xx) {
		return
	}
	b.run(PlanAddScaled(d.elems(), s), map[Role]*Tensor{RoleDst: d, RoleA: aa, RoleB: xx})
}

// Scale: dst = f32(x·s).
func (b *Backend) Scale(dst, x backend.Tensor, s float32) {
	d, xx := tensorOf("Scale", dst), tensorOf("Scale", x)
	sameShape("Scale", d, xx)
	if !b.f32("Scale", d, xx) {
		return
	}
	b.run(PlanScale(d.elems(), s), map[Role]*Tensor{RoleDst: d, RoleX: xx})
}

// Softcap: dst = tanh(x/c)·c for c > 0.
func (b *Backend) Softcap(dst, x backend.Tensor, c float32) {
	d, xx := tensorOf("Softcap", dst), tensorOf("Softcap", x)
	sameShape("Softcap", d, xx)
	if !b.f32("Softcap", d, xx) {
		return
	}
	if !(c > 0) {
		b.fail(fmt.Errorf("metal: softcap: cap %v, want > 0", c))
		return
	}
	b.run(PlanSoftcap(d.elems(), c), map[Role]*Tensor{RoleDst: d, RoleX: xx})
}

// GeGLU: dst = gelu_tanh(gate)·up.
func (b *Backend) GeGLU(dst, gate, up backend.Tensor) {
	d, g, u := tensorOf("GeGLU", dst), tensorOf("GeGLU", gate), tensorOf("GeGLU", up)
	sameShape("GeGLU", d, g)
	sameShape("GeGLU", g, u)
	if !b.f32("GeGLU", d, g, u) {
		return
	}
	b.run(PlanGeGLU(d.elems()), map[Role]*Tensor{RoleDst: d, RoleA: g, RoleB: u})
}

// Hadamard: dst = post ⊙ H_b(pre ⊙ x)/√b per row and run of block columns (pre, post nil or f32 [cols]).
func (b *Backend) Hadamard(dst, x, pre, post backend.Tensor, block int) {
	d, xx := tensorOf("Hadamard", dst), tensorOf("Hadamard", x)
	if !b.f32("Hadamard", d, xx) {
		return
	}
	rows, cols := rows2("Hadamard", "x", xx)
	if d.elems() != xx.elems() {
		backend.ShapeError("Hadamard", "dst", d.shape, xx.shape)
	}
	roles := map[Role]*Tensor{RoleDst: d, RoleX: xx, RolePre: xx, RolePost: xx}
	for _, s := range []struct {
		t    backend.Tensor
		role Role
	}{{pre, RolePre}, {post, RolePost}} {
		if s.t == nil {
			continue
		}
		st := tensorOf("Hadamard", s.t)
		if st.dt != backend.F32 || st.elems() != cols {
			backend.ShapeError("Hadamard", string(s.role)+" signs", st.shape, []int{cols})
		}
		roles[s.role] = st
	}
	p, err := PlanHadamard(rows, cols, block, pre != nil, post != nil)
	if err != nil {
		b.fail(err)
		return
	}
	if rows == 0 {
		return
	}
	b.run(p, roles)
}
