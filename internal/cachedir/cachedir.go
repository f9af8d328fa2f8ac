// Package cachedir says where compiled GPU code is kept between runs, one policy for every backend: the folder an
// environment variable names ("off" disables caching), else mlxbun/<kind> under the user's cache directory.
package cachedir

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
)

// Dir is the cache folder of kind (e.g. "cuda", "metal") unless envVar overrides it; "" when caching is off or
// the system has no cache location.
func Dir(envVar, kind string) string {
	if d := os.Getenv(envVar); d != "" {
		if d == "off" {
			return ""
		}
		return d
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "mlxbun", kind)
}

// Key is the hex SHA-256 of fields, each prefixed by its length so no two different field lists hash the same
// bytes: the name of a cached compilation, from everything that changes its output.
func Key(fields ...string) string {
	h := sha256.New()
	for _, s := range fields {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	return hex.EncodeToString(h.Sum(nil))
}
