// common.metal: what every Metal kernel file shares — the parameter structs (mirrored field for field by
// internal/metal/kernels.go, whose layout test compares sizes with the compiled ones), bf16/f16 bit conversions,
// and the trellis 1MAD decode. The runtime compiles it first, then the other files, as one library with fast
// math off; `fp contract(off)` keeps a·b + c two roundings where the CPU reference rounds twice.
#include <metal_stdlib>
using namespace metal;
#pragma METAL fp contract(off)

#ifndef MLXBUN_COMMON_METAL
#define MLXBUN_COMMON_METAL

// ---- parameter structs (all 4-byte fields: no padding on either side) ----
struct EmbedParams { uint n, d, vocab; };
struct NormParams { uint groups, g; float eps; };
struct RopeParams { uint n, heads, hd, dims, traditional; float prescale; };
struct NormRopeParams { RopeParams r; float eps; };
struct EltParams { uint n; };
struct ArgmaxParams { uint rows, vocab; };
struct BitmaskParams { uint rows, vocab, words; };
struct KVStoreParams { uint n, width, seqs, max_len, layer; };
struct AttnParams {
    uint n, heads, kv_heads, hd;   // rows, query heads, kv heads, head dim
    uint seqs, max_len, layer;     // cache geometry: [layers, seqs, max_len, kv_heads·hd]
    uint splits;                   // decode split count S (1 for the rows form)
    float scale;                   // softmax scale
};
struct TrellisParams {
    uint rows, cols;       // coded rows and positions per row (axis 1: out, in; axis 0: in, out)
    uint n;                // activation rows (≤ the kernel's M)
    uint T, L;             // block positions, state bits (K is the kernel's)
    uint interleaved;      // 3-bit axis-0 block interleave [cols/512, rows, 48]
    uint factored;         // 1: trellis.Factored arithmetic, 0: trellis.Reciprocal
    uint has_bias;
    uint splits, rows_per_split; // axis 0 split-K over the coded rows
};
struct GateUpParams { uint rows, cols, n, T, L; };
struct AffineParams { uint out, in, n, group; uint has_bias; };
struct SplitReduceParams { uint n, out, splits; uint has_bias; };
struct ExpandParams { uint rows, cols, T, L, interleaved, axis; };
struct PrefillParams { TrellisParams t; uint axis, in, out; };
struct DenseParams { uint out, in, n, has_bias; };
struct WinAttnParams {
    AttnParams a;          // a.max_len is the layer's slots, a.layer 0 (the host binds the layer's own buffers)
    uint ring;             // 1: position t lives in slot t mod slots and this call's rows are not stored yet
    uint window;           // > 0: row at P attends P−window+1..P
    float softcap;         // > 0: scores capped as tanh(s/c)·c
};
struct ScaleParams { uint n; float s; };          // add_scaled, scale (s), softcap (s = the cap c)
struct EXL3HadParams {
    uint rows, xcols, cols, dcols;      // rows of xcols inputs padded to cols (runs of 128), dcols outputs kept
    uint x_off, dst_off;                // element offsets of x and dst in their buffers
    uint has_pre, has_post, has_bias;   // which of pre, post, bias are read
    float scale;                        // f32(1/√128)
};
struct EXL3GemvParams { uint tk, tn, n, x_off, y_off; }; // tiles [tk, tn], rows, offsets of x and y in the buffer
struct HadamardParams {
    uint rows, cols, b;     // rows of cols values rotated in runs of b (a power of two, 2..8192)
    uint threads;           // threads per threadgroup (the pair loop's stride)
    uint has_pre, has_post; // sign vectors bound (else all +1)
    float scale;            // f32(1/√b), rht.Scale
};

// ---- bit conversions ----
inline float bf16_to_f32(ushort b) { return as_type<float>(uint(b) << 16); }
// f32 → bf16, round to nearest even (finite inputs; NaN keeps a quiet NaN)
inline ushort f32_to_bf16(float f) {
    uint u = as_type<uint>(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return ushort((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return ushort(u >> 16);
}
// f32 → IEEE binary16 bits, round to nearest even, overflow to ±Inf, subnormals rounded.
inline ushort f32_to_f16(float f) {
    const uint u = as_type<uint>(f);
    const uint sign = (u >> 16) & 0x8000u;
    const uint a = u & 0x7fffffffu;
    if (a > 0x7f800000u) return ushort(sign | 0x7e00u);
    if (a >= 0x477ff000u) return ushort(sign | 0x7c00u); // ≥ 65520 rounds to Inf
    if (a < 0x38800000u) {                               // below 2^-14: a subnormal half, units of 2^-24
        const uint e = a >> 23;
        if (e == 0u || 126u - e > 24u) return ushort(sign);
        const uint shift = 126u - e, m = (a & 0x7fffffu) | 0x800000u;
        const uint lo = m >> shift, rest = m - (lo << shift), mid = 1u << (shift - 1u);
        return ushort(sign | (lo + ((rest > mid || (rest == mid && (lo & 1u))) ? 1u : 0u)));
    }
    uint h = (a >> 13) - (112u << 10);
    const uint rest = a & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++;
    return ushort(sign | h);
}

// ---- trellis 1MAD (docs/trellis-format.md §6) ----
constant uint TRELLIS_MUL = 34038481u;
constant uint TRELLIS_ADD = 76625530u;
constant float TRELLIS_DIV = 147.800537109375f;
constant float TRELLIS_RCP = 1.0f / 147.800537109375f;

// f32(y): the byte sum of the LCG output less 510, exact in f32.
inline float trellis_y(uint s) {
    const uint x = s * TRELLIS_MUL + TRELLIS_ADD;
    return float(int((x & 255u) + ((x >> 8) & 255u) + ((x >> 16) & 255u) + (x >> 24)) - 510);
}
// y / 147.800537109375 correctly rounded: one reciprocal step refined by an fma (exact for all 1021 codes; the
// emulator test checks every state against trellis.Value1MAD).
inline float trellis_value(uint s) {
    const float y = trellis_y(s);
    const float q = y * TRELLIS_RCP;
    const float r = fma(-q, TRELLIS_DIV, y);
    return fma(r, TRELLIS_RCP, q);
}

// First word of block b of coded row r in the stored layout: plain [rows, words_per_row] or the 3-bit axis-0
// interleave [cols/512, rows, 48] (blocks 2q and 2q+1 of a row side by side).
inline ulong trellis_block_offset(uint r, uint b, uint rows, uint words_per_row, uint wpb, bool interleaved) {
    if (interleaved) return (ulong(b / 2u) * rows + r) * 48u + (b % 2u) * wpb;
    return ulong(r) * words_per_row + ulong(b) * wpb;
}

// The K+1 words holding run q (positions 32q'..32q'+31 of a block, q' = q mod T/32) of a block: the run's L-bit
// windows start at bits (T−32−32q')·K.. of the block, word-aligned; the last window of a block's first run wraps
// to the block's word 0.
template <int K>
inline void trellis_load_run(const device uint* blk, uint run_in_block, uint T, thread uint* w) {
    const uint wpb = T * uint(K) / 32u;
    const uint w0 = (T - 32u - run_in_block * 32u) * uint(K) / 32u;
    for (uint i = 0; i <= uint(K); ++i) {
        const uint wi = w0 + i;
        w[i] = blk[wi >= wpb ? wi - wpb : wi];
    }
}
// State of position j (0..31) of a loaded run: the L bits at bit (31−j)·K of its words.
template <int K>
inline uint trellis_run_state(thread const uint* w, uint j, uint L) {
    const uint b = (31u - j) * uint(K);
    const uint wi = b >> 5, off = b & 31u;
    uint win = w[wi] >> off;
    if (off + L > 32u) win |= w[wi + 1u] << (32u - off);
    return win & ((1u << L) - 1u);
}
// State of any position t of a block (for kernels that decode scattered weights): the window at (T−1−t)·K.
inline uint trellis_state_at(const device uint* blk, uint t, uint T, uint K, uint L) {
    const uint wpb = T * K / 32u;
    const uint p = (T - 1u - t) * K;
    const uint wi = p >> 5, off = p & 31u;
    const uint nx = wi + 1u == wpb ? 0u : wi + 1u;
    uint win = blk[wi] >> off;
    if (off + L > 32u) win |= blk[nx] << (32u - off);
    return win & ((1u << L) - 1u);
}
#endif
