//go:build linux || darwin

// Tests for the user-file reader: every way a path can fail to be a readable file of sane size is one error
// naming it, returned at once (a named pipe is never waited on) and without reading more than the cap.
package userfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/mlxbun/mlxbun/internal/testutil/limit"
)

// special makes the non-regular files of the tests: a named pipe, a directory, links to /dev/zero.
func special(t *testing.T) string {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	if err := os.Mkdir(filepath.Join(dir, "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero")); err != nil {
		t.Fatal(err)
	}
	// A sparse file one byte over the JSON cap: nothing is read to refuse it.
	big, err := os.Create(filepath.Join(dir, "big.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(JSON.Max + 1); err != nil {
		t.Fatal(err)
	}
	big.Close()
	if err := os.WriteFile(filepath.Join(dir, "ok.json"), []byte(`{"a": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestReadRefusesWhatIsNotAFile(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("named pipes and /dev/zero are unix files")
	}
	dir := special(t)
	small := Kind{"test file", 4}
	for _, c := range []struct {
		name string
		path string
		kind Kind
		is   error
		want string
	}{
		{"named pipe", "fifo", JSON, ErrNotRegular, "a named pipe"},
		{"directory", "dir", JSON, ErrNotRegular, "a directory"},
		{"link to /dev/zero", "zero", JSON, ErrNotRegular, "a device"},
		{"/dev/zero itself", "/dev/zero", Template, ErrNotRegular, "a device"},
		{"over the cap", "big.json", JSON, ErrTooLarge, "more than a JSON file may hold (256 MiB)"},
		{"missing", "absent.json", JSON, fs.ErrNotExist, "absent.json"},
		{"missing directory", "absent/config.json", JSON, fs.ErrNotExist, "absent"},
		{"cap with no size", "ok.json", Weights, nil, "needs a kind with a cap"},
		{"over a small cap", "ok.json", small, ErrTooLarge, "8 bytes is more than a test file may hold (4 bytes)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := c.path
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			err := limit.Within(t, limit.Acceptance, func() error { _, err := Read(p, c.kind); return err })
			limit.OneLine(t, err, p, c.want)
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("error %v does not wrap %v", err, c.is)
			}
		})
	}
}

// A file whose size is 0 but which has content (as /proc files do) is still read only up to the cap.
func TestReadCapsFilesThatHideTheirSize(t *testing.T) {
	const p = "/proc/self/status"
	if st, err := os.Stat(p); err != nil || st.Size() != 0 {
		t.Skip("no /proc/self/status of size 0")
	}
	_, err := Read(p, Kind{"test file", 16})
	limit.OneLine(t, err, p, "more than a test file may hold (16 bytes)")
	b, err := Read(p, Kind{"test file", 1 << 20})
	if err != nil || len(b) == 0 {
		t.Fatalf("Read = %d bytes, %v; want the file", len(b), err)
	}
}

func TestReadAndOpen(t *testing.T) {
	dir := special(t)
	p := filepath.Join(dir, "ok.json")
	b, err := Read(p, JSON)
	if err != nil || string(b) != `{"a": 1}` {
		t.Fatalf("Read = %q, %v", b, err)
	}
	b, err = Read(p, Kind{"test file", int64(len(`{"a": 1}`))}) // exactly at the cap
	if err != nil || len(b) != 8 {
		t.Fatalf("Read at the cap = %q, %v", b, err)
	}
	f, st, err := Open(p, Weights)
	if err != nil || st.Size() != 8 {
		t.Fatalf("Open = %v, %v", st, err)
	}
	f.Close()
	if _, err := Stat(filepath.Join(dir, "fifo"), Stream); !errors.Is(err, ErrNotRegular) {
		t.Fatalf("Stat of a pipe = %v, want ErrNotRegular", err)
	}
}

// OpenPipe: a named pipe with no writer opens at once and reads as empty (a flag naming one used to hang the run);
// one with a writer reads what it writes.
func TestOpenPipe(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	var got []byte
	err := limit.Within(t, limit.Bound{Time: 2 * time.Second, Alloc: 1 << 20}, func() error {
		f, err := OpenPipe(p)
		if err != nil {
			return err
		}
		defer f.Close()
		got, err = io.ReadAll(f)
		return err
	})
	if err != nil || len(got) != 0 {
		t.Fatalf("a pipe with no writer: %q, %v", got, err)
	}
	r, err := OpenPipe(p) // no writer yet: opens at once
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w, err := os.OpenFile(p, os.O_WRONLY, 0) // a reader is there: opens at once
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		w.Write([]byte("schema"))
		w.Close()
	}()
	if got, err := io.ReadAll(r); err != nil || string(got) != "schema" {
		t.Errorf("a pipe with a writer: %q, %v", got, err)
	}
}
