// What the verbs share about their flags: the spellings people bring from mlx-lm and llama.cpp, kept as aliases
// of this CLI's own names; the reader of a flag argument that names a file or stdin, with a size cap; and the
// range checks whose messages name the flag.
package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mlxbun/mlxbun/internal/trellis"
	"github.com/mlxbun/mlxbun/internal/userfile"
)

// aliases makes each key of to a second spelling of the flag it names in cmd: parsed as that flag, and listed in
// its help line ("(also --ctx-size)").
func aliases(cmd *cobra.Command, to map[string]string) {
	fl := cmd.Flags()
	keys := make([]string, 0, len(to))
	for k := range to {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, alias := range keys {
		f := fl.Lookup(to[alias])
		if f == nil || fl.Lookup(alias) != nil {
			panic(fmt.Sprintf("%s: alias --%s of --%s: no such flag, or the alias is a flag itself", cmd.Name(), alias, to[alias]))
		}
		f.Usage += " (also --" + alias + ")"
	}
	fl.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if c, ok := to[name]; ok {
			return pflag.NormalizedName(c)
		}
		return pflag.NormalizedName(name)
	})
}

// Size caps of what a flag names, far above any real input, so that /dev/zero, an endless pipe or a wrong path
// fails with one line instead of filling memory.
const (
	maxSpecBytes   = 16 << 20 // a JSON schema, a GBNF grammar
	maxPromptBytes = 64 << 20 // a prompt or a text to tokenize
	maxTextBytes   = 1 << 30  // a text to score
)

// readArg reads what a flag names: stdin for "-", else the file at path (a regular file or a pipe; a device or a
// directory is an error), at most limit bytes (more is an error naming the flag).
func readArg(flag, path string, stdin io.Reader, limit int64) ([]byte, error) {
	return readArgPrefix(flag, path, stdin, limit, false)
}

// readArgPrefix is readArg that, with cut, returns the first limit bytes of a longer input instead of failing.
func readArgPrefix(flag, path string, stdin io.Reader, limit int64, cut bool) ([]byte, error) {
	r := stdin
	what, pipe := "stdin", false
	if path != "-" {
		st, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", flag, path, unwrapPath(err))
		}
		switch m := st.Mode(); {
		case m.IsDir():
			return nil, fmt.Errorf("%s %s: a directory, not a file", flag, path)
		case m&(fs.ModeDevice|fs.ModeCharDevice|fs.ModeSocket) != 0:
			return nil, fmt.Errorf("%s %s: a device or socket, not a file (give - to read stdin)", flag, path)
		}
		f, err := userfile.OpenPipe(path) // a named pipe with no writer would otherwise wait forever
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", flag, path, unwrapPath(err))
		}
		defer f.Close()
		r, what, pipe = f, path, st.Mode()&fs.ModeNamedPipe != 0
	}
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", flag, what, unwrapPath(err))
	}
	if pipe && len(b) == 0 {
		return nil, fmt.Errorf("%s %s: a named pipe with nothing to read (no process writes to it)", flag, path)
	}
	if int64(len(b)) > limit {
		if cut {
			return b[:limit], nil
		}
		return nil, fmt.Errorf("%s %s: more than %d MiB; this is not what the flag takes", flag, what, limit>>20)
	}
	return b, nil
}

// unwrapPath drops the *fs.PathError's repetition of the path the caller names already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// checkRange fails when v lies outside [lo, hi], naming the flag and what it takes.
func checkRange(flag string, v, lo, hi int, takes string) error {
	if v < lo || v > hi {
		return fmt.Errorf("%s %d: want %s", flag, v, takes)
	}
	return nil
}

// checkFinite fails when v is NaN or ±Inf, naming the flag.
func checkFinite(flag string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%s %v: want a finite number", flag, v)
	}
	return nil
}

// bitsRange is the trellis widths the encoder and the decoders take.
func bitsRange() string { return fmt.Sprintf("%d..%d", trellis.MinK, trellis.MaxK) }

// bitsHelp describes a --bits flag the same way in every verb: what is accepted and what is worth storing.
var bitsHelp = "bits per weight, " + bitsRange() + " (2, 3 and 4 are the useful widths)"

// flagError rewrites pflag's "invalid argument "x" for "-n, --max-tokens" flag: strconv.Atoi: parsing …" as one
// sentence naming the verb, the flag and what it takes; other parse errors keep their text.
func flagError(cmd *cobra.Command, err error) error {
	var ive *pflag.InvalidValueError
	if !errors.As(err, &ive) {
		if typed := unknownFlag(err.Error()); foreignFlags[typed] != "" {
			return fmt.Errorf("%s: %w (%s)", cmd.Name(), err, foreignFlags[typed])
		}
		return fmt.Errorf("%s: %w", cmd.Name(), err)
	}
	// A shorthand with its value attached: llama.cpp's -ngl 99 parses as -n "gl", which reads as a bad --max-tokens.
	if sh := ive.GetFlag().Shorthand; sh != "" && slices.Contains(cliArgs, "-"+sh+ive.GetValue()) {
		typed := sh + ive.GetValue()
		if hint := foreignFlags[typed]; hint != "" {
			return fmt.Errorf("%s: -%s is not a flag of mlxbun (%s)", cmd.Name(), typed, hint)
		}
		return fmt.Errorf("%s: -%s reads as -%s/--%s %q (short flags are one letter): want %s", cmd.Name(), typed, sh,
			ive.GetFlag().Name, ive.GetValue(), flagTakes(ive))
	}
	takes := flagTakes(ive)
	name := "--" + ive.GetFlag().Name
	if sh := ive.GetFlag().Shorthand; sh != "" {
		name = "-" + sh + "/" + name
	}
	return fmt.Errorf("%s: %s %q: want %s", cmd.Name(), name, ive.GetValue(), takes)
}

// flagTakes is what the flag of a parse error takes, in words.
func flagTakes(ive *pflag.InvalidValueError) string {
	takes := map[string]string{
		"int": "a whole number", "uint64": "a whole number from 0", "float32": "a number", "float64": "a number",
		"bool": "true or false", "intSlice": "comma-separated whole numbers", "float64Slice": "comma-separated numbers",
	}[ive.GetFlag().Value.Type()]
	if takes == "" {
		takes = "a " + ive.GetFlag().Value.Type()
	}
	if errors.Is(ive, strconv.ErrRange) {
		takes += " in range"
	}
	return takes
}

// cliArgs is the command line run parses (flagError tells an attached shorthand value, -ngl, from -n gl).
var cliArgs []string

// foreignFlags are flags of llama.cpp and mlx-lm that have no counterpart here, by the name as typed (without
// dashes), with what to do instead: an unknown flag is refused either way, and this says why it is not missed.
var foreignFlags = map[string]string{
	"ngl":          ngl,
	"n-gpu-layers": ngl,
	"gpu-layers":   ngl,
	"t":            threads,
	"threads":      threads,
	"fa":           flashAttn,
	"flash-attn":   flashAttn,
}

const (
	ngl       = "llama.cpp's --n-gpu-layers: mlxbun does not split a model; --device cuda runs every layer on the GPU, --device cpu none"
	flashAttn = "llama.cpp's --flash-attn: mlxbun picks its attention kernels itself; drop the flag"
	threads   = "llama.cpp's --threads: the CPU backend runs on every core; GOMAXPROCS=N in the environment limits it"
)

// unknownFlag is the flag an "unknown flag" parse error names, without dashes ("" for other errors): pflag's
// "unknown flag: --threads" and "unknown shorthand flag: 't' in -t4" (then the whole -t4 when it is a foreign
// flag, as -fa is, else its letter).
func unknownFlag(msg string) string {
	if f, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		name, _, _ := strings.Cut(f, "=")
		return name
	}
	if rest, ok := strings.CutPrefix(msg, "unknown shorthand flag: '"); ok {
		letter, arg, _ := strings.Cut(rest, "' in -")
		if _, known := foreignFlags[arg]; known {
			return arg
		}
		return letter
	}
	return ""
}
