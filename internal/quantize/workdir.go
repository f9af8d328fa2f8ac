// The work folder's owner record and the sweep of folders a killed run left behind. Run builds its output in a
// temporary folder beside the destination (".OUT.tmp-N") and renames it into place; a run killed before that
// (kill -9, a crash, a power cut) used to leave the folder forever. Each work folder now holds a record of the
// process that made it (host, pid and the process's start time, which tells a live process from a later one
// given the same pid), and the next run for the same destination removes every such folder whose process is
// gone, saying so. A folder is touched only when its name is a work folder's and its record names a dead
// process: a user's directory, a folder from an older version (no record) or one of a live or unknown process is
// left alone. A run stopped by its context (Ctrl-C, SIGTERM) that kept its folder for --resume marks the record
// stopped, which counts as dead even while its process lives on (a library caller resuming in the same
// process). A replaced output moved aside (".OUT.tmp-N.old") by a run killed mid-commit is put back when the
// destination is missing, else removed.
package quantize

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlxbun/mlxbun/internal/userfile"
)

// ownerFile is the record's name inside a work folder (and, until commit finishes, inside the new output).
const ownerFile = ".mlxbun-quantize-owner.json"

// owner identifies the process that made a work folder.
type owner struct {
	Host  string `json:"host"`
	PID   int    `json:"pid"`
	Start string `json:"start"` // processStart of that process; "" where the system gives none
	// Stopped: the run was stopped (its context cancelled) and kept the folder for --resume; nobody works in it.
	Stopped bool `json:"stopped,omitempty"`
}

func self() owner {
	host, _ := os.Hostname()
	return owner{Host: host, PID: os.Getpid(), Start: processStart(os.Getpid())}
}

// liveness says whether a recorded owner is still running: alive, dead, or unknown (another host, or a system
// where a process's start time cannot be read).
type liveness int

const (
	alive liveness = iota
	dead
	unknown
)

func (o owner) state() liveness {
	if o.Stopped {
		return dead // released by the run itself: no process writes in the folder any more
	}
	if host, _ := os.Hostname(); o.Host != host || o.PID <= 0 {
		return unknown
	}
	start := processStart(o.PID)
	switch {
	case start == "" && !processExists(o.PID):
		return dead
	case start == "":
		return unknown
	case start != o.Start:
		return dead // the pid now belongs to a later process
	}
	return alive
}

// writeOwner records this process as tmp's owner.
func writeOwner(tmp string) error {
	return writeAtomic(filepath.Join(tmp, ownerFile), mustJSON(self())) // a torn record would read as none
}

// releaseOwner marks tmp's record stopped: this process no longer works in it, and a resume may take it over.
func releaseOwner(tmp string) error {
	o := self()
	o.Stopped = true
	return writeAtomic(filepath.Join(tmp, ownerFile), mustJSON(o))
}

// readOwner reads dir's record; ok is false when there is none (or it is not one of ours).
func readOwner(dir string) (owner, bool) {
	b, err := userfile.Read(filepath.Join(dir, ownerFile), userfile.Kind{Name: "owner record", Max: 4096})
	if err != nil {
		return owner{}, false
	}
	var o owner
	if json.Unmarshal(b, &o) != nil || o.PID <= 0 {
		return owner{}, false
	}
	return o, true
}

// workPrefix is the name every work folder of d starts with (os.MkdirTemp adds digits).
func (d destination) workPrefix() string { return "." + filepath.Base(d.path) + ".tmp-" }

// isWorkName reports whether name is one of d's work folders, and whether it is the ".old" one of a commit.
func (d destination) isWorkName(name string) (work, old bool) {
	rest, ok := strings.CutPrefix(name, d.workPrefix())
	if !ok {
		return false, false
	}
	rest, old = strings.CutSuffix(rest, ".old")
	if rest == "" || strings.Trim(rest, "0123456789") != "" {
		return false, false
	}
	return true, old
}

// workFolders are the paths of d's work folders among entries of its parent (not the ".old" ones of a commit).
func (d destination) workFolders(entries []os.DirEntry) []string {
	var paths []string
	for _, e := range entries {
		if work, old := d.isWorkName(e.Name()); work && !old && e.IsDir() {
			paths = append(paths, filepath.Join(filepath.Dir(d.path), e.Name()))
		}
	}
	return paths
}

// sweep removes the work folders of dead runs for this destination and settles a commit they left half done;
// note reports each action in a sentence. Failures to remove are reported, not returned: the run can proceed.
func (d destination) sweep(note func(string)) {
	parent := filepath.Dir(d.path)
	entries, err := os.ReadDir(parent)
	if err != nil {
		return // a missing parent has no leftovers
	}
	// A half-done commit first: settling it reads the record in its work folder, which the second pass removes.
	for _, e := range entries {
		if work, old := d.isWorkName(e.Name()); work && old && e.IsDir() {
			d.settleOld(filepath.Join(parent, e.Name()), note)
		}
	}
	for _, path := range d.workFolders(entries) {
		o, ok := readOwner(path)
		if !ok {
			note(fmt.Sprintf("left %s alone: it looks like an interrupted quantize's work folder but holds no owner record (an older version's?); remove it by hand if no run is using it", path))
			continue
		}
		if o.state() != dead {
			continue
		}
		why := "which is no longer running"
		if o.Stopped {
			why = "which was stopped before it finished (--resume would have continued from its finished layers)"
		}
		if err := os.RemoveAll(path); err != nil {
			note(fmt.Sprintf("could not remove %s, left by quantize process %d, %s: %v", path, o.PID, why, err))
			continue
		}
		note(fmt.Sprintf("removed %s, the work folder of quantize process %d, %s", path, o.PID, why))
	}
	// The new output of a run killed after its final rename still holds the record.
	if o, ok := readOwner(d.path); ok && o.state() == dead {
		os.Remove(filepath.Join(d.path, ownerFile))
	}
}

// settleOld handles a replaced output moved aside by commit: the record of the run doing the commit is in its
// work folder (before the second rename) or in the destination (after it).
func (d destination) settleOld(old string, note func(string)) {
	tmp := strings.TrimSuffix(old, ".old")
	o, ok := readOwner(tmp)
	if !ok {
		o, ok = readOwner(d.path)
	}
	if !ok || o.state() != dead {
		return
	}
	if _, err := os.Lstat(d.path); errors.Is(err, os.ErrNotExist) {
		if err := os.Rename(old, d.path); err != nil {
			note(fmt.Sprintf("could not put back %s (the output a killed quantize run was replacing) as %s: %v", old, d.path, err))
			return
		}
		note(fmt.Sprintf("put back %s: quantize process %d was killed while replacing it", d.path, o.PID))
		return
	}
	if err := os.RemoveAll(old); err != nil {
		note(fmt.Sprintf("could not remove %s, the output quantize process %d had replaced: %v", old, o.PID, err))
		return
	}
	note(fmt.Sprintf("removed %s, the output quantize process %d had replaced before it was killed", old, o.PID))
}
