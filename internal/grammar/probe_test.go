package grammar

import (
	"testing"
	"time"
)

func TestProbe(t *testing.T) {
	_, v := qwenVocab(t)
	a, ct := compileProfile(t)
	t.Logf("compile %v: %d rules, %d states, %d classes, trie %d nodes", ct, a.Rules(), a.States(), a.nclass, v.TrieNodes())
	s := time.Now()
	tabs := NewTables(a, v)
	tabs.Wait()
	t.Logf("tables %v", time.Since(s))
	ts := fillTimes(t, tabs, profileDocs)
	t.Logf("fills %d median %v p99 %v max %v", len(ts), percentile(ts, .5), percentile(ts, .99), percentile(ts, 1))
}
