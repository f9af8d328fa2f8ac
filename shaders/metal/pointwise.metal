// pointwise.metal: the element-wise ops beyond a Llama-style layer — LoRA's scaled add (backend.ScaledAdder),
// Gemma's Scale, Softcap and GeGLU (backend/pointwise.go) — and the Hadamard rotation of rotated trellis models
// (backend.Rotator). Activations are f32. Each kernel's contract (docs/kernels.md, "Metal") is repeated above it.
// Metal has no double: where the CPU reference evaluates tanh in f64 and rounds once, these kernels evaluate it in
// f32 (precise::tanh), so those promises are a tolerance rather than bit-exactness.

// add_scaled_f32 (LoRA: a projection's output plus an adapter's scaled B(A·x))
//   in:  a, b f32 [n]; s; out: dst f32 [n] (may alias a or b) = a + f32(s·b): the product rounded before the sum
//        (the product in its own statement, contraction off)
//   grid: ⌈n/256⌉ threadgroups of 256 threads, one element each
//   promise: exact (the CPU's f32 arithmetic)
kernel void add_scaled_f32(device float* dst [[buffer(0)]], const device float* a [[buffer(1)]],
                           const device float* b [[buffer(2)]], constant ScaleParams& p [[buffer(3)]],
                           uint i [[thread_position_in_grid]]) {
    if (i >= p.n) return;
    const float prod = p.s * b[i];
    dst[i] = a[i] + prod;
}

// scale_f32
//   in:  x f32 [n], s; out: dst f32 [n] (may alias x) = f32(x·s)
//   grid: as add_scaled; promise: exact
kernel void scale_f32(device float* dst [[buffer(0)]], const device float* x [[buffer(1)]],
                      constant ScaleParams& p [[buffer(2)]], uint i [[thread_position_in_grid]]) {
    if (i < p.n) dst[i] = x[i] * p.s;
}

// softcap_f32 (Gemma's final logit softcap)
//   in:  x f32 [n], c = p.s > 0; out: dst f32 [n] (may alias x) = f32(tanh(f32(x/c)))·c, each step rounded to f32
//   grid: as add_scaled
//   promise: the divide and the multiply as the CPU; tanh in f32 (the CPU: f64 rounded), within a few ulp:
//            tolerance 1e-6 of the largest |value|
kernel void softcap_f32(device float* dst [[buffer(0)]], const device float* x [[buffer(1)]],
                        constant ScaleParams& p [[buffer(2)]], uint i [[thread_position_in_grid]]) {
    if (i >= p.n) return;
    const float q = x[i] / p.s;
    const float th = precise::tanh(q);
    dst[i] = th * p.s;
}

// geglu_f32 (Gemma's MLP)
//   in:  gate, up f32 [n]; out: dst f32 [n] (may alias either) = gelu_tanh(gate)·up, gelu_tanh(x) = ½·x·(1 +
//        tanh(√(2/π)·(x + 0.044715·x³))) in the CPU's operation order, but in f32 (the CPU: f64 rounded once)
//   grid: as add_scaled
//   promise: within a few ulp of the f64 gelu for |gate| away from the cubic's cancellation: tolerance 1e-6 of
//            the largest |value|
kernel void geglu_f32(device float* dst [[buffer(0)]], const device float* gate [[buffer(1)]],
                      const device float* up [[buffer(2)]], constant EltParams& p [[buffer(3)]],
                      uint i [[thread_position_in_grid]]) {
    if (i >= p.n) return;
    const float v = gate[i];
    const float k = 0.7978845608028654f; // √(2/π)
    const float c1 = 0.044715f * v;
    const float c2 = c1 * v;
    const float cube = c2 * v;
    const float inner = k * (v + cube);
    const float th = precise::tanh(inner);
    const float half_v = 0.5f * v;
    const float g = half_v * (1.0f + th);
    dst[i] = g * up[i];
}

// hadamard_f32 (backend.Rotator; the random Hadamard rotations of docs/trellis-format.md section 11)
//   in:  x f32 [rows, cols]; pre, post f32 [cols] (±1), bound but unread when has_pre / has_post is 0 (all +1);
//        b a power of two, 2 ≤ b ≤ 8192, cols % b == 0; scale = f32(1/√b)
//   out: dst f32 [rows, cols] = post ⊙ H_b(pre ⊙ x)·scale on each run of b columns, H_b the Sylvester Hadamard
//        matrix; dst may alias x (a threadgroup reads its whole run before writing)
//   grid: rows · cols/b threadgroups, one per run, of min(b/2, 512) threads; the run in threadgroup memory (8192
//        f32: the 32 KiB Apple GPUs allow)
//   promise: bit-exact to rht.Apply: the signs are exact, the butterflies run in stage order h = 1, 2, ..., b/2
//            with each pair (j, j+h) → (u + v, u − v) rounded to f32, a barrier between stages, then one rounded
//            multiply by scale
kernel void hadamard_f32(device float* dst [[buffer(0)]], const device float* x [[buffer(1)]],
                         const device float* pre [[buffer(2)]], const device float* post [[buffer(3)]],
                         constant HadamardParams& p [[buffer(4)]], uint3 tg [[threadgroup_position_in_grid]],
                         uint t [[thread_index_in_threadgroup]]) {
    threadgroup float hsh[8192];
    const uint per = p.cols / p.b;
    const uint lo = (tg.x % per) * p.b;
    const ulong base = ulong(tg.x / per) * p.cols + lo;
    for (uint i = t; i < p.b; i += p.threads) {
        const float v = x[base + i];
        hsh[i] = (p.has_pre != 0u && pre[lo + i] < 0.0f) ? -v : v;
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (uint h = 1u; h < p.b; h <<= 1u) {
        for (uint q = t; q < p.b / 2u; q += p.threads) {
            const uint j = (q / h) * 2u * h + (q % h);
            const float u = hsh[j], v = hsh[j + h];
            hsh[j] = u + v;
            hsh[j + h] = u - v;
        }
        threadgroup_barrier(mem_flags::mem_threadgroup);
    }
    for (uint i = t; i < p.b; i += p.threads) {
        float v = hsh[i] * p.scale;
        if (p.has_post != 0u && post[lo + i] < 0.0f) v = -v;
        dst[base + i] = v;
    }
}
