// On a Mac: the compiler opens (or says why not), and with MLXBUN_ANE_COMPILE_TEST=1 the tiny-qwen3 programs
// compile and the cache then holds them. Opt-in because compiling writes to the system's Neural Engine cache.

//go:build darwin

package ane

import (
	"errors"
	"os"
	"testing"
)

func TestCompileOnThisMac(t *testing.T) {
	c, err := Open()
	if errors.Is(err, ErrNoNeuralEngine) {
		t.Skipf("%v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	t.Log(c.Describe())
	if os.Getenv("MLXBUN_ANE_COMPILE_TEST") != "1" {
		t.Skip("set MLXBUN_ANE_COMPILE_TEST=1 to compile the tiny-qwen3 programs into this Mac's cache")
	}
	progs, err := Programs(loadConfig(t, "tiny-qwen3"))
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range Install(c, progs, nil) {
		if r.State != StateCompiled && r.State != StateCached {
			t.Errorf("program %s: %s: %v", progs[i].Key, r.State, r.Err)
		}
		t.Logf("%s %s: %s in %v", progs[i].Key, progs[i].Name(), r.State, r.Elapsed)
	}
	for i, r := range Status(c, progs) {
		if r.State != StateCached {
			t.Errorf("program %s not cached after install: %s %v", progs[i].Key, r.State, r.Err)
		}
	}
}
