package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/backend"
	"github.com/mlxbun/mlxbun/internal/dtype"
	"github.com/mlxbun/mlxbun/internal/safetensors"
	"github.com/mlxbun/mlxbun/internal/testutil"
	"github.com/mlxbun/mlxbun/internal/testutil/variant"
)

var binPath string

// TestMain builds the real binary once; the CLI tests run it as a user would, checking exit codes and stderr.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mlxbun-cli")
	if err != nil {
		panic(err)
	}
	binPath = filepath.Join(dir, "mlxbun")
	build := exec.Command("go", "build", "-o", binPath, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
}

func mlxbun(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Stdin = strings.NewReader(stdin)
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{out.String(), errb.String(), code}
}

// copyModel copies a fixture model directory into a temp dir so a test can damage it.
func copyModel(t *testing.T, fixture string) string {
	t.Helper()
	return copyDir(t, testutil.Fixture(t, fixture))
}

// copyDir copies the files of the flat directory src into a temp dir.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func editConfig(t *testing.T, dir string, edit func(map[string]any)) {
	t.Helper()
	p := filepath.Join(dir, "config.json")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	edit(cfg)
	b, _ = json.Marshal(cfg)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// poison rewrites dir/model.safetensors with NaN at the given elements of one bf16 tensor.
func poison(t *testing.T, dir, name string, elements ...int) {
	t.Helper()
	a, err := safetensors.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ts []backend.Host
	for _, n := range a.Names() {
		h, err := a.Tensor(n)
		if err != nil {
			t.Fatal(err)
		}
		h.Data = append([]byte(nil), h.Data...) // off the mapping, which Close releases
		if n == name {
			if h.DType != backend.BF16 {
				t.Fatalf("%s is %s, want BF16", n, h.DType)
			}
			for _, e := range elements {
				binary.LittleEndian.PutUint16(h.Data[2*e:], dtype.F32ToBF16(float32(math.NaN())))
			}
		}
		ts = append(ts, h)
	}
	a.Close()
	if err := safetensors.WriteFile(filepath.Join(dir, "model.safetensors"), ts, nil); err != nil {
		t.Fatal(err)
	}
}

// oneErrorLine asserts a failing exit with exactly one stderr line that mentions every want, and no panic.
func oneErrorLine(t *testing.T, r result, wants ...string) {
	t.Helper()
	if r.code == 0 {
		t.Fatalf("exit 0, want failure; stdout %q", r.stdout)
	}
	lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
	if len(lines) != 1 || strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine") {
		t.Fatalf("want one error line, got:\n%s", r.stderr)
	}
	for _, w := range wants {
		if !strings.Contains(lines[0], w) {
			t.Errorf("error line %q does not mention %q", lines[0], w)
		}
	}
}

func TestBadInput(t *testing.T) {
	ids := "--prompt-ids=1,2,3"
	t.Run("missing safetensors", func(t *testing.T) {
		dir := copyModel(t, "models/tiny-qwen3")
		os.Remove(filepath.Join(dir, "model.safetensors"))
		oneErrorLine(t, mlxbun(t, "", "generate", "--model", dir, ids, "--device", "cpu"), "safetensors")
	})
	t.Run("truncated safetensors", func(t *testing.T) {
		dir := copyModel(t, "models/tiny-qwen3")
		p := filepath.Join(dir, "model.safetensors")
		b, _ := os.ReadFile(p)
		os.WriteFile(p, b[:len(b)/2], 0o644)
		oneErrorLine(t, mlxbun(t, "", "generate", "--model", dir, ids, "--device", "cpu"), "model.safetensors")
	})
	t.Run("header lies about offsets", func(t *testing.T) {
		dir := copyModel(t, "models/tiny-qwen3")
		p := filepath.Join(dir, "model.safetensors")
		b, _ := os.ReadFile(p)
		n := binary.LittleEndian.Uint64(b)
		var hdr map[string]any
		if err := json.Unmarshal(b[8:8+n], &hdr); err != nil {
			t.Fatal(err)
		}
		// Point one tensor's end offset far past the file and write the header back with its new length.
		for name, v := range hdr {
			if name == "__metadata__" {
				continue
			}
			offs := v.(map[string]any)["data_offsets"].([]any)
			offs[1] = offs[1].(float64) + 1e9
			break
		}
		nh, _ := json.Marshal(hdr)
		for len(nh)%8 != 0 {
			nh = append(nh, ' ')
		}
		out := binary.LittleEndian.AppendUint64(nil, uint64(len(nh)))
		out = append(append(out, nh...), b[8+n:]...)
		os.WriteFile(p, out, 0o644)
		oneErrorLine(t, mlxbun(t, "", "generate", "--model", dir, ids, "--device", "cpu"), "model.safetensors", "data_offsets")
	})
	t.Run("wrong tensor shape", func(t *testing.T) {
		dir := copyModel(t, "models/tiny-qwen3")
		editConfig(t, dir, func(c map[string]any) { c["intermediate_size"] = 512.0 })
		oneErrorLine(t, mlxbun(t, "", "generate", "--model", dir, ids, "--device", "cpu"), "gate_proj.weight", "shape")
	})
	t.Run("unknown model_type", func(t *testing.T) {
		dir := copyModel(t, "models/tiny-qwen3")
		editConfig(t, dir, func(c map[string]any) { c["model_type"] = "gpt-neo-mystery" })
		oneErrorLine(t, mlxbun(t, "", "generate", "--model", dir, ids, "--device", "cpu"), "config.json", "gpt-neo-mystery")
	})
	t.Run("malformed tokenizer.json", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "tokenizer.json"), []byte(`{"model": {"type": "BPE", "vocab": [`), 0o644)
		oneErrorLine(t, mlxbun(t, "", "tokenize", "--model", dir, "--text", "hi"), "tokenizer.json")
	})
	t.Run("prompt longer than context", func(t *testing.T) {
		dir := copyModel(t, "models/tiny-qwen3")
		editConfig(t, dir, func(c map[string]any) { c["max_position_embeddings"] = 8.0 })
		oneErrorLine(t, mlxbun(t, "", "generate", "--model", dir, "--prompt-ids=1,2,3,4,5,6,7,8,9,10", "--device", "cpu"), "context")
	})
	t.Run("bad flag", func(t *testing.T) {
		oneErrorLine(t, mlxbun(t, "", "generate", "--temp", "hot"), "--temp")
	})
	t.Run("bad sampling value", func(t *testing.T) {
		dir := copyModel(t, "models/tiny-qwen3")
		oneErrorLine(t, mlxbun(t, "", "generate", "--model", dir, ids, "--top-p", "1.5"), "top")
	})
	t.Run("missing CUDA driver", func(t *testing.T) {
		if os.Getenv("MLXBUN_CUDA") == "1" {
			t.Skip("a GPU machine: the driver is there")
		}
		dir := copyModel(t, "models/tiny-qwen3")
		oneErrorLine(t, mlxbun(t, "", "generate", "--model", dir, ids, "--device", "cuda"), "driver not found")
	})
	t.Run("kv cache larger than memory", func(t *testing.T) {
		dir := copyModel(t, "models/tiny-qwen3")
		oneErrorLine(t, mlxbun(t, "", "generate", "--model", dir, ids, "--device", "cpu", "--max-kv-size", "900000000"), "out of memory")
	})
	t.Run("missing model directory", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "no-such-model")
		want := "model directory " + dir + " does not exist"
		oneErrorLine(t, mlxbun(t, "", "generate", "--model", dir, ids, "--device", "cpu"), want)
		oneErrorLine(t, mlxbun(t, "", "generate", "--model", dir, "--prompt", "hi", "--device", "cpu"), want)
		oneErrorLine(t, mlxbun(t, "", "tokenize", "--model", dir, "--text", "hi"), want)
		oneErrorLine(t, mlxbun(t, "", "bench", "--model", dir, "--device", "cpu", "-p", "4", "-n", "0"), want)
		text := filepath.Join(t.TempDir(), "text.txt")
		os.WriteFile(text, []byte("some text"), 0o644)
		oneErrorLine(t, mlxbun(t, "", "perplexity", "--model", dir, "--file", text, "--device", "cpu"), want)
	})
	t.Run("missing config.json", func(t *testing.T) {
		dir := copyModel(t, "models/tiny-qwen3")
		os.Remove(filepath.Join(dir, "config.json"))
		oneErrorLine(t, mlxbun(t, "", "generate", "--model", dir, ids, "--device", "cpu"), dir+": no config.json")
		oneErrorLine(t, mlxbun(t, "", "generate", "--model", dir, "--prompt", "hi", "--device", "cpu"), "no config.json")
	})
	t.Run("NaN weights stop generation at the first step", func(t *testing.T) {
		dir := copyModel(t, "models/tiny-qwen3")
		poison(t, dir, "model.layers.1.mlp.down_proj.weight", 17)
		oneErrorLine(t, mlxbun(t, "", "generate", "--model", dir, ids, "--device", "cpu", "--json"),
			"step 1: logits hold NaN (first at id 0)")
	})
	t.Run("NaN embedding row stops generation when its token is fed", func(t *testing.T) {
		// tiny-llama3 is untied: its greedy continuation of the golden prompt starts 2022, 1065 (golden.json), so
		// row 1065 of the embedding is first read at the third step.
		dir := copyModel(t, "models/tiny-llama3")
		poison(t, dir, "model.embed_tokens.weight", 1065*256+3)
		prompt := "1326,617,1617,197,296,385,1497,237,879,153,352,1776,1712,286,985,371,1738,242,507,914,253,1624,203,905"
		r := mlxbun(t, "", "generate", "--model", dir, "--prompt-ids", prompt, "--device", "cpu", "--ignore-eos", "--max-tokens", "8")
		oneErrorLine(t, r, "generate: step 3: logits hold NaN (first at id 0)")
	})
	t.Run("check-tensors names the poisoned tensor", func(t *testing.T) {
		dir := copyModel(t, "models/tiny-qwen3")
		poison(t, dir, "model.layers.1.mlp.down_proj.weight", 17)
		oneErrorLine(t, mlxbun(t, "", "generate", "--model", dir, ids, "--device", "cpu", "--check-tensors"),
			"tensor model.layers.1.mlp.down_proj.weight (BF16) holds NaN at element 17")
		clean := copyModel(t, "models/tiny-qwen3")
		if r := mlxbun(t, "", "generate", "--model", clean, ids, "--device", "cpu", "--check-tensors", "--max-tokens", "2"); r.code != 0 {
			t.Fatalf("a clean model fails the check: %s", r.stderr)
		}
	})
	t.Run("unknown device", func(t *testing.T) {
		dir := copyModel(t, "models/tiny-qwen3")
		oneErrorLine(t, mlxbun(t, "", "generate", "--model", dir, ids, "--device", "tpu"), "tpu")
	})
}

// TestGenerateJSON runs the golden tiny model through the CLI and checks the record against the golden ids.
func TestGenerateJSON(t *testing.T) {
	dir := testutil.Fixture(t, "models/tiny-llama3")
	var g struct {
		PromptIDs []int `json:"prompt_ids"`
		Greedy    []int `json:"greedy_new_ids"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "golden.json"))
	json.Unmarshal(b, &g)
	var ids []string
	for _, id := range g.PromptIDs {
		ids = append(ids, strings.TrimSpace(strings.Repeat(" ", 0)+itoa(id)))
	}
	r := mlxbun(t, "", "generate", "--model", dir, "--prompt-ids", strings.Join(ids, ","), "--max-tokens", itoa(len(g.Greedy)), "--json", "--device", "cpu", "--ignore-eos")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var rec struct {
		Generated []int `json:"generated_ids"`
		Prompt    []int `json:"prompt_ids"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rec); err != nil {
		t.Fatalf("stdout is not one JSON record: %v\n%s", err, r.stdout)
	}
	if !equalInts(rec.Generated, g.Greedy) || !equalInts(rec.Prompt, g.PromptIDs) {
		t.Errorf("generated %v, want %v", rec.Generated, g.Greedy)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestTokenizeGolden: tokenize on a directory holding only tokenizer files matches the HF golden ids, and
// --decode inverts it.
func TestTokenizeGolden(t *testing.T) {
	dir := testutil.Fixture(t, "tokenizers/qwen3")
	var g struct {
		Cases []struct {
			Text string `json:"text"`
			IDs  []int  `json:"ids"`
		} `json:"cases"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "encode_golden.json"))
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	for _, c := range g.Cases[:12] {
		if c.Text == "" || strings.HasPrefix(c.Text, "-") {
			continue
		}
		r := mlxbun(t, "", "tokenize", "--model", dir, "--text", c.Text)
		want, _ := json.Marshal(c.IDs)
		if r.code != 0 || strings.TrimSpace(r.stdout) != string(want) {
			t.Errorf("tokenize %q: exit %d, got %s want %s (%s)", c.Text, r.code, r.stdout, want, r.stderr)
			continue
		}
		r = mlxbun(t, "", "tokenize", "--model", dir, "--decode", "--text", string(want))
		if strings.TrimSuffix(r.stdout, "\n") != c.Text {
			t.Errorf("decode %s: got %q want %q", want, r.stdout, c.Text)
		}
	}
}

// TestQuantizedPhi3DeviceChoice: a Phi-3 model (fused qkv_proj, gate_up_proj) quantized by the CLI generates, and
// "auto" says in one info line which device it picked and why: cuda, when it is there, serves no trellis layer,
// so the CPU runs it, and a forced --device cuda fails before loading, naming the layer and its format.
func TestQuantizedPhi3DeviceChoice(t *testing.T) {
	src := variant.For(t, "phi3").Dir
	out := filepath.Join(t.TempDir(), "phi3-q2")
	if r := mlxbun(t, "", "quantize", "--model", src, "--out", out, "--bits", "2", "--L", "8", "--group-size", "64", "--fast", "--quiet"); r.code != 0 {
		t.Fatalf("quantize: exit %d: %s", r.code, r.stderr)
	}
	r := mlxbun(t, "", "generate", "--model", out, "--prompt-ids=1,2,3", "--max-tokens", "4", "--ignore-eos", "--json",
		"--device", "auto", "--log-level", "info", "--log-format", "json")
	if r.code != 0 {
		t.Fatalf("generate: exit %d: %s", r.code, r.stderr)
	}
	var picked string
	for _, line := range strings.Split(r.stderr, "\n") {
		var rec struct{ Message string }
		if json.Unmarshal([]byte(line), &rec) == nil && strings.HasPrefix(rec.Message, "device ") {
			picked = rec.Message
		}
	}
	want := "device cpu: cuda did not open"
	if os.Getenv("MLXBUN_CUDA") == "1" {
		want = "device cpu: cuda cannot serve matmul model.layers.0.self_attn.qkv_proj[0:256] (trellis 2-bit"
		oneErrorLine(t, mlxbun(t, "", "generate", "--model", out, "--prompt-ids=1,2,3", "--device", "cuda"),
			"cuda cannot serve", "qkv_proj", "trellis 2-bit")
	}
	if !strings.HasPrefix(picked, want) {
		t.Errorf("device line %q, want it to start %q", picked, want)
	}
}

// TestQuantizeRHT: `quantize --fast --rht --axis0 --verbose` (rotation without calibration) logs one info line per layer and prints the proxy-loss summary with the
// rotated tensors marked; the artifact generates on the CPU; a missing --calib file is one error line.
func TestQuantizeRHT(t *testing.T) {
	src := variant.For(t, "qwen3").Dir
	out := filepath.Join(t.TempDir(), "qwen3-rht")
	r := mlxbun(t, "", "quantize", "--model", src, "--out", out, "--bits", "3", "--L", "6", "--group-size", "64",
		"--fast", "--rht", "--axis0", "--quiet", "--verbose", "--log-format", "json")
	if r.code != 0 {
		t.Fatalf("quantize: exit %d: %s", r.code, r.stderr)
	}
	layers := 0
	for _, line := range strings.Split(r.stderr, "\n") {
		var rec struct{ Message, Layer string }
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Message == "layer quantized" && strings.HasPrefix(rec.Layer, "model.layers.") {
			layers++
		}
	}
	if layers != 2 {
		t.Errorf("%d 'layer quantized' lines for the 2 layers:\n%s", layers, r.stderr)
	}
	// "affine 8-bit ×1": the tied table, the output head, as quantize stores it by default
	for _, want := range []string{"proxy loss", "H = I (no calibration)", "model.layers.1.mlp.down_proj", "rht(in,out)", "affine 8-bit ×1"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.stdout)
		}
	}
	if g := mlxbun(t, "", "generate", "--model", out, "--prompt-ids=1,2,3", "--max-tokens", "4", "--ignore-eos", "--device", "cpu"); g.code != 0 {
		t.Fatalf("generate: exit %d: %s", g.code, g.stderr)
	}
	oneErrorLine(t, mlxbun(t, "", "quantize", "--model", src, "--out", out+"-x", "--bits", "3", "--calib", "/nonexistent/calib.txt"),
		"--calib", "/nonexistent/calib.txt")
}

// TestQuantizeHeadFlag: `quantize --head bf16` keeps the tied table in bf16 (the config block says false for it);
// another value is one error line naming the flag.
func TestQuantizeHeadFlag(t *testing.T) {
	src := variant.For(t, "qwen3").Dir
	out := filepath.Join(t.TempDir(), "qwen3-bf16-head")
	r := mlxbun(t, "", "quantize", "--model", src, "--out", out, "--bits", "2", "--L", "6", "--group-size", "64", "--fast", "--head", "bf16", "--quiet")
	if r.code != 0 {
		t.Fatalf("quantize: exit %d: %s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, "affine") {
		t.Errorf("--head bf16 wrote an affine tensor:\n%s", r.stdout)
	}
	raw, err := os.ReadFile(filepath.Join(out, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Quant map[string]any `json:"quantization"`
	}
	if err := json.Unmarshal(raw, &c); err != nil || c.Quant["model.embed_tokens"] != false {
		t.Errorf("config block %v (%v): want model.embed_tokens false", c.Quant, err)
	}
	oneErrorLine(t, mlxbun(t, "", "quantize", "--model", src, "--out", out+"-x", "--bits", "2", "--head", "int8"), "--head", "int8")
}
