// Tests of device selection with fake devices: "auto" passes over a device that does not open or cannot serve a
// layer and says why in its one line; a named device that cannot serve fails naming the layer and its format.
package backend

import (
	"errors"
	"strings"
	"testing"
)

// fakeDevice serves what accept says; the other Backend methods are not called by selection.
type fakeDevice struct {
	Backend
	name   string
	accept func(Query) string // "" serves, else why not
	closed bool
}

func (f *fakeDevice) Name() string { return f.name }
func (f *fakeDevice) Close() error { f.closed = true; return nil }
func (f *fakeDevice) Supports(q Query) error {
	if why := f.accept(q); why != "" {
		return &UnsupportedError{Backend: f.name, Query: q, Why: why}
	}
	return nil
}

// withDevices registers fakes in place of the real devices for one test.
func withDevices(t *testing.T, ds ...Device) {
	saved := devices
	devices = nil
	for _, d := range ds {
		Register(d)
	}
	t.Cleanup(func() { devices = saved })
}

var (
	denseQ   = Query{Op: OpMatMul, Name: "lm_head", Weight: Weight{Format: FormatDense, DType: BF16}, Out: 2048, In: 256}
	trellisQ = Query{Op: OpMatMul, Name: "model.layers.0.self_attn.q_proj", Out: 256, In: 256,
		Weight: Weight{Format: FormatTrellis, Bits: 3, Group: 256, L: 12, Code: "1mad", Axis: 1}}
)

func denseOnly(q Query) string {
	if q.Weight.Format != FormatDense {
		return "no kernels for " + q.Weight.Format.String() + " weights"
	}
	return ""
}

func TestOpenForAuto(t *testing.T) {
	var gpu, cpu *fakeDevice
	open := func(f **fakeDevice, name string, accept func(Query) string) func() (Backend, error) {
		return func() (Backend, error) { *f = &fakeDevice{name: name, accept: accept}; return *f, nil }
	}
	withDevices(t,
		Device{Name: "cpu", Rank: 0, Open: open(&cpu, "cpu", func(Query) string { return "" })},
		Device{Name: "gpu", Rank: 10, Open: open(&gpu, "gpu", denseOnly)})

	b, choice, err := OpenFor("auto", []Query{denseQ, trellisQ})
	if err != nil {
		t.Fatal(err)
	}
	want := "device cpu: gpu cannot serve matmul model.layers.0.self_attn.q_proj (trellis 3-bit L12 T256 1mad axis 1, 256→256): no kernels for trellis weights"
	if b.Name() != "cpu" || choice.Line != want || !choice.FellBack || !gpu.closed || cpu.closed {
		t.Errorf("picked %s (gpu closed %v, cpu closed %v)\n got %q\nwant %q", b.Name(), gpu.closed, cpu.closed, choice.Line, want)
	}

	b, choice, err = OpenFor("auto", []Query{denseQ})
	if err != nil || b.Name() != "gpu" || choice.Line != "device gpu: the best device; it serves all 1 linear layers" || choice.FellBack {
		t.Errorf("dense model: %v %+v", err, choice)
	}
}

func TestOpenForNamedCannotServe(t *testing.T) {
	var gpu *fakeDevice
	withDevices(t, Device{Name: "gpu", Rank: 10, Open: func() (Backend, error) {
		gpu = &fakeDevice{name: "gpu", accept: denseOnly}
		return gpu, nil
	}})
	_, _, err := OpenFor("gpu", []Query{denseQ, trellisQ})
	var ue *UnsupportedError
	if !errors.As(err, &ue) || !errors.Is(err, ErrUnsupported) || ue.Query.Name != trellisQ.Name {
		t.Fatalf("got %v, want the UnsupportedError of %s", err, trellisQ.Name)
	}
	for _, want := range []string{"model.layers.0.self_attn.q_proj", "trellis 3-bit", "no kernels"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not name %q", err, want)
		}
	}
	if !gpu.closed {
		t.Error("the refused device was left open")
	}
	if b, choice, err := OpenFor("gpu", []Query{denseQ}); err != nil || b.Name() != "gpu" || !strings.HasPrefix(choice.Line, "device gpu: as named") {
		t.Errorf("dense model on the named device: %v %q", err, choice.Line)
	}
}

func TestOpenForFallbacksAndFailures(t *testing.T) {
	withDevices(t,
		Device{Name: "cpu", Rank: 0, Open: func() (Backend, error) { return &fakeDevice{name: "cpu", accept: denseOnly}, nil }},
		Device{Name: "gpu", Rank: 10, Open: func() (Backend, error) { return nil, errors.New("driver not found") }})
	b, choice, err := OpenFor("auto", []Query{denseQ})
	if err != nil || b.Name() != "cpu" || choice.Line != "device cpu: gpu did not open: driver not found" || choice.FellBack {
		t.Errorf("got %v %+v", err, choice)
	}
	_, _, err = OpenFor("auto", []Query{trellisQ})
	if err == nil || !errors.Is(err, ErrUnsupported) || strings.Contains(err.Error(), "\n") ||
		!strings.Contains(err.Error(), "gpu did not open: driver not found; cpu cannot serve matmul model.layers.0.self_attn.q_proj") {
		t.Errorf("no device serves: %v", err)
	}
	if _, _, err := OpenFor("gpu", nil); err == nil || err.Error() != "device gpu: driver not found" {
		t.Errorf("named device that does not open: %v", err)
	}
	if _, _, err := OpenFor("tpu", nil); err == nil || !strings.Contains(err.Error(), `unknown device "tpu" (this build has: auto, gpu, cpu)`) {
		t.Errorf("unknown device: %v", err)
	}
}

// TestOpenForAttentionShape: a device whose attention kernels stop short of a layer's head dim is passed over by
// "auto" with one line naming the op, the layer and the shape, and fails a forced choice the same way.
func TestOpenForAttentionShape(t *testing.T) {
	narrow := func(q Query) string {
		if q.Op == OpAttention && q.Attn.HeadDim > 256 {
			return "decode attention with head dim 512: the kernels take up to 256"
		}
		return ""
	}
	withDevices(t,
		Device{Name: "cpu", Rank: 0, Open: func() (Backend, error) {
			return &fakeDevice{name: "cpu", accept: func(Query) string { return "" }}, nil
		}},
		Device{Name: "gpu", Rank: 10, Open: func() (Backend, error) { return &fakeDevice{name: "gpu", accept: narrow}, nil }})
	global := Query{Op: OpAttention, Name: "model.layers.5.self_attn", Attn: AttnShape{Heads: 32, KVHeads: 4, HeadDim: 512}}
	sliding := Query{Op: OpAttention, Name: "model.layers.0.self_attn", Attn: AttnShape{Heads: 32, KVHeads: 16, HeadDim: 256, Window: true}}
	b, choice, err := OpenFor("auto", []Query{denseQ, sliding, global})
	want := "device cpu: gpu cannot serve attention model.layers.5.self_attn (32/4 heads of 512): decode attention with head dim 512: the kernels take up to 256"
	if err != nil || b.Name() != "cpu" || choice.Line != want || !choice.FellBack {
		t.Errorf("auto: %v\n got %q\nwant %q", err, choice.Line, want)
	}
	_, _, err = OpenFor("gpu", []Query{denseQ, sliding, global})
	if !errors.Is(err, ErrUnsupported) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "(32/4 heads of 512)") {
		t.Errorf("forced gpu: %v", err)
	}
	if s := sliding.String(); s != "attention model.layers.0.self_attn (32/16 heads of 256, windowed)" {
		t.Errorf("sliding query reads %q", s)
	}
}
