// attention_win.metal: attention beyond Backend.Attention for the Gemma families (backend.WindowedAttention): a
// layer's own slots [seqs, slots, kv_heads·hd] (per-layer caches), a sliding window, a score softcap, and ring
// layers whose slot of position t is t mod slots. The structure is attention.metal's (decode splits combined by
// attn_combine_f32, a rows form for prompts); what differs is where each position's key and value come from.

// attn_win_split_f32 + attn_combine_f32, attn_win_rows_f32
//   in:  q f32 [n, heads·hd]; kc, vc the layer's slots; kn, vn f32 [n, kv_heads·hd], this call's keys and values;
//        seq, pos int32 [n]; hd ≤ 256, heads % kv_heads == 0; WinAttnParams (ring, window, softcap)
//   out: row r attends positions first..pos[r] of seq[r], first = max(0, pos[r] − window + 1) (window 0: 0):
//        s = f32(q·k)·scale, capped s = f32(tanh(f32(s/c)))·c when softcap > 0, softmax, Σ p·v. On a ring layer
//        position t comes from the call's last row holding (seq[r], t) if any (the lanes scan the call's rows,
//        simd_max), else from slot t mod slots; otherwise from slot t (kv_store_f32 stored the call first).
//        rows: dst f32 [n, heads·hd]; split: partials as attn_split_f32 for attn_combine_f32
//   grid: split (splits, heads, n) × 128 threads over the window's indices [s·cl, min((s+1)·cl, len)), cl =
//        max(⌈len/splits⌉, 8), len = pos[r] − first + 1; rows (1, heads, n) × 128. SIMD group w every 4th
//        position, lanes hold dims lane + 32e, online softmax merged in threadgroup memory in order
//   promise: as attn_rows (f32 scores, precise::exp online softmax, f32 accumulation) with tanh in f32 where the
//        CPU rounds an f64 tanh: tolerance 1e-5 of max|ref| (verify's bound 1e-3)
template <bool FINAL, typename TGF>
inline void attn_win_body(TGF tm, TGF tl, TGF tacc, device float* out, const device float* q,
                          const device float* kc, const device float* vc, const device float* kn,
                          const device float* vn, const device int* seq, const device int* pos,
                          constant WinAttnParams& wp, uint3 tg, uint sg, uint lane) {
    constant AttnParams& p = wp.a;
    const uint s = tg.x, h = tg.y, r = tg.z;
    const uint kvh = h / (p.heads / p.kv_heads), hd = p.hd, ept = (hd + 31u) / 32u;
    const int P = pos[r], sqi = seq[r];
    const bool valid = P >= 0 && sqi >= 0 && uint(sqi) < p.seqs && (wp.ring != 0u || uint(P) < p.max_len);
    const uint first = (valid && wp.window > 0u && uint(P) + 1u > wp.window) ? uint(P) + 1u - wp.window : 0u;
    const uint len = valid ? uint(P) + 1u - first : 0u;
    const uint sq = valid ? uint(sqi) : 0u;
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
    for (uint i = start + sg; i < end; i += 4u) {
        const uint t = first + i;
        int from = -1;
        if (wp.ring != 0u) { // uniform over the SIMD group
            for (uint r2 = lane; r2 < p.n; r2 += 32u)
                if (seq[r2] == sqi && pos[r2] == int(t)) from = max(from, int(r2));
            from = simd_max(from);
        }
        const device float* kp;
        const device float* vp;
        if (from >= 0) {
            kp = kn + ulong(from) * width + ulong(kvh) * hd;
            vp = vn + ulong(from) * width + ulong(kvh) * hd;
        } else {
            const ulong at = (ulong(sq) * p.max_len + (wp.ring != 0u ? t % p.max_len : t)) * width + ulong(kvh) * hd;
            kp = kc + at;
            vp = vc + at;
        }
        float dot = 0.0f;
        for (uint e = 0; e < ept; ++e) {
            const uint d = lane + 32u * e;
            if (d < hd) dot = fma(qv[e], kp[d], dot);
        }
        float sc = simd_sum(dot) * p.scale;
        if (wp.softcap > 0.0f) {
            const float x = sc / wp.softcap;
            const float th = precise::tanh(x);
            sc = th * wp.softcap;
        }
        const float mn = max(m, sc);
        const float corr = m == -INFINITY ? 0.0f : precise::exp(m - mn);
        const float pe = precise::exp(sc - mn);
        l = l * corr + pe;
        for (uint e = 0; e < ept; ++e) {
            const uint d = lane + 32u * e;
            if (d < hd) acc[e] = acc[e] * corr + pe * vp[d];
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
        out[obase + d] = FINAL ? (L > 0.0f ? a * (1.0f / L) : 0.0f) : a; // a row outside the cache: zeros
    }
    if (!FINAL && lane == 0u) {
        out[obase + hd] = M;
        out[obase + hd + 1u] = L;
    }
}

kernel void attn_win_split_f32(device float* partials [[buffer(0)]], const device float* q [[buffer(1)]],
                               const device float* kc [[buffer(2)]], const device float* vc [[buffer(3)]],
                               const device float* kn [[buffer(4)]], const device float* vn [[buffer(5)]],
                               const device int* seq [[buffer(6)]], const device int* pos [[buffer(7)]],
                               constant WinAttnParams& p [[buffer(8)]], uint3 tg [[threadgroup_position_in_grid]],
                               uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {
    threadgroup float tm[4];
    threadgroup float tl[4];
    threadgroup float tacc[4u * 256u];
    attn_win_body<false>(tm, tl, tacc, partials, q, kc, vc, kn, vn, seq, pos, p, tg, sg, lane);
}

kernel void attn_win_rows_f32(device float* dst [[buffer(0)]], const device float* q [[buffer(1)]],
                              const device float* kc [[buffer(2)]], const device float* vc [[buffer(3)]],
                              const device float* kn [[buffer(4)]], const device float* vn [[buffer(5)]],
                              const device int* seq [[buffer(6)]], const device int* pos [[buffer(7)]],
                              constant WinAttnParams& p [[buffer(8)]], uint3 tg [[threadgroup_position_in_grid]],
                              uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {
    threadgroup float tm[4];
    threadgroup float tl[4];
    threadgroup float tacc[4u * 256u];
    attn_win_body<true>(tm, tl, tacc, dst, q, kc, vc, kn, vn, seq, pos, p, tg, sg, lane);
}

// kv_store_ring_f32
//   in:  k, v f32 [n, width]; seq, pos int32 [n]; a ring layer's slots kc, vc [seqs, slots, width] (max_len =
//        slots, layer 0)
//   out: slot (seq[r], pos[r] mod slots) = row r, unless a later row of the call lands in the same slot of the
//        same sequence (the CPU stores rows in order: the last one wins); rows outside the cache are skipped
//   grid: n threadgroups of 128 threads (4 SIMD groups scan the later rows, their verdicts meet in threadgroup
//        memory); promise: exact copy
kernel void kv_store_ring_f32(device float* kc [[buffer(0)]], device float* vc [[buffer(1)]],
                              const device float* k [[buffer(2)]], const device float* v [[buffer(3)]],
                              const device int* seq [[buffer(4)]], const device int* pos [[buffer(5)]],
                              constant KVStoreParams& p [[buffer(6)]], uint3 tg [[threadgroup_position_in_grid]],
                              uint t [[thread_index_in_threadgroup]], uint sg [[simdgroup_index_in_threadgroup]],
                              uint lane [[thread_index_in_simdgroup]]) {
    threadgroup uint later[4];
    const uint r = tg.x;
    const int s = seq[r], q = pos[r];
    const bool skip = s < 0 || uint(s) >= p.seqs || q < 0;
    uint l = 0u;
    if (!skip) {
        for (uint r2 = r + 1u + t; r2 < p.n; r2 += 128u)
            l |= (seq[r2] == s && pos[r2] >= 0 && uint(pos[r2]) % p.max_len == uint(q) % p.max_len) ? 1u : 0u;
    }
    l = simd_max(l);
    if (lane == 0u) later[sg] = l;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (skip || (later[0] | later[1] | later[2] | later[3]) != 0u) return;
    const ulong at = (ulong(s) * p.max_len + uint(q) % p.max_len) * p.width;
    for (uint j = t; j < p.width; j += 128u) {
        kc[at + j] = k[ulong(r) * p.width + j];
        vc[at + j] = v[ulong(r) * p.width + j];
    }
}
