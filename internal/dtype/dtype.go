// Package dtype names tensor element types as safetensors spells them and converts float32 to and from the two
// 16-bit float formats, IEEE binary16 (f16) and bfloat16 (bf16), rounding to nearest even (half.go). It is a leaf:
// it imports only the standard library, so every package that touches raw tensor bytes can share it.
package dtype

import "fmt"

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
	I16 // exllamav3's trellis tiles (internal/exl3)
)

var info = [...]struct {
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
	I16:     {"I16", 2},
}

// Size is the element size in bytes.
func (d DType) Size() int { return info[d].size }

func (d DType) String() string { return info[d].name }

// Float reports whether d is a floating-point type (F16, BF16, F32, F64).
func (d DType) Float() bool { return d == F16 || d == BF16 || d == F32 || d == F64 }

// Parse maps a safetensors dtype string ("BF16", "F32", ...) to a DType.
func Parse(s string) (DType, error) {
	for i, in := range info {
		if i != int(Invalid) && in.name == s {
			return DType(i), nil
		}
	}
	return Invalid, fmt.Errorf("unknown dtype %q", s)
}
