// Package emu runs the Metal kernels of shaders/metal on the CPU: the same .metal sources compiled as C++ by g++
// against a shim of the Metal Shading Language subset they use (shim/metal_shim.h), with a runtime (shim/runtime.cpp)
// that executes every threadgroup as one fiber per thread with real threadgroup-barrier and SIMD-group semantics.
// Tests build the harness once (Build), then dispatch kernels on bytes they wrote (Run) and compare the outputs
// against the CPU reference in Go. No cgo: the harness is a separate executable.
package emu

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
)

//go:embed shim/metal_shim.h shim/emu_rt.h shim/runtime.cpp
var shim embed.FS

// ErrNotLinux is returned by Build elsewhere than on Linux: the runtime relies on ELF (the threadgroup-memory
// section's start and stop symbols, the fiber switch's directives). On a Mac the kernels run on the GPU itself.
var ErrNotLinux = errors.New("emu: the Metal emulator runs on Linux only (on a Mac, verify the kernels on the GPU)")

// ErrNoCompiler is returned by Build when g++ is not on PATH.
var ErrNoCompiler = errors.New("emu: g++ not found on PATH (the Metal emulator compiles the shaders with it; apt install g++)")

// Prelude is the shader file every other file is compiled after (shared helpers and constants), as the runtime
// concatenates them.
const Prelude = "common.metal"

// Param is one parameter of a kernel as the compiled harness describes it.
type Param struct {
	Buffer  int    // [[buffer(i)]] index, −1 for a builtin
	Type    string // C++ type after the shim's address-space macros ("const float*", "const GemvParams&")
	Size    int    // sizeof the referenced struct for a reference parameter (the params block), else 0
	Builtin string // the builtin's attribute name for a builtin parameter
}

// Kernel is one kernel function of the harness.
type Kernel struct {
	Name   string
	File   string
	Params []Param
	// ThreadgroupBytes is the threadgroup memory the kernel declares (its `threadgroup` arrays, sized by the
	// compiler): Apple GPUs allow 32 KiB.
	ThreadgroupBytes int
}

// Harness is a built emulator binary and the kernels it holds.
type Harness struct {
	Bin     string
	Dir     string
	Kernels map[string]*Kernel
	runs    sync.Mutex
	seq     int
}

var kernelRe = regexp.MustCompile(`EMU_KERNEL\s+void\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(`)

// builtins maps the MSL attribute names the shim knows to the runtime's enumeration.
var builtins = map[string]string{
	"thread_position_in_grid":        "TPIG",
	"thread_position_in_threadgroup": "TPITG",
	"threadgroup_position_in_grid":   "TGPIG",
	"threads_per_threadgroup":        "TPTG",
	"threadgroups_per_grid":          "TGPG",
	"threads_per_grid":               "TPG",
	"thread_index_in_threadgroup":    "TIITG",
	"thread_index_in_simdgroup":      "TIISG",
	"simdgroup_index_in_threadgroup": "SIITG",
	"simdgroups_per_threadgroup":     "SPTG",
	"threads_per_simdgroup":          "TPSG",
}

// Build writes the shim and the sources (file name → text; Prelude first in every unit) into dir, generates one
// wrapper unit per .metal file that registers its kernels, compiles the units in parallel and links the harness.
// Only the kernels of the files in sources are present; a test of a mutated kernel builds just its file.
func Build(ctx context.Context, dir string, sources map[string]string) (*Harness, error) {
	if runtime.GOOS != "linux" {
		return nil, ErrNotLinux
	}
	gxx, err := exec.LookPath("g++")
	if err != nil {
		return nil, ErrNoCompiler
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("emu: %w", err)
	}
	for _, name := range []string{"metal_shim.h", "emu_rt.h", "runtime.cpp"} {
		b, _ := shim.ReadFile("shim/" + name)
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return nil, fmt.Errorf("emu: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "metal_stdlib"), []byte("#include \"metal_shim.h\"\n"), 0o644); err != nil {
		return nil, fmt.Errorf("emu: %w", err)
	}
	var files []string
	for name, text := range sources {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return nil, fmt.Errorf("emu: %w", err)
		}
		if name != Prelude && strings.HasSuffix(name, ".metal") {
			files = append(files, name)
		}
	}
	sort.Strings(files)
	h := &Harness{Bin: filepath.Join(dir, "emu"), Dir: dir, Kernels: map[string]*Kernel{}}
	units := []string{"runtime.cpp"}
	for _, f := range files {
		unit, err := h.wrap(ctx, gxx, dir, f, sources[Prelude] != "")
		if err != nil {
			return nil, err
		}
		units = append(units, unit)
	}
	objs, err := compileAll(ctx, gxx, dir, units)
	if err != nil {
		return nil, err
	}
	args := append([]string{"-o", h.Bin}, objs...)
	if out, err := exec.CommandContext(ctx, gxx, args...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("emu: link: %v\n%s", err, out)
	}
	return h, h.Describe(ctx)
}

// cflags: -O1 compiles the 100-odd instantiations in seconds; no contraction, so a·b + c rounds twice as the
// shaders (fp contract off) and the Go reference do.
var cflags = []string{"-std=c++17", "-O1", "-ffp-contract=off", "-fno-strict-aliasing", "-Wno-attributes", "-Wno-unknown-pragmas", "-I."}

// wrap preprocesses one .metal file to find its kernels' signatures and writes the unit that includes it and
// registers a call and a description for each kernel.
func (h *Harness) wrap(ctx context.Context, gxx, dir, file string, prelude bool) (string, error) {
	src := "#include \"metal_shim.h\"\n"
	if prelude {
		src += "#include \"" + Prelude + "\"\n"
	}
	src += "#include \"" + file + "\"\n"
	scan := exec.CommandContext(ctx, gxx, append(append([]string{}, cflags...), "-DEMU_SCAN", "-E", "-P", "-x", "c++", "-")...)
	scan.Dir = dir
	scan.Stdin = strings.NewReader(src)
	var stderr bytes.Buffer
	scan.Stderr = &stderr
	pre, err := scan.Output()
	if err != nil {
		return "", fmt.Errorf("emu: preprocess %s: %v\n%s", file, err, stderr.String())
	}
	var w strings.Builder
	w.WriteString("// Generated by internal/metal/emu for " + file + ": one registered call per kernel.\n")
	w.WriteString(src + "#include \"emu_rt.h\"\nnamespace {\n")
	text := string(pre)
	for _, m := range kernelRe.FindAllStringSubmatchIndex(text, -1) {
		name := text[m[2]:m[3]]
		list, err := parenBody(text, m[1]-1)
		if err != nil {
			return "", fmt.Errorf("emu: %s: kernel %s: %w", file, name, err)
		}
		k := &Kernel{Name: name, File: file}
		var call, desc []string
		for _, p := range splitParams(list) {
			param, expr, d, err := bindParam(p)
			if err != nil {
				return "", fmt.Errorf("emu: %s: kernel %s: %w", file, name, err)
			}
			k.Params = append(k.Params, param)
			call = append(call, expr)
			desc = append(desc, d)
		}
		if _, dup := h.Kernels[name]; dup {
			return "", fmt.Errorf("emu: kernel %s defined twice", name)
		}
		h.Kernels[name] = k
		fmt.Fprintf(&w, "void call_%s() { %s(%s); }\n", name, name, strings.Join(call, ", "))
		fmt.Fprintf(&w, "void desc_%s() {\n%s}\n", name, strings.Join(desc, ""))
		fmt.Fprintf(&w, "emu::Reg reg_%s(\"%s\", call_%s, desc_%s);\n", name, name, name, name)
	}
	w.WriteString("} // namespace\n")
	unit := strings.TrimSuffix(file, ".metal") + ".emu.cpp"
	return unit, os.WriteFile(filepath.Join(dir, unit), []byte(w.String()), 0o644)
}

// parenBody returns the text between the parenthesis at open and its match.
func parenBody(s string, open int) (string, error) {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return s[open+1 : i], nil
			}
		}
	}
	return "", errors.New("unbalanced parameter list")
}

// splitParams splits a parameter list at the commas outside (), <> and [].
func splitParams(list string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range list {
		switch c {
		case '(', '<', '[':
			depth++
		case ')', '>', ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(list[start:i]))
				start = i + 1
			}
		}
	}
	if s := strings.TrimSpace(list[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

var paramRe = regexp.MustCompile(`^(.*?)([A-Za-z_][A-Za-z0-9_]*)\s*\[\[\s*([A-Za-z_]+)\s*(?:\(\s*(\d+)\s*\))?\s*\]\]$`)

// bindParam turns one parameter into the expression that passes it and the line that describes it.
func bindParam(p string) (Param, string, string, error) {
	m := paramRe.FindStringSubmatch(strings.TrimSpace(p))
	if m == nil {
		return Param{}, "", "", fmt.Errorf("parameter %q: want `TYPE NAME [[attribute]]`", p)
	}
	typ, attr := strings.TrimSpace(m[1]), m[3]
	if attr == "buffer" {
		idx, _ := strconv.Atoi(m[4])
		if strings.HasSuffix(typ, "&") {
			base := strings.TrimSpace(strings.TrimSuffix(typ, "&"))
			return Param{Buffer: idx, Type: typ}, fmt.Sprintf("*(%s*)emu::buffer(%d)", base, idx),
				fmt.Sprintf("  printf(\"buffer %d ref %%zu\\n\", sizeof(%s));\n", idx, base), nil
		}
		if !strings.HasSuffix(typ, "*") {
			return Param{}, "", "", fmt.Errorf("parameter %q: a buffer must be a pointer or a reference", p)
		}
		return Param{Buffer: idx, Type: typ}, fmt.Sprintf("(%s)emu::buffer(%d)", typ, idx),
			fmt.Sprintf("  printf(\"buffer %d ptr\\n\");\n", idx), nil
	}
	b, ok := builtins[attr]
	if !ok {
		return Param{}, "", "", fmt.Errorf("parameter %q: attribute %s is not one the emulator knows", p, attr)
	}
	return Param{Buffer: -1, Type: typ, Builtin: attr}, fmt.Sprintf("emu::bi<%s>(emu::%s)", typ, b),
		fmt.Sprintf("  printf(\"builtin %s\\n\");\n", attr), nil
}

// compileAll compiles the units, as many at once as there are CPUs.
func compileAll(ctx context.Context, gxx, dir string, units []string) ([]string, error) {
	objs := make([]string, len(units))
	errs := make([]error, len(units))
	sem := make(chan struct{}, max(1, runtime.NumCPU()))
	var wg sync.WaitGroup
	for i, u := range units {
		objs[i] = strings.TrimSuffix(u, ".cpp") + ".o"
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			cmd := exec.CommandContext(ctx, gxx, append(append([]string{}, cflags...), "-c", u, "-o", objs[i])...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("emu: compile %s: %v\n%s", u, err, out)
			}
		}()
	}
	wg.Wait()
	for i := range objs {
		objs[i] = filepath.Join(dir, objs[i])
	}
	return objs, errors.Join(errs...)
}

// Buffer is one bound buffer of a dispatch: its initial bytes and whether Run returns its final bytes.
type Buffer struct {
	Index int
	Data  []byte
	Out   bool
}

// Dispatch is one dispatchThreadgroups call.
type Dispatch struct {
	Kernel  string
	Groups  [3]int // threadgroups per grid
	Threads [3]int // threads per threadgroup
	Buffers []Buffer
	Seed    uint64 // the order threads are resumed in (0: 1)
}

// Run executes d and returns the final bytes of the buffers marked Out, by index. A kernel fault, an
// out-of-bounds access, a split barrier or collective is an error carrying the harness's one-line report.
func (h *Harness) Run(ctx context.Context, d Dispatch) (map[int][]byte, error) {
	k, ok := h.Kernels[d.Kernel]
	if !ok {
		return nil, fmt.Errorf("emu: no kernel %s in the harness", d.Kernel)
	}
	h.runs.Lock()
	h.seq++
	job := filepath.Join(h.Dir, fmt.Sprintf("job%d", h.seq))
	h.runs.Unlock()
	if err := os.MkdirAll(job, 0o755); err != nil {
		return nil, err
	}
	defer os.RemoveAll(job)
	var spec strings.Builder
	fmt.Fprintf(&spec, "kernel %s\ngroups %d %d %d\nthreads %d %d %d\nseed %d\n", k.Name,
		d.Groups[0], d.Groups[1], d.Groups[2], d.Threads[0], d.Threads[1], d.Threads[2], max(d.Seed, 1))
	for _, b := range d.Buffers {
		in := filepath.Join(job, fmt.Sprintf("in%d", b.Index))
		if err := os.WriteFile(in, b.Data, 0o644); err != nil {
			return nil, err
		}
		out := "-"
		if b.Out {
			out = filepath.Join(job, fmt.Sprintf("out%d", b.Index))
		}
		fmt.Fprintf(&spec, "buffer %d %s %s\n", b.Index, in, out)
	}
	jf := filepath.Join(job, "job")
	if err := os.WriteFile(jf, []byte(spec.String()), 0o644); err != nil {
		return nil, err
	}
	if msg, err := exec.CommandContext(ctx, h.Bin, "run", jf).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("emu: %s: %v: %s", k.Name, err, strings.TrimSpace(string(msg)))
	}
	res := map[int][]byte{}
	for _, b := range d.Buffers {
		if b.Out {
			out, err := os.ReadFile(filepath.Join(job, fmt.Sprintf("out%d", b.Index)))
			if err != nil {
				return nil, err
			}
			res[b.Index] = out
		}
	}
	return res, nil
}

// Describe (run by Build) asks the binary for every kernel's parameters (the struct sizes the compiler laid out) and fills them
// into h.Kernels.
func (h *Harness) Describe(ctx context.Context) error {
	out, err := exec.CommandContext(ctx, h.Bin, "describe").Output()
	if err != nil {
		return fmt.Errorf("emu: describe: %w", err)
	}
	var k *Kernel
	i := 0
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "kernel":
			k, i = h.Kernels[f[1]], 0
			if k == nil {
				return fmt.Errorf("emu: describe names kernel %s the sources did not", f[1])
			}
		case len(f) >= 2 && k != nil:
			if i >= len(k.Params) {
				return fmt.Errorf("emu: describe lists more parameters of %s than parsed", k.Name)
			}
			if len(f) == 4 && f[2] == "ref" {
				k.Params[i].Size, _ = strconv.Atoi(f[3])
			}
			i++
		}
	}
	return h.threadgroupMemory(ctx)
}

// threadgroupMemory sums each kernel's threadgroup arrays: they are the kernel function's static locals, which
// `nm -S -C` lists as KERNEL::NAME with their size.
func (h *Harness) threadgroupMemory(ctx context.Context) error {
	out, err := exec.CommandContext(ctx, "nm", "-S", "-C", h.Bin).Output()
	if err != nil {
		return fmt.Errorf("emu: nm (binutils, installed with g++): %w", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 4 {
			continue
		}
		kernel, _, ok := strings.Cut(f[3], "::")
		k := h.Kernels[kernel]
		if !ok || k == nil {
			continue
		}
		size, err := strconv.ParseInt(f[1], 16, 64)
		if err != nil {
			return fmt.Errorf("emu: nm size %q: %w", f[1], err)
		}
		k.ThreadgroupBytes += int(size)
	}
	return nil
}
