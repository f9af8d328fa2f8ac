// The darwin runtime of the backend: internal/metal/mtl's device, library, buffers and encoders behind the
// interfaces of runtime.go, Open, and the registration of the "metal" device. Nothing here has run in CI (no Mac).

//go:build darwin

package metal

import (
	"errors"
	"fmt"
	"os"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/metal/mtl"
	metalshaders "github.com/mlxbun/mlxbun/shaders/metal"
)

// envDebug makes the backend log its device, cache use and plan choices to stderr ("1").
const envDebug = "MLXBUN_METAL_DEBUG"

func init() {
	backend.Register(backend.Device{Name: "metal", Rank: 10, Open: func() (backend.Backend, error) {
		b, err := Open()
		if err != nil {
			return nil, err
		}
		return b, nil
	}})
}

// Open opens the default GPU and compiles the embedded shaders (pipelines are built on first use through the
// disk cache). Without a usable GPU the error wraps mtl.ErrNoDevice.
func Open() (*Backend, error) {
	dev, err := mtl.Open()
	if err != nil {
		return nil, err
	}
	fam, err := FamilyOf(dev.Family, dev.Name)
	if err != nil {
		dev.Close()
		return nil, fmt.Errorf("%w: %v", mtl.ErrNoDevice, err)
	}
	lib, err := dev.NewLibrary(metalshaders.Source(), CompileFastMath)
	if err != nil {
		dev.Close()
		return nil, fmt.Errorf("metal backend: %w", err)
	}
	debug := os.Getenv(envDebug) == "1"
	b := newBackend(&mtlRuntime{dev: dev, lib: lib, debug: debug}, fam, debug)
	b.logf("%s (%s, table row %s), %s, unified memory %v", dev.Name, dev.Family, fam, dev.OS, dev.Unified)
	return b, nil
}

type mtlRuntime struct {
	dev   *mtl.Device
	lib   *mtl.Library
	debug bool
}

type mtlPipeline struct{ p *mtl.Pipeline }

func (p mtlPipeline) Function() string { return p.p.Name }
func (p mtlPipeline) Release()         { p.p.Release() }

type mtlEncoder struct{ e *mtl.Encoder }

func (e mtlEncoder) Dispatch(p pipeline, bufs []binding, paramIndex int, params []byte, groups, threads [3]int) error {
	bs := make([]mtl.Binding, len(bufs))
	for i, b := range bufs {
		mb, ok := b.Buffer.(*mtl.Buffer)
		if !ok {
			return fmt.Errorf("metal: %s: buffer %d is a %T, not an MTLBuffer", p.Function(), b.Index, b.Buffer)
		}
		bs[i] = mtl.Binding{Index: b.Index, Buffer: mb, Offset: b.Offset}
	}
	return e.e.Dispatch(p.(mtlPipeline).p, bs, paramIndex, params, groups, threads)
}

func (e mtlEncoder) Finish() error { return e.e.Finish() }

func (r *mtlRuntime) NewBuffer(n int) (buffer, error) {
	b, err := r.dev.NewBuffer(n)
	if err != nil {
		return nil, err
	}
	return b, nil
}

func (r *mtlRuntime) WrapNoCopy(host []byte) (buffer, bool, error) {
	b, ok, err := r.dev.WrapNoCopy(host)
	if err != nil || !ok {
		return nil, false, err
	}
	return b, true, nil
}

func (r *mtlRuntime) Has(fn string) bool { return r.lib.Has(fn) }

func (r *mtlRuntime) Pipeline(fn string) (pipeline, error) {
	p, err := r.lib.Pipeline(fn)
	if err != nil {
		return nil, err
	}
	return mtlPipeline{p}, nil
}

func (r *mtlRuntime) Begin() (encoder, error) {
	e, err := r.dev.Begin()
	if err != nil {
		return nil, err
	}
	return mtlEncoder{e}, nil
}

func (r *mtlRuntime) Copy(dst, src buffer, n int) (float64, error) {
	d, ok1 := dst.(*mtl.Buffer)
	s, ok2 := src.(*mtl.Buffer)
	if !ok1 || !ok2 {
		return 0, errors.New("metal: copy between buffers that are not MTLBuffers")
	}
	return r.dev.Copy(d, s, n)
}

func (r *mtlRuntime) Log(line string) { fmt.Fprintln(os.Stderr, "metal backend: "+line) }

func (r *mtlRuntime) Close() error {
	if r.debug {
		r.Log(fmt.Sprintf("pipelines: %d from the cache, %d compiled", r.lib.Hits, r.lib.Misses))
	}
	err := r.lib.SaveArchive()
	r.lib.Close()
	r.dev.Close()
	return err
}
