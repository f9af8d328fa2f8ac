// Random Hadamard rotations of incoherence-processed linears (docs/trellis-format.md section 11): binding a
// module's sign vectors (<path>.rht_in, <path>.rht_out) as device rotations, and applying them around the matmuls
// of the shared forward pass. Linears that read the same activation with the same input signs (q/k/v, gate/up, as
// the quantizer writes them) share one rotation object, so the activation is rotated once for all of them.
package model

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/family"
	"github.com/mlxbun/mlxbun/internal/rht"
)

// Sign tensor suffixes beside <path>.weight / <path>.scales: I8 [in] and I8 [out], each value +1 or −1.
const (
	SignsIn  = ".rht_in"
	SignsOut = ".rht_out"
)

// rotation is one side's rotation on the device: signs F32 [n], the Hadamard block.
type rotation struct {
	signs backend.Tensor
	host  []float32
	n     int
	block int
}

// linRot is a linear's input and output rotations (nil: that side is not rotated).
type linRot struct{ in, out *rotation }

// signs reads and checks <path><suffix> (I8 [n], ±1) and returns the device rotation, shared with every earlier
// module of the same signs; nil when the tensor is absent.
func (w *binder) signs(path, suffix string, n int) *rotation {
	name := path + suffix
	if w.err != nil || !w.m.arch.Has(name) {
		return nil
	}
	if q := w.m.Config.Quant; q == nil || q.Rotation == nil {
		w.fail(fmt.Errorf("tensor %q: rotation signs, but config.json's quantization block has no \"rotation\" entry", name))
		return nil
	}
	h, err := w.m.arch.Tensor(name)
	if err != nil {
		w.fail(err)
		return nil
	}
	if h.DType != backend.I8 || len(h.Shape) != 1 || h.Shape[0] != n {
		w.fail(fmt.Errorf("tensor %q is %s %v, want I8 [%d]", name, h.DType, h.Shape, n))
		return nil
	}
	block := rht.Block(n)
	if block == 0 {
		w.fail(fmt.Errorf("tensor %q: %d features have no Hadamard block (a power of two ≥ %d dividing them)", name, n, rht.MinBlock))
		return nil
	}
	key := fmt.Sprintf("%d:%s", block, h.Data)
	if r, ok := w.rots[key]; ok {
		return r
	}
	s := make([]float32, n)
	for i, b := range h.Data {
		switch int8(b) {
		case 1:
			s[i] = 1
		case -1:
			s[i] = -1
		default:
			w.fail(fmt.Errorf("tensor %q: element %d is %d, want +1 or −1", name, i, int8(b)))
			return nil
		}
	}
	t := w.upload(backend.HostF32(name, s, n))
	if t == nil {
		return nil
	}
	r := &rotation{signs: t, host: s, n: n, block: block}
	if w.rots == nil {
		w.rots = map[string]*rotation{}
	}
	w.rots[key] = r
	return r
}

// rotations binds module l's sign vectors. An output rotation needs the module's rows in their stored order and
// whole (no fused parts, no regrouped heads); its bias, if any, is rotated with it (rotateBias).
func (w *binder) rotations(l family.Linear) linRot {
	r := linRot{in: w.signs(l.Path, SignsIn, l.In), out: w.signs(l.Path, SignsOut, l.Out)}
	if r.out != nil && (l.Fused() || l.Regroup() != nil) {
		w.fail(fmt.Errorf("tensor %q: an output rotation on a fused or regrouped projection is not supported", l.Path+SignsOut))
	}
	return r
}

// rotateBias is R_out·bias: the bias in the rotated output basis, so y = R_outᵀ·(x'·W̃ᵀ + R_out·b) = x·Wᵀ + b.
func rotateBias(b backend.Host, r *rotation) (backend.Host, error) {
	v, err := b.Float32s()
	if err != nil {
		return b, fmt.Errorf("tensor %q: %w", b.Name, err)
	}
	rht.Apply(v, v, r.host, nil, r.block)
	data := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(x))
	}
	return backend.Host{Name: b.Name, DType: backend.F32, Shape: b.Shape, Data: data}, nil
}

// rotInput is one activation feeding several linears: it holds x rotated by the last input rotation asked for,
// in the workspace's scratch of x's width, while no other rotInput has reused that scratch.
type rotInput struct {
	m   *Model
	ws  *workspace
	x   backend.Tensor
	cur *rotation
}

func (m *Model) rotated(ws *workspace, x backend.Tensor) *rotInput {
	return &rotInput{m: m, ws: ws, x: x}
}

// by is the input of a linear with input rotation rot: x itself when rot is nil, else R·x (computed once for a run
// of linears sharing rot).
func (r *rotInput) by(rot *rotation) backend.Tensor {
	if rot == nil {
		return r.x
	}
	buf := r.ws.rot[rot.n]
	if r.x == r.ws.xn {
		r.m.inputNorm(r.ws) // the rotation reads the norm: no longer deferred
	}
	if r.cur != rot || r.ws.rotHeld[rot.n] != r {
		r.m.rotor.Hadamard(buf, r.x, rot.signs, nil, rot.block)
		r.cur = rot
		r.ws.rotHeld[rot.n] = r
	}
	return buf
}

// rotateOut rotates a linear's output back to the original basis in place (y = R_outᵀ·y'), when it has an
// output rotation.
func (m *Model) rotateOut(dst backend.Tensor, r linRot) {
	if r.out != nil {
		m.rotor.Hadamard(dst, dst, nil, r.out.signs, r.out.block)
	}
}

// Tap receives a linear input as the forward pass computes it (before any rotation): layer, the slot of the first
// linear reading it (family.Q for q/k/v, O, Gate for gate/up, Down) and the activation [rows, width]. The
// quantizer's calibration collects Hessians through it, on any backend.
type Tap func(layer int, slot family.Slot, x backend.Tensor)

// SetTap installs (or, with nil, removes) the tap; while one is set, Forward records no graphs on a Recorder
// backend (it runs the ops every time, so the tap sees each step's activations).
func (m *Model) SetTap(t Tap) { m.tapFn = t }

func (m *Model) tap(layer int, slot family.Slot, x backend.Tensor) {
	if m.tapFn != nil {
		m.tapFn(layer, slot, x)
	}
}
