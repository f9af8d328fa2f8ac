// code1mad.cuh: the 1MAD computed code of a trellis state on the device, shared by the decoders (trellis.cu) and
// the encoder (viterbi.cu). internal/cuda prepends it, after common.cuh, to the files that use it (kernels.go,
// kernelHeaders). Must match internal/trellis/code.go (Code1MAD, Value1MAD, Rcp1MAD); TestTrellisConstants and
// TestTrellisRefinedValue check it.

// trellis_rcp: f32(1/147.800537109375), bit for bit trellis.Rcp1MAD (TestTrellisConstants reads this line).
__device__ __forceinline__ float trellis_rcp() { return __uint_as_float(0x3bddb447u); }

// trellis_value: y / 147.800537109375 correctly rounded (trellis.Value1MAD) for |y| ≤ 510 without a division: the
// reciprocal product refined by one residual step, q' = fma(fma(−q, d, y), rcp, q) (the seeds' trellis_refined_y);
// TestTrellisRefinedValue checks all 1021 codes against Go's correctly rounded division.
__device__ __forceinline__ float trellis_value(float y) {
    const float q = __fmul_rn(y, trellis_rcp());
    return fmaf(fmaf(-q, 147.800537109375f, y), trellis_rcp(), q);
}

// trellis_y: f32(Code1MAD(s)) for a masked state s.
__device__ __forceinline__ float trellis_y(unsigned s) {
    const unsigned x = s * 34038481u + 76625530u;
    unsigned u;
    asm("dp4a.u32.u32 %0, %1, %2, %3;" : "=r"(u) : "r"(x), "r"(0x01010101u), "r"(0x4B3FFE02u));
    return __uint_as_float(u) - 12582912.0f; // (1.5·2^23 + y) − 1.5·2^23, exact for |y| ≤ 510
}
