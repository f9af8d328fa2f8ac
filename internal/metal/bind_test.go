// Argument packing over every plan kernels.go builds, at decode, prompt and Qwen3-14B shapes: each launch binds
// with all its roles, fails without any one of them, carries its parameter struct whole, launches a grid Metal
// accepts, and names a function of the form it belongs to. Runs on any platform (no GPU involved).
package metal

import (
	"encoding/binary"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/metal/mtl"
	"github.com/mlxbun/mlxbun/internal/rope"
	"github.com/mlxbun/mlxbun/internal/trellis"
)

// plans builds a plan of every op at small and Qwen3-14B-like shapes.
func plans(t *testing.T) map[string]Plan {
	t.Helper()
	out := map[string]Plan{}
	must := func(name string, p Plan, err error) {
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = p
	}
	out["embed"] = PlanEmbed(7, 5120, 151936)
	out["rmsnorm head"] = PlanRMSNorm(7*40, 128, 1e-6)
	out["rmsnorm row"] = PlanRMSNorm(7, 5120, 1e-6)
	out["add_rmsnorm"] = PlanAddRMSNorm(7, 5120, 1e-6)
	tab, err := rope.New(128, 1e6, false, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	p, err := PlanRope(7, 40, 128, tab)
	must("rope", p, err)
	out["add"], out["swiglu"] = PlanAdd(7*5120), PlanSwiGLU(7*17408)
	kv := KVGeometry{Layers: 40, Seqs: 2, MaxLen: 4096, KVHeads: 8, HeadDim: 128}
	out["kv_store"] = PlanKVStore(7, kv, 3)
	for _, n := range []int{1, 8, 9, 512} {
		p, err := PlanAttention(M1, AttnCase{N: n, Heads: 40, KV: kv, Layer: 3, Scale: 0.088})
		must("attention n"+itoa(n), p, err)
	}
	out["argmax"], out["bitmask"] = PlanArgmax(3, 151936), PlanBitmask(3, 151936, 4748)
	out["add_scaled"], out["scale"] = PlanAddScaled(7*5120, 0.5), PlanScale(7*5120, 0.5)
	out["softcap"], out["geglu"] = PlanSoftcap(3*262144, 30), PlanGeGLU(7*17408)
	for _, b := range []int{128, 1024, 8192} {
		p, err := PlanHadamard(7, 17408/b*b, b, true, true)
		must("hadamard b"+itoa(b), p, err)
	}
	for _, n := range []int{1, 8, 9, 512} {
		for _, ring := range []bool{false, true} {
			p, err := PlanWinAttention(M1, WinCase{N: n, Heads: 16, KVHeads: 8, HeadDim: 256, Seqs: 2, Slots: 4096, Ring: ring,
				Window: 1024, Scale: 0.0625, Softcap: 50, Store: true})
			must("windowed attention n"+itoa(n)+" ring "+strconv.FormatBool(ring), p, err)
		}
	}
	for _, k := range []int{2, 3, 4} {
		for _, n := range []int{1, 3, 4, 5, 8, 9, 512} {
			up := trellis.Geometry{Spec: trellis.Spec{K: k, L: 12, T: 256, Code: "1mad", Axis: 1}, Rows: 17408, Cols: 5120}
			down := trellis.Geometry{Spec: trellis.Spec{K: k, L: 12, T: 256, Code: "1mad", Axis: 0}, Rows: 17408, Cols: 5120, Interleaved: k == 3}
			for _, v := range []trellis.Variant{trellis.Reciprocal, trellis.Factored} {
				p, err := PlanTrellis(M1, up, n, v, true)
				must("trellis axis1 k"+itoa(k)+" n"+itoa(n)+" "+v.String(), p, err)
				p, err = PlanTrellis(M1, down, n, v, false)
				must("trellis axis0 k"+itoa(k)+" n"+itoa(n)+" "+v.String(), p, err)
			}
			if n <= 8 {
				p, err := PlanGateUp(M1, up, up, n)
				must("gateup k"+itoa(k)+" n"+itoa(n), p, err)
			}
		}
		for _, f16 := range []bool{true, false} {
			g := trellis.Geometry{Spec: trellis.Spec{K: k, L: 12, T: 256, Code: "1mad", Axis: 1}, Rows: 1024, Cols: 2048}
			p, err := PlanExpand(g, f16)
			must("expand k"+itoa(k), p, err)
		}
	}
	for _, bits := range []int{2, 3, 4, 5, 6, 8} {
		for _, n := range []int{1, 2, 8, 9, 512} {
			p, err := PlanAffine(M1, bits, 64, 17408, 5120, n, true)
			must("affine b"+itoa(bits)+" n"+itoa(n), p, err)
		}
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestBindEveryPlan(t *testing.T) {
	byFunction := map[string]string{}
	for _, f := range Forms() {
		for _, fn := range f.Functions {
			byFunction[fn] = f.Name
		}
	}
	for name, p := range plans(t) {
		if len(p.Launches) == 0 {
			t.Errorf("%s: no launches", name)
		}
		roles := map[Role]int{}
		for i, r := range p.Roles() {
			roles[r] = i
		}
		for _, l := range p.Launches {
			if _, ok := byFunction[l.Function]; !ok {
				t.Errorf("%s: launches %s, which no form of the table lists", name, l.Function)
			}
			bound, err := Bind(l, roles)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if len(bound) != len(l.Args) {
				t.Errorf("%s: %s bound %d of %d arguments", name, l.Function, len(bound), len(l.Args))
			}
			for _, a := range l.Args { // without any one role the launch must not bind
				less := maps.Clone(roles)
				delete(less, a.Role)
				if _, err := Bind(l, less); err == nil || !strings.Contains(err.Error(), string(a.Role)) {
					t.Errorf("%s: %s binds without %s: %v", name, l.Function, a.Role, err)
				}
			}
			if len(l.Params) == 0 || len(l.Params)%4 != 0 {
				t.Errorf("%s: %s has %d parameter bytes, want whole 4-byte fields", name, l.Function, len(l.Params))
			}
			if _, _, err := mtl.CheckDispatch(l.Function, l.Groups, l.Threads, 0); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
}

func TestBindRefusesCollisions(t *testing.T) {
	l := Launch{Function: "k", Args: []Arg{{0, RoleDst}, {1, RoleX}}, ParamIndex: 2, Params: make([]byte, 8)}
	roles := map[Role]int{RoleDst: 1, RoleX: 2}
	if _, err := Bind(l, roles); err != nil {
		t.Fatal(err)
	}
	l.Args[1].Index = 0
	if _, err := Bind(l, roles); err == nil || !strings.Contains(err.Error(), "both at buffer index 0") {
		t.Errorf("shared index: %v", err)
	}
	l.Args[1].Index, l.ParamIndex = 1, 1
	if _, err := Bind(l, roles); err == nil || !strings.Contains(err.Error(), "parameters at buffer index 1") {
		t.Errorf("parameters over a buffer: %v", err)
	}
	l.ParamIndex, l.Args[1].Index = 2, 31
	if _, err := Bind(l, roles); err == nil {
		t.Error("index 31 accepted")
	}
}

// TestParamBytes checks a parameter struct is packed field for field, little-endian, as common.metal reads it.
func TestParamBytes(t *testing.T) {
	p := PlanEmbed(7, 5120, 151936).Launches[0].Params
	if len(p) != 12 || binary.LittleEndian.Uint32(p[0:]) != 7 || binary.LittleEndian.Uint32(p[4:]) != 5120 ||
		binary.LittleEndian.Uint32(p[8:]) != 151936 {
		t.Errorf("EmbedParams bytes % x", p)
	}
	if !slices.Contains(PlanEmbed(1, 1, 1).Roles(), RoleIDs) {
		t.Error("embed plan does not bind the ids")
	}
}
