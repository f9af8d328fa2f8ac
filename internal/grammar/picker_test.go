// The picker fills the next mask while the caller runs the forward pass: after Pick returns, the fill for the
// next token is already under way, so a Pick that comes after a forward pass longer than the fill does not wait.
package grammar

import (
	"math"
	"testing"
	"time"

	"github.com/mlxbun/mlxbun/internal/sample"
)

func TestPickerOverlapsTheForwardPass(t *testing.T) {
	_, v := qwenVocab(t)
	a, _ := compileSchema(t, benchSchemas[0].file)
	tabs := NewTables(a, v)
	tabs.Wait()
	s, err := sample.New(sample.Params{Temp: 1, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	p := NewPicker(s, tabs)
	logits := make([]float32, v.Size())
	var text []byte
	for step := range 20 {
		time.Sleep(10 * time.Millisecond) // the forward pass the fill overlaps
		for i := range logits {
			logits[i] = float32(math.Sin(float64(i * (step + 3)))) // arbitrary, finite
		}
		id, err := p.Pick(logits, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !p.pending && !p.Halt() {
			t.Fatalf("step %d: no fill under way after Pick returned", step)
		}
		text = append(text, v.Bytes(id)...)
		if p.Halt() {
			break
		}
	}
	n, waited := p.Waited()
	if n == 0 || waited > time.Duration(n)*2*time.Millisecond {
		t.Fatalf("%d fills waited %v in all: the fills did not overlap the 10 ms forward passes", n, waited)
	}
	t.Logf("%d fills, %v waited; text %q", n, waited, text)
}
