// Package cachedir says where compiled GPU code is kept between runs, one policy for every backend: the folder an
// environment variable names ("off" disables caching), else mlxbun/<kind> under the user's cache directory.
package cachedir

import (
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
