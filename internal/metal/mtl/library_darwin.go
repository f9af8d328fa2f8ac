// The shader library: compiled from the embedded MSL source at startup with newLibraryWithSource:options:error:
// (fast math as the kernels' promises require), and compute pipelines built from it through an MTLBinaryArchive
// kept on disk under CacheKey (source hash + macOS version + GPU family + device), so a second start skips the
// GPU back-end compile of every pipeline. A pipeline first tries the archive alone (fail on a miss), then
// compiles and is added to the archive, which SaveArchive writes through a temporary file and a rename.

//go:build darwin

package mtl

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ebitengine/purego/objc"

	"github.com/mlxbun/mlxbun/internal/objcrt"
)

var (
	selAlloc                 = objc.RegisterName("alloc")
	selInit                  = objc.RegisterName("init")
	selSetFastMathEnabled    = objc.RegisterName("setFastMathEnabled:")
	selNewLibraryWithSource  = objc.RegisterName("newLibraryWithSource:options:error:")
	selNewFunctionWithName   = objc.RegisterName("newFunctionWithName:")
	selFunctionNames         = objc.RegisterName("functionNames")
	selCount                 = objc.RegisterName("count")
	selObjectAtIndex         = objc.RegisterName("objectAtIndex:")
	selSetComputeFunction    = objc.RegisterName("setComputeFunction:")
	selSetBinaryArchives     = objc.RegisterName("setBinaryArchives:")
	selArrayWithObject       = objc.RegisterName("arrayWithObject:")
	selNewPipelineWithDesc   = objc.RegisterName("newComputePipelineStateWithDescriptor:options:reflection:error:")
	selMaxTotalThreads       = objc.RegisterName("maxTotalThreadsPerThreadgroup")
	selThreadExecutionWidth  = objc.RegisterName("threadExecutionWidth")
	selSetURL                = objc.RegisterName("setUrl:")
	selFileURLWithPath       = objc.RegisterName("fileURLWithPath:")
	selNewBinaryArchive      = objc.RegisterName("newBinaryArchiveWithDescriptor:error:")
	selAddComputePipelineFns = objc.RegisterName("addComputePipelineFunctionsWithDescriptor:error:")
	selSerializeToURL        = objc.RegisterName("serializeToURL:error:")
)

// pipelineOptionFailOnBinaryArchiveMiss (MTLPipelineOptionFailOnBinaryArchiveMiss) makes a pipeline creation
// fail instead of compiling when the archives lack it: how a cache hit is told from a miss.
const pipelineOptionFailOnBinaryArchiveMiss = 1 << 2

// Library is the compiled shader library and the binary archive its pipelines go through.
type Library struct {
	dev         *Device
	id          objc.ID
	archive     objc.ID // nil when caching is off or the archive could not be made
	archivePath string
	dirty       bool // pipelines were added since the archive was read
	names       map[string]bool

	Hits, Misses int // pipelines found in the archive / compiled
}

// NewLibrary compiles source; the error is the Metal compiler's own text (line, column and message).
func (d *Device) NewLibrary(source string, fastMath bool) (*Library, error) {
	l := &Library{dev: d, names: map[string]bool{}}
	var err error
	objcrt.Do(func() {
		opts := objc.ID(objc.GetClass("MTLCompileOptions")).Send(selAlloc).Send(selInit)
		defer objcrt.Release(opts)
		opts.Send(selSetFastMathEnabled, fastMath)
		var nsErr objc.ID
		l.id = d.id.Send(selNewLibraryWithSource, objcrt.String(source), opts, &nsErr)
		if l.id == 0 {
			err = objcrt.Error("compiling the Metal shaders (newLibraryWithSource)", nsErr)
			return
		}
		arr := l.id.Send(selFunctionNames)
		for i := range int(arr.Send(selCount)) {
			l.names[objcrt.GoString(arr.Send(selObjectAtIndex, uintptr(i)))] = true
		}
	})
	if err != nil {
		return nil, err
	}
	if dir := CacheDir(); dir != "" {
		l.archivePath = ArchivePath(dir, CacheKey(source, d.OS, d.Family, d.Name, fastMath))
		l.openArchive()
	}
	return l, nil
}

// openArchive reads the archive file when there is one, else starts an empty archive. A file Metal refuses
// (another OS wrote it, or it is damaged) is replaced by an empty archive.
func (l *Library) openArchive() {
	objcrt.Do(func() {
		newArchive := func(path string) objc.ID {
			desc := objc.ID(objc.GetClass("MTLBinaryArchiveDescriptor")).Send(selAlloc).Send(selInit)
			defer objcrt.Release(desc)
			if path != "" {
				desc.Send(selSetURL, objc.ID(objc.GetClass("NSURL")).Send(selFileURLWithPath, objcrt.String(path)))
			}
			var nsErr objc.ID
			return l.dev.id.Send(selNewBinaryArchive, desc, &nsErr)
		}
		if _, err := os.Stat(l.archivePath); err == nil {
			l.archive = newArchive(l.archivePath)
		}
		if l.archive == 0 {
			l.archive = newArchive("")
		}
	})
}

// Has reports whether the library defines a kernel function.
func (l *Library) Has(name string) bool { return l.names[name] }

// Pipeline is a compute pipeline state and its limits.
type Pipeline struct {
	id         objc.ID
	Name       string
	MaxThreads int // maxTotalThreadsPerThreadgroup of this pipeline
	SIMDWidth  int // threadExecutionWidth
}

// Pipeline builds the compute pipeline of function name, through the archive when there is one.
func (l *Library) Pipeline(name string) (*Pipeline, error) {
	if !l.names[name] {
		return nil, fmt.Errorf("metal: the shader library has no kernel %s", name)
	}
	p := &Pipeline{Name: name}
	var err error
	objcrt.Do(func() {
		fn := l.id.Send(selNewFunctionWithName, objcrt.String(name))
		defer objcrt.Release(fn)
		desc := objc.ID(objc.GetClass("MTLComputePipelineDescriptor")).Send(selAlloc).Send(selInit)
		defer objcrt.Release(desc)
		desc.Send(selSetComputeFunction, fn)
		create := func(options uintptr) (objc.ID, objc.ID) {
			var nsErr objc.ID
			id := l.dev.id.Send(selNewPipelineWithDesc, desc, options, objc.ID(0), &nsErr)
			return id, nsErr
		}
		if l.archive != 0 {
			desc.Send(selSetBinaryArchives, objc.ID(objc.GetClass("NSArray")).Send(selArrayWithObject, l.archive))
			if p.id, _ = create(pipelineOptionFailOnBinaryArchiveMiss); p.id != 0 {
				l.Hits++
			}
		}
		if p.id == 0 {
			var nsErr objc.ID
			if p.id, nsErr = create(0); p.id == 0 {
				err = objcrt.Error("building the pipeline of "+name, nsErr)
				return
			}
			l.Misses++
			if l.archive != 0 {
				var addErr objc.ID
				if objc.Send[bool](l.archive, selAddComputePipelineFns, desc, &addErr) {
					l.dirty = true
				}
			}
		}
		p.MaxThreads = int(p.id.Send(selMaxTotalThreads))
		p.SIMDWidth = int(p.id.Send(selThreadExecutionWidth))
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// SaveArchive writes the archive when pipelines were added to it: serialized to a temporary file beside the
// cache entry, then renamed over it.
func (l *Library) SaveArchive() error {
	if l.archive == 0 || !l.dirty {
		return nil
	}
	dir := filepath.Dir(l.archivePath)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("metal pipeline cache: %w", err)
	}
	tmp := fmt.Sprintf("%s.%d.tmp", l.archivePath, os.Getpid())
	var err error
	objcrt.Do(func() {
		url := objc.ID(objc.GetClass("NSURL")).Send(selFileURLWithPath, objcrt.String(tmp))
		var nsErr objc.ID
		if !objc.Send[bool](l.archive, selSerializeToURL, url, &nsErr) {
			err = objcrt.Error("writing the Metal pipeline cache "+tmp, nsErr)
		}
	})
	if err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, l.archivePath); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("metal pipeline cache: %w", err)
	}
	l.dirty = false
	return nil
}

// Close releases the archive and the library (pipelines are released by their owner).
func (l *Library) Close() {
	objcrt.Do(func() {
		objcrt.Release(l.archive)
		objcrt.Release(l.id)
	})
	l.archive, l.id = 0, 0
}

// Release gives the pipeline up.
func (p *Pipeline) Release() {
	if p != nil && p.id != 0 {
		objcrt.Do(func() { objcrt.Release(p.id) })
		p.id = 0
	}
}
