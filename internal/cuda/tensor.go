// Tensors on the GPU and the ways data crosses the bus: uploads of weights through two pinned buffers (one fills
// while the other copies), small writes (token ids, positions) through a pinned ring that stays valid until the
// next synced flush, and reads through a pinned buffer. Float uploads are stored as bf16 when they are matrices
// (embedding tables: what the kernels read) and as f32 when they are vectors (norm weights: exact whatever the
// checkpoint's dtype).

package cuda

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/cuda/driver"
)

type allocKind uint8

const (
	kindView   allocKind = iota // shares another tensor's memory
	kindCached                  // from the allocator's size classes
	kindExact                   // exact size, returned to the driver on Free
)

// Tensor is a dense row-major array in device memory.
type Tensor struct {
	ptr   driver.DevPtr
	shape []int
	dt    backend.DType
	kind  allocKind
	class int // cached: the size class
	// shadow holds the values WriteInt32 last wrote (I32 tensors), so the host can pick kernels by them (a prompt
	// is one sequence at consecutive positions); nil once a kernel writes the tensor or for views.
	shadow []int32
}

func (t *Tensor) Shape() []int         { return t.shape }
func (t *Tensor) DType() backend.DType { return t.dt }

// Ptr is the tensor's device address (tests and tools).
func (t *Tensor) Ptr() driver.DevPtr { return t.ptr }

func (t *Tensor) elems() int {
	n := 1
	for _, s := range t.shape {
		n *= s
	}
	return n
}

func (t *Tensor) bytes() int { return t.elems() * t.dt.Size() }

func tensorOf(op string, t backend.Tensor) *Tensor {
	x, ok := t.(*Tensor)
	if !ok {
		panic(fmt.Sprintf("backend: %s: tensor of type %T is not a CUDA tensor", op, t))
	}
	return x
}

// dims returns rows and columns of a 2-D tensor (a 1-D tensor is one row).
func dims(t *Tensor) (int, int) {
	if len(t.shape) == 1 {
		return 1, t.shape[0]
	}
	return t.shape[0], t.shape[1]
}

func wantDType(op, what string, t *Tensor, dts ...backend.DType) {
	if !slices.Contains(dts, t.dt) {
		panic(fmt.Sprintf("backend: %s: %s has dtype %s, want one of %v", op, what, t.dt, dts))
	}
}

// allocCached gets a cached block, flushing, releasing the free lists and retrying once when the device is out
// of memory.
func (b *Backend) allocCached(bytes int) (driver.DevPtr, int, error) {
	p, c, err := b.mem.cached(bytes)
	if err != nil && driver.IsOutOfMemory(err) {
		if ferr := b.syncFlush(); ferr != nil {
			return 0, 0, ferr
		}
		if rerr := b.dev.Do(b.mem.releaseFree); rerr != nil {
			return 0, 0, rerr
		}
		p, c, err = b.mem.cached(bytes)
	}
	return p, c, err
}

func (b *Backend) allocExact(bytes int) (driver.DevPtr, error) {
	p, err := b.mem.exact(bytes)
	if err != nil && driver.IsOutOfMemory(err) {
		if ferr := b.syncFlush(); ferr != nil {
			return 0, ferr
		}
		if rerr := b.dev.Do(b.mem.releaseFree); rerr != nil {
			return 0, rerr
		}
		p, err = b.mem.exact(bytes)
	}
	return p, err
}

func (b *Backend) Alloc(dt backend.DType, shape ...int) (backend.Tensor, error) {
	switch dt {
	case backend.F32, backend.BF16, backend.I32:
	default:
		return nil, fmt.Errorf("cuda: alloc: dtype %s: %w", dt, backend.ErrUnsupported)
	}
	n := 1
	for _, s := range shape {
		if s < 0 {
			return nil, fmt.Errorf("cuda: alloc: negative dimension in %v", shape)
		}
		n *= s
	}
	t := &Tensor{shape: slices.Clone(shape), dt: dt, kind: kindCached}
	p, c, err := b.allocCached(max(n*dt.Size(), 1))
	if err != nil {
		return nil, fmt.Errorf("cuda: alloc %s %v: %w", dt, shape, err)
	}
	t.ptr, t.class = p, c
	return t, nil
}

// Free returns a tensor's memory. Cached blocks are reused at once (queued work that still reads them runs
// first on the one stream); exact ones are handed back to the driver after the queue drains.
func (b *Backend) Free(t backend.Tensor) {
	x := tensorOf("Free", t)
	switch x.kind {
	case kindCached:
		b.mem.put(x.ptr, x.class)
	case kindExact:
		if err := b.syncFlush(); err == nil {
			b.fail(b.dev.Do(func() error { return b.mem.release(x.ptr) }))
		}
	}
	x.ptr, x.kind = 0, kindView
}

func (b *Backend) Rows(t backend.Tensor, start, n int) backend.Tensor {
	x := tensorOf("Rows", t)
	if len(x.shape) != 2 || start < 0 || n < 0 || start+n > x.shape[0] {
		backend.ShapeError("Rows", fmt.Sprintf("rows [%d,%d) of", start, start+n), x.shape, "2-D with enough rows")
	}
	c := x.shape[1]
	return &Tensor{ptr: x.ptr.Add(start * c * x.dt.Size()), shape: []int{n, c}, dt: x.dt, kind: kindView}
}

// Upload places a host tensor on the device: I32 as is, float vectors as f32, float matrices as bf16.
func (b *Backend) Upload(h backend.Host) (backend.Tensor, error) {
	n := h.Elements()
	if len(h.Data) != n*h.DType.Size() {
		return nil, fmt.Errorf("cuda: upload %s: %d bytes for %s %v", h.Name, len(h.Data), h.DType, h.Shape)
	}
	dt := backend.BF16
	switch {
	case h.DType == backend.I32:
		dt = backend.I32
	case h.DType != backend.F32 && h.DType != backend.F16 && h.DType != backend.BF16:
		return nil, fmt.Errorf("cuda: upload %s: dtype %s: %w", h.Name, h.DType, backend.ErrUnsupported)
	case len(h.Shape) <= 1:
		dt = backend.F32
	}
	t := &Tensor{shape: slices.Clone(h.Shape), dt: dt, kind: kindExact}
	p, err := b.allocExact(max(n*dt.Size(), 1))
	if err != nil {
		return nil, fmt.Errorf("cuda: upload %s: %w", h.Name, err)
	}
	t.ptr = p
	if err := b.uploadHost(p, h, dt); err != nil {
		b.Free(t)
		return nil, fmt.Errorf("cuda: upload %s: %w", h.Name, err)
	}
	return t, nil
}

// uploadHost converts h to dt and copies it to dst.
func (b *Backend) uploadHost(dst driver.DevPtr, h backend.Host, dt backend.DType) error {
	n := h.Elements()
	switch {
	case dt == h.DType:
		return b.uploadBytes(dst, len(h.Data), func(buf []byte, off int) { copy(buf, h.Data[off:]) })
	case dt == backend.BF16:
		return b.uploadBytes(dst, 2*n, func(buf []byte, off int) { toBF16(buf, h, off/2) })
	case dt == backend.F32:
		return b.uploadBytes(dst, 4*n, func(buf []byte, off int) { toF32(buf, h, off/4) })
	}
	return fmt.Errorf("no conversion from %s to %s", h.DType, dt)
}

// toBF16 writes len(buf)/2 bf16 values of h starting at element at.
func toBF16(buf []byte, h backend.Host, at int) {
	n := len(buf) / 2
	switch h.DType {
	case backend.BF16:
		copy(buf, h.Data[2*at:2*(at+n)])
	case backend.F16:
		for i := 0; i < n; i++ {
			v := backend.F16ToF32(binary.LittleEndian.Uint16(h.Data[2*(at+i):]))
			binary.LittleEndian.PutUint16(buf[2*i:], backend.F32ToBF16(v))
		}
	case backend.F32:
		for i := 0; i < n; i++ {
			v := math.Float32frombits(binary.LittleEndian.Uint32(h.Data[4*(at+i):]))
			binary.LittleEndian.PutUint16(buf[2*i:], backend.F32ToBF16(v))
		}
	}
}

// toF32 writes len(buf)/4 f32 values of h starting at element at.
func toF32(buf []byte, h backend.Host, at int) {
	n := len(buf) / 4
	for i := 0; i < n; i++ {
		var v float32
		switch h.DType {
		case backend.F32:
			v = math.Float32frombits(binary.LittleEndian.Uint32(h.Data[4*(at+i):]))
		case backend.BF16:
			v = backend.BF16ToF32(binary.LittleEndian.Uint16(h.Data[2*(at+i):]))
		case backend.F16:
			v = backend.F16ToF32(binary.LittleEndian.Uint16(h.Data[2*(at+i):]))
		}
		binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
	}
}

const (
	wChunk = 32 << 20 // weight upload chunk per pinned buffer
	// parallel fill: chunks are split among goroutines above this many bytes
	fillSplit = 4 << 20
)

// uploadBytes copies total bytes produced by fill (fill(buf, off) writes bytes [off, off+len(buf))) to dst
// through the two pinned buffers, converting on the host while the previous chunk crosses the bus. It returns
// when the copy is done.
func (b *Backend) uploadBytes(dst driver.DevPtr, total int, fill func(buf []byte, off int)) error {
	return b.dev.Do(func() error {
		for k := range b.wbuf {
			if b.wbuf[k] == nil {
				var err error
				if b.wbuf[k], err = b.dev.AllocHost(wChunk, driver.HostAllocWriteCombined); err != nil {
					return err
				}
				if b.wev[k], err = b.dev.NewEvent(false); err != nil {
					return err
				}
			}
		}
		for i, off := 0, 0; off < total; i, off = i+1, off+wChunk {
			k := i % 2
			if i >= 2 {
				if err := b.wev[k].Sync(); err != nil {
					return err
				}
			}
			n := min(wChunk, total-off)
			buf := b.wbuf[k].Bytes()[:n]
			parallelFill(buf, off, fill)
			if err := b.stream.MemcpyHtoDAsync(dst.Add(off), b.wbuf[k].Ptr(), n); err != nil {
				return err
			}
			if err := b.wev[k].Record(b.stream); err != nil {
				return err
			}
		}
		return b.stream.Sync()
	})
}

// parallelFill runs fill over buf in pieces on several goroutines (pieces stay multiples of 16 bytes, so no
// element is split).
func parallelFill(buf []byte, off int, fill func(buf []byte, off int)) {
	workers := min(runtime.GOMAXPROCS(0), 16)
	if len(buf) < fillSplit || workers < 2 {
		fill(buf, off)
		return
	}
	piece := (len(buf)/workers + 15) &^ 15
	var wg sync.WaitGroup
	for s := 0; s < len(buf); s += piece {
		e := min(s+piece, len(buf))
		wg.Add(1)
		go func() {
			defer wg.Done()
			fill(buf[s:e], off+s)
		}()
	}
	wg.Wait()
}

// write queues a host-to-device copy of data into t through the small-write ring; data larger than the ring is
// copied synchronously after the queue drains.
func (b *Backend) write(t *Tensor, data []byte) error {
	n := len(data)
	if n == 0 {
		return nil
	}
	if n > upBytes/2 {
		if err := b.syncFlush(); err != nil {
			return err
		}
		return b.dev.Do(func() error { return b.dev.MemcpyHtoD(t.ptr, unsafe.Pointer(&data[0]), n) })
	}
	if b.upOff+n > upBytes {
		if err := b.syncFlush(); err != nil {
			return err
		}
	}
	off := b.upOff
	b.upOff += (n + 15) &^ 15
	copy(b.up.Bytes()[off:], data)
	dst := t.ptr
	b.enqueue(func() error {
		return b.stream.MemcpyHtoDAsync(dst, unsafe.Add(b.up.Ptr(), off), n)
	})
	return nil
}

func (b *Backend) WriteInt32(t backend.Tensor, v []int32) error {
	x := tensorOf("WriteInt32", t)
	if x.dt != backend.I32 || x.elems() != len(v) {
		return fmt.Errorf("cuda: WriteInt32: tensor %s %v takes %d values, got %d", x.dt, x.shape, x.elems(), len(v))
	}
	data := make([]byte, 4*len(v))
	for i, e := range v {
		binary.LittleEndian.PutUint32(data[4*i:], uint32(e))
	}
	if err := b.write(x, data); err != nil {
		return fmt.Errorf("cuda: WriteInt32: %w", err)
	}
	if x.kind != kindView {
		x.shadow = append(x.shadow[:0], v...)
	}
	return nil
}

// WriteFloat32 fills an F32 or BF16 tensor (rounding to bf16).
func (b *Backend) WriteFloat32(t backend.Tensor, v []float32) error {
	x := tensorOf("WriteFloat32", t)
	if (x.dt != backend.F32 && x.dt != backend.BF16) || x.elems() != len(v) {
		return fmt.Errorf("cuda: WriteFloat32: tensor %s %v takes %d values, got %d", x.dt, x.shape, x.elems(), len(v))
	}
	data := make([]byte, x.dt.Size()*len(v))
	for i, e := range v {
		if x.dt == backend.F32 {
			binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(e))
		} else {
			binary.LittleEndian.PutUint16(data[2*i:], backend.F32ToBF16(e))
		}
	}
	if err := b.write(x, data); err != nil {
		return fmt.Errorf("cuda: WriteFloat32: %w", err)
	}
	return nil
}

// read runs the queue, copies t's bytes into pinned memory, waits, and hands them to use (device thread).
func (b *Backend) read(t *Tensor, use func(p unsafe.Pointer)) error {
	n := t.bytes()
	err := b.flush(func() error {
		if n == 0 {
			return nil
		}
		if b.down == nil || b.down.Len() < n {
			if err := b.dev.FreeHost(b.down); err != nil {
				return err
			}
			b.down = nil
			h, err := b.dev.AllocHost(max(n, 1<<20), 0)
			if err != nil {
				return err
			}
			b.down = h
		}
		if err := b.stream.MemcpyDtoHAsync(b.down.Ptr(), t.ptr, n); err != nil {
			return err
		}
		if err := b.waitStream(); err != nil {
			return err
		}
		use(b.down.Ptr())
		return nil
	})
	if err == nil {
		b.upOff = 0
	}
	return err
}

// ReadFloat32 copies an F32 or BF16 tensor out as float32.
func (b *Backend) ReadFloat32(t backend.Tensor, dst []float32) error {
	x := tensorOf("ReadFloat32", t)
	if (x.dt != backend.F32 && x.dt != backend.BF16) || x.elems() != len(dst) {
		return fmt.Errorf("cuda: ReadFloat32: tensor %s %v holds %d values, dst has %d", x.dt, x.shape, x.elems(), len(dst))
	}
	return b.read(x, func(p unsafe.Pointer) {
		if x.dt == backend.F32 {
			copy(dst, unsafe.Slice((*float32)(p), len(dst)))
			return
		}
		src := unsafe.Slice((*uint16)(p), len(dst))
		for i, h := range src {
			dst[i] = backend.BF16ToF32(h)
		}
	})
}

// ReadInt32 copies an I32 tensor out.
func (b *Backend) ReadInt32(t backend.Tensor, dst []int32) error {
	x := tensorOf("ReadInt32", t)
	if x.dt != backend.I32 || x.elems() != len(dst) {
		return fmt.Errorf("cuda: ReadInt32: tensor %s %v holds %d values, dst has %d", x.dt, x.shape, x.elems(), len(dst))
	}
	return b.read(x, func(p unsafe.Pointer) { copy(dst, unsafe.Slice((*int32)(p), len(dst))) })
}
