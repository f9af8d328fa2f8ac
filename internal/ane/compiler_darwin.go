// The Neural Engine compiler on macOS: the private AppleNeuralEngine.framework through purego/objc (no cgo).
// A program becomes an _ANEInMemoryModelDescriptor (its MIL text, no weight blob: weights are inputs) and an
// _ANEInMemoryModel; compiledModelExists asks the system compile cache, compileWithQoS:options:error: fills it.
// The cache is keyed by the model's content and the calling executable's identity, so compile-ane must run
// under the binary that later serves. Private API: every class and selector is checked before use, so a macOS
// release that renames one fails with an error naming it. None of this has run in CI (no Mac there).

//go:build darwin

package ane

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/ebitengine/purego"
	"github.com/ebitengine/purego/objc"

	"github.com/mlxbun/mlxbun/internal/objcrt"
)

const frameworkPath = "/System/Library/PrivateFrameworks/AppleNeuralEngine.framework/AppleNeuralEngine"

// qosDefault is QOS_CLASS_DEFAULT (0x15), the quality of service the compile request runs at.
const qosDefault = 0x15

var (
	selModelWithMIL      = objc.RegisterName("modelWithMILText:weights:optionsPlist:")
	selInMemoryModel     = objc.RegisterName("inMemoryModelWithDescriptor:")
	selHexIdentifier     = objc.RegisterName("hexStringIdentifier")
	selCompiledExists    = objc.RegisterName("compiledModelExists")
	selCompileWithQoS    = objc.RegisterName("compileWithQoS:options:error:")
	selHasANE            = objc.RegisterName("hasANE")
	selArchitectureType  = objc.RegisterName("aneArchitectureType")
	nsTemporaryDirectory func() objc.ID
)

type compiler struct {
	desc, model objc.Class
	arch        string
	tmp         string // NSTemporaryDirectory(): where the in-memory model's files are written for the compiler
}

// Open loads the framework and checks this Mac has a Neural Engine; without one the error wraps
// ErrNoNeuralEngine.
func Open() (Compiler, error) {
	if runtime.GOARCH != "arm64" {
		return nil, fmt.Errorf("%w: darwin/%s (the Neural Engine is on Apple silicon only)", ErrNoNeuralEngine, runtime.GOARCH)
	}
	if err := objcrt.Load(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoNeuralEngine, err)
	}
	if _, err := objcrt.Open(frameworkPath); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoNeuralEngine, err)
	}
	c := &compiler{desc: objc.GetClass("_ANEInMemoryModelDescriptor"), model: objc.GetClass("_ANEInMemoryModel")}
	for name, cls := range map[string]objc.Class{"_ANEInMemoryModelDescriptor": c.desc, "_ANEInMemoryModel": c.model} {
		if cls == 0 {
			return nil, fmt.Errorf("%w: AppleNeuralEngine.framework has no class %s on this macOS", ErrNoNeuralEngine, name)
		}
	}
	var err error
	objcrt.Do(func() {
		if !objcrt.Responds(objc.ID(c.desc), selModelWithMIL) || !objcrt.Responds(objc.ID(c.model), selInMemoryModel) {
			err = fmt.Errorf("%w: the in-memory model classes lack a selector this build needs (modelWithMILText:weights:optionsPlist:, inMemoryModelWithDescriptor:)", ErrNoNeuralEngine)
			return
		}
		if info := objc.ID(objc.GetClass("_ANEDeviceInfo")); objcrt.Responds(info, selHasANE) {
			if !objc.Send[bool](info, selHasANE) {
				err = fmt.Errorf("%w: _ANEDeviceInfo reports none on this Mac", ErrNoNeuralEngine)
				return
			}
			if objcrt.Responds(info, selArchitectureType) {
				c.arch = objcrt.GoString(info.Send(selArchitectureType))
			}
		}
	})
	if err != nil {
		return nil, err
	}
	if c.tmp, err = temporaryDirectory(); err != nil {
		return nil, err
	}
	return c, nil
}

// temporaryDirectory is Foundation's NSTemporaryDirectory(), the per-user folder the framework itself uses.
func temporaryDirectory() (string, error) {
	if nsTemporaryDirectory == nil {
		h, err := objcrt.Open("/System/Library/Frameworks/Foundation.framework/Foundation")
		if err != nil {
			return "", err
		}
		sym, err := purego.Dlsym(h, "NSTemporaryDirectory")
		if err != nil {
			return "", fmt.Errorf("the NSTemporaryDirectory symbol of Foundation: %w", err)
		}
		purego.RegisterFunc(&nsTemporaryDirectory, sym)
	}
	var dir string
	objcrt.Do(func() { dir = objcrt.GoString(nsTemporaryDirectory()) })
	if dir == "" {
		return "", fmt.Errorf("NSTemporaryDirectory returned nothing")
	}
	return dir, nil
}

func (c *compiler) Describe() string {
	if c.arch == "" {
		return "Apple Neural Engine"
	}
	return "Apple Neural Engine " + c.arch
}

func (c *compiler) Close() error { return nil }

// withModel builds s's in-memory model inside a pool and runs f on it. The model's MIL is also written to
// <NSTemporaryDirectory>/<hexStringIdentifier>/model.mil, the folder the compiler reads an in-memory model from.
func (c *compiler) withModel(s Spec, f func(m objc.ID) error) error {
	var err error
	objcrt.Do(func() {
		mil := []byte(s.MIL())
		desc := objc.ID(c.desc).Send(selModelWithMIL, objcrt.Data(mil), objcrt.EmptyDictionary(), objc.ID(0))
		if desc == 0 {
			err = fmt.Errorf("_ANEInMemoryModelDescriptor refused the MIL text")
			return
		}
		m := objc.ID(c.model).Send(selInMemoryModel, desc)
		if m == 0 {
			err = fmt.Errorf("_ANEInMemoryModel refused the descriptor")
			return
		}
		for _, sel := range []objc.SEL{selHexIdentifier, selCompiledExists, selCompileWithQoS} {
			if !objcrt.Responds(m, sel) {
				err = fmt.Errorf("_ANEInMemoryModel does not answer a selector this build needs (hexStringIdentifier, compiledModelExists, compileWithQoS:options:error:)")
				return
			}
		}
		id := objcrt.GoString(m.Send(selHexIdentifier))
		if id == "" || filepath.Base(id) != id {
			err = fmt.Errorf("_ANEInMemoryModel gave the identifier %q", id)
			return
		}
		if err = writeAtomic(filepath.Join(c.tmp, id), "model.mil", mil); err != nil {
			return
		}
		err = f(m)
	})
	return err
}

func (c *compiler) Cached(s Spec) (bool, error) {
	var ok bool
	err := c.withModel(s, func(m objc.ID) error {
		ok = objc.Send[bool](m, selCompiledExists)
		return nil
	})
	return ok, err
}

func (c *compiler) Compile(s Spec) error {
	return c.withModel(s, func(m objc.ID) error {
		var nsErr objc.ID
		if !objc.Send[bool](m, selCompileWithQoS, uint32(qosDefault), objcrt.EmptyDictionary(), &nsErr) {
			return objcrt.Error("the Neural Engine compiler", nsErr)
		}
		return nil
	})
}

// writeAtomic writes dir/name through a temporary file and a rename.
func writeAtomic(dir, name string, b []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("neural engine model folder: %w", err)
	}
	f, err := os.CreateTemp(dir, name+".tmp*")
	if err != nil {
		return fmt.Errorf("neural engine model folder: %w", err)
	}
	_, werr := f.Write(b)
	cerr := f.Close()
	if werr != nil || cerr != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing %s: %v %v", filepath.Join(dir, name), werr, cerr)
	}
	if err := os.Rename(f.Name(), filepath.Join(dir, name)); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing %s: %w", filepath.Join(dir, name), err)
	}
	return nil
}
