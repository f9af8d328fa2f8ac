// Golden tests: the programs, table and MIL text of every fixture config against testdata/<fixture>.golden,
// each golden checked by hand against its config (the derivation is written in testdata/README.md). Run with
// -update to rewrite them after a deliberate change, then check the diff by hand again.
package ane

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/config"
	"github.com/mlxbun/mlxbun/internal/family"
	"github.com/mlxbun/mlxbun/internal/model"
	"github.com/mlxbun/mlxbun/internal/testutil"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fixtures are the model configs with a golden; every directory under fixtures/models must be listed
// (TestEveryFixtureHasAGolden).
var fixtures = []string{"tiny-gemma2", "tiny-gemma3", "tiny-gemma4", "tiny-llama3", "tiny-qwen2-yarn", "tiny-qwen3",
	"tiny-qwen3-next-moe", "tiny-qwen3_5"}

func loadConfig(t *testing.T, name string) *config.Model {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testutil.Fixture(t, "models/"+name), "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.Parse(b, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// render is a golden's text: the table, then each program's MIL under its key.
func render(t *testing.T, progs []Program) string {
	var b strings.Builder
	if err := WriteTable(&b, progs, nil); err != nil {
		t.Fatal(err)
	}
	for _, p := range progs {
		b.WriteString("\n== " + p.Key + " " + p.Name() + "\n" + p.MIL())
	}
	return b.String()
}

func TestGoldens(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			progs, err := Programs(loadConfig(t, name))
			if err != nil {
				t.Fatal(err)
			}
			got := render(t, progs)
			path := filepath.Join("testdata", name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("%s differs from the programs computed now:\n%s", path, got)
			}
		})
	}
}

func TestEveryFixtureHasAGolden(t *testing.T) {
	entries, err := os.ReadDir(testutil.Fixture(t, "models"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && !strings.Contains(strings.Join(fixtures, " ")+" ", e.Name()+" ") {
			t.Errorf("fixture model %s has no Neural Engine golden: add it to fixtures and write testdata/%s.golden", e.Name(), e.Name())
		}
	}
}

// TestUsesCoverTheLayers counts, per fixture, the linears of every layer that run on the Neural Engine (not
// kept, not routed experts) and checks each is used exactly once: a gated program's use stands for two.
func TestUsesCoverTheLayers(t *testing.T) {
	for _, name := range fixtures {
		c := loadConfig(t, name)
		progs, err := Programs(c)
		if err != nil {
			t.Fatal(err)
		}
		covered := map[string]int{}
		for _, p := range progs {
			for _, u := range p.Uses {
				for _, m := range strings.Split(u.Module, "+") {
					covered[fmt.Sprintf("model.layers.%d.%s", u.Layer, m)]++
				}
			}
		}
		f, _ := family.For(c)
		want := 0
		for _, L := range f.Tensors(c).Layers {
			for _, l := range L.Linears {
				if l.Keep || l.Experts > 0 {
					if covered[l.Path] != 0 {
						t.Errorf("%s: %s is kept or an expert stack but has a program", name, l.Path)
					}
					continue
				}
				want++
				if covered[l.Path] != 1 {
					t.Errorf("%s: %s used %d times", name, l.Path, covered[l.Path])
				}
			}
		}
		if len(covered) != want {
			t.Errorf("%s: programs cover %d modules, the layers hold %d", name, len(covered), want)
		}
	}
}

// TestQwen3_14BShape: the programs of the Qwen3-14B preset (hidden 5120, 40 heads × 128, 8 KV heads,
// intermediate 17408, 40 layers; Qwen's published config) written out by hand.
func TestQwen3_14BShape(t *testing.T) {
	c, err := model.SyntheticConfig("qwen3-14b")
	if err != nil {
		t.Fatal(err)
	}
	progs, err := Programs(c)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"linear x f32[256,5120] w f16[5120,5120] -> f32[256,5120] | self_attn.q_proj, self_attn.o_proj (layers 0-39)",
		"linear x f32[256,5120] w f16[1024,5120] -> f32[256,1024] | self_attn.k_proj, self_attn.v_proj (layers 0-39)",
		"swiglu x f32[256,5120] gate f16[17408,5120] up f16[17408,5120] -> f32[256,17408] | mlp.gate_proj+mlp.up_proj (layers 0-39)",
		"linear x f32[256,17408] w f16[5120,17408] -> f32[256,5120] | mlp.down_proj (layers 0-39)",
	}
	var got []string
	for _, p := range progs {
		got = append(got, p.Name()+" "+p.Shapes()+" | "+p.UsedBy())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("qwen3-14b programs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
