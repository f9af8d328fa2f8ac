// This file holds the global functions chat templates call that Hugging Face
// adds to its Jinja environment: raise_exception and strftime_now.
package chat

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ardanlabs/jinja"
)

// raiseException turns the template's raise_exception(msg) into a
// *RaiseError so callers can tell a rejected conversation from a broken
// template.
func raiseException(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
	if len(args) == 0 {
		return jinja.Undefined(), &RaiseError{Message: "raise_exception called without a message"}
	}
	return jinja.Undefined(), &RaiseError{Message: plain(args[0])}
}

// strftimeNow implements strftime_now(fmt), which Hugging Face defines as
// datetime.now().strftime(fmt) (Llama 3.x templates print today's date with
// it). It is our own formatter rather than the engine's: that one rewrites
// the format into a Go layout, so literal text such as "2006" or "Jan" in the
// format would be reinterpreted as date fields.
func (t *Template) strftimeNow(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
	if len(args) != 1 || !args[0].IsString() {
		return jinja.Undefined(), fmt.Errorf("strftime_now: expected one format string argument")
	}
	if n := len(args[0].AsString()); n > maxFormatBytes { // each directive may print dozens of bytes
		return jinja.Undefined(), fmt.Errorf("strftime_now: a format of %d bytes is more than %d", n, maxFormatBytes)
	}
	return jinja.NewString(strftime(t.now(), args[0].AsString())), nil
}

// plain renders a value as {{ v }} would, for messages built from values.
func plain(v jinja.Value) string {
	switch {
	case v.IsString():
		return v.AsString()
	case v.IsUndefined(), v.IsNone():
		return "None"
	}
	return v.String()
}

var (
	weekdayShort = []string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"}
	monthShort   = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
)

// strftime formats tm like C strftime in the C locale, which is what Python's
// strftime calls on Linux. The glibc "-" flag (no padding, as in "%-d") is
// supported because date-printing templates use it; an unknown directive is
// copied through unchanged, as glibc does.
func strftime(tm time.Time, format string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 >= len(format) {
			b.WriteByte(c)
			continue
		}
		start := i
		i++
		noPad := false
		if format[i] == '-' && i+1 < len(format) {
			noPad = true
			i++
		}
		num := func(n, width int) {
			s := strconv.Itoa(n)
			if !noPad {
				for len(s) < width {
					s = "0" + s
				}
			}
			b.WriteString(s)
		}
		switch format[i] {
		case 'a':
			b.WriteString(weekdayShort[tm.Weekday()])
		case 'A':
			b.WriteString(tm.Weekday().String())
		case 'b', 'h':
			b.WriteString(monthShort[tm.Month()-1])
		case 'B':
			b.WriteString(tm.Month().String())
		case 'c':
			b.WriteString(strftime(tm, "%a %b %e %H:%M:%S %Y"))
		case 'C':
			num(tm.Year()/100, 2)
		case 'd':
			num(tm.Day(), 2)
		case 'D', 'x':
			b.WriteString(strftime(tm, "%m/%d/%y"))
		case 'e':
			if noPad {
				num(tm.Day(), 1)
			} else {
				fmt.Fprintf(&b, "%2d", tm.Day())
			}
		case 'F':
			b.WriteString(strftime(tm, "%Y-%m-%d"))
		case 'H':
			num(tm.Hour(), 2)
		case 'I':
			h := tm.Hour() % 12
			if h == 0 {
				h = 12
			}
			num(h, 2)
		case 'j':
			num(tm.YearDay(), 3)
		case 'm':
			num(int(tm.Month()), 2)
		case 'M':
			num(tm.Minute(), 2)
		case 'n':
			b.WriteByte('\n')
		case 'p':
			if tm.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'R':
			b.WriteString(strftime(tm, "%H:%M"))
		case 'S':
			num(tm.Second(), 2)
		case 't':
			b.WriteByte('\t')
		case 'T', 'X':
			b.WriteString(strftime(tm, "%H:%M:%S"))
		case 'u':
			wd := int(tm.Weekday())
			if wd == 0 {
				wd = 7
			}
			num(wd, 1)
		case 'w':
			num(int(tm.Weekday()), 1)
		case 'y':
			num(tm.Year()%100, 2)
		case 'Y':
			num(tm.Year(), 1)
		case 'z':
			b.WriteString(tm.Format("-0700"))
		case 'Z':
			name, _ := tm.Zone()
			b.WriteString(name)
		case '%':
			b.WriteByte('%')
		default:
			b.WriteString(format[start : i+1])
		}
	}
	return b.String()
}
