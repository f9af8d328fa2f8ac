// attention.metal: causal GQA attention over the f32 KV cache [layers, seqs, max_len, kv_heads·hd] (kv_store_f32
// writes the new rows first). Decode (n ≤ 8) splits each row's positions over `splits` threadgroups and combines
// the partial softmaxes; the rows form (prompts) covers all positions of a row in one threadgroup.

// attn_split_f32 + attn_combine_f32, attn_rows_f32
//   in:  q f32 [n, heads·hd]; the cache; seq, pos int32 [n]; hd ≤ 256, heads % kv_heads == 0
//   out: rows: dst f32 [n, heads·hd] = softmax(q·Kᵀ·scale)·V over positions 0..pos[r] of sequence seq[r];
//        split: partials f32 [n, heads, splits, hd + 2] (unnormalized output, max, sum), combined by attn_combine
//   grid: split (splits, heads, n) × 128 threads: threadgroup s takes positions [s·cl, min((s+1)·cl, len)),
//        cl = max(⌈len/splits⌉, 8), len = pos[r] + 1 (a threadgroup past len writes an empty partial); SIMD group
//        w takes every 4th position, lanes hold dims lane + 32e; online softmax per SIMD group, the 4 merged in
//        threadgroup memory in order. combine: (heads, n) × 32 threads. rows: (1, heads, n) × 128 threads.
//   promise: f32 scores (fma dot + simd_sum), online softmax with precise::exp, f32 accumulation: tolerance 1e-5
//        of max|ref| (the CPU takes the max first and rounds an f64 exp)
template <bool FINAL, typename TGF>
inline void attn_body(TGF tm, TGF tl, TGF tacc, device float* out, const device float* q, const device float* kc,
                      const device float* vc, const device int* seq, const device int* pos, constant AttnParams& p,
                      uint3 tg, uint sg, uint lane) {
    const uint s = tg.x, h = tg.y, r = tg.z;
    const uint kvh = h / (p.heads / p.kv_heads), hd = p.hd, ept = (hd + 31u) / 32u;
    const uint len = uint(pos[r]) + 1u, sq = uint(seq[r]);
    const uint cl = max((len + p.splits - 1u) / p.splits, 8u);
    const uint start = s * cl, end = min(len, start + cl);
    float qv[8], acc[8];
    for (uint e = 0; e < 8u; ++e) {
        const uint d = lane + 32u * e;
        qv[e] = (e < ept && d < hd) ? q[ulong(r) * p.heads * hd + ulong(h) * hd + d] : 0.0f;
        acc[e] = 0.0f;
    }
    float m = -INFINITY, l = 0.0f;
    const ulong width = ulong(p.kv_heads) * hd;
    for (uint t = start + sg; t < end; t += 4u) {
        const ulong at = ((ulong(p.layer) * p.seqs + sq) * p.max_len + t) * width + ulong(kvh) * hd;
        float dot = 0.0f;
        for (uint e = 0; e < ept; ++e) {
            const uint d = lane + 32u * e;
            if (d < hd) dot = fma(qv[e], kc[at + d], dot);
        }
        const float sc = simd_sum(dot) * p.scale;
        const float mn = max(m, sc);
        const float corr = m == -INFINITY ? 0.0f : precise::exp(m - mn);
        const float pe = precise::exp(sc - mn);
        l = l * corr + pe;
        for (uint e = 0; e < ept; ++e) {
            const uint d = lane + 32u * e;
            if (d < hd) acc[e] = acc[e] * corr + pe * vc[at + d];
        }
        m = mn;
    }
    if (lane == 0u) { tm[sg] = m; tl[sg] = l; }
    for (uint e = 0; e < ept; ++e) {
        const uint d = lane + 32u * e;
        if (d < hd) tacc[sg * 256u + d] = acc[e];
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (sg != 0u) return;
    float M = -INFINITY;
    for (uint i = 0; i < 4u; ++i) M = max(M, tm[i]);
    float wgt[4], L = 0.0f;
    for (uint i = 0; i < 4u; ++i) {
        wgt[i] = (tm[i] == -INFINITY) ? 0.0f : precise::exp(tm[i] - M);
        L += tl[i] * wgt[i];
    }
    const ulong obase = FINAL ? ulong(r) * p.heads * hd + ulong(h) * hd
                              : ((ulong(r) * p.heads + h) * p.splits + s) * (hd + 2u);
    for (uint e = 0; e < ept; ++e) {
        const uint d = lane + 32u * e;
        if (d >= hd) continue;
        float a = 0.0f;
        for (uint i = 0; i < 4u; ++i) a += tacc[i * 256u + d] * wgt[i];
        out[obase + d] = FINAL ? a * (1.0f / L) : a;
    }
    if (!FINAL && lane == 0u) {
        out[obase + hd] = M;
        out[obase + hd + 1u] = L;
    }
}

kernel void attn_split_f32(device float* partials [[buffer(0)]], const device float* q [[buffer(1)]],
                           const device float* kc [[buffer(2)]], const device float* vc [[buffer(3)]],
                           const device int* seq [[buffer(4)]], const device int* pos [[buffer(5)]],
                           constant AttnParams& p [[buffer(6)]], uint3 tg [[threadgroup_position_in_grid]],
                           uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {
    threadgroup float tm[4];
    threadgroup float tl[4];
    threadgroup float tacc[4u * 256u];
    attn_body<false>(tm, tl, tacc, partials, q, kc, vc, seq, pos, p, tg, sg, lane);
}

kernel void attn_rows_f32(device float* dst [[buffer(0)]], const device float* q [[buffer(1)]],
                          const device float* kc [[buffer(2)]], const device float* vc [[buffer(3)]],
                          const device int* seq [[buffer(4)]], const device int* pos [[buffer(5)]],
                          constant AttnParams& p [[buffer(6)]], uint3 tg [[threadgroup_position_in_grid]],
                          uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {
    threadgroup float tm[4];
    threadgroup float tl[4];
    threadgroup float tacc[4u * 256u];
    attn_body<true>(tm, tl, tacc, dst, q, kc, vc, seq, pos, p, tg, sg, lane);
}

kernel void attn_combine_f32(device float* dst [[buffer(0)]], const device float* partials [[buffer(1)]],
                             constant AttnParams& p [[buffer(2)]], uint3 tg [[threadgroup_position_in_grid]],
                             uint lane [[thread_index_in_simdgroup]]) {
    const uint h = tg.x, r = tg.y, hd = p.hd;
    const device float* part = partials + (ulong(r) * p.heads + h) * p.splits * (hd + 2u);
    float M = -INFINITY;
    for (uint s = 0; s < p.splits; ++s) M = max(M, part[s * (hd + 2u) + hd]);
    float L = 0.0f;
    for (uint s = 0; s < p.splits; ++s) {
        const float ms = part[s * (hd + 2u) + hd];
        if (ms != -INFINITY) L += part[s * (hd + 2u) + hd + 1u] * precise::exp(ms - M);
    }
    const float inv = 1.0f / L;
    for (uint d = lane; d < hd; d += 32u) {
        float a = 0.0f;
        for (uint s = 0; s < p.splits; ++s) {
            const float ms = part[s * (hd + 2u) + hd];
            if (ms != -INFINITY) a += part[s * (hd + 2u) + d] * precise::exp(ms - M);
        }
        dst[ulong(r) * p.heads * hd + ulong(h) * hd + d] = a * inv;
    }
}
