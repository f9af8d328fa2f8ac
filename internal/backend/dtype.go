package backend

import (
	"encoding/binary"
	"fmt"
	"math"
)

// DType is an element type of a tensor, named as safetensors names them.
type DType uint8

const (
	Invalid DType = iota
	F32
	F16
	BF16
	I32
	U32
	U8
	I8
	I64
	F64
)

var dtypeInfo = [...]struct {
	name string
	size int
}{
	Invalid: {"invalid", 0},
	F32:     {"F32", 4},
	F16:     {"F16", 2},
	BF16:    {"BF16", 2},
	I32:     {"I32", 4},
	U32:     {"U32", 4},
	U8:      {"U8", 1},
	I8:      {"I8", 1},
	I64:     {"I64", 8},
	F64:     {"F64", 8},
}

// Size is the element size in bytes.
func (d DType) Size() int { return dtypeInfo[d].size }

func (d DType) String() string { return dtypeInfo[d].name }

// ParseDType maps a safetensors dtype string ("BF16", "F32", ...) to a DType.
func ParseDType(s string) (DType, error) {
	for i, info := range dtypeInfo {
		if i != int(Invalid) && info.name == s {
			return DType(i), nil
		}
	}
	return Invalid, fmt.Errorf("unknown dtype %q", s)
}

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
			out[i] = BF16ToF32(binary.LittleEndian.Uint16(h.Data[2*i:]))
		}
	case F16:
		for i := range out {
			out[i] = F16ToF32(binary.LittleEndian.Uint16(h.Data[2*i:]))
		}
	default:
		return nil, fmt.Errorf("tensor %s: dtype %s is not floating point", h.Name, h.DType)
	}
	return out, nil
}

// BF16ToF32 widens a bfloat16 bit pattern exactly.
func BF16ToF32(b uint16) float32 { return math.Float32frombits(uint32(b) << 16) }

// F32ToBF16 rounds to nearest even, keeping NaN a NaN.
func F32ToBF16(f float32) uint16 {
	u := math.Float32bits(f)
	if u&0x7fffffff > 0x7f800000 {
		return uint16(u>>16) | 0x40
	}
	u += 0x7fff + (u>>16)&1
	return uint16(u >> 16)
}

// F16ToF32 widens an IEEE half bit pattern exactly (subnormals, inf and NaN included).
func F16ToF32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	man := uint32(h) & 0x3ff
	switch {
	case exp == 0 && man == 0:
		return math.Float32frombits(sign)
	case exp == 0:
		// subnormal: value = man · 2^-24
		f := float32(man) * (1.0 / (1 << 24))
		if sign != 0 {
			f = -f
		}
		return f
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	}
	return math.Float32frombits(sign | (exp+112)<<23 | man<<13)
}

// F32ToF16 rounds to nearest even IEEE half.
func F32ToF16(f float32) uint16 {
	u := math.Float32bits(f)
	sign := uint16(u>>16) & 0x8000
	exp := int32(u>>23&0xff) - 127 + 15
	man := u & 0x7fffff
	if u&0x7fffffff > 0x7f800000 {
		return sign | 0x7e00
	}
	if exp >= 0x1f {
		return sign | 0x7c00
	}
	if exp <= 0 {
		if exp < -10 {
			return sign
		}
		man |= 0x800000
		shift := uint32(14 - exp)
		half := man >> shift
		rem := man & (1<<shift - 1)
		mid := uint32(1) << (shift - 1)
		if rem > mid || (rem == mid && half&1 == 1) {
			half++
		}
		return sign | uint16(half)
	}
	half := uint32(exp)<<10 | man>>13
	rem := man & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && half&1 == 1) {
		half++
	}
	return sign | uint16(half)
}

// HostF32 wraps float32 values as an F32 host tensor (little-endian), for tests and tools that make weights.
func HostF32(name string, v []float32, shape ...int) Host {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return Host{Name: name, DType: F32, Shape: shape, Data: b}
}
