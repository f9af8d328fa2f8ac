// macOS builds register the Metal device; other systems carry none of the Metal runtime.

//go:build darwin

package main

import _ "github.com/mlxbun/mlxbun/internal/metal" // registers the metal device
