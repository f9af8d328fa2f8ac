// Benchmarks at Qwen3's 151,669-id vocabulary on the representative schema (testdata/profile.schema.json): schema
// compilation, token tables, and the per-token mask fill while replaying tokenized documents that satisfy the
// schema, reported as median and p99 microseconds per token.
package grammar

import (
	"slices"
	"testing"
	"time"
)

// profileDocs satisfy profile.schema.json; their Qwen3 tokens drive the mask-fill benchmark.
var profileDocs = []string{
	`{"id": "3f2b8c1e-9a4d-4e7b-8c2f-1a2b3c4d5e6f", "name": "Ada Lovelace", "age": 36, "email": "ada@analytical.engine.org", "status": "active", "verified": true, "signup": "2024-02-28", "score": 98.6, "tags": ["math", "poetry", "engines"], "address": {"street": "12 St James's Square", "city": "London", "zip": "02139", "country": "US"}, "nickname": "Enchantress", "notes": "First to publish an algorithm for a machine.\nLoved \"poetical science\"."}`,
	`{
  "id": "00000000-0000-4000-8000-000000000000",
  "name": "José Núñez 🚀",
  "age": -1,
  "email": "j.n+test@example.co",
  "status": "closed",
  "verified": false,
  "signup": "1999-12-31",
  "score": -0.5e-3,
  "tags": [],
  "address": {"street": "Calle 5", "city": "Ciudad de México", "zip": "01000", "country": "MX"},
  "nickname": null
}`,
}

func compileProfile(tb testing.TB) (*Automaton, time.Duration) {
	tb.Helper()
	src := readTestdata(tb, "profile.schema.json")
	start := time.Now()
	g, err := ParseJSONSchema(src)
	if err != nil {
		tb.Fatal(err)
	}
	a, err := Compile(g)
	if err != nil {
		tb.Fatal(err)
	}
	return a, time.Since(start)
}

// fillTimes replays each document's tokens and times FillMask before each one; every token must be allowed.
func fillTimes(tb testing.TB, tabs *Tables, docs []string) []time.Duration {
	tb.Helper()
	tok, v := qwenVocab(tb)
	mask := make([]int32, v.MaskWords())
	var times []time.Duration
	for _, d := range docs {
		m := NewMatcher(tabs)
		ids := append(tok.Encode(d, false), tok.Specials().EOS)
		for _, id := range ids {
			start := time.Now()
			m.FillMask(mask)
			times = append(times, time.Since(start))
			if uint32(mask[id>>5])>>(id&31)&1 == 0 {
				tb.Fatalf("token %d %q of a valid document is masked out", id, v.Bytes(id))
			}
			if err := m.AcceptToken(id); err != nil {
				tb.Fatal(err)
			}
		}
		if !m.Done() {
			tb.Fatal("document did not end the grammar")
		}
	}
	return times
}

func percentile(ts []time.Duration, p float64) time.Duration {
	s := slices.Clone(ts)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

func BenchmarkSchemaCompile(b *testing.B) {
	for b.Loop() {
		compileProfile(b)
	}
}

func BenchmarkSchemaTables(b *testing.B) {
	_, v := qwenVocab(b)
	a, _ := compileProfile(b)
	for b.Loop() {
		NewTables(a, v)
	}
}

// BenchmarkMaskFill reports the per-token fill time over the replayed documents: median and p99 in µs.
func BenchmarkMaskFill(b *testing.B) {
	_, v := qwenVocab(b)
	a, _ := compileProfile(b)
	tabs := NewTables(a, v)
	var all []time.Duration
	for b.Loop() {
		all = append(all, fillTimes(b, tabs, profileDocs)...)
	}
	b.ReportMetric(float64(percentile(all, 0.5).Nanoseconds())/1e3, "median-µs/token")
	b.ReportMetric(float64(percentile(all, 0.99).Nanoseconds())/1e3, "p99-µs/token")
}
