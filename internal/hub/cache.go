// The hub cache on disk, read and written exactly as huggingface_hub's file_download.py lays it out:
//
//	<cache>/models--org--name/refs/<revision>             the commit hash a branch or tag (or short hash) pointed at
//	<cache>/models--org--name/blobs/<etag>                 file contents, named by the hub's ETag
//	<cache>/models--org--name/snapshots/<commit>/<file>    relative symlinks to ../../blobs/<etag>
//	<cache>/models--org--name/.no_exist/<commit>/<file>    empty markers: the hub said the file is not at that commit
//	<cache>/.locks/models--org--name/<etag>.lock           held while a blob is written
//	<cache>/CACHEDIR.TAG                                   tells backup tools to skip the cache (bford.info/cachedir)
package hub

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/mlxbun/mlxbun/internal/userfile"
)

// Sentinels of the cache lookups.
var (
	ErrNotCached = errors.New("not in the hub cache")
	ErrNoExist   = errors.New("the hub has no such file at that commit") // a .no_exist marker says so
)

// commitHash is a full commit id (huggingface_hub's REGEX_COMMIT_HASH); a revision of this shape needs no refs/.
var commitHash = regexp.MustCompile(`^[0-9a-f]{40}$`)

// shortHash is the shape this package also accepts offline as a commit prefix (git's default abbreviation is 7).
var shortHash = regexp.MustCompile(`^[0-9a-f]{7,39}$`)

// Cache is one hub cache directory.
type Cache struct{ Dir string }

// RepoDir is the repository's folder: models--org--name (repo_folder_name).
func (c Cache) RepoDir(repo string) string {
	return filepath.Join(c.Dir, "models--"+strings.ReplaceAll(repo, "/", "--"))
}

func (c Cache) lockPath(repo, etag string) string {
	return filepath.Join(c.Dir, ".locks", filepath.Base(c.RepoDir(repo)), etag+".lock")
}

func (c Cache) blobPath(repo, etag string) string {
	return filepath.Join(c.RepoDir(repo), "blobs", etag)
}

func (c Cache) snapshotDir(repo, commit string) string {
	return filepath.Join(c.RepoDir(repo), "snapshots", commit)
}

func (c Cache) pointerPath(repo, commit, file string) string {
	return filepath.Join(c.snapshotDir(repo, commit), filepath.FromSlash(file))
}

// Commit resolves ref's revision with the cache alone: a full commit hash is itself; a branch, tag or short hash
// recorded in refs/ is the hash stored there; a short hash with no ref is the one cached snapshot it prefixes.
func (c Cache) Commit(ref Ref) (string, error) {
	rev := ref.Rev()
	if commitHash.MatchString(rev) {
		return rev, nil
	}
	b, err := userfile.Read(filepath.Join(c.RepoDir(ref.Repo), "refs", filepath.FromSlash(rev)), refFile)
	if err == nil {
		commit := strings.TrimSpace(string(b))
		if !commitHash.MatchString(commit) {
			return "", fmt.Errorf("%s: refs/%s holds %q, not a commit hash", c.RepoDir(ref.Repo), rev, commit)
		}
		return commit, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("hub cache: %w", err)
	}
	if shortHash.MatchString(rev) {
		entries, _ := os.ReadDir(filepath.Join(c.RepoDir(ref.Repo), "snapshots"))
		var found []string
		for _, e := range entries {
			if e.IsDir() && commitHash.MatchString(e.Name()) && strings.HasPrefix(e.Name(), rev) {
				found = append(found, e.Name())
			}
		}
		switch len(found) {
		case 1:
			return found[0], nil
		case 0:
		default:
			return "", fmt.Errorf("%s: short commit %s is ambiguous in %s (%s)", ref, rev, c.Dir, strings.Join(found, ", "))
		}
	}
	return "", fmt.Errorf("%s: %w %s (no refs/%s)", ref, ErrNotCached, c.Dir, rev)
}

// Snapshot is the cached snapshot directory of ref and its commit, with no network.
func (c Cache) Snapshot(ref Ref) (dir, commit string, err error) {
	if commit, err = c.Commit(ref); err != nil {
		return "", "", err
	}
	dir = c.snapshotDir(ref.Repo, commit)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", "", fmt.Errorf("%s: %w %s (no snapshot of commit %s)", ref, ErrNotCached, c.Dir, commit)
	}
	return dir, commit, nil
}

// File is one cached file of ref (huggingface_hub's try_to_load_from_cache): its snapshot path; ErrNoExist when a
// .no_exist marker records that the hub has no such file at that commit; ErrNotCached otherwise.
func (c Cache) File(ref Ref, name string) (string, error) {
	if err := validFile(name); err != nil {
		return "", fmt.Errorf("%s: %w", ref, err)
	}
	commit, err := c.Commit(ref)
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(filepath.Join(c.RepoDir(ref.Repo), ".no_exist", commit, filepath.FromSlash(name))); err == nil && !st.IsDir() {
		return "", fmt.Errorf("%s: %s: %w %s", ref, name, ErrNoExist, commit)
	}
	p := c.pointerPath(ref.Repo, commit, name)
	if st, err := os.Stat(p); err == nil && !st.IsDir() { // Stat follows the link: a dangling one is not cached
		return p, nil
	}
	return "", fmt.Errorf("%s: %s: %w %s", ref, name, ErrNotCached, c.Dir)
}

// writeRef records that revision pointed at commit (_cache_commit_hash_for_specific_revision): nothing for a
// revision that is the commit itself or a ref already holding it; otherwise a temporary file renamed over
// refs/<revision>, so a concurrent reader never sees half a hash.
func (c Cache) writeRef(repo, revision, commit string) error {
	if revision == commit {
		return nil
	}
	p := filepath.Join(c.RepoDir(repo), "refs", filepath.FromSlash(revision))
	if b, err := userfile.Read(p, refFile); err == nil && string(b) == commit {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("hub cache: %w", err)
	}
	tmp := p + "." + randomSuffix() + ".tmp"
	if err := os.WriteFile(tmp, []byte(commit), 0o644); err != nil {
		return fmt.Errorf("hub cache: %w", err)
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("hub cache: %w", err)
	}
	return nil
}

// markNoExist writes the empty .no_exist/<commit>/<file> marker huggingface_hub leaves when the hub answers
// EntryNotFound, so that later offline look-ups (ours and transformers') know not to expect the file.
func (c Cache) markNoExist(repo, commit, file string) error {
	p := filepath.Join(c.RepoDir(repo), ".no_exist", commit, filepath.FromSlash(file))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}

// link points snapshots/<commit>/<file> at blobs/<etag> by a relative symlink (_create_symlink: relative, so a
// moved cache still works), made under a temporary name and renamed into place.
func (c Cache) link(repo, commit, file, etag string) (string, error) {
	p := c.pointerPath(repo, commit, file)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", fmt.Errorf("hub cache: %w", err)
	}
	target, err := filepath.Rel(filepath.Dir(p), c.blobPath(repo, etag))
	if err != nil {
		return "", fmt.Errorf("hub cache: %w", err)
	}
	tmp := p + "." + randomSuffix() + ".tmp"
	if err := os.Symlink(target, tmp); err != nil {
		return "", fmt.Errorf("hub cache: %w", err)
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("hub cache: %w", err)
	}
	return p, nil
}

// tag writes <cache>/CACHEDIR.TAG when missing, as huggingface_hub does before writing a blob; best effort (a
// read-only cache root still serves).
func (c Cache) tag() {
	p := filepath.Join(c.Dir, "CACHEDIR.TAG")
	if _, err := os.Stat(p); err == nil {
		return
	}
	os.WriteFile(p, []byte("Signature: 8a477f597d28d172789f06886806bc55\n"+
		"# This file is a cache directory tag: the Hugging Face hub cache, written here by mlxbun.\n"+
		"# For information about cache directory tags, see https://bford.info/cachedir/\n"), 0o644)
}

func randomSuffix() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
