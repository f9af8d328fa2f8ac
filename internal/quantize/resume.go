// Resumable runs (--resume): the work folder keeps a checkpoint of every finished layer, so a run killed at layer
// N (kill -9, a crash, a lost machine) or stopped there (Ctrl-C, SIGTERM: cancel.go) can be continued from there
// by the same command with --resume, writing an artifact byte for byte the same as an uninterrupted run's.
//
// The work folder holds, besides the shards being written: the run record (runFile: the identity of every input
// file and every setting the output depends on), the calibration Hessians (hessFile, when they are small enough
// to be worth keeping: a resumed run then does not calibrate again), and a checkpoints folder with one
// safetensors file per finished layer: each coded tensor of the layer exactly as the run handed it to the shard
// writer (the tensors, the geometry records, the order and grouping of the writes) and its report. A layer is a
// model layer ("model.layers.3"), or a quantized table outside the layers (the embeddings, lm_head). Everything
// is written to a temporary name and renamed, so a file under its final name is whole.
//
// A resumed run takes the work folder of a dead run for the same output whose record matches its own, rewrites
// the owner record to itself, discards the shards (cheap to redo: the tensors kept as they are come from the
// input, the coded ones from the checkpoints) and encodes only the layers without a checkpoint. A work folder
// whose record differs is refused with the first differing setting named. --sequential is refused: its later
// layers' Hessians depend on the earlier layers' decoded codes, which the checkpoints do not replay.
package quantize

import (
	"bytes"
	"encoding/base64"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/safetensors"
	"github.com/mlxbun/mlxbun/internal/userfile"
)

const (
	runFile    = ".mlxbun-quantize-run.json" // the run record
	hessFile   = ".mlxbun-hessians"          // the calibration Hessians (hcache.go's format)
	ckptDir    = ".checkpoints"              // one file per finished layer
	ckptMeta   = "mlxbun.checkpoint"         // a checkpoint's index in its __metadata__ (gob, base64)
	runFormat  = "mlxbun-quantize-run-1"
	maxKeepHes = 4 << 30 // Hessians above this many bytes are recollected on resume rather than written
)

// setting is one named input of a run: a file's identity or an option's value.
type setting struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// runRecord is what a work folder was made from.
type runRecord struct {
	Format   string    `json:"format"`
	Settings []setting `json:"settings"`
}

// runSettings lists what the output depends on: every file of the input directory (name, size, modification
// time), the calibration input and every option that changes a byte of the output. The devices are not in it
// (the search's codes are the same on each; the calibration's Hessians differ only by rounding): a run killed on
// one device resumes on another, from the Hessians the work folder kept when they were small enough to keep.
func runSettings(inDir string, o Options) ([]setting, error) {
	var s []setting
	add := func(name string, v any) { s = append(s, setting{name, fmt.Sprint(v)}) }
	entries, err := os.ReadDir(inDir)
	if err != nil {
		return nil, fmt.Errorf("quantize: %w", err)
	}
	for _, e := range entries {
		st, err := os.Stat(filepath.Join(inDir, e.Name()))
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		add("input file "+e.Name(), fmt.Sprintf("%d bytes, modified %s", st.Size(), st.ModTime().UTC().Format(time.RFC3339Nano)))
	}
	rules := make([]string, len(o.Rules))
	for i, r := range o.Rules {
		rules[i] = r.String()
	}
	add("--bits", o.Bits)
	add("--L", o.L)
	add("--group-size", o.GroupSize)
	add("--bits-per-path", strings.Join(rules, ","))
	add("--embeddings", o.Embeddings)
	add("--head", o.Head)
	add("shard size", o.ShardBytes)
	add("--rht", o.RHT)
	add("--seed", o.Seed)
	add("--axis0", o.Axis0)
	switch {
	case o.CalibAuto:
		add("--calib", "auto")
		add("--calib-seed", o.CalibSeed)
	case o.Calib != "":
		st, err := os.Stat(o.Calib)
		if err != nil {
			return nil, fmt.Errorf("quantize: --calib: %w", err)
		}
		abs, _ := filepath.Abs(o.Calib)
		add("--calib", fmt.Sprintf("%s (%d bytes, modified %s)", abs, st.Size(), st.ModTime().UTC().Format(time.RFC3339Nano)))
	case o.CalibIDs != nil:
		h := fnv.New64a()
		for _, id := range o.CalibIDs {
			h.Write([]byte(strconv.Itoa(id) + " "))
		}
		add("--calib", fmt.Sprintf("%d token ids, hash %x", len(o.CalibIDs), h.Sum64()))
	default:
		add("--calib", "none")
	}
	add("--calib-tokens", o.CalibTokens)
	add("calibration window", o.CalibCtx)
	add("--damp", strconv.FormatFloat(o.Damp, 'g', -1, 64))
	add("--refit-scales", o.RefitScales)
	add("--ldlq-rows", o.LDLQRows)
	add("--sequential", o.Sequential)
	add("--asymmetric", o.Asymmetric)
	return s, nil
}

// writeRunRecord writes tmp's run record (temporary name, renamed).
func writeRunRecord(tmp string, settings []setting) error {
	b, _ := json.MarshalIndent(runRecord{Format: runFormat, Settings: settings}, "", "  ")
	return writeAtomic(filepath.Join(tmp, runFile), append(b, '\n'))
}

func readRunRecord(dir string) (runRecord, bool) {
	b, err := userfile.Read(filepath.Join(dir, runFile), userfile.Kind{Name: "run record", Max: 1 << 20})
	if err != nil {
		return runRecord{}, false
	}
	var r runRecord
	if json.Unmarshal(b, &r) != nil || r.Format != runFormat {
		return runRecord{}, false
	}
	return r, true
}

// firstDifference names the first setting in which made differs from now and says how ("", "" when they are the
// same).
func firstDifference(made, now []setting) (name, diff string) {
	m := map[string]string{}
	for _, s := range made {
		m[s.Name] = s.Value
	}
	seen := map[string]bool{}
	for _, s := range now {
		seen[s.Name] = true
		v, ok := m[s.Name]
		switch {
		case !ok:
			return s.Name, fmt.Sprintf("%s: not in its record, %s now", s.Name, s.Value)
		case v != s.Value:
			return s.Name, fmt.Sprintf("%s: %s then, %s now", s.Name, v, s.Value)
		}
	}
	for _, s := range made {
		if !seen[s.Name] {
			return s.Name, fmt.Sprintf("%s: %s then, gone now", s.Name, s.Value)
		}
	}
	return "", ""
}

// resume finds the work folder of a dead or stopped run for d made with settings, claims it (this process becomes its
// owner) and clears everything in it but the record, the Hessians and the checkpoints; "" when there is none. A
// dead run's folder made with other settings is an error naming the difference, with hint(the setting's name)
// after it when that says more (a setting this run chose itself, such as --L auto's).
func (d destination) resume(settings []setting, note func(string), hint func(name string) string) (string, error) {
	parent := filepath.Dir(d.path)
	entries, err := os.ReadDir(parent)
	if err != nil {
		return "", nil
	}
	type cand struct {
		path  string
		ckpts int
	}
	var best *cand
	var mismatch string
	for _, path := range d.workFolders(entries) {
		o, ok := readOwner(path)
		if !ok || o.state() != dead {
			continue
		}
		rec, ok := readRunRecord(path)
		if !ok {
			continue
		}
		if name, diff := firstDifference(rec.Settings, settings); diff != "" {
			if mismatch == "" {
				if h := hint(name); h != "" {
					diff += "; " + h
				}
				mismatch = fmt.Sprintf("quantize: --resume: %s was made with other settings (%s); rerun with the settings it was made with, or without --resume to start over", path, diff)
			}
			continue
		}
		n := 0
		files, _ := os.ReadDir(filepath.Join(path, ckptDir))
		for _, f := range files {
			if !strings.HasPrefix(f.Name(), ".") { // not a checkpoint being written when the run died
				n++
			}
		}
		if best == nil || n > best.ckpts {
			best = &cand{path, n}
		}
	}
	if best == nil {
		if mismatch != "" {
			return "", errors.New(mismatch)
		}
		note(fmt.Sprintf("--resume: no interrupted run for %s to resume; starting from the first layer", d.path))
		return "", nil
	}
	if err := writeAtomic(filepath.Join(best.path, ownerFile), mustJSON(self())); err != nil {
		return "", err
	}
	keep := map[string]bool{ownerFile: true, runFile: true, hessFile: true, ckptDir: true}
	entries, err = os.ReadDir(best.path)
	if err != nil {
		return "", fmt.Errorf("quantize: --resume: %w", err)
	}
	for _, e := range entries {
		if !keep[e.Name()] {
			if err := os.RemoveAll(filepath.Join(best.path, e.Name())); err != nil {
				return "", fmt.Errorf("quantize: --resume: %w", err)
			}
		}
	}
	return best.path, nil
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return append(b, '\n')
}

// units assigns every item its checkpoint unit: the layer prefix of a tensor inside the model's layers, the
// module path of a quantized one outside them; -1 for the others. names are the units in order of
// first appearance, left the number of quantized items per unit, total their trellis weights.
type units struct {
	of    []int
	names []string
	left  []int
	total []int64
}

func unitsOf(items []item) units {
	u := units{of: make([]int, len(items))}
	idx := map[string]int{}
	for i, it := range items {
		u.of[i] = -1
		name := layerPrefix(it.name)
		if name == "" && (it.role == roleCoded || it.role == roleAffine) {
			name = it.path // the module: "model.embed_tokens", "lm_head"
		}
		if name == "" {
			continue
		}
		k, ok := idx[name]
		if !ok {
			k = len(u.names)
			idx[name] = k
			u.names = append(u.names, name)
			u.left = append(u.left, 0)
			u.total = append(u.total, 0)
		}
		u.of[i] = k
		if it.role == roleCoded || it.role == roleAffine {
			u.left[k]++
		}
		if it.role == roleCoded {
			u.total[k] += int64(it.out) * int64(it.in)
		}
	}
	return u
}

// layerPrefix is a tensor's layer ("model.layers.3", a wrapped checkpoint's "model.language_model.layers.3"),
// "" outside the layers.
func layerPrefix(name string) string {
	at := strings.Index("."+name, ".layers.")
	if at < 0 {
		return ""
	}
	start := at + len("layers.")
	i := strings.IndexByte(name[start:], '.')
	if i < 0 || strings.Trim(name[start:start+i], "0123456789") != "" {
		return ""
	}
	return name[:start+i]
}

// write is one add call of the sink: tensors that go into one shard, with their __metadata__ entries.
type write struct {
	Meta    map[string]string
	Tensors []string
}

// ckptItem is one quantized tensor of a checkpoint: its writes and report.
type ckptItem struct {
	Name   string
	Writes []write
	Report *TensorReport
}

// checkpoints are a run's finished layers: those found in the work folder (a resumed run) and those written
// since.
type checkpoints struct {
	dir   string
	items map[string]ckptItem
	files []*safetensors.File
	data  map[string]*safetensors.File // tensor name → the file holding it
	done  map[int]bool                 // units with a checkpoint
}

func ckptName(u int, name string) string { return fmt.Sprintf("%05d-%s.safetensors", u, name) }

// openCheckpoints reads the checkpoints in tmp of the units in us (a file whose name is not a unit's, or that
// does not read back whole, is ignored: its layer is encoded again). A checkpoint is written under a temporary
// dot name and renamed (safetensors.WriteFile), so one a killed run was writing is never under a unit's name;
// such leftovers are removed.
func openCheckpoints(tmp string, us units) (*checkpoints, error) {
	c := &checkpoints{dir: filepath.Join(tmp, ckptDir), items: map[string]ckptItem{}, data: map[string]*safetensors.File{}, done: map[int]bool{}}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return nil, fmt.Errorf("quantize: %w", err)
	}
	if entries, err := os.ReadDir(c.dir); err == nil {
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				os.Remove(filepath.Join(c.dir, e.Name()))
			}
		}
	}
	for u, name := range us.names {
		path := filepath.Join(c.dir, ckptName(u, name))
		if _, err := os.Stat(path); err != nil {
			continue
		}
		f, err := safetensors.Open(path)
		if err != nil {
			continue
		}
		items, err := decodeIndex(f.Metadata()[ckptMeta])
		if err != nil {
			f.Close()
			continue
		}
		c.files = append(c.files, f)
		for _, it := range items {
			c.items[it.Name] = it
			for _, w := range it.Writes {
				for _, t := range w.Tensors {
					c.data[t] = f
				}
			}
		}
		c.done[u] = true
	}
	return c, nil
}

func (c *checkpoints) close() {
	for _, f := range c.files {
		f.Close()
	}
}

// replay hands item name's checkpointed writes to s as the run that made them did; ok is false when there is no
// checkpoint of it.
func (c *checkpoints) replay(name string, s *sink) (*TensorReport, bool, error) {
	it, ok := c.items[name]
	if !ok {
		return nil, false, nil
	}
	for _, w := range it.Writes {
		ts := make([]backend.Host, len(w.Tensors))
		for i, n := range w.Tensors {
			h, ok := c.data[n].Tensor(n)
			if !ok {
				return nil, false, fmt.Errorf("quantize: --resume: checkpoint of %s lacks %s", name, n)
			}
			ts[i] = h
		}
		if err := s.addWithMeta(w.Meta, ts...); err != nil {
			return nil, false, err
		}
	}
	return it.Report, true, nil
}

// write saves unit u's checkpoint: the tensors of its items' writes and the index.
func (c *checkpoints) write(u int, name string, items []ckptItem, tensors []backend.Host) error {
	idx, err := encodeIndex(items)
	if err != nil {
		return err
	}
	if err := safetensors.WriteFile(filepath.Join(c.dir, ckptName(u, name)), tensors, map[string]string{ckptMeta: idx}); err != nil {
		return fmt.Errorf("quantize: checkpoint: %w", err)
	}
	c.done[u] = true
	return nil
}

func encodeIndex(items []ckptItem) (string, error) {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(items); err != nil {
		return "", fmt.Errorf("quantize: checkpoint index: %w", err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes()), nil
}

func decodeIndex(s string) ([]ckptItem, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	var items []ckptItem
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&items); err != nil {
		return nil, err
	}
	return items, nil
}

// hessianBytes is what saving hs would write.
func hessianBytes(hs map[site]*hessian) int64 {
	var n int64
	for _, h := range hs {
		n += 8 * int64(h.n) * int64(h.n+1) / 2
	}
	return n
}

// runHessKey keys the work folder's Hessians to the run record (the record is checked before they are read).
func runHessKey(settings []setting) hcacheHeader {
	names := make([]string, len(settings))
	for i, s := range settings {
		names[i] = s.Name + "=" + s.Value
	}
	sort.Strings(names)
	h := fnv.New64a()
	h.Write([]byte(strings.Join(names, "\n")))
	return hcacheHeader{Format: hcacheFormat, Model: fmt.Sprintf("run %x", h.Sum64())}
}

// clearWork removes what only a resume needs (record, Hessians, checkpoints) from tmp before it becomes the
// output.
func clearWork(tmp string) error {
	for _, n := range []string{runFile, hessFile, ckptDir} {
		if err := os.RemoveAll(filepath.Join(tmp, n)); err != nil {
			return fmt.Errorf("quantize: %w", err)
		}
	}
	return nil
}
