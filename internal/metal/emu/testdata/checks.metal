// checks.metal: small kernels that exercise the emulator itself (runtime_test.go): collectives with known
// answers, the simdgroup matrix layout, and kernels that break the rules the runtime must report.
#include <metal_stdlib>
using namespace metal;

struct N { uint n; };

// out[t] = {shuffle_xor(t, 1), broadcast(t, 5), shuffle_down(t, 3), simd_sum(t), simd_max(t)} per thread.
kernel void collectives(device uint* out [[buffer(0)]], uint t [[thread_index_in_threadgroup]],
                        uint lane [[thread_index_in_simdgroup]]) {
    out[t * 5u + 0u] = simd_shuffle_xor(t, 1u);
    out[t * 5u + 1u] = simd_broadcast(t, 5u);
    out[t * 5u + 2u] = simd_shuffle_down(t, 3u);
    out[t * 5u + 3u] = simd_sum(t);
    out[t * 5u + 4u] = simd_max(t);
    (void)lane;
}

// c = a·b for 8×8 row-major f32 matrices through simdgroup_load / multiply / store.
kernel void mma8(device float* c [[buffer(0)]], const device float* a [[buffer(1)]], const device float* b [[buffer(2)]],
                 uint lane [[thread_index_in_simdgroup]]) {
    simdgroup_float8x8 ma, mb, mc;
    simdgroup_load(ma, a, 8);
    simdgroup_load(mb, b, 8);
    simdgroup_multiply(mc, ma, mb);
    simdgroup_store(mc, c, 8);
    (void)lane;
}

// Each thread reads its neighbour's slot: correct only with the barrier.
kernel void neighbour(device uint* out [[buffer(0)]], constant N& p [[buffer(1)]], uint t [[thread_index_in_threadgroup]]) {
    threadgroup uint slot[256];
    slot[t] = t * 7u;
    if (p.n != 0u) threadgroup_barrier(mem_flags::mem_threadgroup);
    out[t] = slot[(t + 1u) % 256u];
}

kernel void barrier_after_return(device uint* out [[buffer(0)]], uint t [[thread_index_in_threadgroup]]) {
    if (t >= 64u) return;
    threadgroup_barrier(mem_flags::mem_threadgroup);
    out[t] = t;
}

kernel void divergent_collective(device uint* out [[buffer(0)]], uint t [[thread_index_in_threadgroup]],
                                 uint lane [[thread_index_in_simdgroup]]) {
    uint v;
    if (lane < 16u) v = simd_sum(t);
    else v = simd_max(t);
    out[t] = v;
}

kernel void read_past_end(device float* out [[buffer(0)]], const device float* x [[buffer(1)]],
                          constant N& p [[buffer(2)]], uint t [[thread_index_in_threadgroup]]) {
    out[t] = x[p.n + t];
}
