// Package metal is where the Metal backend will live: a purego/objc runtime (darwin build tag) implementing
// internal/backend with the shaders of shaders/metal, verified against the CPU oracle by verify-kernels through
// the emulation harness. Nothing is built here yet; the "metal" device is not registered.
package metal
