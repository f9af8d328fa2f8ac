// Package hub finds models by name (org/name[@revision]) in the Hugging Face cache, laid out exactly as
// huggingface_hub lays it out, and downloads the files a model needs from the hub into that cache, so that a model
// fetched here is found by transformers, mlx-lm and exllamav3 and the other way round.
//
// The cache (cache.go) is $HF_HUB_CACHE/models--org--name/{refs/<revision>, blobs/<etag>,
// snapshots/<commit>/<file> → ../../blobs/<etag>, .no_exist/<commit>/<file>}; downloads (snapshot.go, fetch.go) go
// through the hub's resolve endpoint and its headers (X-Repo-Commit, X-Linked-Etag, X-Linked-Size), resume a
// blob's .incomplete with Range, and hold .locks/models--org--name/<etag>.lock while writing a blob. The facts come
// from huggingface_hub's file_download.py, _snapshot_download.py and constants.py; the code is ours.
package hub

import (
	"errors"
	"fmt"
	"strings"
)

// DefaultRevision is the branch a reference without @revision names (huggingface_hub's DEFAULT_REVISION).
const DefaultRevision = "main"

// Ref names a model repository on the hub and a revision of it: a branch, a tag, or a full or short commit hash.
type Ref struct {
	Repo     string // "org/name"
	Revision string // "" means DefaultRevision
}

// Rev is the revision, DefaultRevision when none was given.
func (r Ref) Rev() string {
	if r.Revision == "" {
		return DefaultRevision
	}
	return r.Revision
}

func (r Ref) String() string {
	if r.Revision == "" {
		return r.Repo
	}
	return r.Repo + "@" + r.Revision
}

// ErrBadRef is wrapped by ParseRef's errors.
var ErrBadRef = errors.New("not a hub model name")

// ParseRef reads "org/name" or "org/name@revision". The name follows the hub's rules (huggingface_hub's
// validate_repo_id): one slash, each part of letters, digits, '_', '-' and '.', starting and ending with a letter,
// digit or '_', no "--" or "..", not ending in ".git", at most 96 characters. A revision may hold slashes
// ("refs/pr/1") but no "..", empty segment or backslash, since it names a file under refs/.
func ParseRef(s string) (Ref, error) {
	repo, rev, hasRev := strings.Cut(s, "@")
	if err := validRepo(repo); err != nil {
		return Ref{}, fmt.Errorf("%q: %w: %v", s, ErrBadRef, err)
	}
	if hasRev {
		if err := validRevision(rev); err != nil {
			return Ref{}, fmt.Errorf("%q: %w: %v", s, ErrBadRef, err)
		}
	}
	return Ref{Repo: repo, Revision: rev}, nil
}

// IsRef reports whether s has the shape of a hub model name, so a caller can tell it from a directory path.
func IsRef(s string) bool {
	_, err := ParseRef(s)
	return err == nil
}

func validRepo(repo string) error {
	org, name, ok := strings.Cut(repo, "/")
	switch {
	case !ok || strings.Contains(name, "/"):
		return errors.New("want org/name")
	case len(repo) > 96:
		return errors.New("longer than 96 characters")
	case strings.Contains(repo, "--") || strings.Contains(repo, ".."):
		return errors.New(`"--" and ".." are not allowed`)
	case strings.HasSuffix(repo, ".git"):
		return errors.New(`ends in ".git"`)
	}
	for _, part := range []string{org, name} {
		if part == "" || !wordChar(part[0]) || !wordChar(part[len(part)-1]) {
			return fmt.Errorf("part %q must start and end with a letter, digit or '_'", part)
		}
		for i := 0; i < len(part); i++ {
			if c := part[i]; !wordChar(c) && c != '-' && c != '.' {
				return fmt.Errorf("part %q holds %q", part, c)
			}
		}
	}
	return nil
}

func wordChar(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func validRevision(rev string) error {
	if rev == "" {
		return errors.New("empty revision after '@'")
	}
	if strings.ContainsAny(rev, "\\\x00") {
		return fmt.Errorf("revision %q holds a backslash or NUL", rev)
	}
	for _, seg := range strings.Split(rev, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("revision %q has an empty, '.' or '..' segment", rev)
		}
	}
	return nil
}

// validFile checks a file name from the hub before it is joined onto a snapshot directory: relative,
// '/'-separated, no '..' segment, no backslash or drive letter (huggingface_hub's _validate_relative_filename).
func validFile(name string) error {
	if name == "" || strings.HasPrefix(name, "/") || strings.ContainsAny(name, "\\\x00") ||
		len(name) >= 2 && name[1] == ':' {
		return fmt.Errorf("file name %q is not a relative path", name)
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("file name %q has an empty, '.' or '..' segment", name)
		}
	}
	return nil
}

// validEtag checks an ETag before it names a blob file: the hub's are hex digests; a server's value holding a
// separator or starting with '.' would escape blobs/.
func validEtag(etag string) error {
	if etag == "" || etag[0] == '.' || strings.ContainsAny(etag, "/\\\x00") {
		return fmt.Errorf("ETag %q cannot name a blob", etag)
	}
	return nil
}
