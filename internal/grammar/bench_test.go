// Benchmarks at Qwen3's 151,669-id vocabulary on the representative schema (testdata/profile.schema.json): schema
// compilation, token tables, and the per-token mask fill while replaying tokenized documents that satisfy the
// schema, reported as median and p99 microseconds per token.
package grammar

import (
	"slices"
	"testing"
	"time"
)

// benchSchemas are the two benchmark schemas with documents satisfying them, whose Qwen3 tokens drive the
// mask-fill benchmark: event (typical structured-output fields: free strings, formats, enums, nested object,
// arrays) and profile (heavier: many maxLength strings, which unroll into one automaton state per character).
var benchSchemas = []struct {
	name, file string
	docs       []string
}{
	{"event", "event.schema.json", []string{
		`{"name": "Quarterly planning review", "date": "2025-03-14", "start": "09:30:00Z", "participants": ["Alice Chen", "Bob Okafor", "Priya Natarajan"], "location": "Building 4, room 210", "priority": "high", "online": false, "attendance": 12, "details": {"summary": "Review Q1 results, agree on Q2 goals and the hiring plan.", "confidence": 0.92, "tags": ["work"]}}`,
		`{
  "name": "Dentist appointment",
  "date": "2024-11-05",
  "start": "16:15:00+01:00",
  "participants": [],
  "location": null,
  "priority": "medium",
  "online": false,
  "attendance": 1,
  "details": {"summary": "Annual check-up; bring the insurance card.\nAsk about the \"night guard\".", "confidence": 7.5e-1, "tags": ["personal", "health"]}
}`}},
	{"profile", "profile.schema.json", []string{
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
}`}},
}

func compileSchema(tb testing.TB, file string) (*Automaton, time.Duration) {
	tb.Helper()
	src := readTestdata(tb, file)
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

// BenchmarkSchemaCompile: JSON Schema text to minimized automaton.
func BenchmarkSchemaCompile(b *testing.B) {
	for _, bs := range benchSchemas {
		b.Run(bs.name, func(b *testing.B) {
			for b.Loop() {
				compileSchema(b, bs.file)
			}
		})
	}
}

// BenchmarkSchemaTables: every state's token table at Qwen3's vocabulary (all CPUs).
func BenchmarkSchemaTables(b *testing.B) {
	_, v := qwenVocab(b)
	for _, bs := range benchSchemas {
		b.Run(bs.name, func(b *testing.B) {
			a, _ := compileSchema(b, bs.file)
			for b.Loop() {
				NewTables(a, v).Wait()
			}
		})
	}
}

// BenchmarkMaskFill reports the per-token fill time over the replayed documents with every table built:
// median and p99 in µs.
func BenchmarkMaskFill(b *testing.B) {
	_, v := qwenVocab(b)
	for _, bs := range benchSchemas {
		b.Run(bs.name, func(b *testing.B) {
			a, _ := compileSchema(b, bs.file)
			tabs := NewTables(a, v)
			tabs.Wait()
			var all []time.Duration
			for b.Loop() {
				all = append(all, fillTimes(b, tabs, bs.docs)...)
			}
			b.ReportMetric(float64(percentile(all, 0.5).Nanoseconds())/1e3, "median-µs/token")
			b.ReportMetric(float64(percentile(all, 0.99).Nanoseconds())/1e3, "p99-µs/token")
		})
	}
}

// BenchmarkMaskFillCold is MaskFill right after compilation with no background workers: each state's table is
// built by the fill that first needs it, the worst case of a generation that starts before the tables are done.
func BenchmarkMaskFillCold(b *testing.B) {
	_, v := qwenVocab(b)
	for _, bs := range benchSchemas {
		b.Run(bs.name, func(b *testing.B) {
			a, _ := compileSchema(b, bs.file)
			var all []time.Duration
			for b.Loop() {
				all = append(all, fillTimes(b, newTables(a, v, 0), bs.docs)...)
			}
			b.ReportMetric(float64(percentile(all, 0.5).Nanoseconds())/1e3, "median-µs/token")
			b.ReportMetric(float64(percentile(all, 0.99).Nanoseconds())/1e3, "p99-µs/token")
		})
	}
}
