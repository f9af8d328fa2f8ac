//go:build goexperiment.simd

// Vector kernels for the CPU matmul on x86-64 with AVX2 and FMA, built when GOEXPERIMENT=simd (the Makefile sets
// it); other builds keep the scalar kernels of linear.go. Sums run in 8 float32 lanes, so results differ from
// the scalar order only within float32 rounding.
package cpu

import "simd/archsimd"

func init() {
	if archsimd.X86.AVX2() && archsimd.X86.FMA() {
		tileRows, tileCols, tile, dot, kernels = 2, 4, tile2x4AVX2, dotAVX2, "avx2-fma"
	}
}

// hsum adds the 8 lanes of v.
func hsum(v archsimd.Float32x8) float32 {
	var a [8]float32
	v.Store(&a)
	archsimd.ClearAVXUpperBits()
	return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]))
}

// tile2x4AVX2 computes y[r..r+2, o..o+4]: 8 vector accumulators, 6 loads per 8 positions.
func tile2x4AVX2(y, x, w []float32, r, o, in, out int) {
	x0, x1 := x[r*in:(r+1)*in], x[(r+1)*in:(r+2)*in]
	w0, w1, w2, w3 := w[o*in:(o+1)*in], w[(o+1)*in:(o+2)*in], w[(o+2)*in:(o+3)*in], w[(o+3)*in:(o+4)*in]
	var s00, s01, s02, s03, s10, s11, s12, s13 archsimd.Float32x8
	k := 0
	for ; k+8 <= in; k += 8 {
		a0 := archsimd.LoadFloat32x8Slice(x0[k:])
		a1 := archsimd.LoadFloat32x8Slice(x1[k:])
		b := archsimd.LoadFloat32x8Slice(w0[k:])
		s00, s10 = a0.MulAdd(b, s00), a1.MulAdd(b, s10)
		b = archsimd.LoadFloat32x8Slice(w1[k:])
		s01, s11 = a0.MulAdd(b, s01), a1.MulAdd(b, s11)
		b = archsimd.LoadFloat32x8Slice(w2[k:])
		s02, s12 = a0.MulAdd(b, s02), a1.MulAdd(b, s12)
		b = archsimd.LoadFloat32x8Slice(w3[k:])
		s03, s13 = a0.MulAdd(b, s03), a1.MulAdd(b, s13)
	}
	res := [8]float32{hsum(s00), hsum(s01), hsum(s02), hsum(s03), hsum(s10), hsum(s11), hsum(s12), hsum(s13)}
	archsimd.ClearAVXUpperBits()
	for ; k < in; k++ {
		for j, wj := range [4][]float32{w0, w1, w2, w3} {
			res[j] += x0[k] * wj[k]
			res[4+j] += x1[k] * wj[k]
		}
	}
	copy(y[r*out+o:r*out+o+4], res[:4])
	copy(y[(r+1)*out+o:(r+1)*out+o+4], res[4:])
	// Leave no dirty upper halves behind: the scalar (SSE-encoded) code after us would pay a transition penalty
	// on every instruction (measured: math.Exp 40× slower).
	archsimd.ClearAVXUpperBits()
}

// dotAVX2 is a dot product in two 8-lane accumulators.
func dotAVX2(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1 archsimd.Float32x8
	k := 0
	for ; k+16 <= len(a); k += 16 {
		s0 = archsimd.LoadFloat32x8Slice(a[k:]).MulAdd(archsimd.LoadFloat32x8Slice(b[k:]), s0)
		s1 = archsimd.LoadFloat32x8Slice(a[k+8:]).MulAdd(archsimd.LoadFloat32x8Slice(b[k+8:]), s1)
	}
	sum := hsum(s0.Add(s1))
	archsimd.ClearAVXUpperBits()
	for ; k < len(a); k++ {
		sum += a[k] * b[k]
	}
	return sum
}
