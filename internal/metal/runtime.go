// What the backend needs of a Metal device, as interfaces: the darwin runtime (runtime_darwin.go, over
// internal/metal/mtl) implements them with real MTLBuffers and command buffers; the tests implement them over
// the CPU emulator (emurt_test.go), so the backend's op layer — plans, role bindings, views, fusion, deferred
// work — is exercised end to end on Linux against the CPU oracle.
package metal

// runtime is one opened GPU with its compiled shader library.
type runtime interface {
	NewBuffer(n int) (buffer, error)
	// WrapNoCopy maps host memory as a buffer when it is page-aligned at both ends; ok false means copy it.
	WrapNoCopy(host []byte) (b buffer, ok bool, err error)
	Has(fn string) bool // the library defines the kernel function
	Pipeline(fn string) (pipeline, error)
	Begin() (encoder, error) // a command buffer with one compute encoder
	// Copy copies n bytes between buffers on the GPU and returns the GPU's time in seconds.
	Copy(dst, src buffer, n int) (float64, error)
	Log(line string) // a debug line (MLXBUN_METAL_DEBUG)
	Close() error    // write the pipeline cache, release the library and the device
}

// buffer is shared-storage memory: the host reads and writes Bytes once the GPU work using it has completed.
type buffer interface {
	Bytes() []byte
	Size() int
	NoCopy() bool // wraps host memory (not counted as the backend's)
	Release()
}

// pipeline is one kernel function's compute pipeline.
type pipeline interface {
	Function() string
	Release()
}

// binding is one buffer argument of a dispatch.
type binding struct {
	Index  int
	Buffer buffer
	Offset int
}

// encoder is an open command buffer: dispatches in order (each sees the previous one's writes), then Finish
// commits, waits and returns the GPU's error.
type encoder interface {
	Dispatch(p pipeline, bufs []binding, paramIndex int, params []byte, groups, threads [3]int) error
	Finish() error
}
