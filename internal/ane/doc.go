// Package ane is where the Neural Engine programs (MIL text), their install step and cache status will live
// (compiling them needs macOS); `mlxbun compile-ane` reports "not built yet" until then.
package ane
