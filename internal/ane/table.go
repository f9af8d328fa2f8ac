// The table compile-ane prints: one row per program (key, kind, shapes, the layers that use it) and, after a
// status query or an install, what the cache said or what compiling did.
package ane

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteTable writes progs as a table; results (nil for a plain list) adds a STATE column, index for index.
func WriteTable(w io.Writer, progs []Program, results []Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := "KEY\tPROGRAM\tSHAPES\tUSED BY"
	if results != nil {
		head = "KEY\tPROGRAM\tSHAPES\tSTATE\tUSED BY"
	}
	fmt.Fprintln(tw, head)
	for i, p := range progs {
		if results == nil {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.Key, p.Name(), p.Shapes(), p.UsedBy())
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.Key, p.Name(), p.Shapes(), results[i].describe(), p.UsedBy())
	}
	return tw.Flush()
}

// describe is a result as its table cell: the state, and for a compile its time.
func (r Result) describe() string {
	if r.State == StateCompiled {
		return fmt.Sprintf("compiled %.0f ms", float64(r.Elapsed.Microseconds())/1e3)
	}
	return r.State.String()
}
