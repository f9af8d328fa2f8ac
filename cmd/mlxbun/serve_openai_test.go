// The official OpenAI JavaScript client against `mlxbun serve`: npm installs the openai package into a temporary
// directory and node runs scripts/openai-client-test.mjs (chat, streaming, json_schema, a refused field). Without
// node or npm the test skips, except under CI=true, where it fails.
package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mlxbun/mlxbun/internal/testutil"
)

// openaiJS is the client version the script is written against.
const openaiJS = "openai@7.59.0"

func TestOpenAIJSClient(t *testing.T) {
	node, err1 := exec.LookPath("node")
	npm, err2 := exec.LookPath("npm")
	if err1 != nil || err2 != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("node and npm are needed for the OpenAI client test (node: %v, npm: %v)", err1, err2)
		}
		t.Skip("node or npm not installed")
	}
	mods := t.TempDir()
	install := exec.Command(npm, "install", "--no-audit", "--no-fund", "--silent", "--prefix", mods, openaiJS)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm install %s: %v\n%s", openaiJS, err, out)
	}
	p := startServe(t, "--parallel", "2", "--api-key", "js-key")
	script := filepath.Join(testutil.Root(t), "scripts", "openai-client-test.mjs")
	run := exec.Command(node, script, p.url+"/v1", "js-key", "pycoder-12m")
	run.Env = append(os.Environ(), "OPENAI_MODULE_DIR="+filepath.Join(mods, "node_modules"))
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("node %s: %v\n%s\nserver:\n%s", script, err, out, p.stderr)
	}
	t.Logf("%s", out)
}
