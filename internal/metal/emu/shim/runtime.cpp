// runtime.cpp: the emulator's scheduler and command line. Each threadgroup of a dispatch runs on the CPU as one
// fiber per thread (ucontext), all in one OS thread, threadgroups one after another. A thread runs until it reaches
// a scheduling point (threadgroup_barrier, a simd_* collective, a simdgroup matrix multiply) or returns; the
// scheduler then resolves what can proceed:
//   - a SIMD group whose live lanes all wait at the same collective: its combine runs over all of them;
//   - a threadgroup whose threads all wait at the same barrier: all continue (a barrier reached after some threads
//     returned, threads waiting at different barriers, or a SIMD group split between a collective and a barrier is
//     an error, as it is undefined on the GPU).
// Runnable threads are resumed in a seeded random order each round, and threadgroup memory is filled with 0xFF
// bytes (NaN as floats) before every threadgroup, so a missing or misplaced barrier reads poison or stale values.
// Buffers sit against a PROT_NONE page, so reading or writing past their end faults, and the fault is reported
// with the kernel, threadgroup and thread.
//
// Usage: emu describe            — every kernel with its parameters (buffer index, role, struct size)
//        emu run JOBFILE         — one dispatch: lines `kernel NAME`, `groups X Y Z`, `threads X Y Z`, `seed N`,
//                                  `buffer INDEX INFILE OUTFILE|-` (the buffer's bytes; OUTFILE receives them after)
#include "metal_shim.h"
#include "emu_rt.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
#include <vector>

extern "C" char __start_emu_tgmem[] __attribute__((weak));
extern "C" char __stop_emu_tgmem[] __attribute__((weak));

namespace emu {

std::map<std::string, Kernel>& registry() {
    static std::map<std::string, Kernel> r;
    return r;
}
Reg::Reg(const char* name, void (*call)(), void (*describe)()) { registry()[name] = Kernel{call, describe}; }

enum State { Runnable, AtBarrier, AtSimd, Done };

// Context switch: a few instructions saving the callee-saved registers on x86-64 and arm64 (swapcontext would make
// a signal-mask system call per switch, which dominated the run time); ucontext elsewhere.
#if defined(__x86_64__) || defined(__aarch64__)
#define EMU_FAST_SWITCH 1
extern "C" void emu_swap(void** save, void* to);
#if defined(__x86_64__)
asm(".text\n.globl emu_swap\n.type emu_swap,@function\nemu_swap:\n"
    "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
    "  movq %rsp, (%rdi)\n  movq %rsi, %rsp\n"
    "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n  ret\n");
#else
asm(".text\n.globl emu_swap\n.type emu_swap,%function\nemu_swap:\n"
    "  sub sp, sp, #160\n"
    "  stp x19, x20, [sp, #0]\n  stp x21, x22, [sp, #16]\n  stp x23, x24, [sp, #32]\n"
    "  stp x25, x26, [sp, #48]\n  stp x27, x28, [sp, #64]\n  stp x29, x30, [sp, #80]\n"
    "  stp d8, d9, [sp, #96]\n  stp d10, d11, [sp, #112]\n  stp d12, d13, [sp, #128]\n  stp d14, d15, [sp, #144]\n"
    "  mov x2, sp\n  str x2, [x0]\n  mov sp, x1\n"
    "  ldp x19, x20, [sp, #0]\n  ldp x21, x22, [sp, #16]\n  ldp x23, x24, [sp, #32]\n"
    "  ldp x25, x26, [sp, #48]\n  ldp x27, x28, [sp, #64]\n  ldp x29, x30, [sp, #80]\n"
    "  ldp d8, d9, [sp, #96]\n  ldp d10, d11, [sp, #112]\n  ldp d12, d13, [sp, #128]\n  ldp d14, d15, [sp, #144]\n"
    "  add sp, sp, #160\n  ret\n");
#endif
#endif

struct Fiber : Lane {
    ucontext_t ctx;
    void* sp;
    State state;
    const char* file;
    int line;
    Combine combine;
    uint index; // thread index in the threadgroup
};

static std::vector<Fiber> fibers;
static std::vector<char*> stacks;
static const size_t stackSize = 256 << 10;
static ucontext_t schedCtx;
static void* schedSP;
static Fiber* cur;
static void (*curCall)();
static const char* curKernel = "";
static uint3 groupPos, groupsPerGrid, tpt;
static uint threads, simdgroups;
static void* bufs[32];
static size_t bufSize[32];

[[noreturn]] void fail(const char* what) {
    if (cur)
        fprintf(stderr, "emu: kernel %s threadgroup (%u,%u,%u) thread %u: %s\n", curKernel, groupPos.x, groupPos.y,
                groupPos.z, cur->index, what);
    else
        fprintf(stderr, "emu: kernel %s threadgroup (%u,%u,%u): %s\n", curKernel, groupPos.x, groupPos.y, groupPos.z,
                what);
    fflush(stderr);
    _exit(2);
}

static void yield() {
#ifdef EMU_FAST_SWITCH
    emu_swap(&cur->sp, schedSP);
#else
    swapcontext(&cur->ctx, &schedCtx);
#endif
}

static void resume(Fiber& f) {
#ifdef EMU_FAST_SWITCH
    emu_swap(&schedSP, f.sp);
#else
    swapcontext(&schedCtx, &f.ctx);
#endif
}

void tg_barrier(const char* file, int line) {
    cur->state = AtBarrier;
    cur->file = file;
    cur->line = line;
    yield();
}

void simd_wait(const char* file, int line, Combine combine, const void* in, void* out) {
    cur->state = AtSimd;
    cur->file = file;
    cur->line = line;
    cur->combine = combine;
    cur->in = in;
    cur->out = out;
    yield();
}

unsigned lane_id() { return cur->index % 32u; }

uint3 builtin(Builtin b) {
    const uint i = cur->index;
    const uint3 local(i % tpt.x, (i / tpt.x) % tpt.y, i / (tpt.x * tpt.y));
    switch (b) {
    case TPIG: return uint3(groupPos.x * tpt.x + local.x, groupPos.y * tpt.y + local.y, groupPos.z * tpt.z + local.z);
    case TPITG: return local;
    case TGPIG: return groupPos;
    case TPTG: return tpt;
    case TGPG: return groupsPerGrid;
    case TPG: return uint3(groupsPerGrid.x * tpt.x, groupsPerGrid.y * tpt.y, groupsPerGrid.z * tpt.z);
    case TIITG: return uint3(i, 0, 0);
    case TIISG: return uint3(i % 32u, 0, 0);
    case SIITG: return uint3(i / 32u, 0, 0);
    case SPTG: return uint3(simdgroups, 0, 0);
    case TPSG: return uint3(32, 0, 0);
    }
    fail("unknown builtin");
}

void* buffer(int i) {
    if (i < 0 || i >= 32 || !bufs[i]) {
        char msg[96];
        snprintf(msg, sizeof msg, "buffer(%d) is not bound", i);
        fail(msg);
    }
    return bufs[i];
}

static void entry() {
    curCall();
    cur->state = Done;
    yield();
    fail("a finished thread was resumed");
}

// prepare sets a fiber up to start in entry() on its own stack.
static void prepare(Fiber& f, char* stack) {
#ifdef EMU_FAST_SWITCH
    uintptr_t top = (uintptr_t(stack) + stackSize) & ~uintptr_t(15);
#if defined(__x86_64__)
    void** sp = (void**)top;
    *--sp = nullptr;          // entry's (never used) return address: rsp ≡ 8 (mod 16) at its first instruction
    *--sp = (void*)entry;     // emu_swap's ret
    for (int i = 0; i < 6; i++) *--sp = nullptr; // rbp, rbx, r12..r15
    f.sp = sp;
#else
    void** sp = (void**)(top - 160);
    memset(sp, 0, 160);
    sp[11] = (void*)entry;    // x30 (the link register emu_swap returns through)
    f.sp = sp;
#endif
#else
    getcontext(&f.ctx);
    f.ctx.uc_stack.ss_sp = stack;
    f.ctx.uc_stack.ss_size = stackSize;
    f.ctx.uc_link = nullptr;
    makecontext(&f.ctx, entry, 0);
#endif
}

// xorshift64*: the order in which runnable threads are resumed.
static uint64_t rng = 1;
static uint64_t next() {
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ull;
}

static void site(char* dst, size_t n, const Fiber& f) {
    snprintf(dst, n, "%s:%d", f.file ? f.file : "?", f.line);
}

static void runGroup() {
    if (__start_emu_tgmem && __stop_emu_tgmem) memset(__start_emu_tgmem, 0xFF, __stop_emu_tgmem - __start_emu_tgmem);
    for (uint i = 0; i < threads; i++) {
        Fiber& f = fibers[i];
        f.state = Runnable;
        f.index = i;
        f.in = f.out = nullptr;
        f.file = nullptr;
        prepare(f, stacks[i]);
    }
    std::vector<uint> order(threads);
    for (;;) {
        for (uint i = 0; i < threads; i++) order[i] = i;
        for (uint i = threads; i > 1; i--) std::swap(order[i - 1], order[next() % i]);
        for (uint k = 0; k < threads; k++) {
            Fiber& f = fibers[order[k]];
            if (f.state != Runnable) continue;
            cur = &f;
            resume(f);
            cur = nullptr;
        }
        // Every thread now waits or is done. SIMD groups first.
        bool progressed = false;
        uint done = 0, atBarrier = 0;
        for (uint s = 0; s < simdgroups; s++) {
            const uint lo = s * 32, hi = std::min(threads, lo + 32);
            uint live = 0, atSimd = 0;
            Fiber* first = nullptr;
            for (uint i = lo; i < hi; i++) {
                Fiber& f = fibers[i];
                if (f.state == Done) continue;
                live++;
                if (f.state == AtSimd) {
                    atSimd++;
                    if (!first) first = &f;
                }
            }
            if (live == 0 || atSimd == 0) continue;
            if (atSimd != live) {
                char a[256];
                site(a, sizeof a, *first);
                cur = first;
                std::string m = std::string("SIMD group ") + std::to_string(s) +
                                " is split: some lanes wait at the collective at " + a +
                                ", others at a threadgroup barrier";
                fail(m.c_str());
            }
            Lane* lanes[32] = {};
            for (uint i = lo; i < hi; i++) {
                Fiber& f = fibers[i];
                if (f.state == Done) continue;
                if (f.line != first->line || f.file != first->file || f.combine != first->combine) {
                    char a[256], b[256];
                    site(a, sizeof a, *first);
                    site(b, sizeof b, f);
                    cur = &f;
                    fail((std::string("lanes of one SIMD group wait at different collectives: ") + a + " and " + b)
                             .c_str());
                }
                lanes[i - lo] = &f;
            }
            cur = first;
            first->combine(lanes, int(hi - lo));
            cur = nullptr;
            for (uint i = lo; i < hi; i++)
                if (fibers[i].state == AtSimd) fibers[i].state = Runnable;
            progressed = true;
        }
        if (progressed) continue;
        Fiber* first = nullptr;
        for (uint i = 0; i < threads; i++) {
            Fiber& f = fibers[i];
            if (f.state == Done) done++;
            if (f.state == AtBarrier) {
                atBarrier++;
                if (!first) first = &f;
            }
        }
        if (done == threads) return;
        if (atBarrier + done != threads) fail("deadlock: threads wait at collectives that cannot complete");
        if (done) {
            char a[256];
            site(a, sizeof a, *first);
            cur = first;
            fail((std::string("threadgroup_barrier at ") + a + " reached after " + std::to_string(done) +
                  " threads of the threadgroup returned")
                     .c_str());
        }
        for (uint i = 0; i < threads; i++) {
            Fiber& f = fibers[i];
            if (f.line != first->line || f.file != first->file) {
                char a[256], b[256];
                site(a, sizeof a, *first);
                site(b, sizeof b, f);
                cur = &f;
                fail((std::string("threads wait at different threadgroup barriers: ") + a + " and " + b).c_str());
            }
        }
        for (uint i = 0; i < threads; i++) fibers[i].state = Runnable;
    }
}

static void onFault(int sig) {
    char msg[512];
    int n = snprintf(msg, sizeof msg, "emu: kernel %s threadgroup (%u,%u,%u) thread %d: %s (out-of-bounds access?)\n",
                     curKernel, groupPos.x, groupPos.y, groupPos.z, cur ? int(cur->index) : -1,
                     sig == SIGSEGV ? "segmentation fault" : sig == SIGBUS ? "bus error" : "arithmetic fault");
    if (n > 0) (void)!write(2, msg, size_t(n));
    _exit(3);
}

// allocGuarded returns n bytes ending 16-byte aligned just before a PROT_NONE page.
static void* allocGuarded(size_t n) {
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    const size_t padded = (n + 15) & ~size_t(15);
    const size_t span = (padded + page - 1) / page * page;
    char* base = (char*)mmap(nullptr, span + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) fail("out of memory for a buffer");
    mprotect(base + span, page, PROT_NONE);
    return base + span - padded;
}

static std::string readFile(const std::string& p) {
    FILE* f = fopen(p.c_str(), "rb");
    if (!f) fail(("cannot read " + p).c_str());
    std::string s;
    char b[1 << 16];
    size_t k;
    while ((k = fread(b, 1, sizeof b, f)) > 0) s.append(b, k);
    fclose(f);
    return s;
}

static int run(const char* jobPath) {
    std::string job = readFile(jobPath);
    std::string name;
    uint3 groups(1, 1, 1), tg(1, 1, 1);
    std::vector<std::pair<int, std::string>> outs;
    size_t pos = 0;
    while (pos < job.size()) {
        size_t eol = job.find('\n', pos);
        if (eol == std::string::npos) eol = job.size();
        std::string line = job.substr(pos, eol - pos);
        pos = eol + 1;
        char a[4096], b[4096];
        unsigned x, y, z;
        int idx;
        unsigned long long seed;
        if (sscanf(line.c_str(), "kernel %4095s", a) == 1) name = a;
        else if (sscanf(line.c_str(), "groups %u %u %u", &x, &y, &z) == 3) groups = uint3(x, y, z);
        else if (sscanf(line.c_str(), "threads %u %u %u", &x, &y, &z) == 3) tg = uint3(x, y, z);
        else if (sscanf(line.c_str(), "seed %llu", &seed) == 1) rng = seed | 1;
        else if (sscanf(line.c_str(), "buffer %d %4095s %4095s", &idx, a, b) == 3) {
            if (idx < 0 || idx >= 32) fail("buffer index outside 0..31");
            std::string data = readFile(a);
            bufSize[idx] = data.size();
            bufs[idx] = allocGuarded(data.size());
            memcpy(bufs[idx], data.data(), data.size());
            if (std::string(b) != "-") outs.push_back({idx, b});
        } else if (!line.empty()) fail(("bad job line: " + line).c_str());
    }
    auto it = registry().find(name);
    if (it == registry().end()) fail(("no kernel named " + name).c_str());
    curKernel = it->first.c_str();
    curCall = it->second.call;
    tpt = tg;
    groupsPerGrid = groups;
    threads = tg.x * tg.y * tg.z;
    if (threads == 0 || threads > 1024) fail("threads per threadgroup must be 1..1024");
    simdgroups = (threads + 31) / 32;
    fibers.resize(threads);
    while (stacks.size() < threads) stacks.push_back((char*)allocGuarded(stackSize));
    for (uint gz = 0; gz < groups.z; gz++)
        for (uint gy = 0; gy < groups.y; gy++)
            for (uint gx = 0; gx < groups.x; gx++) {
                groupPos = uint3(gx, gy, gz);
                runGroup();
            }
    for (auto& o : outs) {
        std::string tmp = o.second + ".tmp";
        FILE* f = fopen(tmp.c_str(), "wb");
        if (!f || fwrite(bufs[o.first], 1, bufSize[o.first], f) != bufSize[o.first] || fclose(f) != 0)
            fail(("cannot write " + o.second).c_str());
        if (rename(tmp.c_str(), o.second.c_str()) != 0) fail(("cannot rename to " + o.second).c_str());
    }
    return 0;
}

} // namespace emu

int main(int argc, char** argv) {
    stack_t ss;
    ss.ss_sp = malloc(1 << 16);
    ss.ss_size = 1 << 16;
    ss.ss_flags = 0;
    sigaltstack(&ss, nullptr);
    struct sigaction sa = {};
    sa.sa_handler = emu::onFault;
    sa.sa_flags = SA_ONSTACK;
    sigaction(SIGSEGV, &sa, nullptr);
    sigaction(SIGBUS, &sa, nullptr);
    sigaction(SIGFPE, &sa, nullptr);
    if (argc == 2 && std::string(argv[1]) == "describe") {
        for (auto& k : emu::registry()) {
            printf("kernel %s\n", k.first.c_str());
            k.second.describe();
        }
        return 0;
    }
    if (argc == 3 && std::string(argv[1]) == "run") return emu::run(argv[2]);
    fprintf(stderr, "usage: emu describe | emu run JOBFILE\n");
    return 1;
}
