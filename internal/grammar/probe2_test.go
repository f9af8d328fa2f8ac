package grammar

import (
	"testing"
	"time"
	"sort"
)

func TestProbe2(t *testing.T) {
	_, v := qwenVocab(t)
	a, _ := compileProfile(t)
	w := newWalker(a, v)
	var ds []time.Duration
	big := 0
	for s, st := range a.rules[0].states {
		if st.next == nil { continue }
		t0 := time.Now()
		tab := w.table(0, int32(s))
		ds = append(ds, time.Since(t0))
		if tab.dense != nil { big++ }
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	var tot time.Duration
	for _, d := range ds { tot += d }
	t.Logf("%d walks, %d dense, total %v, median %v, p90 %v max %v", len(ds), big, tot, ds[len(ds)/2], ds[len(ds)*9/10], ds[len(ds)-1])
}
