// The output directory: tensors written in shards as they are produced (one model.safetensors when everything fits
// one shard, else model-0000i-of-0000N.safetensors plus model.safetensors.index.json), config.json with the
// quantization block, the tokenizer files, all inside a temporary directory beside the destination that is
// renamed into place only when everything has been written and checked. Each file in it is itself written under
// a temporary name and renamed (writeAtomic, safetensors.WriteFile), so a file under a final name is whole even
// in a work folder a killed run left behind (--resume reads those).
package quantize

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/modeldir"
	"github.com/mlxbun/mlxbun/internal/safetensors"
	"github.com/mlxbun/mlxbun/internal/trellis"
	"github.com/mlxbun/mlxbun/internal/userfile"
)

const (
	singleFile = "model.safetensors"
	indexFile  = "model.safetensors.index.json"
)

// auxFiles are copied from the input when present.
var auxFiles = []string{
	"tokenizer.json", "tokenizer_config.json", "generation_config.json", "chat_template.jinja",
	"special_tokens_map.json", "tokenizer.model", "vocab.json", "merges.txt", "added_tokens.json",
	// a multimodal checkpoint's processors, which its vision and audio towers (copied as read) go with
	"preprocessor_config.json", "processor_config.json", "video_preprocessor_config.json",
}

// fileMetadata is every shard's __metadata__.
var fileMetadata = map[string]string{"format": "mlx"}

// sink collects output tensors and writes a shard whenever the next tensor would push it past the limit.
type sink struct {
	dir    string
	limit  int64
	cur    []backend.Host
	meta   map[string]string // the current shard's __metadata__ beyond fileMetadata (geometry records)
	size   int64
	shards [][]string // tensor names of each written shard
	bytes  int64      // tensor data written in all
	rec    *capture   // when set, every add is also recorded (a layer's checkpoint, resume.go)
}

// capture is what a sink was handed while recording: the add calls and their tensors.
type capture struct {
	writes  []write
	tensors []backend.Host
}

func newSink(dir string, limit int64) *sink { return &sink{dir: dir, limit: limit} }

// shardTemp is the name a shard is written under until the shard count is known.
func shardTemp(i int) string { return fmt.Sprintf(".shard-%05d.safetensors", i+1) }

// add queues tensors that belong together (a weight and its scales stay in one shard).
func (s *sink) add(ts ...backend.Host) error { return s.addWithMeta(nil, ts...) }

// addWithMeta is add with __metadata__ entries for the shard the tensors go into (a coded tensor's geometry
// record goes into the file that holds the codes).
func (s *sink) addWithMeta(meta map[string]string, ts ...backend.Host) error {
	var n int64
	for _, t := range ts {
		n += int64(len(t.Data))
	}
	if len(s.cur) > 0 && s.size+n > s.limit {
		if err := s.flush(); err != nil {
			return err
		}
	}
	s.cur = append(s.cur, ts...)
	s.size += n
	if s.rec != nil {
		w := write{Tensors: make([]string, len(ts))}
		for i, t := range ts {
			w.Tensors[i] = t.Name
		}
		if len(meta) > 0 {
			w.Meta = map[string]string{}
			for k, v := range meta {
				w.Meta[k] = v
			}
		}
		s.rec.writes = append(s.rec.writes, w)
		s.rec.tensors = append(s.rec.tensors, ts...)
	}
	for k, v := range meta {
		if s.meta == nil {
			s.meta = map[string]string{}
		}
		s.meta[k] = v
	}
	return nil
}

func (s *sink) flush() error {
	meta := fileMetadata
	if len(s.meta) > 0 {
		meta = map[string]string{}
		for k, v := range fileMetadata {
			meta[k] = v
		}
		for k, v := range s.meta {
			meta[k] = v
		}
	}
	if err := writeShard(filepath.Join(s.dir, shardTemp(len(s.shards))), s.cur, meta); err != nil {
		return err
	}
	s.meta = nil
	names := make([]string, len(s.cur))
	for i, t := range s.cur {
		names[i] = t.Name
	}
	s.shards = append(s.shards, names)
	s.bytes += s.size
	s.cur, s.size = nil, 0
	return nil
}

func writeShard(path string, ts []backend.Host, meta map[string]string) error {
	if err := safetensors.WriteFile(path, ts, meta); err != nil {
		return fmt.Errorf("quantize: %w", err)
	}
	return nil
}

// finish writes the last shard and names the files: model.safetensors for one shard, else numbered shards and
// the index. It returns the file names and the tensor bytes written.
func (s *sink) finish() ([]string, int64, error) {
	if len(s.cur) > 0 || len(s.shards) == 0 {
		if err := s.flush(); err != nil {
			return nil, 0, err
		}
	}
	if len(s.shards) == 1 {
		if err := os.Rename(filepath.Join(s.dir, shardTemp(0)), filepath.Join(s.dir, singleFile)); err != nil {
			return nil, 0, fmt.Errorf("quantize: %w", err)
		}
		return []string{singleFile}, s.bytes, nil
	}
	index := struct {
		Metadata  map[string]int64  `json:"metadata"`
		WeightMap map[string]string `json:"weight_map"`
	}{map[string]int64{"total_size": s.bytes}, map[string]string{}}
	var files []string
	for i, names := range s.shards {
		name := fmt.Sprintf("model-%05d-of-%05d.safetensors", i+1, len(s.shards))
		if err := os.Rename(filepath.Join(s.dir, shardTemp(i)), filepath.Join(s.dir, name)); err != nil {
			return nil, 0, fmt.Errorf("quantize: %w", err)
		}
		for _, n := range names {
			index.WeightMap[n] = name
		}
		files = append(files, name)
	}
	b, err := json.MarshalIndent(index, "", "  ")
	if err != nil {
		return nil, 0, fmt.Errorf("quantize: index: %w", err)
	}
	if err := writeAtomic(filepath.Join(s.dir, indexFile), append(b, '\n')); err != nil {
		return nil, 0, err
	}
	return append(files, indexFile), s.bytes, nil
}

// quantBlock builds the config's quantization block: the default spec first, then per-path entries in path
// order: every quantized tensor whose spec is not the default, and false for embeddings kept in bf16.
func quantBlock(o Options, items []item) *orderedObject {
	def := quantSpec(trellis.Spec{K: o.Bits, L: o.L, T: o.GroupSize, Code: "1mad", Axis: 1})
	block := &orderedObject{}
	block.set("mode", def.Mode)
	block.set("bits", def.Bits)
	block.set("group_size", def.GroupSize)
	block.set("trellis", trellisObject(def.Trellis))
	for _, it := range items {
		if it.rotIn != nil || it.rotOut != nil { // sign tensors are written: say so, with the format version
			rot := &orderedObject{}
			rot.set("method", "hadamard")
			rot.set("version", config.RotationVersions["hadamard"])
			block.set("rotation", rot)
			break
		}
	}
	if q := quantizerObject(o); q != nil {
		block.set("quantizer", q)
	}
	var paths []string
	entries := map[string]any{}
	for _, it := range items {
		switch {
		case (it.role == roleCoded || it.role == roleAffine) && !reflect.DeepEqual(it.qspec, def):
			entries[it.path] = specObject(it.qspec)
		case it.role == roleKeep && it.table:
			entries[it.path] = false
		default:
			continue
		}
		paths = append(paths, it.path)
	}
	sort.Strings(paths)
	for _, p := range paths {
		block.set(p, entries[p])
	}
	return block
}

// quantizerObject records the settings beyond the plain coder's that made the codes (nil for the plain coder,
// whose output stays what it always was): rotation seed, calibration source and size, LDLQ's damping, feedback
// block and scale refit, the sequential and asymmetric calibration. The loader does not read it.
func quantizerObject(o Options) *orderedObject {
	calib := o.Calib != "" || o.CalibIDs != nil || o.CalibAuto
	if !o.RHT && !o.Axis0 && !calib {
		return nil
	}
	q := &orderedObject{}
	q.set("rht", o.RHT)
	if o.RHT {
		q.set("rht_seed", o.Seed)
	}
	q.set("axis0", o.Axis0)
	switch {
	case o.CalibAuto:
		q.set("calibration", "auto")
		q.set("calib_seed", o.CalibSeed)
	case o.Calib != "":
		q.set("calibration", filepath.Base(o.Calib))
	case o.CalibIDs != nil:
		q.set("calibration", "token ids")
	default:
		q.set("calibration", "none")
	}
	if calib {
		q.set("calib_tokens", o.CalibTokens)
		q.set("calib_ctx", o.CalibCtx)
		q.set("ldlq", true)
		q.set("damp", o.Damp)
		rows := o.LDLQRows
		if rows == 0 {
			rows = trellis.DefaultLDLQRows
		}
		q.set("ldlq_rows", rows)
		q.set("refit_scales", o.RefitScales)
		q.set("sequential", o.Sequential)
		q.set("asymmetric", o.Asymmetric)
	}
	return q
}

func specObject(s config.QuantSpec) *orderedObject {
	o := &orderedObject{}
	o.set("mode", s.Mode)
	o.set("bits", s.Bits)
	o.set("group_size", s.GroupSize)
	if s.Trellis != nil {
		o.set("trellis", trellisObject(s.Trellis))
	}
	return o
}

func trellisObject(t *config.TrellisParams) *orderedObject {
	o := &orderedObject{}
	o.set("L", t.L)
	o.set("code", t.Code)
	o.set("axis", t.Axis)
	return o
}

// writeConfig copies config.json with the quantization block appended as its last key (the input's keys keep
// their order and values) and copies the tokenizer files; it returns the names written.
func writeConfig(inDir string, raw []byte, tmp string, o Options, items []item) ([]string, error) {
	blockJSON, err := json.Marshal(quantBlock(o, items))
	if err != nil {
		return nil, fmt.Errorf("quantize: config block: %w", err)
	}
	body := bytes.TrimSpace(raw)
	if len(body) < 2 || body[len(body)-1] != '}' {
		return nil, fmt.Errorf("%s: config.json is not a JSON object", inDir)
	}
	inner := bytes.TrimSpace(body[1 : len(body)-1])
	var b bytes.Buffer
	b.WriteByte('{')
	if len(inner) > 0 {
		b.Write(inner)
		b.WriteByte(',')
	}
	b.WriteString(`"quantization":`)
	b.Write(blockJSON)
	b.WriteByte('}')
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, b.Bytes(), "", "  "); err != nil {
		return nil, fmt.Errorf("%s: config.json: %w", inDir, err)
	}
	pretty.WriteByte('\n')
	if err := writeAtomic(filepath.Join(tmp, config.ConfigFile), pretty.Bytes()); err != nil {
		return nil, err
	}
	written := []string{config.ConfigFile}
	for _, name := range auxFiles {
		ok, err := copyFile(filepath.Join(inDir, name), filepath.Join(tmp, name))
		if err != nil {
			return nil, err
		}
		if ok {
			written = append(written, name)
		}
	}
	return written, nil
}

// verifyConfig reads the written config back and checks that Quantization.For gives every quantized tensor
// exactly its spec and every embedding kept in bf16 no quantization.
func verifyConfig(dir string, items []item) error {
	d, err := modeldir.Open(dir)
	if err != nil {
		return fmt.Errorf("quantize: the written config does not parse: %w", err)
	}
	cfg, err := d.Config()
	if err != nil {
		return fmt.Errorf("quantize: the written config does not parse: %w", err)
	}
	for _, it := range items {
		var want config.QuantSpec
		wantOK := it.role == roleCoded || it.role == roleAffine
		if wantOK {
			want = it.qspec
		} else if !it.table {
			continue
		}
		got, ok := cfg.Quant.For(it.textPath)
		if ok != wantOK || ok && !reflect.DeepEqual(got, want) {
			return fmt.Errorf("quantize: internal error: the written config gives %s %+v (quantized %v), want %+v (quantized %v)",
				it.path, got, ok, want, wantOK)
		}
	}
	return nil
}

// copyFile copies src to dst (temporary name, renamed) when src exists; it reports whether it did.
func copyFile(src, dst string) (bool, error) {
	in, _, err := userfile.Open(src, userfile.Stream) // a pipe or a device in the input would never end
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("quantize: %w", err)
	}
	defer in.Close()
	err = writeAtomicFrom(dst, func(w io.Writer) error {
		if _, err := io.Copy(w, in); err != nil {
			return fmt.Errorf("copy %s: %w", src, err)
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	return true, nil
}

// writeAtomic writes b to path through a temporary file in the same folder.
func writeAtomic(path string, b []byte) error {
	return writeAtomicFrom(path, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// writeAtomicFrom writes what fill writes to path: into a temporary file of the same folder (a dot name, which no
// loader takes for a model file), synced, made 0644 and renamed over path, so path is either absent, its old
// content or the whole new one. On any error the temporary file is removed and path is left as it was.
func writeAtomicFrom(path string, fill func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("quantize: %w", err)
	}
	// Until the rename succeeds the temporary file is ours to remove; after it, Remove fails harmlessly.
	defer os.Remove(f.Name())
	err = fill(f)
	if err == nil {
		err = f.Chmod(0o644) // CreateTemp makes 0600; a model file is meant to be shared like any other
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("quantize: %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("quantize: %w", err)
	}
	return nil
}

// orderedObject marshals as a JSON object with its keys in insertion order.
type orderedObject struct {
	keys []string
	vals []any
}

func (o *orderedObject) set(k string, v any) { o.keys, o.vals = append(o.keys, k), append(o.vals, v) }

func (o *orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(o.vals[i])
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// destination is the resolved output directory.
type destination struct {
	path   string // absolute
	given  string // as --out spelled it, for messages ("" : path)
	exists bool
}

// out is the destination as the user gave it.
func (d destination) out() string {
	if d.given != "" {
		return d.given
	}
	return d.path
}

// checkOut resolves outDir and refuses, in one line naming --out and what to do, to touch what it must not: the
// input, a directory holding it or one inside it (through symbolic links too), an existing path without force,
// a path that is not a model directory (config.json) or an empty directory even with force, and a path whose
// nearest existing ancestor is not a directory. A missing parent is created later (makeTemp).
func checkOut(inDir, outDir string, force bool) (destination, error) {
	if outDir == "" {
		return destination{}, errors.New("quantize: --out is empty: give the output model directory")
	}
	out, err := filepath.Abs(outDir)
	if err != nil {
		return destination{}, fmt.Errorf("quantize: --out %s: %w", outDir, err)
	}
	in, err := filepath.Abs(inDir)
	if err != nil {
		return destination{}, fmt.Errorf("quantize: --model %s: %w", inDir, err)
	}
	in = realPath(in)
	d := destination{path: out, given: outDir}
	sep := string(filepath.Separator)
	switch real := realPath(out); {
	case real == in:
		return d, fmt.Errorf("quantize: --out %s is the input model (--model %s); give another directory for the output", outDir, inDir)
	case strings.HasPrefix(in, real+sep) || real == sep:
		return d, fmt.Errorf("quantize: --out %s holds the input model %s; give a directory outside it", outDir, inDir)
	case strings.HasPrefix(real, in+sep):
		return d, fmt.Errorf("quantize: --out %s is inside the input model %s; give a directory outside it", outDir, inDir)
	}
	st, err := os.Lstat(out)
	switch {
	case errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		if p, ok := notDirAncestor(out); ok {
			return d, fmt.Errorf("quantize: --out %s: %s is a file, not a directory; give an --out whose parent is a directory", outDir, p)
		}
		return d, nil
	case err != nil:
		return d, fmt.Errorf("quantize: --out %s: %w; give another --out", outDir, unwrapPath(err))
	case !st.IsDir():
		what := "a file"
		if st.Mode()&os.ModeSymlink != 0 {
			what = "a symbolic link"
		} else if !st.Mode().IsRegular() {
			what = "not a directory"
		}
		return d, fmt.Errorf("quantize: --out %s exists and is %s, not a model directory; remove it or give another --out (--force replaces only model directories)", outDir, what)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		return d, fmt.Errorf("quantize: --out %s: %w", outDir, err)
	}
	if len(entries) > 0 && !slices.ContainsFunc(entries, func(e os.DirEntry) bool { return e.Name() == config.ConfigFile }) {
		return d, fmt.Errorf("quantize: --out %s is a non-empty directory without config.json (not a model); give another --out (--force replaces only model directories)", outDir)
	}
	if !force {
		return d, fmt.Errorf("quantize: --out %s already exists; --force replaces it, or give another --out", outDir)
	}
	d.exists = true
	return d, nil
}

// realPath is p with symbolic links resolved as far as it exists: its deepest existing ancestor resolved, the
// missing rest appended.
func realPath(p string) string {
	var rest []string
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(append([]string{p}, rest...)...)
		}
		rest = append([]string{filepath.Base(p)}, rest...)
		p = parent
	}
}

// notDirAncestor is the nearest existing ancestor of the missing path p when that is not a directory.
func notDirAncestor(p string) (string, bool) {
	for q := filepath.Dir(p); ; q = filepath.Dir(q) {
		st, err := os.Stat(q)
		if err == nil {
			return q, !st.IsDir()
		}
		if filepath.Dir(q) == q {
			return "", false
		}
	}
}

// makeTemp creates the temporary directory beside the destination (same file system, so the final rename is
// atomic), creating the destination's parent if needed. A parent that cannot be made or written in is one line
// naming --out.
func (d destination) makeTemp() (string, error) {
	parent := filepath.Dir(d.path)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("quantize: --out %s: cannot create its parent folder %s (%v); give an --out in a directory you can write to", d.out(), parent, unwrapPath(err))
	}
	tmp, err := os.MkdirTemp(parent, d.workPrefix())
	if err != nil {
		return "", fmt.Errorf("quantize: --out %s: cannot write in %s (%v); give an --out in a directory you can write to", d.out(), parent, unwrapPath(err))
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("quantize: --out %s: %w", d.out(), err)
	}
	if err := writeOwner(tmp); err != nil { // so that a later run can remove it if this one is killed (workdir.go)
		os.RemoveAll(tmp)
		return "", fmt.Errorf("quantize: --out %s: cannot write in %s (%v); give an --out in a directory you can write to", d.out(), parent, unwrapPath(err))
	}
	return tmp, nil
}

// unwrapPath is a *PathError's bare cause ("permission denied"), which the message names beside its own path.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (d destination) removeTemp(tmp string) { os.RemoveAll(tmp) }

// commit renames tmp into place. A directory being replaced is first moved aside, and put back if the rename
// fails, then removed. The owner record goes last, so that until then a run killed mid-commit can be settled by
// the next one (sweep).
func (d destination) commit(tmp string) error {
	if !d.exists {
		if err := os.Rename(tmp, d.path); err != nil {
			return fmt.Errorf("quantize: %w", err)
		}
		os.Remove(filepath.Join(d.path, ownerFile))
		return nil
	}
	old := tmp + ".old"
	if err := os.Rename(d.path, old); err != nil {
		return fmt.Errorf("quantize: move the old output aside: %w", err)
	}
	if err := os.Rename(tmp, d.path); err != nil {
		os.Rename(old, d.path)
		return fmt.Errorf("quantize: %w", err)
	}
	if err := os.RemoveAll(old); err != nil {
		return fmt.Errorf("quantize: the new model is in place, but removing the old one failed: %w", err)
	}
	os.Remove(filepath.Join(d.path, ownerFile))
	return nil
}
