// trellis_gateup.metal: fused gate/up/SwiGLU decode kernels (same and mixed widths).

// ---------------------------------------------------------------------------------------------------------------
// trellis_gateup{_mixed}_k{KG}{KU}_m{M} (fused gate/up/SwiGLU, axis 1, same or different widths)
//   in:  x f32 [n, cols] (n ≤ M); gate and up words [rows, cols·K/32] at KG and KU bits, scales f32 [rows]
//   out: mid f32 [n, rows] = g / (1 + exp(−g)) · u with g, u the factored projections (the CPU's SwiGLU order),
//        and g, u themselves into gate, up f32 [n, rows] (the backend fuses MatMul gate, MatMul up, SwiGLU, whose
//        three outputs must all exist; mid may be gate or up: each element's three writes come from one thread,
//        mid last)
//   grid: as trellis_reduce, one SIMD group per output row decoding both projections' runs
//   promise: trellis.Factored for both, f32 sums, precise::exp: tolerance 1e-5 of max|ref|
template <int KG, int KU, int M>
inline void trellis_gateup(device float* mid, const device float* x, const device uint* gw, const device float* gs,
                           const device uint* uw, const device float* us, device float* gout, device float* uout,
                           constant GateUpParams& p, uint tgx, uint sg, uint lane) {
    const uint row = tgx * 4u + sg;
    if (row >= p.rows) return;
    const uint gwpb = p.T * uint(KG) / 32u, uwpb = p.T * uint(KU) / 32u, rpb = p.T / 32u;
    const device uint* grow = gw + ulong(row) * (p.cols / p.T * gwpb);
    const device uint* urow = uw + ulong(row) * (p.cols / p.T * uwpb);
    float ga[M], ua[M];
    for (uint m = 0; m < uint(M); ++m) { ga[m] = 0.0f; ua[m] = 0.0f; }
    for (uint run = lane; run < p.cols / 32u; run += 32u) {
        const uint blk = run / rpb, q = run - blk * rpb;
        uint g[KG + 1], u[KU + 1];
        trellis_load_run<KG>(grow + blk * gwpb, q, p.T, g);
        trellis_load_run<KU>(urow + blk * uwpb, q, p.T, u);
        for (uint j = 0; j < 32u; ++j) {
            const float yg = trellis_y(trellis_run_state<KG>(g, j, p.L));
            const float yu = trellis_y(trellis_run_state<KU>(u, j, p.L));
            for (uint m = 0; m < uint(M); ++m) {
                if (m >= p.n) break;
                const float xv = x[ulong(m) * p.cols + run * 32u + j];
                ga[m] = fma(yg, xv, ga[m]);
                ua[m] = fma(yu, xv, ua[m]);
            }
        }
    }
    const float gf = gs[row] * TRELLIS_RCP, uf = us[row] * TRELLIS_RCP;
    for (uint m = 0; m < uint(M); ++m) {
        const float gv = simd_sum(ga[m]) * gf;
        const float uv = simd_sum(ua[m]) * uf;
        if (lane == 0u && m < p.n) {
            const ulong o = ulong(m) * p.rows + row;
            gout[o] = gv;
            uout[o] = uv;
            mid[o] = gv / (1.0f + precise::exp(-gv)) * uv;
        }
    }
}

#define TRELLIS_GATEUP(NAME, KG, KU, M)                                                                             \
    kernel void NAME(device float* mid [[buffer(0)]], const device float* x [[buffer(1)]],                        \
                     const device uint* gw [[buffer(2)]], const device float* gs [[buffer(3)]],                  \
                     const device uint* uw [[buffer(4)]], const device float* us [[buffer(5)]],                  \
                     device float* gout [[buffer(6)]], device float* uout [[buffer(7)]],                          \
                     constant GateUpParams& p [[buffer(8)]], uint3 tg [[threadgroup_position_in_grid]],           \
                     uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {       \
        trellis_gateup<KG, KU, M>(mid, x, gw, gs, uw, us, gout, uout, p, tg.x, sg, lane);                          \
    }
#define TRELLIS_GATEUP_M(PFX, KG, KU)                                                                               \
    TRELLIS_GATEUP(PFX##_k##KG##KU##_m1, KG, KU, 1) TRELLIS_GATEUP(PFX##_k##KG##KU##_m2, KG, KU, 2)               \
    TRELLIS_GATEUP(PFX##_k##KG##KU##_m4, KG, KU, 4)
TRELLIS_GATEUP_M(trellis_gateup, 2, 2)
TRELLIS_GATEUP_M(trellis_gateup, 3, 3)
TRELLIS_GATEUP_M(trellis_gateup, 4, 4)
TRELLIS_GATEUP_M(trellis_gateup_mixed, 2, 3)
TRELLIS_GATEUP_M(trellis_gateup_mixed, 2, 4)
TRELLIS_GATEUP_M(trellis_gateup_mixed, 3, 2)
TRELLIS_GATEUP_M(trellis_gateup_mixed, 3, 4)
TRELLIS_GATEUP_M(trellis_gateup_mixed, 4, 2)
TRELLIS_GATEUP_M(trellis_gateup_mixed, 4, 3)


// ---------------------------------------------------------------------------------------------------------------
// trellis_gateup_cb_k{KG}{KU} (one activation row, L ≤ 12: the threadgroup-codebook form the seeds measured
// fastest on the M1 Max for the one-row gate/up)
//   in/out: as trellis_gateup for n = 1
//   grid: ⌈rows/8⌉ threadgroups of 256 threads; the threadgroup first writes f32(y) of all 2^L states into
//        threadgroup memory (16 KiB at L 12; y depends on the state only, so one table serves both widths), then
//        each SIMD group reduces one output row reading code values from the table instead of computing them
//   promise: bit-identical to trellis_gateup_k{KG}{KU}_m1 (the same values in the same order)
template <int KG, int KU, typename TGP>
inline void trellis_gateup_cb(TGP lut, device float* mid, const device float* x, const device uint* gw,
                              const device float* gs, const device uint* uw, const device float* us,
                              device float* gout, device float* uout, constant GateUpParams& p, uint tgx, uint t,
                              uint sg, uint lane) {
    for (uint s = t; s < (1u << p.L); s += 256u) lut[s] = trellis_y(s);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    const uint row = tgx * 8u + sg;
    if (row >= p.rows) return;
    const uint gwpb = p.T * uint(KG) / 32u, uwpb = p.T * uint(KU) / 32u, rpb = p.T / 32u;
    const device uint* grow = gw + ulong(row) * (p.cols / p.T * gwpb);
    const device uint* urow = uw + ulong(row) * (p.cols / p.T * uwpb);
    float ga = 0.0f, ua = 0.0f;
    for (uint run = lane; run < p.cols / 32u; run += 32u) {
        const uint blk = run / rpb, q = run - blk * rpb;
        uint g[KG + 1], u[KU + 1];
        trellis_load_run<KG>(grow + blk * gwpb, q, p.T, g);
        trellis_load_run<KU>(urow + blk * uwpb, q, p.T, u);
        for (uint j = 0; j < 32u; ++j) {
            const float xv = x[run * 32u + j];
            ga = fma(lut[trellis_run_state<KG>(g, j, p.L)], xv, ga);
            ua = fma(lut[trellis_run_state<KU>(u, j, p.L)], xv, ua);
        }
    }
    const float gv = simd_sum(ga) * (gs[row] * TRELLIS_RCP);
    const float uv = simd_sum(ua) * (us[row] * TRELLIS_RCP);
    if (lane == 0u) {
        gout[row] = gv;
        uout[row] = uv;
        mid[row] = gv / (1.0f + precise::exp(-gv)) * uv;
    }
}

#define TRELLIS_GATEUP_CB(KG, KU)                                                                                   \
    kernel void trellis_gateup_cb_k##KG##KU(                                                                       \
        device float* mid [[buffer(0)]], const device float* x [[buffer(1)]], const device uint* gw [[buffer(2)]], \
        const device float* gs [[buffer(3)]], const device uint* uw [[buffer(4)]], const device float* us [[buffer(5)]], \
        device float* gout [[buffer(6)]], device float* uout [[buffer(7)]], constant GateUpParams& p [[buffer(8)]], \
        uint3 tg [[threadgroup_position_in_grid]], uint t [[thread_index_in_threadgroup]],                         \
        uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {                     \
        threadgroup float lut[4096];                                                                               \
        trellis_gateup_cb<KG, KU>(lut, mid, x, gw, gs, uw, us, gout, uout, p, tg.x, t, sg, lane);                  \
    }
TRELLIS_GATEUP_CB(2, 2)
TRELLIS_GATEUP_CB(2, 3)
TRELLIS_GATEUP_CB(2, 4)
TRELLIS_GATEUP_CB(3, 2)
TRELLIS_GATEUP_CB(3, 3)
TRELLIS_GATEUP_CB(3, 4)
TRELLIS_GATEUP_CB(4, 2)
TRELLIS_GATEUP_CB(4, 3)
TRELLIS_GATEUP_CB(4, 4)
