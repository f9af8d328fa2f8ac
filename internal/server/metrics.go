// Prometheus metrics in the text exposition format, written by hand (no client library): request counts and
// latency histograms kept here, token, queue, slot, prompt-cache and speculative counters read from the
// scheduler at scrape time.
package server

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/mlxbun/mlxbun/internal/scheduler"
)

// histogram counts observations into cumulative buckets of upper bounds (seconds).
type histogram struct {
	mu     sync.Mutex
	bounds []float64
	counts []uint64 // per bucket, not cumulative; the last is +Inf
	sum    float64
	n      uint64
}

func newHistogram(bounds ...float64) *histogram {
	return &histogram{bounds: bounds, counts: make([]uint64, len(bounds)+1)}
}

func (h *histogram) observe(v float64) {
	h.mu.Lock()
	i, _ := slices.BinarySearch(h.bounds, v)
	h.counts[i]++
	h.sum += v
	h.n++
	h.mu.Unlock()
}

func (h *histogram) write(w io.Writer, name, labels string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	sep := ""
	if labels != "" {
		sep = ","
	}
	var cum uint64
	for i, b := range h.bounds {
		cum += h.counts[i]
		fmt.Fprintf(w, "%s_bucket{%s%sle=\"%g\"} %d\n", name, labels, sep, b, cum)
	}
	cum += h.counts[len(h.bounds)]
	fmt.Fprintf(w, "%s_bucket{%s%sle=\"+Inf\"} %d\n", name, labels, sep, cum)
	if labels != "" {
		labels = "{" + labels + "}"
	}
	fmt.Fprintf(w, "%s_sum%s %g\n%s_count%s %d\n", name, labels, h.sum, name, labels, h.n)
}

var latencyBounds = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120}

// metrics are the server's own counters.
type metrics struct {
	mu       sync.Mutex
	requests map[[2]string]uint64 // (endpoint, status) → count
	duration map[string]*histogram
	ttft     *histogram // request arrival to the first token
	perToken *histogram // between a stream's tokens
	step     *histogram // one forward call
}

func newMetrics() *metrics {
	return &metrics{requests: map[[2]string]uint64{}, duration: map[string]*histogram{},
		ttft: newHistogram(latencyBounds...), perToken: newHistogram(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1),
		step: newHistogram(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1)}
}

func (m *metrics) request(endpoint string, status int, d time.Duration) {
	m.mu.Lock()
	m.requests[[2]string{endpoint, fmt.Sprint(status)}]++
	h := m.duration[endpoint]
	if h == nil {
		h = newHistogram(latencyBounds...)
		m.duration[endpoint] = h
	}
	m.mu.Unlock()
	h.observe(d.Seconds())
}

// write renders every metric; st is nil while the model loads.
func (m *metrics) write(w io.Writer, st *scheduler.Stats) {
	fmt.Fprintf(w, "# HELP mlxbun_requests_total HTTP requests by endpoint and status.\n# TYPE mlxbun_requests_total counter\n")
	m.mu.Lock()
	keys := slices.SortedFunc(maps.Keys(m.requests), func(a, b [2]string) int {
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		return cmp.Compare(a[1], b[1])
	})
	for _, k := range keys {
		fmt.Fprintf(w, "mlxbun_requests_total{endpoint=%q,status=%q} %d\n", k[0], k[1], m.requests[k])
	}
	eps := slices.Sorted(maps.Keys(m.duration))
	m.mu.Unlock()
	fmt.Fprintf(w, "# HELP mlxbun_request_duration_seconds HTTP request latency by endpoint.\n# TYPE mlxbun_request_duration_seconds histogram\n")
	for _, ep := range eps {
		m.mu.Lock()
		h := m.duration[ep]
		m.mu.Unlock()
		h.write(w, "mlxbun_request_duration_seconds", fmt.Sprintf("endpoint=%q", ep))
	}
	fmt.Fprintf(w, "# HELP mlxbun_time_to_first_token_seconds Request arrival to its first generated token.\n# TYPE mlxbun_time_to_first_token_seconds histogram\n")
	m.ttft.write(w, "mlxbun_time_to_first_token_seconds", "")
	fmt.Fprintf(w, "# HELP mlxbun_time_per_output_token_seconds Time between a request's generated tokens.\n# TYPE mlxbun_time_per_output_token_seconds histogram\n")
	m.perToken.write(w, "mlxbun_time_per_output_token_seconds", "")
	fmt.Fprintf(w, "# HELP mlxbun_step_duration_seconds One batched forward call.\n# TYPE mlxbun_step_duration_seconds histogram\n")
	m.step.write(w, "mlxbun_step_duration_seconds", "")
	gauge := func(name, help string, v any) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s gauge\n%s %v\n", name, help, name, name, v)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	gauge("mlxbun_goroutines", "Goroutines of the server process (a leak shows here).", runtime.NumGoroutine())
	gauge("mlxbun_heap_bytes", "Go heap bytes in use.", ms.HeapAlloc)
	if st == nil {
		return
	}
	counter := func(name, help string, v any) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s counter\n%s %v\n", name, help, name, name, v)
	}
	gauge("mlxbun_queue_depth", "Requests waiting for a slot.", st.Queued)
	gauge("mlxbun_slots_busy", "Slots (cache sequences) running a request.", st.Busy)
	gauge("mlxbun_slots_total", "Slots (--parallel).", st.Slots)
	counter("mlxbun_requests_admitted_total", "Requests that got a slot.", st.Admitted)
	counter("mlxbun_prompt_tokens_total", "Prompt tokens of admitted requests.", st.Prompt)
	counter("mlxbun_prompt_cached_tokens_total", "Prompt tokens reused from a slot or the prompt cache.", st.Cached)
	counter("mlxbun_generated_tokens_total", "Tokens generated.", st.Generated)
	counter("mlxbun_steps_total", "Forward calls.", st.Steps)
	counter("mlxbun_step_rows_total", "Rows of all forward calls.", st.Rows)
	counter("mlxbun_pick_steps_total", "Forward calls answered by the device's greedy picks alone (no logits read).", st.PickSteps)
	counter("mlxbun_prompt_cache_hits_total", "Requests that reused a cached prefix.", st.CacheHits)
	counter("mlxbun_prompt_cache_misses_total", "Requests that reused nothing.", st.CacheMisses)
	counter("mlxbun_prompt_cache_evictions_total", "Prompt cache entries evicted.", st.CacheEvictions)
	gauge("mlxbun_prompt_cache_entries", "Prompt cache entries.", st.CacheEntries)
	gauge("mlxbun_prompt_cache_bytes", "Bytes held by the prompt cache.", st.CacheBytes)
	gauge("mlxbun_prompt_cache_limit_bytes", "The prompt cache bound (--cache-bytes).", st.CacheLimit)
	counter("mlxbun_draft_tokens_total", "Speculative draft tokens verified.", st.Drafted)
	counter("mlxbun_draft_accepted_total", "Speculative draft tokens accepted.", st.Accepted)
	ratio := 0.0
	if st.Drafted > 0 {
		ratio = float64(st.Accepted) / float64(st.Drafted)
	}
	gauge("mlxbun_draft_acceptance_ratio", "Accepted over verified draft tokens.", ratio)
	fmt.Fprintf(w, "# HELP mlxbun_requests_finished_total Finished requests by reason.\n# TYPE mlxbun_requests_finished_total counter\n")
	for _, r := range slices.Sorted(maps.Keys(st.Finished)) {
		fmt.Fprintf(w, "mlxbun_requests_finished_total{reason=%q} %d\n", r, st.Finished[r])
	}
}
