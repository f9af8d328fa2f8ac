// Package objcrt is the little of the Objective-C runtime that the Metal runtime (internal/metal/mtl) and the
// Neural Engine compiler (internal/ane) share on macOS, through purego/objc without cgo: autorelease pools on a
// locked OS thread, NSString and NSData conversions, NSError text and framework loading. It knows no framework's
// classes. Everything but this comment is darwin-only; other systems build an empty package.
package objcrt
