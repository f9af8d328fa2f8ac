// The verify-kernels verb: every kernel form of a device against the CPU reference, as a table, failing the
// command when any case breaks its promise.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/verify"
)

func newVerify() *cobra.Command {
	var device, ref, output, only string
	var quick, quiet bool
	var seed uint64
	cmd := &cobra.Command{
		Use:   "verify-kernels",
		Short: "Check every kernel form of a device against the CPU reference",
		Long: `verify-kernels runs every case of the conformance harness (internal/verify) on --device and on --ref with
the same random inputs and NaN-poisoned outputs, and prints each case's promise, the measured error and
pass/fail. The ops and op sequences covered:

` + wrapList(verify.Ops(), 100) + `

Each op runs at the fixture and Qwen3-14B model shapes in the device's activation dtype, then as sweeps over the
kernel forms in f32 and bf16 activations (a device that holds no bf16 tensors skips those: reported, not failed).
"Fused/" cases issue the op sequences a backend may fuse into one launch, "Record/" cases record a step as a
graph and replay it. A progress line goes to stderr every few seconds (--quiet: none). Exit status 1 if any case
fails, or if --only matches no case.`,
		Example: `  mlxbun verify-kernels --device cuda
  mlxbun verify-kernels --device cuda --quick --only MatMul -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output != "md" && output != "json" {
				return fmt.Errorf("verify-kernels: -o %q: want md or json", output)
			}
			r, err := backend.Open(ref)
			if err != nil {
				return err
			}
			defer r.Close()
			d, err := backend.Open(device)
			if err != nil {
				return err
			}
			defer d.Close()
			// A case keeps its index in the whole list, which picks its random inputs: --only reruns a failing case
			// on the inputs it failed on.
			var cases []verify.Case
			var index []int
			for i, c := range verify.Cases(quick) {
				if only == "" || strings.Contains(c.Op+" "+c.Shape, only) {
					cases, index = append(cases, c), append(index, i)
				}
			}
			if len(cases) == 0 {
				return fmt.Errorf("verify-kernels: --only %q matches no case (ops: %s)", only, strings.Join(verify.Ops(), ", "))
			}
			runner := verify.NewRunner(r, d, seed)
			prog := newCaseProgress(cmd.ErrOrStderr(), len(cases), quiet)
			var results []verify.Result
			for k, c := range cases {
				prog.begin(c)
				res := runner.Run(index[k], c)
				results = append(results, res)
				prog.done(res)
			}
			prog.finish()
			failed, skipped := 0, 0
			for _, res := range results {
				switch {
				case res.Skipped:
					skipped++
				case !res.Pass:
					failed++
				}
			}
			out := cmd.OutOrStdout()
			if output == "json" {
				type row struct {
					Op, Shape, Promise string
					Tol, Metric        float64
					Pass, Skipped      bool
					Error              string `json:",omitempty"`
				}
				var rows []row
				for _, res := range results {
					e := ""
					if res.Err != nil {
						e = res.Err.Error()
					}
					rows = append(rows, row{res.Op, res.Shape, res.Promise, res.Tol, res.Metric, res.Pass, res.Skipped, e})
				}
				enc := json.NewEncoder(out)
				enc.SetIndent("", " ")
				if err := enc.Encode(rows); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(out, "%s against %s\n\n| op | shape | promise | bound | measured | result |\n| --- | --- | --- | ---: | ---: | --- |\n", d.Name(), r.Name())
				for _, res := range results {
					verdict := "pass"
					switch {
					case res.Skipped:
						verdict = "skip: " + res.Err.Error()
					case !res.Pass:
						verdict = "FAIL"
						if res.Err != nil {
							verdict += ": " + res.Err.Error()
						}
					}
					fmt.Fprintf(out, "| %s | %s | %s | %.3g | %.3g | %s |\n", res.Op, res.Shape, res.Promise, res.Tol, res.Metric, verdict)
				}
				fmt.Fprintf(out, "\n%d passed, %d failed, %d skipped\n", len(results)-failed-skipped, failed, skipped)
			}
			if failed > 0 {
				return fmt.Errorf("verify-kernels: %d of %d cases failed on %s", failed, len(results), d.Name())
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&device, "device", "auto", deviceHelp("device under test"))
	fl.StringVar(&ref, "ref", "cpu", deviceHelp("reference device"))
	fl.StringVarP(&output, "output", "o", "md", "md or json")
	fl.StringVar(&only, "only", "", "run only cases whose op or shape contains this text")
	fl.BoolVar(&quick, "quick", false, "skip the heavy cases (512-row prompts on more than 4M weights, 14B-shape attention)")
	fl.Uint64Var(&seed, "seed", 1, "seed of the random inputs")
	fl.BoolVar(&quiet, "quiet", false, "no progress lines on stderr")
	return cmd
}

// wrapList joins items with ", " into lines of at most width characters.
func wrapList(items []string, width int) string {
	var lines []string
	line := ""
	for i, it := range items {
		if i < len(items)-1 {
			it += ","
		}
		switch {
		case line == "":
			line = it
		case len(line)+1+len(it) > width:
			lines, line = append(lines, line), it
		default:
			line += " " + it
		}
	}
	return strings.Join(append(lines, line), "\n")
}

// caseProgress prints a line to w every progressEvery while cases run, and one at the end when any was printed,
// so a run of minutes (the CPU against itself) is not silent. A ticker prints while a case runs, as one case can
// take minutes by itself (the 14B embedding table on the CPU); a case ending after the interval prints at once.
type caseProgress struct {
	w io.Writer

	mu             sync.Mutex
	total, n, fail int
	running        string // the case under way, "" between cases
	start, last    time.Time
	quiet, printed bool
	stop           chan struct{}
	stopped        sync.WaitGroup
}

// progressEvery is the interval of the progress lines (a variable so a test can shorten it).
var progressEvery = 5 * time.Second

func newCaseProgress(w io.Writer, total int, quiet bool) *caseProgress {
	now := time.Now()
	p := &caseProgress{w: w, total: total, start: now, last: now, quiet: quiet, stop: make(chan struct{})}
	if !quiet && progressEvery > 0 {
		p.stopped.Add(1)
		go p.tick(progressEvery)
	}
	return p
}

// tick prints a line naming the running case whenever none was printed for an interval.
func (p *caseProgress) tick(every time.Duration) {
	defer p.stopped.Done()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			if p.running != "" && time.Since(p.last) >= every*9/10 { // a tick may come a little early
				p.line("(running: " + p.running + ")")
			}
			p.mu.Unlock()
		}
	}
}

// line prints the progress so far followed by tail; the caller holds mu.
func (p *caseProgress) line(tail string) {
	p.last = time.Now()
	p.printed = true
	fmt.Fprintf(p.w, "verify-kernels: %d of %d cases, %d failed, %s %s\n", p.n, p.total, p.fail,
		time.Since(p.start).Round(time.Second), tail)
}

// begin marks c as the case under way.
func (p *caseProgress) begin(c verify.Case) {
	p.mu.Lock()
	p.running = strings.TrimSpace(c.Op + " " + c.Shape)
	p.mu.Unlock()
}

func (p *caseProgress) done(r verify.Result) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	p.running = ""
	if !r.Pass && !r.Skipped {
		p.fail++
	}
	if p.quiet || time.Since(p.last) < progressEvery {
		return
	}
	p.line("(last: " + r.Op + ")")
}

func (p *caseProgress) finish() {
	close(p.stop)
	p.stopped.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.printed {
		fmt.Fprintf(p.w, "verify-kernels: %d of %d cases, %d failed, %s\n", p.n, p.total, p.fail, time.Since(p.start).Round(time.Second))
	}
}
