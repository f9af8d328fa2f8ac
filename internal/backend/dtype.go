// Host tensors (a name, a shape and little-endian bytes in host memory) and the element types they hold, which
// package dtype owns along with the f16/bf16 conversions.
package backend

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/mlxbun/mlxbun/internal/dtype"
)

// DType is an element type of a tensor (package dtype owns it; the alias keeps backend.DType and its constants
// spelled as before).
type DType = dtype.DType

const (
	Invalid = dtype.Invalid
	F32     = dtype.F32
	F16     = dtype.F16
	BF16    = dtype.BF16
	I32     = dtype.I32
	U32     = dtype.U32
	U8      = dtype.U8
	I8      = dtype.I8
	I64     = dtype.I64
	F64     = dtype.F64
	I16     = dtype.I16
)

// ParseDType is dtype.Parse.
func ParseDType(s string) (DType, error) { return dtype.Parse(s) }

// Host is a tensor in host memory, often a view into a memory-mapped file.
type Host struct {
	Name  string
	DType DType
	Shape []int
	Data  []byte
}

// Elements is the product of the shape.
func (h Host) Elements() int {
	n := 1
	for _, s := range h.Shape {
		n *= s
	}
	return n
}

// Float32s converts a floating-point host tensor to a new []float32.
func (h Host) Float32s() ([]float32, error) {
	n := h.Elements()
	if len(h.Data) != n*h.DType.Size() {
		return nil, fmt.Errorf("tensor %s: %d bytes for %v %s", h.Name, len(h.Data), h.Shape, h.DType)
	}
	out := make([]float32, n)
	switch h.DType {
	case F32:
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(h.Data[4*i:]))
		}
	case BF16:
		for i := range out {
			out[i] = dtype.BF16ToF32(binary.LittleEndian.Uint16(h.Data[2*i:]))
		}
	case F16:
		for i := range out {
			out[i] = dtype.F16ToF32(binary.LittleEndian.Uint16(h.Data[2*i:]))
		}
	default:
		return nil, fmt.Errorf("tensor %s: dtype %s is not floating point", h.Name, h.DType)
	}
	return out, nil
}

// The conversions live in package dtype; these forwarders keep the backend spellings callers use.

// BF16ToF32 is dtype.BF16ToF32.
func BF16ToF32(b uint16) float32 { return dtype.BF16ToF32(b) }

// F32ToBF16 is dtype.F32ToBF16.
func F32ToBF16(f float32) uint16 { return dtype.F32ToBF16(f) }

// F16ToF32 is dtype.F16ToF32.
func F16ToF32(h uint16) float32 { return dtype.F16ToF32(h) }

// F32ToF16 is dtype.F32ToF16.
func F32ToF16(f float32) uint16 { return dtype.F32ToF16(f) }

// HostF32 wraps float32 values as an F32 host tensor (little-endian), for tests and tools that make weights.
func HostF32(name string, v []float32, shape ...int) Host {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return Host{Name: name, DType: F32, Shape: shape, Data: b}
}
