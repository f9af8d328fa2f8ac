// metal_shim.h: the subset of the Metal Shading Language that shaders/metal uses, as C++17, so that g++ compiles
// the very same .metal sources for the CPU emulator (internal/metal/emu). Address spaces become plain C++ (device,
// thread: nothing; constant: const; threadgroup: a static in the "emu_tgmem" section, which the runtime poisons
// before every threadgroup), vector types are small structs, and every operation that lets one thread see another's
// data — threadgroup_barrier, the simd_* collectives, simdgroup_matrix multiply — is a scheduling point of the
// runtime (runtime.cpp): each thread is a fiber, a barrier waits for every thread of the threadgroup, a collective
// for every live lane of the SIMD group, and between those points the threads run in a seeded random order, so a
// missing barrier shows up as a read of poison or of a value not yet written.
//
// Subset rules (checked by compiling, or by the runtime): threadgroup memory is declared at kernel scope as
// `threadgroup T name[N];` and indexed directly (no threadgroup pointers); kernels are plain functions (templates
// are instantiated by macro-written kernel wrappers); builtins are uint/uint2/uint3 parameters.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <sys/types.h>
#include <type_traits>

typedef unsigned char uchar;
typedef unsigned long ulong;

namespace emu {
// Scheduling points (runtime.cpp). site is the source file and line of the call, so that threads meeting at
// different barriers or collectives are reported instead of silently paired.
void tg_barrier(const char* file, int line);
struct Lane;
typedef void (*Combine)(Lane** lanes, int n);
// simd_wait publishes in/out for this lane, waits for every live lane of the SIMD group to reach the same site, and
// has the last one's combine run over all of them (lanes[i] null for lanes that have returned).
void simd_wait(const char* file, int line, Combine combine, const void* in, void* out);
unsigned lane_id();
// Lane state the combine functions read.
struct Lane {
    const void* in;
    void* out;
};
[[noreturn]] void fail(const char* what);
} // namespace emu

namespace metal {

// ---- vector types ----
template <typename T, int N> struct vec;

#define EMU_VEC_OPS(N)                                                                                              \
    T& operator[](int i) { return e[i]; }                                                                        \
    const T& operator[](int i) const { return e[i]; }                                                            \
    vec() { for (int i = 0; i < N; i++) e[i] = T(0); }                                                           \
    template <typename U, typename = typename std::enable_if<std::is_arithmetic<U>::value>::type>                 \
    explicit vec(U s) { for (int i = 0; i < N; i++) e[i] = T(s); }                                              \
    template <typename U> explicit vec(const vec<U, N>& o) { for (int i = 0; i < N; i++) e[i] = T(o.e[i]); }     \
    vec(const vec& o) = default;                                                                                  \
    vec& operator=(const vec& o) = default;

template <typename T> struct vec<T, 2> {
    union { struct { T x, y; }; T e[2]; };
    EMU_VEC_OPS(2)
    vec(T a, T b) { x = a; y = b; }
};
template <typename T> struct vec<T, 3> {
    union { struct { T x, y, z; }; T e[4]; };
    EMU_VEC_OPS(3)
    vec(T a, T b, T c) { x = a; y = b; z = c; e[3] = T(0); }
};
template <typename T> struct vec<T, 4> {
    union { struct { T x, y, z, w; }; T e[4]; };
    EMU_VEC_OPS(4)
    vec(T a, T b, T c, T d) { x = a; y = b; z = c; w = d; }
};
#undef EMU_VEC_OPS

#define EMU_VEC_BINOP(op)                                                                                           \
    template <typename T, int N> vec<T, N> operator op(const vec<T, N>& a, const vec<T, N>& b) {                   \
        vec<T, N> r; for (int i = 0; i < N; i++) r.e[i] = a.e[i] op b.e[i]; return r; }                           \
    template <typename T, int N, typename S, typename = typename std::enable_if<std::is_arithmetic<S>::value>::type> \
    vec<T, N> operator op(const vec<T, N>& a, S b) {                                                               \
        vec<T, N> r; for (int i = 0; i < N; i++) r.e[i] = a.e[i] op T(b); return r; }                             \
    template <typename T, int N, typename S, typename = typename std::enable_if<std::is_arithmetic<S>::value>::type> \
    vec<T, N> operator op(S a, const vec<T, N>& b) {                                                               \
        vec<T, N> r; for (int i = 0; i < N; i++) r.e[i] = T(a) op b.e[i]; return r; }                             \
    template <typename T, int N> vec<T, N>& operator op##=(vec<T, N>& a, const vec<T, N>& b) {                     \
        for (int i = 0; i < N; i++) a.e[i] = a.e[i] op b.e[i]; return a; }
EMU_VEC_BINOP(+)
EMU_VEC_BINOP(-)
EMU_VEC_BINOP(*)
EMU_VEC_BINOP(/)
#undef EMU_VEC_BINOP

} // namespace metal

typedef metal::vec<float, 2> float2;
typedef metal::vec<float, 3> float3;
typedef metal::vec<float, 4> float4;
typedef metal::vec<uint, 2> uint2;
typedef metal::vec<uint, 3> uint3;
typedef metal::vec<uint, 4> uint4;
typedef metal::vec<int, 2> int2;
typedef metal::vec<int, 4> int4;
typedef metal::vec<ushort, 2> ushort2;
typedef metal::vec<ushort, 4> ushort4;
typedef metal::vec<ulong, 2> ulong2;

namespace metal {

// ---- conversions and math ----
template <typename To, typename From> inline To as_type(const From& f) {
    static_assert(sizeof(To) == sizeof(From), "as_type: sizes differ");
    To t;
    std::memcpy(&t, &f, sizeof(To));
    return t;
}

inline float fma(float a, float b, float c) { return std::fma(a, b, c); }
inline float abs(float x) { return std::fabs(x); }
inline int abs(int x) { return x < 0 ? -x : x; }
template <typename T> inline T max(T a, T b) { return a > b ? a : b; }
template <typename T> inline T min(T a, T b) { return a < b ? a : b; }
inline float fmax(float a, float b) { return std::fmax(a, b); }
inline float fmin(float a, float b) { return std::fmin(a, b); }
inline float sqrt(float x) { return std::sqrt(x); }
inline float rsqrt(float x) { return 1.0f / std::sqrt(x); }
inline float exp(float x) { return std::exp(x); }
inline float log(float x) { return std::log(x); }
inline float tanh(float x) { return std::tanh(x); }
inline float floor(float x) { return std::floor(x); }
inline float rint(float x) { return std::nearbyint(x); }
inline bool isnan(float x) { return std::isnan(x); }
inline bool isinf(float x) { return std::isinf(x); }
inline bool isfinite(float x) { return std::isfinite(x); }
template <typename T> inline T select(T a, T b, bool c) { return c ? b : a; }
template <typename T> inline T clamp(T x, T lo, T hi) { return x < lo ? lo : (x > hi ? hi : x); }
// precise:: is what the shaders call where the CPU reference evaluates a transcendental exactly; the emulator
// uses the C library's (correctly rounded or within an ulp on glibc). The fast:: variants differ on a Mac only.
namespace precise {
inline float exp(float x) { return std::exp(x); }
inline float log(float x) { return std::log(x); }
inline float sqrt(float x) { return std::sqrt(x); }
inline float tanh(float x) { return std::tanh(x); }
inline float divide(float a, float b) { return a / b; }
} // namespace precise
namespace fast {
inline float exp(float x) { return std::exp(x); }
} // namespace fast

enum class mem_flags { mem_none = 0, mem_device = 1, mem_threadgroup = 2, mem_texture = 4 };

// ---- SIMD-group collectives ----
namespace detail {
template <typename T> struct Val { T v; };
template <typename T> void comb_sum(emu::Lane** l, int n) {
    // A fixed butterfly tree over lanes 0..31 (inactive lanes contribute 0).
    T t[32];
    for (int i = 0; i < 32; i++) t[i] = (i < n && l[i]) ? *(const T*)l[i]->in : T(0);
    for (int s = 1; s < 32; s <<= 1)
        for (int i = 0; i < 32; i += 2 * s) t[i] = t[i] + t[i + s];
    for (int i = 0; i < n; i++) if (l[i]) *(T*)l[i]->out = t[0];
}
template <typename T, bool MAX> void comb_ext(emu::Lane** l, int n) {
    bool have = false;
    T m = T(0);
    for (int i = 0; i < n; i++) {
        if (!l[i]) continue;
        T v = *(const T*)l[i]->in;
        if (!have || (MAX ? v > m : v < m)) m = v;
        have = true;
    }
    for (int i = 0; i < n; i++) if (l[i]) *(T*)l[i]->out = m;
}
// Shuffles: in points at {value, source lane}; a source lane that returned or lies outside the group is an error
// for the kernel (its value is undefined on the GPU).
template <typename T> struct Shuf { T v; uint src; };
template <typename T> void comb_shuf(emu::Lane** l, int n) {
    for (int i = 0; i < n; i++) {
        if (!l[i]) continue;
        const Shuf<T>* me = (const Shuf<T>*)l[i]->in;
        if (me->src >= (uint)n || !l[me->src]) emu::fail("simd_shuffle reads a lane that is not running");
        *(T*)l[i]->out = ((const Shuf<T>*)l[me->src]->in)->v;
    }
}
inline void comb_none(emu::Lane**, int) {}
} // namespace detail

#define EMU_SITE __FILE__, __LINE__
template <typename T> inline T simd_sum_at(const char* f, int ln, T v) {
    T r; emu::simd_wait(f, ln, detail::comb_sum<T>, &v, &r); return r;
}
template <typename T> inline T simd_max_at(const char* f, int ln, T v) {
    T r; emu::simd_wait(f, ln, detail::comb_ext<T, true>, &v, &r); return r;
}
template <typename T> inline T simd_min_at(const char* f, int ln, T v) {
    T r; emu::simd_wait(f, ln, detail::comb_ext<T, false>, &v, &r); return r;
}
template <typename T> inline T simd_shuffle_at(const char* f, int ln, T v, uint src) {
    detail::Shuf<T> s{v, src}; T r; emu::simd_wait(f, ln, detail::comb_shuf<T>, &s, &r); return r;
}
template <typename T> inline T simd_shuffle_xor_at(const char* f, int ln, T v, uint mask) {
    return simd_shuffle_at(f, ln, v, emu::lane_id() ^ mask);
}
template <typename T> inline T simd_shuffle_down_at(const char* f, int ln, T v, uint d) {
    uint s = emu::lane_id() + d;
    return simd_shuffle_at(f, ln, v, s < 32 ? s : emu::lane_id());
}
template <typename T> inline T simd_shuffle_up_at(const char* f, int ln, T v, uint d) {
    uint me = emu::lane_id();
    return simd_shuffle_at(f, ln, v, me >= d ? me - d : me);
}
inline void simdgroup_barrier_at(const char* f, int ln, mem_flags) {
    int dummy = 0; emu::simd_wait(f, ln, detail::comb_none, &dummy, &dummy);
}
inline void threadgroup_barrier_at(const char* f, int ln, mem_flags) { emu::tg_barrier(f, ln); }

// ---- simdgroup_matrix (8x8), the layout Apple's hardware and MLX steel use: lane l holds row
// (l/4 & 4) + (l/2 % 4), columns (l/4 & 2)·2 + (l%2)·2 and the next one, in thread_elements()[0] and [1]. ----
template <typename T, int R, int C> struct simdgroup_matrix {
    static_assert(R == 8 && C == 8, "the emulator knows 8x8 simdgroup matrices only");
    vec<T, 2> e;
    vec<T, 2>& thread_elements() { return e; }
    const vec<T, 2>& thread_elements() const { return e; }
};
typedef simdgroup_matrix<float, 8, 8> simdgroup_float8x8;

inline uint frag_row(uint l) { return ((l / 4u) & 4u) + ((l / 2u) % 4u); }
inline uint frag_col(uint l) { return ((l / 4u) & 2u) * 2u + (l % 2u) * 2u; }

template <typename T, int R, int C> inline simdgroup_matrix<T, R, C> make_filled_simdgroup_matrix(T v) {
    simdgroup_matrix<T, R, C> m;
    m.e = vec<T, 2>(v, v);
    return m;
}
// load/store: each lane moves its own two elements (origin and transpose as in MSL).
template <typename T, typename P>
inline void simdgroup_load(simdgroup_matrix<T, 8, 8>& m, const P* src, ulong stride = 8, ulong2 origin = ulong2(0, 0),
                           bool transpose = false) {
    const uint l = emu::lane_id(), r = frag_row(l), c = frag_col(l);
    for (uint j = 0; j < 2; j++) {
        const ulong row = origin.y + r, col = origin.x + c + j;
        m.e[j] = T(transpose ? src[col * stride + row] : src[row * stride + col]);
    }
}
template <typename T, typename P>
inline void simdgroup_store(const simdgroup_matrix<T, 8, 8>& m, P* dst, ulong stride = 8, ulong2 origin = ulong2(0, 0),
                            bool transpose = false) {
    const uint l = emu::lane_id(), r = frag_row(l), c = frag_col(l);
    for (uint j = 0; j < 2; j++) {
        const ulong row = origin.y + r, col = origin.x + c + j;
        (transpose ? dst[col * stride + row] : dst[row * stride + col]) = P(m.e[j]);
    }
}
namespace detail {
struct MMA { const void *a, *b, *c; };
// D = A·B + C over the whole SIMD group: gather the 64 elements of each operand from the lanes' fragments,
// multiply in f32 with fused multiply-adds in k order starting from C, and hand every lane its two elements.
template <typename T> void comb_mma(emu::Lane** l, int n) {
    if (n != 32) emu::fail("simdgroup_multiply_accumulate needs a full SIMD group of 32 lanes");
    T A[8][8], B[8][8], Cm[8][8];
    for (int i = 0; i < 32; i++) {
        if (!l[i]) emu::fail("simdgroup_multiply_accumulate with a lane that has returned");
        const MMA* p = (const MMA*)l[i]->in;
        const uint r = frag_row(i), c = frag_col(i);
        for (int j = 0; j < 2; j++) {
            A[r][c + j] = ((const vec<T, 2>*)p->a)->e[j];
            B[r][c + j] = ((const vec<T, 2>*)p->b)->e[j];
            Cm[r][c + j] = ((const vec<T, 2>*)p->c)->e[j];
        }
    }
    for (int i = 0; i < 32; i++) {
        const uint r = frag_row(i), c = frag_col(i);
        vec<T, 2>* d = (vec<T, 2>*)l[i]->out;
        for (int j = 0; j < 2; j++) {
            T acc = Cm[r][c + j];
            for (int k = 0; k < 8; k++) acc = std::fma(A[r][k], B[k][c + j], acc);
            d->e[j] = acc;
        }
    }
}
} // namespace detail
template <typename T>
inline void simdgroup_multiply_accumulate_at(const char* f, int ln, simdgroup_matrix<T, 8, 8>& d,
                                             const simdgroup_matrix<T, 8, 8>& a, const simdgroup_matrix<T, 8, 8>& b,
                                             const simdgroup_matrix<T, 8, 8>& c) {
    // Inputs are copied first: d may be a, b or c.
    vec<T, 2> ca = a.e, cb = b.e, cc = c.e;
    detail::MMA in{&ca, &cb, &cc};
    emu::simd_wait(f, ln, detail::comb_mma<T>, &in, &d.e);
}
template <typename T>
inline void simdgroup_multiply_at(const char* f, int ln, simdgroup_matrix<T, 8, 8>& d,
                                  const simdgroup_matrix<T, 8, 8>& a, const simdgroup_matrix<T, 8, 8>& b) {
    simdgroup_matrix<T, 8, 8> z = make_filled_simdgroup_matrix<T, 8, 8>(T(0));
    simdgroup_multiply_accumulate_at(f, ln, d, a, b, z);
}

} // namespace metal

// The collectives and barriers carry their call site: the names the shaders use expand to the _at forms.
#define simd_sum(...) simd_sum_at(EMU_SITE, __VA_ARGS__)
#define simd_max(...) simd_max_at(EMU_SITE, __VA_ARGS__)
#define simd_min(...) simd_min_at(EMU_SITE, __VA_ARGS__)
#define simd_shuffle(...) simd_shuffle_at(EMU_SITE, __VA_ARGS__)
#define simd_broadcast(...) simd_shuffle_at(EMU_SITE, __VA_ARGS__)
#define simd_shuffle_xor(...) simd_shuffle_xor_at(EMU_SITE, __VA_ARGS__)
#define simd_shuffle_down(...) simd_shuffle_down_at(EMU_SITE, __VA_ARGS__)
#define simd_shuffle_up(...) simd_shuffle_up_at(EMU_SITE, __VA_ARGS__)
#define simdgroup_barrier(...) simdgroup_barrier_at(EMU_SITE, __VA_ARGS__)
#define threadgroup_barrier(...) threadgroup_barrier_at(EMU_SITE, __VA_ARGS__)
#define simdgroup_multiply_accumulate(...) simdgroup_multiply_accumulate_at(EMU_SITE, __VA_ARGS__)
#define simdgroup_multiply(...) simdgroup_multiply_at(EMU_SITE, __VA_ARGS__)

// Address spaces.
#define device
#define thread
#define constant const
#define threadgroup static __attribute__((section("emu_tgmem"), aligned(16)))
#ifdef EMU_SCAN
#define kernel EMU_KERNEL
#else
#define kernel extern "C"
#endif

using namespace metal;
