// emu_rt.h: what the generated kernel wrappers (internal/metal/emu, gen.go) need from the runtime: the registry
// of kernels, the bound buffers and each thread's builtin coordinates.
#pragma once
#include "metal_shim.h"
#include <cstdio>

namespace emu {
enum Builtin { TPIG, TPITG, TGPIG, TPTG, TGPG, TPG, TIITG, TIISG, SIITG, SPTG, TPSG };
struct Kernel {
    void (*call)();
    void (*describe)();
};
struct Reg {
    Reg(const char* name, void (*call)(), void (*describe)());
};
uint3 builtin(Builtin b);
void* buffer(int i);

// The conversions of a builtin to the type the kernel declares: a scalar takes x, uint2 takes x and y.
template <typename T> struct As;
template <> struct As<uint> { static uint f(uint3 v) { return v.x; } };
template <> struct As<ushort> { static ushort f(uint3 v) { return ushort(v.x); } };
template <> struct As<uint2> { static uint2 f(uint3 v) { return uint2(v.x, v.y); } };
template <> struct As<ushort2> { static ushort2 f(uint3 v) { return ushort2(ushort(v.x), ushort(v.y)); } };
template <> struct As<uint3> { static uint3 f(uint3 v) { return v; } };
template <typename T> T bi(Builtin b) { return As<typename std::remove_cv<T>::type>::f(builtin(b)); }
} // namespace emu
