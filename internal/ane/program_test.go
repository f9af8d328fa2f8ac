// Unit tests of the program text, keys, layer ranges and the install step's bookkeeping, at shapes whose
// dimensions all differ (the fixtures' goldens have several 256s, which cannot tell rows from columns).
package ane

import (
	"errors"
	"strings"
	"testing"
)

func TestMILSignatureAndBody(t *testing.T) {
	s := Spec{Kind: KindLinear, Rows: 3, In: 5, Out: 7, X: F32, Y: F32, W: F16}
	mil := s.MIL()
	for _, want := range []string{
		"program(1.3)\n",
		"func main<ios17>(tensor<fp32, [1, 1, 3, 5]> x, tensor<fp16, [1, 1, 7, 5]> w) {",
		"tensor<fp16, [1, 1, 3, 5]> x16 = cast(dtype = x_to, x = x)",
		"bool ty = const()[name = string(\"ty\"), val = bool(true)];",
		"tensor<fp16, [1, 1, 3, 7]> y16 = matmul(transpose_x = tx, transpose_y = ty, x = x16, y = w)",
		"tensor<fp32, [1, 1, 3, 7]> y = cast(dtype = y_to, x = y16)",
		"} -> (y);\n}\n",
	} {
		if !strings.Contains(mil, want) {
			t.Errorf("linear MIL lacks %q:\n%s", want, mil)
		}
	}
	if got := s.Shapes(); got != "x f32[3,5] w f16[7,5] -> f32[3,7]" {
		t.Errorf("Shapes %q", got)
	}

	g := Spec{Kind: KindGLU, Act: ActGELUTanh, Rows: 3, In: 5, Out: 7, X: F16, Y: F16, W: F32}
	mil = g.MIL()
	for _, want := range []string{
		"func main<ios17>(tensor<fp16, [1, 1, 3, 5]> x, tensor<fp32, [1, 1, 7, 5]> gate, tensor<fp32, [1, 1, 7, 5]> up) {",
		"tensor<fp16, [1, 1, 7, 5]> gate16 = cast(dtype = gate_to, x = gate)",
		"= matmul(transpose_x = tx, transpose_y = ty, x = x, y = gate16)",
		"= matmul(transpose_x = tx, transpose_y = ty, x = x, y = up16)",
		`val = string("TANH_APPROXIMATION")`,
		"tensor<fp16, [1, 1, 3, 7]> a = gelu(mode = gelu_mode, x = g)",
		"tensor<fp16, [1, 1, 3, 7]> y16 = mul(x = a, y = u)",
		"} -> (y16);",
	} {
		if !strings.Contains(mil, want) {
			t.Errorf("geglu MIL lacks %q:\n%s", want, mil)
		}
	}
	if strings.Contains(mil, "x16") || strings.Contains(mil, "y_to") {
		t.Errorf("fp16 activations are cast anyway:\n%s", mil)
	}
	// Every value defined once and every name used after its definition: a line-by-line scan of the body.
	for _, sp := range []Spec{s, g, {Kind: KindGLU, Act: ActSiLU, Rows: 2, In: 4, Out: 6, X: F32, Y: F32, W: F16}} {
		defined := map[string]bool{"x": true}
		for _, w := range sp.weights() {
			defined[w] = true
		}
		for _, l := range strings.Split(sp.MIL(), "\n") {
			l = strings.TrimSpace(l)
			if !strings.Contains(l, " = ") || strings.HasPrefix(l, "[") {
				continue
			}
			lhs, rhs, _ := strings.Cut(l, " = ")
			name := lhs[strings.LastIndex(lhs, " ")+1:]
			if defined[name] {
				t.Errorf("%s: %s defined twice", sp.Name(), name)
			}
			for _, arg := range strings.Split(rhs[strings.Index(rhs, "(")+1:strings.Index(rhs, ")")], ", ") {
				if k, v, ok := strings.Cut(arg, " = "); ok && !strings.ContainsAny(v, "(\"") && !defined[v] {
					t.Errorf("%s: argument %s = %s used before it is defined", sp.Name(), k, v)
				}
			}
			defined[name] = true
		}
	}
}

func TestKeys(t *testing.T) {
	base := Spec{Kind: KindLinear, Rows: 256, In: 1024, Out: 2048, X: F32, Y: F32, W: F16}
	copyOf := base
	if base.Key() != copyOf.Key() || len(base.Key()) != 16 {
		t.Fatalf("key %q not stable or not 16 hex digits", base.Key())
	}
	variants := []func(*Spec){
		func(s *Spec) { s.Rows = 128 }, func(s *Spec) { s.In = 2048; s.Out = 1024 }, func(s *Spec) { s.X = F16 },
		func(s *Spec) { s.Y = F16 }, func(s *Spec) { s.W = F32 }, func(s *Spec) { s.Kind, s.Act = KindGLU, ActSiLU },
		func(s *Spec) { s.Kind, s.Act = KindGLU, ActGELUTanh },
	}
	seen := map[string]int{base.Key(): -1}
	for i, v := range variants {
		s := base
		v(&s)
		if j, dup := seen[s.Key()]; dup {
			t.Errorf("variant %d has the key of %d", i, j)
		}
		seen[s.Key()] = i
	}
}

func TestCheck(t *testing.T) {
	for _, s := range []Spec{{Kind: KindLinear, Rows: 0, In: 1, Out: 1}, {Kind: KindLinear, Act: ActSiLU, Rows: 1, In: 1, Out: 1},
		{Kind: KindGLU, Rows: 1, In: 1, Out: 1}} {
		if s.Check() == nil {
			t.Errorf("%+v accepted", s)
		}
	}
}

func TestRanges(t *testing.T) {
	for _, c := range []struct {
		in   []int
		want string
	}{{[]int{0}, "0"}, {[]int{3, 1, 2, 2}, "1-3"}, {[]int{0, 1, 2, 5, 7, 8}, "0-2,5,7-8"}, {[]int{9, 4}, "4,9"}} {
		if got := ranges(c.in); got != c.want {
			t.Errorf("ranges(%v) = %q, want %q", c.in, got, c.want)
		}
	}
	p := Program{Uses: []Use{{0, "a"}, {0, "b"}, {1, "a"}, {1, "b"}, {3, "c"}}}
	if got := p.UsedBy(); got != "a, b (layers 0-1); c (layer 3)" {
		t.Errorf("UsedBy %q", got)
	}
}

// fakeCompiler is a compile cache in memory; broken makes Compile succeed without filling the cache.
type fakeCompiler struct {
	cache   map[string]bool
	broken  bool
	fail    string // key whose compile fails
	compile int
}

func (f *fakeCompiler) Cached(s Spec) (bool, error) { return f.cache[s.Key()], nil }
func (f *fakeCompiler) Compile(s Spec) error {
	f.compile++
	if s.Key() == f.fail {
		return errors.New("ANECCompile() FAILED")
	}
	if !f.broken {
		f.cache[s.Key()] = true
	}
	return nil
}
func (f *fakeCompiler) Describe() string { return "fake" }
func (f *fakeCompiler) Close() error     { return nil }

func TestInstallReportsOnlyWhatHappened(t *testing.T) {
	progs := []Program{}
	for _, out := range []int{64, 128, 256} {
		s := Spec{Kind: KindLinear, Rows: 8, In: 32, Out: out, X: F32, Y: F32, W: F16}
		progs = append(progs, Program{Spec: s, Key: s.Key()})
	}
	f := &fakeCompiler{cache: map[string]bool{progs[0].Key: true}, fail: progs[2].Key}
	var heard []int
	res := Install(f, progs, func(i int, _ Result) { heard = append(heard, i) })
	want := []State{StateCached, StateCompiled, StateFailed}
	for i, r := range res {
		if r.State != want[i] {
			t.Errorf("program %d: %s, want %s (%v)", i, r.State, want[i], r.Err)
		}
	}
	if f.compile != 2 || len(heard) != 3 {
		t.Errorf("%d compiles, %d callbacks; want 2 and 3", f.compile, len(heard))
	}
	if res[2].Err == nil || !strings.Contains(res[2].Err.Error(), "ANECCompile() FAILED") || !strings.Contains(res[2].Err.Error(), progs[2].Key) {
		t.Errorf("failure does not carry the compiler's text and the key: %v", res[2].Err)
	}
	if st := Status(f, progs); st[0].State != StateCached || st[1].State != StateCached || st[2].State != StateMissing {
		t.Errorf("status after install: %v", st)
	}
	// A compiler that says yes but leaves the cache empty must not be reported as having compiled.
	b := &fakeCompiler{cache: map[string]bool{}, broken: true}
	if r := Install(b, progs[:1], nil)[0]; r.State != StateFailed || r.Err == nil {
		t.Errorf("a compile that left no cache entry reported %s", r.State)
	}
}
