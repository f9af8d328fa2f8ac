// Package userfile opens and reads the files a user's directories hold (a model directory, an adapter, a
// calibration text) the one safe way: only regular files, opened without blocking so that a named pipe or a
// device in place of a file is an error instead of a hang, and read whole only up to a cap per kind of file so
// that a file of endless or absurd size is an error instead of an out-of-memory crash. Every package that reads
// such a file goes through here; the errors name the file and what is wrong with it.
package userfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Kind is a class of file with the most bytes one may hold when it is read whole.
type Kind struct {
	Name string // for messages: "JSON file", "chat template"
	Max  int64  // the cap; 0: no cap (files that are mapped or streamed, never held whole)
}

// The kinds of file read from user directories. The caps sit far above any real file (the largest tokenizer.json
// published is ~35 MiB, chat templates are tens of KiB) and far below what would exhaust memory.
var (
	JSON     = Kind{"JSON file", 256 << 20}   // config.json, tokenizer.json, tokenizer_config.json, indexes, adapter configs
	Template = Kind{"chat template", 4 << 20} // chat_template.jinja
	Text     = Kind{"text file", 256 << 20}   // calibration text
	Adapter  = Kind{"LoRA adapter", 8 << 30}  // adapter weights, copied into memory when loaded
	Weights  = Kind{"safetensors file", 0}    // memory-mapped, never read whole
	Stream   = Kind{"file", 0}                // streamed (copied, or read with its own size checks)
)

// ErrNotRegular is wrapped by the error for a path that names a directory, a named pipe, a device or a socket.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped by the error for a file over its kind's cap.
var ErrTooLarge = errors.New("file too large")

// OpenPipe opens path as Open does but also accepts a pipe, for the files a command-line flag names (a shell's
// process substitution passes one); a named pipe is opened without waiting for a writer, so one that has none
// reads as empty at once instead of hanging the run. It does not check what path is: the caller has.
func OpenPipe(path string) (*os.File, error) { return os.OpenFile(path, os.O_RDONLY|nonBlock, 0) }

// Open opens path for reading if it is a regular file within k's cap; the caller closes the file. A missing file
// is an error wrapping fs.ErrNotExist, as os.Open's is.
func Open(path string, k Kind) (*os.File, fs.FileInfo, error) {
	// Non-blocking, so that opening a named pipe with no writer returns at once (and is refused below); the flag
	// changes nothing for a regular file, whose reads never block.
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err == nil {
		err = Check(path, st, k)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

// Check applies Open's rules to a file already described by st.
func Check(path string, st fs.FileInfo, k Kind) error {
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, describe(st.Mode()))
	}
	if k.Max > 0 && st.Size() > k.Max {
		return fmt.Errorf("%s: %w: %s is more than a %s may hold (%s)", path, ErrTooLarge, size(st.Size()), k.Name, size(k.Max))
	}
	return nil
}

// Stat is Check on path's file (following symbolic links, as Open does).
func Stat(path string, k Kind) (fs.FileInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	return st, Check(path, st, k)
}

// Read returns the whole of path, a regular file of at most k.Max bytes. It also stops at the cap when the file
// grows while being read or reports a size of 0 yet has content (as files under /proc do).
func Read(path string, k Kind) ([]byte, error) {
	f, st, err := Open(path, k)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	limit := k.Max
	if limit <= 0 {
		return nil, fmt.Errorf("userfile: Read of %s needs a kind with a cap (%s has none)", path, k.Name)
	}
	b := make([]byte, 0, min(st.Size(), limit)+1)
	b, err = readAll(io.LimitReader(f, limit+1), b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: %w: more than a %s may hold (%s)", path, ErrTooLarge, k.Name, size(limit))
	}
	return b, nil
}

// readAll appends r's bytes to b (io.ReadAll with a caller's first buffer).
func readAll(r io.Reader, b []byte) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// describe says what a non-regular file is.
func describe(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// size formats a byte count the way messages give sizes.
func size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
