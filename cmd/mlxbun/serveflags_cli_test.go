// serve's and chat's flags, checked before the model loads: each bad value is one line naming that flag alone
// (they were refused together, "--ctx-size -1, --prefill-chunk 256, --draft-max 8: want ≥ 0, ≥ 1, ≥ 1"), a port
// out of range names --port (it was the listener's "address 99999: invalid port"), a negative --shutdown-timeout
// is refused (it cancelled every running request at the first signal), and a size past int64 is refused (it
// wrapped, 17179869184G to 0: the prompt cache silently off).
package main

import (
	"strings"
	"testing"

	"github.com/mlxbun/mlxbun/internal/testutil"
)

func TestServeFlagsOneEach(t *testing.T) {
	py := testutil.Fixture(t, "trained/pycoder-12m")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"chat", "--ctx-size", "-1"}, "mlxbun: chat: --ctx-size -1: want ≥ 0 positions (0: the model's)"},
		{[]string{"serve", "--prefill-chunk", "0"}, "mlxbun: serve: --prefill-chunk 0: want at least 1 token"},
		{[]string{"serve", "--draft-max", "0"}, "mlxbun: serve: --draft-max 0: want at least 1 draft token"},
		{[]string{"serve", "--queue", "-1"}, "mlxbun: serve: --queue -1: want ≥ 0 requests (0: 64 per slot)"},
		{[]string{"serve", "--max-tokens", "-1"}, "mlxbun: serve: --max-tokens -1: want ≥ 0 tokens (0: the context size)"},
		{[]string{"serve", "--port", "99999"}, "mlxbun: serve: --port 99999: want 0..65535 (0: any free port)"},
		{[]string{"serve", "--shutdown-timeout", "-1s"}, "mlxbun: serve: --shutdown-timeout -1s: want ≥ 0 (0: cancel running requests at once)"},
		{[]string{"serve", "--cache-bytes", "17179869184G"}, `mlxbun: serve: --cache-bytes: "17179869184G" is more bytes than a size holds`},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			r := bounded(t, "", append(c.args, "--model", py, "--device", "cpu")...)
			oneErrorLine(t, r)
			if got := strings.TrimSpace(r.stderr); got != c.want {
				t.Errorf("error\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestParseBytesOverflow(t *testing.T) {
	for _, s := range []string{"17179869184G", "8589934592G", "9223372036854775807K"} {
		if n, err := parseBytes(s); err == nil {
			t.Errorf("parseBytes(%q) = %d, want an error", s, n)
		}
	}
	if n, err := parseBytes("8589934591G"); err != nil || n != 8589934591<<30 {
		t.Errorf("parseBytes(8589934591G) = %d, %v", n, err)
	}
}
