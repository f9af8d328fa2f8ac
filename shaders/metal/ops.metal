// ops.metal: the element-wise and row kernels of a decoder layer — embed, RMSNorm (+ residual add), rope,
// SwiGLU, add, KV store, greedy argmax and the token bitmask. Activations are f32; embedding tables bf16 bits.
// Each kernel's contract (docs/kernels.md, "Metal") is repeated above it.

// embed_f32
//   in:  table bf16 bits [vocab, d]; ids int32 [n]; out: dst f32 [n, d] = table[ids[r]] widened exactly, an id
//        outside [0, vocab) writes zeros
//   grid: n threadgroups of 256 threads striding the row
//   promise: exact
kernel void embed_f32(device float* dst [[buffer(0)]], const device ushort* table [[buffer(1)]],
                      const device int* ids [[buffer(2)]], constant EmbedParams& p [[buffer(3)]],
                      uint3 tg [[threadgroup_position_in_grid]], uint t [[thread_index_in_threadgroup]]) {
    const uint r = tg.x;
    if (r >= p.n) return;
    const int id = ids[r];
    device float* out = dst + ulong(r) * p.d;
    const bool ok = id >= 0 && uint(id) < p.vocab;
    const device ushort* src = table + ulong(ok ? uint(id) : 0u) * p.d;
    for (uint j = t; j < p.d; j += 256u) out[j] = ok ? bf16_to_f32(src[j]) : 0.0f;
}

// rmsnorm_simd_f32
//   in:  x f32 [groups·g]; w f32 [g]; eps; out: dst f32 [groups·g] (may be x) = (x·inv)·w, inv = 1/sqrt(Σx²/g +
//        eps), Σ in f32 by per-lane fma chains and simd_sum (the CPU sums in f64)
//   grid: ⌈groups/4⌉ threadgroups of 128 threads, one SIMD group per group (head norms, g < 1024)
//   promise: relative error of inv ≲ g·2^-24, then two f32 roundings as the CPU: tolerance 1e-5
kernel void rmsnorm_simd_f32(device float* dst [[buffer(0)]], const device float* x [[buffer(1)]],
                             const device float* w [[buffer(2)]], constant NormParams& p [[buffer(3)]],
                             uint3 tg [[threadgroup_position_in_grid]], uint sg [[simdgroup_index_in_threadgroup]],
                             uint lane [[thread_index_in_simdgroup]]) {
    const uint grp = tg.x * 4u + sg;
    if (grp >= p.groups) return;
    const device float* xs = x + ulong(grp) * p.g;
    device float* ys = dst + ulong(grp) * p.g;
    float ss = 0.0f;
    for (uint j = lane; j < p.g; j += 32u) ss = fma(xs[j], xs[j], ss);
    ss = simd_sum(ss);
    const float inv = 1.0f / precise::sqrt(ss / float(p.g) + p.eps);
    for (uint j = lane; j < p.g; j += 32u) ys[j] = (xs[j] * inv) * w[j];
}

// rmsnorm_row_f32 / add_rmsnorm_f32
//   in:  x f32 [groups·g] (add: a, b), w f32 [g]; out: dst as rmsnorm_simd (add: sum = a + b written first, then
//        normalized: bit-identical to add_f32 followed by rmsnorm_row_f32)
//   grid: groups threadgroups of 256 threads (8 SIMD groups); the 8 partial sums meet in threadgroup memory and
//        every thread adds them in SIMD-group order
//   promise: as rmsnorm_simd, tolerance 1e-5
kernel void rmsnorm_row_f32(device float* dst [[buffer(0)]], const device float* x [[buffer(1)]],
                            const device float* w [[buffer(2)]], constant NormParams& p [[buffer(3)]],
                            uint3 tg [[threadgroup_position_in_grid]], uint t [[thread_index_in_threadgroup]],
                            uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {
    threadgroup float part[8];
    const device float* xs = x + ulong(tg.x) * p.g;
    device float* ys = dst + ulong(tg.x) * p.g;
    float ss = 0.0f;
    for (uint j = t; j < p.g; j += 256u) ss = fma(xs[j], xs[j], ss);
    ss = simd_sum(ss);
    if (lane == 0u) part[sg] = ss;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    float total = 0.0f;
    for (uint i = 0; i < 8u; ++i) total += part[i];
    const float inv = 1.0f / precise::sqrt(total / float(p.g) + p.eps);
    for (uint j = t; j < p.g; j += 256u) ys[j] = (xs[j] * inv) * w[j];
}

kernel void add_rmsnorm_f32(device float* sum [[buffer(0)]], device float* dst [[buffer(1)]],
                            const device float* a [[buffer(2)]], const device float* b [[buffer(3)]],
                            const device float* w [[buffer(4)]], constant NormParams& p [[buffer(5)]],
                            uint3 tg [[threadgroup_position_in_grid]], uint t [[thread_index_in_threadgroup]],
                            uint sg [[simdgroup_index_in_threadgroup]], uint lane [[thread_index_in_simdgroup]]) {
    threadgroup float part[8];
    const ulong base = ulong(tg.x) * p.g;
    float ss = 0.0f;
    for (uint j = t; j < p.g; j += 256u) {
        const float v = a[base + j] + b[base + j];
        sum[base + j] = v;
        ss = fma(v, v, ss);
    }
    ss = simd_sum(ss);
    if (lane == 0u) part[sg] = ss;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    float total = 0.0f;
    for (uint i = 0; i < 8u; ++i) total += part[i];
    const float inv = 1.0f / precise::sqrt(total / float(p.g) + p.eps);
    // Each thread reads back only the sums it wrote itself: no device-memory barrier needed.
    for (uint j = t; j < p.g; j += 256u) dst[base + j] = (sum[base + j] * inv) * w[j];
}

// rope_f32
//   in:  x f32 [n, heads·hd] rotated in place; cs f32 [n, dims/2, 2]: cos and sin of each pair's angle at the
//        row's position, rope.Table.CosSin's values (the angle in f32, cos/sin in f64 then rounded — Metal has no
//        double, so the host writes them); prescale, traditional
//   out: per head, x[:dims] = prescale·x when prescale ≠ 1, pairs (i, i + dims/2) or (2i, 2i+1) rotated:
//        a' = x_a·c − x_b·s, b' = x_a·s + x_b·c with every product and sum rounded to f32 (contraction off)
//   grid: n·heads threadgroups of 64 threads over the pairs
//   promise: bit-exact to rope.Table.Apply
kernel void rope_f32(device float* x [[buffer(0)]], const device float* cs [[buffer(1)]],
                     constant RopeParams& p [[buffer(2)]], uint3 tg [[threadgroup_position_in_grid]],
                     uint t [[thread_index_in_threadgroup]]) {
    const uint r = tg.x / p.heads, h = tg.x % p.heads;
    if (r >= p.n) return;
    device float* head = x + ulong(r) * p.heads * p.hd + ulong(h) * p.hd;
    const device float* c = cs + ulong(r) * p.dims;
    const uint half_ = p.dims / 2u;
    for (uint i = t; i < half_; i += 64u) {
        const uint ia = p.traditional ? 2u * i : i, ib = p.traditional ? 2u * i + 1u : i + half_;
        float x1 = head[ia], x2 = head[ib];
        if (p.prescale != 1.0f) {
            x1 = p.prescale * x1;
            x2 = p.prescale * x2;
        }
        const float co = c[2u * i], si = c[2u * i + 1u];
        // Products in their own statements: even where the pragma is unknown, contraction (fp-contract=on) works
        // within one expression only, so each product is rounded before the sum, as rope.Table.Apply does.
        const float p1 = x1 * co, p2 = x2 * si, p3 = x1 * si, p4 = x2 * co;
        head[ia] = p1 - p2;
        head[ib] = p3 + p4;
    }
}

// add_f32, swiglu_f32
//   in:  a, b f32 [n]; out: dst f32 [n] (may alias either) = a + b; swiglu: g / (1 + exp(−g)) · u in the CPU's
//        operation order (precise::exp, correctly rounded divide with fast math off)
//   grid: ⌈n/256⌉ threadgroups of 256 threads, one element each
//   promise: add exact; swiglu within exp's error (the CPU rounds an f64 exp): tolerance 1e-6
kernel void add_f32(device float* dst [[buffer(0)]], const device float* a [[buffer(1)]],
                    const device float* b [[buffer(2)]], constant EltParams& p [[buffer(3)]],
                    uint i [[thread_position_in_grid]]) {
    if (i < p.n) dst[i] = a[i] + b[i];
}

kernel void swiglu_f32(device float* dst [[buffer(0)]], const device float* gate [[buffer(1)]],
                       const device float* up [[buffer(2)]], constant EltParams& p [[buffer(3)]],
                       uint i [[thread_position_in_grid]]) {
    if (i >= p.n) return;
    const float g = gate[i];
    dst[i] = g / (1.0f + precise::exp(-g)) * up[i];
}

// kv_store_f32
//   in:  k, v f32 [n, width]; seq, pos int32 [n]; out: the cache slots (layer, seq[r], pos[r]) of kc, vc f32
//        [layers, seqs, max_len, width] = row r; rows outside the cache are skipped
//   grid: n threadgroups of 128 threads; promise: exact copy
kernel void kv_store_f32(device float* kc [[buffer(0)]], device float* vc [[buffer(1)]],
                         const device float* k [[buffer(2)]], const device float* v [[buffer(3)]],
                         const device int* seq [[buffer(4)]], const device int* pos [[buffer(5)]],
                         constant KVStoreParams& p [[buffer(6)]], uint3 tg [[threadgroup_position_in_grid]],
                         uint t [[thread_index_in_threadgroup]]) {
    const uint r = tg.x;
    if (r >= p.n) return;
    const int s = seq[r], q = pos[r];
    if (s < 0 || uint(s) >= p.seqs || q < 0 || uint(q) >= p.max_len) return;
    const ulong at = ((ulong(p.layer) * p.seqs + uint(s)) * p.max_len + uint(q)) * p.width;
    for (uint j = t; j < p.width; j += 128u) {
        kc[at + j] = k[ulong(r) * p.width + j];
        vc[at + j] = v[ulong(r) * p.width + j];
    }
}

// argmax_f32
//   in:  logits f32 [rows, vocab]; out: dst int32 [rows] with sample.GreedyNormalizedArgmax (F32) semantics: a row
//        holding NaN or +Inf, or only −Inf, picks 0; L = f32(m + log Σ exp(x − m)); the winner is the lowest id
//        whose x − L equals m − L
//   grid: rows threadgroups of 1024 threads (32 SIMD groups); three passes: max and its lowest id, the sum
//        (per-thread chains, simd_sum, the 32 partials added in order), the first id reaching the best score
//   promise: ids equal the reference's except where L lies within an ulp of a rounding boundary (the sum is f32
//        here, f64 there): tested equal on random rows, exact ties, NaN, all −Inf and ulp-apart logits
kernel void argmax_f32(device int* dst [[buffer(0)]], const device float* logits [[buffer(1)]],
                       constant ArgmaxParams& p [[buffer(2)]], uint3 tg [[threadgroup_position_in_grid]],
                       uint t [[thread_index_in_threadgroup]], uint sg [[simdgroup_index_in_threadgroup]],
                       uint lane [[thread_index_in_simdgroup]]) {
    threadgroup float sv[32];
    threadgroup uint si[32];
    threadgroup uint sbad[32];
    const device float* x = logits + ulong(tg.x) * p.vocab;
    const float ninf = -INFINITY;
    float m = ninf;
    uint mi = 0xffffffffu, bad = 0u;
    for (uint j = t; j < p.vocab; j += 1024u) {
        const float v = x[j];
        if (isnan(v) || v == INFINITY) bad = 1u;
        if (v > m) { m = v; mi = j; }
    }
    // Pass 1: the largest logit and its lowest id over the threadgroup.
    float sm = simd_max(m);
    uint smi = simd_min(m == sm ? mi : 0xffffffffu);
    uint sb = simd_max(bad);
    if (lane == 0u) { sv[sg] = sm; si[sg] = smi; sbad[sg] = sb; }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    float M = ninf;
    uint MI = 0xffffffffu, BAD = 0u;
    for (uint i = 0; i < 32u; ++i) {
        if (sv[i] > M || (sv[i] == M && si[i] < MI)) { M = sv[i]; MI = si[i]; }
        BAD |= sbad[i];
    }
    if (BAD != 0u || M == ninf) {
        if (t == 0u) dst[tg.x] = 0;
        return; // every thread of the threadgroup takes this branch together
    }
    // Pass 2: L = m + log Σ exp(x − m).
    float s = 0.0f;
    for (uint j = t; j < p.vocab; j += 1024u) s += precise::exp(x[j] - M);
    s = simd_sum(s);
    threadgroup_barrier(mem_flags::mem_threadgroup); // pass 1's readers are done with sv
    if (lane == 0u) sv[sg] = s;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    float S = 0.0f;
    for (uint i = 0; i < 32u; ++i) S += sv[i];
    const float L = M + precise::log(S);
    const float best = M - L;
    // Pass 3: the lowest id whose score equals the best.
    uint first = 0xffffffffu;
    for (uint j = t; j < p.vocab; j += 1024u)
        if (x[j] - L == best) { first = j; break; }
    first = simd_min(first);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (lane == 0u) si[sg] = first;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (t == 0u) {
        uint f = 0xffffffffu;
        for (uint i = 0; i < 32u; ++i) f = min(f, si[i]);
        dst[tg.x] = int(f == 0xffffffffu ? MI : f);
    }
}

// bitmask_f32
//   in:  logits f32 [rows, vocab]; mask int32 [rows, words] (XGrammar's packing: token t allowed iff bit t%32 of
//        word t/32); out: logits with every rejected token set to −Inf, allowed ones untouched; tokens past the
//        mask's words are rejected (sample.ApplyBitmask)
//   grid: ⌈vocab/256⌉ × rows threadgroups of 256 threads; promise: exact
kernel void bitmask_f32(device float* logits [[buffer(0)]], const device int* mask [[buffer(1)]],
                        constant BitmaskParams& p [[buffer(2)]], uint3 gid [[thread_position_in_grid]]) {
    const uint t = gid.x, r = gid.y;
    if (t >= p.vocab || r >= p.rows) return;
    const uint w = t >> 5;
    const bool ok = w < p.words && ((uint(mask[ulong(r) * p.words + w]) >> (t & 31u)) & 1u) != 0u;
    if (!ok) logits[ulong(r) * p.vocab + t] = -INFINITY;
}

// rmsnorm_rope_f32 (fusion of a per-head RMSNorm then rope, as q_norm/k_norm then rope in Qwen3)
//   in:  x f32 [n, heads·hd] (hd ≤ 256), w f32 [hd], eps; cs, prescale, traditional as rope_f32
//   out: dst (may be x): each head normalized as rmsnorm_simd_f32, then rotated as rope_f32
//   grid: ⌈n·heads/4⌉ threadgroups of 128 threads, a SIMD group per head; the normalized head passes to the pair
//        loop through threadgroup memory within the SIMD group (simdgroup_barrier)
//   promise: bit-identical to rmsnorm_simd_f32 then rope_f32
kernel void rmsnorm_rope_f32(device float* dst [[buffer(0)]], const device float* x [[buffer(1)]],
                             const device float* w [[buffer(2)]], const device float* cs [[buffer(3)]],
                             constant NormRopeParams& p [[buffer(4)]],
                             uint3 tg [[threadgroup_position_in_grid]], uint sg [[simdgroup_index_in_threadgroup]],
                             uint lane [[thread_index_in_simdgroup]]) {
    threadgroup float hbuf[4u * 256u];
    constant RopeParams& rp = p.r;
    const uint head = tg.x * 4u + sg;
    if (head >= rp.n * rp.heads) return; // the whole SIMD group
    const uint r = head / rp.heads, hd = rp.hd;
    const device float* xs = x + ulong(head) * hd;
    device float* ys = dst + ulong(head) * hd;
    float ss = 0.0f;
    for (uint j = lane; j < hd; j += 32u) ss = fma(xs[j], xs[j], ss);
    ss = simd_sum(ss);
    const float inv = 1.0f / precise::sqrt(ss / float(hd) + p.eps);
    for (uint j = lane; j < hd; j += 32u) hbuf[sg * 256u + j] = (xs[j] * inv) * w[j];
    simdgroup_barrier(mem_flags::mem_threadgroup);
    const device float* c = cs + ulong(r) * rp.dims;
    const uint half_ = rp.dims / 2u;
    for (uint i = lane; i < half_; i += 32u) {
        const uint ia = rp.traditional ? 2u * i : i, ib = rp.traditional ? 2u * i + 1u : i + half_;
        float x1 = hbuf[sg * 256u + ia], x2 = hbuf[sg * 256u + ib];
        if (rp.prescale != 1.0f) {
            x1 = rp.prescale * x1;
            x2 = rp.prescale * x2;
        }
        const float co = c[2u * i], si = c[2u * i + 1u];
        const float p1 = x1 * co, p2 = x2 * si, p3 = x1 * si, p4 = x2 * co;
        ys[ia] = p1 - p2;
        ys[ib] = p3 + p4;
    }
    for (uint j = rp.dims + lane; j < hd; j += 32u) ys[j] = hbuf[sg * 256u + j];
}
