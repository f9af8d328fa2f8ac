package backend

// Optional capabilities. A backend implements the ones it can; callers find them by type assertion and fall
// back to the plain ops (each comment gives the unfused equivalent).

// Recorder records a sequence of ops once and replays it (CUDA graphs). Record calls fn the first time a key is
// seen, recording the ops it issues; later calls with that key replay them instead of calling fn. The ops must
// touch only tensors that stay alive and in place while the key is in use; inputs change between replays by
// writing into the same tensors (WriteInt32). Without a Recorder, call fn every time.
type Recorder interface {
	Record(key any, fn func()) error
	// Forget releases what was recorded under key.
	Forget(key any)
}

// KernelTime is one kernel's share of a profiled run.
type KernelTime struct {
	Name    string
	Calls   int
	Seconds float64 // total device time
	Bytes   float64 // total bytes read and written, as the kernel's contract counts them
}

// Profiler times each kernel between StartProfile and StopProfile (at some cost to overall speed).
type Profiler interface {
	StartProfile()
	StopProfile() []KernelTime
}

// Argmaxer picks the greedy token on the device with the normalized-argmax semantics of package sample
// (argmax of log-softmax in the logits' dtype, lowest id wins ties, a row with non-finite normalizer picks 0).
// Equivalent: read the logits and call sample.GreedyNormalizedArgmax per row. dst is int32 [rows].
type Argmaxer interface {
	Argmax(dst, logits Tensor)
	ReadInt32(t Tensor, dst []int32) error
}

// MemoryReporter reports the device memory in use now and at its peak, in bytes.
type MemoryReporter interface {
	MemoryUsed() (now, peak int64)
}

// FloatWriter writes float32 values into a tensor of any floating dtype (rounding to it). The verify harness
// uses it to poison outputs before a kernel runs.
type FloatWriter interface {
	WriteFloat32(t Tensor, v []float32) error
}

// Bandwidth reports the device's measured copy bandwidth (bytes read + written per second), the yardstick bench
// prints each kernel against.
type Bandwidth interface {
	CopyBandwidth() (float64, error)
}

// Grammer accumulates the Gram matrix of activations on the device (the quantizer's calibration Hessians
// H = XᵀX): acc F32 [n, n] = xᵀ·x when overwrite, else acc += xᵀ·x, for x F32 [rows, n] (dense, row-major; not
// a view at a row offset). Only the upper triangle (column ≥ row) is defined afterwards: a backend may leave the
// lower one as it was or fill it. The promise is f32 arithmetic in any order: each entry is an f32 sum of the
// rows products (plus the accumulator), so after m rows in all its error is at most ~m·2^-24·Σ|x_i·x_j|.
// Equivalent: read x (ReadFloat32) and sum the products on the host (quantize's host path).
type Grammer interface {
	Gram(acc, x Tensor, overwrite bool)
}

// MemoryFree reports the device memory free for new allocations and the device's total, in bytes: what a
// caller sizing large scratch (the calibration's accumulators) may still take.
type MemoryFree interface {
	MemoryFree() (free, total int64, err error)
}
