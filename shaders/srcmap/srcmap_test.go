package srcmap

import (
	"testing"
	"testing/fstest"
)

func TestRead(t *testing.T) {
	fsys := fstest.MapFS{"a.cu": {Data: []byte("A")}, "b.cuh": {Data: []byte("B")}, "c.go": {Data: []byte("C")}}
	m := Read(fsys, ".cu", ".cuh")
	if len(m) != 2 || m["a.cu"] != "A" || m["b.cuh"] != "B" {
		t.Errorf("Read: %v", m)
	}
}
