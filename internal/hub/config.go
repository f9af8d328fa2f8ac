// Where the cache is and how the hub is reached, read from the environment as huggingface_hub's constants.py and
// utils/_auth.py read it, so that every tool sharing the cache agrees on it.
package hub

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mlxbun/mlxbun/internal/userfile"
)

// Small files of the cache and of HF_HOME: a token and a ref's commit hash are tens of bytes.
var (
	tokenFile = userfile.Kind{Name: "token file", Max: 64 << 10}
	refFile   = userfile.Kind{Name: "ref file", Max: 4 << 10}
)

// DefaultEndpoint is the public hub (huggingface_hub's _HF_DEFAULT_ENDPOINT).
const DefaultEndpoint = "https://huggingface.co"

// Config says where the cache is, how to reach the hub and whom to tell what a download does. FromEnv fills the
// first four from the environment; the zero values of the others are the defaults written beside them.
type Config struct {
	CacheDir string // the hub cache: models--org--name folders live here
	Endpoint string // scheme://host[:port] without a trailing slash
	Token    string // sent as "Authorization: Bearer" to the endpoint's host only; "" sends none
	Offline  bool   // never touch the network: the cache only

	UserAgent       string
	HTTP            *http.Client  // nil: http.DefaultTransport, no client timeout (files are large)
	MetadataTimeout time.Duration // each API and HEAD call; 0: 10 s (HF_HUB_ETAG_TIMEOUT)
	StallTimeout    time.Duration // a download with no byte for this long is dropped and resumed; 0: 10 s (HF_HUB_DOWNLOAD_TIMEOUT)
	Retries         int           // attempts after a transient failure without progress; 0: 5, <0: none
	Backoff         time.Duration // first wait before a retry, doubling up to 8×; 0: 1 s

	// Progress is told the bytes of a file as they arrive (done falls back to 0 when a server restarts a range);
	// nil reports nothing.
	Progress func(file string, done, total int64)
	// Retry is told each transient failure before the wait; nil reports nothing.
	Retry func(file string, attempt int, wait time.Duration, err error)

	// tokenErr is why FromEnv could not read a token file that exists (a device, a pipe, too large); New
	// returns it, so a token path pointing at /dev/zero is an error instead of an endless read.
	tokenErr error
}

// FromEnv reads the cache directory, endpoint, token and offline switch as huggingface_hub does:
//
//	cache:    $HF_HUB_CACHE, else $HUGGINGFACE_HUB_CACHE, else $HF_HOME/hub; HF_HOME defaults to
//	          $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface
//	endpoint: $HF_ENDPOINT (trailing slashes dropped), else DefaultEndpoint
//	token:    $HF_TOKEN, else $HUGGING_FACE_HUB_TOKEN, else the file $HF_TOKEN_PATH, else $HF_HOME/token
//	offline:  $HF_HUB_OFFLINE or $TRANSFORMERS_OFFLINE is 1, ON, YES or TRUE (any case)
//
// Paths have a leading ~ and $VARS expanded. HF_HUB_ETAG_TIMEOUT and HF_HUB_DOWNLOAD_TIMEOUT (seconds) set the
// two timeouts.
func FromEnv() Config {
	home := expandPath(os.Getenv("HF_HOME"))
	if home == "" {
		base := os.Getenv("XDG_CACHE_HOME")
		if base == "" {
			base = filepath.Join(userHome(), ".cache")
		}
		home = filepath.Join(expandPath(base), "huggingface")
	}
	cache := firstEnv("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE")
	if cache == "" {
		cache = filepath.Join(home, "hub")
	}
	endpoint := strings.TrimRight(os.Getenv("HF_ENDPOINT"), "/")
	if endpoint == "" {
		endpoint = DefaultEndpoint
	}
	token := cleanToken(firstEnv("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"))
	var tokenErr error
	if token == "" {
		path := expandPath(os.Getenv("HF_TOKEN_PATH"))
		if path == "" {
			path = filepath.Join(home, "token")
		}
		b, err := userfile.Read(path, tokenFile)
		switch {
		case err == nil:
			token = cleanToken(string(b))
		case !errors.Is(err, fs.ErrNotExist):
			tokenErr = fmt.Errorf("hub: HF token: %w", err)
		}
	}
	return Config{
		tokenErr:        tokenErr,
		CacheDir:        expandPath(cache),
		Endpoint:        endpoint,
		Token:           token,
		Offline:         envTrue("HF_HUB_OFFLINE") || envTrue("TRANSFORMERS_OFFLINE"),
		MetadataTimeout: envSeconds("HF_HUB_ETAG_TIMEOUT"),
		StallTimeout:    envSeconds("HF_HUB_DOWNLOAD_TIMEOUT"),
	}
}

func firstEnv(names ...string) string {
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return v
		}
	}
	return ""
}

// envTrue is huggingface_hub's _is_true.
func envTrue(name string) bool {
	switch strings.ToUpper(os.Getenv(name)) {
	case "1", "ON", "YES", "TRUE":
		return true
	}
	return false
}

func envSeconds(name string) time.Duration {
	n, err := strconv.Atoi(os.Getenv(name))
	if err != nil || n <= 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}

// cleanToken drops the line breaks and spaces a token file or variable may carry (_clean_token).
func cleanToken(t string) string {
	return strings.TrimSpace(strings.NewReplacer("\r", "", "\n", "").Replace(t))
}

// expandPath is Python's expandvars(expanduser(p)).
func expandPath(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		p = userHome() + p[1:]
	}
	return os.ExpandEnv(p)
}

func userHome() string {
	h, err := os.UserHomeDir()
	if err != nil {
		return "."
	}
	return h
}

// withDefaults fills the zero tuning fields.
func (c Config) withDefaults() Config {
	if c.HTTP == nil {
		c.HTTP = &http.Client{}
	}
	if c.MetadataTimeout == 0 {
		c.MetadataTimeout = 10 * time.Second
	}
	if c.StallTimeout == 0 {
		c.StallTimeout = 10 * time.Second
	}
	if c.Retries == 0 {
		c.Retries = 5
	} else if c.Retries < 0 {
		c.Retries = 0
	}
	if c.Backoff == 0 {
		c.Backoff = time.Second
	}
	if c.UserAgent == "" {
		c.UserAgent = "mlxbun"
	}
	return c
}
