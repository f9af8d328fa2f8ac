// Package driver is mlxbun's cgo-free CUDA runtime: the driver API (devices, memory, streams, events, modules,
// launches with packed arguments, graphs), NVRTC and cuBLASLt, reached through purego. It knows no tensors and no
// ops; the backend built on it is the parent package, internal/cuda.
//
// A CUDA context is current per OS thread, so each Device owns one goroutine locked to one OS thread with the
// device's primary context current on it. Every driver call must run there: callers on any goroutine hand it a
// closure with Device.Do, and all methods of Device, Stream, Event, Module, Function, Graph, GraphExec and BlasLt
// (other than Do, Close and the read-only info) must be called from inside such a closure. Batch many calls into
// one Do: a Do round trip wakes two threads (about 16 µs on the lent H200 VM), a driver call through purego costs
// about 0.1 µs and a kernel launch about 4.4 µs (replayed from a graph, about 1 µs of GPU time per kernel). A
// closure must return rather than end its goroutine (runtime.Goexit, t.Fatal): the device thread runs it.
package driver

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"unsafe"
)

// Device attribute numbers (CUdevice_attribute).
const (
	attrMaxThreadsPerBlock   = 1
	attrWarpSize             = 10
	attrClockRate            = 13
	attrSMCount              = 16
	attrMemoryClockRate      = 36
	attrMemoryBusWidth       = 37
	attrL2CacheSize          = 38
	attrCCMajor              = 75
	attrCCMinor              = 76
	attrMaxSharedPerBlockOpt = 97
)

// Info describes a device as the driver reports it.
type Info struct {
	Ordinal            int
	Name               string
	CCMajor, CCMinor   int    // compute capability
	SMs                int    // multiprocessors
	TotalMem           uint64 // bytes
	L2Bytes            int
	MaxSharedPerBlock  int // opt-in dynamic shared memory limit per block, bytes
	MaxThreadsPerBlock int
	WarpSize           int
	ClockKHz           int // SM clock
	MemClockKHz        int
	MemBusBits         int
	DriverVersion      int // e.g. 13000
}

// Arch is the NVRTC target for this device, e.g. "sm_90".
func (i Info) Arch() string { return fmt.Sprintf("sm_%d%d", i.CCMajor, i.CCMinor) }

// ErrClosed is returned by Do after Close.
var ErrClosed = errors.New("cuda: device closed")

type job struct {
	f    func() error
	done chan error
}

// Device is one GPU with its primary context, served by a dedicated OS thread.
type Device struct {
	info Info
	dev  int32
	ctx  uintptr

	jobs    chan job
	quit    chan struct{}
	stopped chan struct{}
	tid     int // OS thread of the device goroutine
	close   sync.Once

	// owned by the device thread
	blas    *BlasLt
	closers []func()
}

// DeviceCount reports how many CUDA devices the driver sees; it fails with ErrNoDriver where there is no driver.
func DeviceCount() (int, error) {
	if err := loadDriver(); err != nil {
		return 0, err
	}
	var n int32
	if err := check(call(drv.cuDeviceGetCount, uintptr(unsafe.Pointer(&n))), "cuDeviceGetCount"); err != nil {
		return 0, err
	}
	return int(n), nil
}

// Open starts the device goroutine for device ordinal and makes its primary context current there. It fails with
// an error wrapping ErrNoDriver on machines without CUDA (every OS but linux, or no libcuda).
func Open(ordinal int) (*Device, error) {
	if err := loadDriver(); err != nil {
		return nil, err
	}
	d := &Device{jobs: make(chan job), quit: make(chan struct{}), stopped: make(chan struct{})}
	ready := make(chan error, 1)
	go d.loop(ordinal, ready)
	if err := <-ready; err != nil {
		return nil, err
	}
	return d, nil
}

// loop is the device goroutine. It never unlocks its thread: when it returns the thread exits with it, taking any
// per-thread driver state along instead of handing it to an unrelated goroutine.
func (d *Device) loop(ordinal int, ready chan<- error) {
	runtime.LockOSThread()
	d.tid = threadID()
	if err := d.init(ordinal); err != nil {
		close(d.stopped)
		ready <- err
		return
	}
	ready <- nil
	for {
		select {
		case j := <-d.jobs:
			j.done <- d.run(j.f)
		case <-d.quit:
			d.shutdown()
			close(d.stopped)
			return
		}
	}
}

// run executes one closure; a panic becomes an error so the device thread survives it.
func (d *Device) run(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("cuda: panic on device thread: %v\n%s", p, debug.Stack())
		}
	}()
	return f()
}

func (d *Device) init(ordinal int) error {
	var dev int32
	if err := check(call(drv.cuDeviceGet, uintptr(unsafe.Pointer(&dev)), uintptr(ordinal)), "cuDeviceGet(%d)", ordinal); err != nil {
		return err
	}
	d.dev = dev
	if err := check(call(drv.cuDevicePrimaryCtxRetain, uintptr(unsafe.Pointer(&d.ctx)), uintptr(dev)), "cuDevicePrimaryCtxRetain(%d)", ordinal); err != nil {
		return err
	}
	if err := check(call(drv.cuCtxSetCurrent, d.ctx), "cuCtxSetCurrent"); err != nil {
		call(drv.cuDevicePrimaryCtxRelease, uintptr(dev))
		return err
	}
	info := Info{Ordinal: ordinal}
	name := make([]byte, 256)
	if err := check(call(drv.cuDeviceGetName, uintptr(unsafe.Pointer(&name[0])), uintptr(len(name)), uintptr(dev)), "cuDeviceGetName"); err != nil {
		return err
	}
	info.Name = goString(unsafe.Pointer(&name[0]))
	attrs := []struct {
		dst  *int
		attr int
		name string
	}{
		{&info.CCMajor, attrCCMajor, "compute capability major"},
		{&info.CCMinor, attrCCMinor, "compute capability minor"},
		{&info.SMs, attrSMCount, "multiprocessor count"},
		{&info.L2Bytes, attrL2CacheSize, "L2 size"},
		{&info.MaxSharedPerBlock, attrMaxSharedPerBlockOpt, "max shared memory per block (opt-in)"},
		{&info.MaxThreadsPerBlock, attrMaxThreadsPerBlock, "max threads per block"},
		{&info.WarpSize, attrWarpSize, "warp size"},
		{&info.ClockKHz, attrClockRate, "clock rate"},
		{&info.MemClockKHz, attrMemoryClockRate, "memory clock rate"},
		{&info.MemBusBits, attrMemoryBusWidth, "memory bus width"},
	}
	for _, a := range attrs {
		var v int32
		if err := check(call(drv.cuDeviceGetAttribute, uintptr(unsafe.Pointer(&v)), uintptr(a.attr), uintptr(dev)), "cuDeviceGetAttribute(%s)", a.name); err != nil {
			return err
		}
		*a.dst = int(v)
	}
	var total uint64
	if err := check(call(drv.cuDeviceTotalMem, uintptr(unsafe.Pointer(&total)), uintptr(dev)), "cuDeviceTotalMem"); err != nil {
		return err
	}
	info.TotalMem = total
	var ver int32
	if err := check(call(drv.cuDriverGetVersion, uintptr(unsafe.Pointer(&ver))), "cuDriverGetVersion"); err != nil {
		return err
	}
	info.DriverVersion = int(ver)
	d.info = info
	return nil
}

// shutdown releases what the device thread owns, newest first, then the primary context.
func (d *Device) shutdown() {
	for i := len(d.closers) - 1; i >= 0; i-- {
		d.closers[i]()
	}
	d.closers = nil
	call(drv.cuCtxSynchronize)
	call(drv.cuDevicePrimaryCtxRelease, uintptr(d.dev))
}

// Info returns the device description read at Open; safe from any goroutine.
func (d *Device) Info() Info { return d.info }

// Do runs f on the device thread and returns its error. It is safe from any goroutine; called from inside another
// Do closure it runs f inline instead of deadlocking.
func (d *Device) Do(f func() error) error {
	if d.onDeviceThread() {
		return f()
	}
	done := make(chan error, 1)
	select {
	case d.jobs <- job{f: f, done: done}:
		return <-done
	case <-d.stopped:
		return ErrClosed
	}
}

// onDeviceThread reports whether the caller is the device goroutine: a locked thread runs no other goroutine.
func (d *Device) onDeviceThread() bool {
	id := threadID()
	return id >= 0 && id == d.tid
}

// onClose registers cleanup run on the device thread at Close (library handles, workspaces).
func (d *Device) onClose(f func()) { d.closers = append(d.closers, f) }

// Close finishes pending work, frees what the runtime itself owns (cuBLASLt handle and workspace) and releases
// the primary context. Buffers, streams and modules the caller made should be freed first.
func (d *Device) Close() error {
	if d.onDeviceThread() {
		return errors.New("cuda: Close called inside Device.Do")
	}
	d.close.Do(func() { close(d.quit) })
	<-d.stopped
	return nil
}

// Synchronize waits for all work on the device.
func (d *Device) Synchronize() error {
	return check(call(drv.cuCtxSynchronize), "cuCtxSynchronize")
}

// MemInfo reports free and total device memory in bytes.
func (d *Device) MemInfo() (free, total uint64, err error) {
	err = check(call(drv.cuMemGetInfo, uintptr(unsafe.Pointer(&free)), uintptr(unsafe.Pointer(&total))), "cuMemGetInfo")
	return free, total, err
}
