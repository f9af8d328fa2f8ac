// The Hessian cache (--hessians FILE): the calibration Hessians written to a file after they are collected and
// read back by a later run with the same model, calibration text and token counts, so quantizing one model at
// several widths or settings runs the model over the calibration text once. The file is a JSON header line
// (what the Hessians were collected from) followed by each site's layer, slot, width, token count (little-endian
// int64s) and upper triangle (float64s, row by row); written to a temporary file and renamed.
package quantize

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/mlxbun/mlxbun/internal/family"
	"github.com/mlxbun/mlxbun/internal/userfile"
)

// hcacheHeader identifies what a cache file holds; a file whose header differs from the run's is recollected.
// The calibration device (Options.Device) is not part of it: a cache made on the CPU serves a CUDA run and
// vice versa. Their Hessians differ only by the devices' rounding (and, for --calib auto, by the samples a
// device's logits pick: sample.go), as two runs' would on those devices.
type hcacheHeader struct {
	Format      string `json:"format"`
	Model       string `json:"model"` // the input directory's model.safetensors (or index) size and config size
	Calib       string `json:"calib"`
	CalibSize   int64  `json:"calib_size"`
	CalibTokens int    `json:"calib_tokens"`
	CalibCtx    int    `json:"calib_ctx"`
	Sites       int    `json:"sites"`
}

const hcacheFormat = "mlxbun-hessians-1"

func hcacheKey(inDir string, o Options) (hcacheHeader, error) {
	calib, size := filepath.Base(o.Calib), int64(0)
	if o.CalibAuto {
		calib = fmt.Sprintf("auto seed %d", o.CalibSeed)
	} else {
		st, err := os.Stat(o.Calib)
		if err != nil {
			return hcacheHeader{}, fmt.Errorf("quantize: --calib: %w", err)
		}
		size = st.Size()
	}
	var sizes []int64
	for _, n := range []string{"config.json", "model.safetensors", "model.safetensors.index.json"} {
		if s, err := os.Stat(filepath.Join(inDir, n)); err == nil {
			sizes = append(sizes, s.Size())
		}
	}
	abs, _ := filepath.Abs(inDir)
	return hcacheHeader{Format: hcacheFormat, Model: fmt.Sprintf("%s %v", filepath.Base(abs), sizes),
		Calib: calib, CalibSize: size, CalibTokens: o.CalibTokens, CalibCtx: o.CalibCtx}, nil
}

// loadHessians reads file if it exists and its header matches key: the Hessians and true; a missing or
// mismatched file is (nil, false, nil); a damaged one an error naming it.
func loadHessians(file string, key hcacheHeader) (map[site]*hessian, bool, error) {
	f, st, err := userfile.Open(file, userfile.Stream)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("quantize: --hessians: %w", err)
	}
	defer f.Close()
	left := st.Size() // bytes not yet read: a site's header may not promise more than the file holds
	r := bufio.NewReaderSize(f, 1<<20)
	line, err := r.ReadSlice('\n') // at most the reader's 1 MiB: a header line is a few hundred bytes
	if err != nil {
		return nil, false, fmt.Errorf("quantize: --hessians %s: no header line: %w", file, err)
	}
	left -= int64(len(line))
	var h hcacheHeader
	if err := json.Unmarshal(line, &h); err != nil {
		return nil, false, fmt.Errorf("quantize: --hessians %s: header: %w", file, err)
	}
	n := h.Sites
	h.Sites = 0
	if h != key {
		return nil, false, nil
	}
	hs := map[site]*hessian{}
	for i := range n {
		var hdr [4]int64
		if err := binary.Read(r, binary.LittleEndian, &hdr); err != nil {
			return nil, false, fmt.Errorf("quantize: --hessians %s: site %d: %w", file, i, err)
		}
		w := int(hdr[2])
		if hdr[0] < 0 || hdr[1] < 0 || hdr[1] >= int64(family.Head) || w < 1 || w > 1<<16 || hdr[3] < 0 {
			return nil, false, fmt.Errorf("quantize: --hessians %s: site %d: bad header %v", file, i, hdr)
		}
		left -= 32
		if tri := 8 * int64(w) * int64(w+1) / 2; tri > left {
			return nil, false, fmt.Errorf("quantize: --hessians %s: site %d: a %d-wide Hessian needs %d bytes, the file has %d left (truncated?)",
				file, i, w, tri, left)
		} else {
			left -= tri
		}
		hm := newHessian(w)
		hm.tokens = hdr[3]
		buf := make([]byte, 8*w)
		for row := range w {
			b := buf[:8*(w-row)]
			if _, err := io.ReadFull(r, b); err != nil {
				return nil, false, fmt.Errorf("quantize: --hessians %s: site %d: %w", file, i, err)
			}
			dst := hm.row(row)
			for j := range dst {
				dst[j] = float64frombits(binary.LittleEndian.Uint64(b[8*j:]))
			}
		}
		hs[site{int(hdr[0]), family.Slot(hdr[1])}] = hm
	}
	return hs, true, nil
}

// saveHessians writes hs under key to file (temporary file + rename).
func saveHessians(file string, key hcacheHeader, hs map[site]*hessian) error {
	keys := make([]site, 0, len(hs))
	for k := range hs {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b site) int {
		if a.layer != b.layer {
			return a.layer - b.layer
		}
		return int(a.slot) - int(b.slot)
	})
	key.Sites = len(keys)
	tmp, err := os.CreateTemp(filepath.Dir(file), filepath.Base(file)+".tmp*")
	if err != nil {
		return fmt.Errorf("quantize: --hessians: %w", err)
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriterSize(tmp, 1<<20)
	head, _ := json.Marshal(key)
	w.Write(append(head, '\n'))
	for _, k := range keys {
		h := hs[k]
		binary.Write(w, binary.LittleEndian, [4]int64{int64(k.layer), int64(k.slot), int64(h.n), h.tokens})
		var b [8]byte
		for row := range h.n {
			for _, v := range h.row(row) {
				binary.LittleEndian.PutUint64(b[:], float64bits(v))
				w.Write(b[:])
			}
		}
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("quantize: --hessians %s: %w", file, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("quantize: --hessians %s: %w", file, err)
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		return fmt.Errorf("quantize: --hessians: %w", err)
	}
	return nil
}

func float64bits(v float64) uint64     { return math.Float64bits(v) }
func float64frombits(u uint64) float64 { return math.Float64frombits(u) }
