// Package ane holds the Neural Engine side of mlxbun: the programs a model's prompt path loads (programs.go),
// computed from config.json alone and deduplicated by content key, their MIL text (program.go), and the install
// step that compiles them into this Mac's Neural Engine compile cache or reports what it holds (compile.go,
// through the private AppleNeuralEngine.framework in compiler_darwin.go). Everything but the compile runs on
// any system; `mlxbun compile-ane` is its front end.
package ane
