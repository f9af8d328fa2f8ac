// A model's snapshot directory from its name, as huggingface_hub's snapshot_download makes it: online, the model
// API gives the revision's commit and file list, refs/<revision> records the commit, and each file matching the
// patterns that the snapshot lacks is fetched; offline (HF_HUB_OFFLINE) or with the hub unreachable, the cache
// alone answers, and a model it does not hold is one error saying so.
package hub

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"time"
)

// Snapshot is a resolved model: its directory and how it was found.
type Snapshot struct {
	Dir        string   // <cache>/models--org--name/snapshots/<commit>
	Commit     string   // the full commit hash
	Files      int      // files matching the patterns (online; 0 when the cache alone answered)
	Downloaded []string // the files fetched now
	// FromCache is set when the hub was not asked (Offline) or did not answer; Unreachable then holds why.
	FromCache   bool
	Unreachable error
}

// Snapshot makes ref's files matching patterns (nil: ModelPatterns) present in the cache and returns their
// snapshot directory.
func (c *Client) Snapshot(ctx context.Context, ref Ref, patterns []string) (*Snapshot, error) {
	if patterns == nil {
		patterns = ModelPatterns
	}
	if c.cfg.Offline {
		dir, commit, err := c.cache.Snapshot(ref)
		if err != nil {
			return nil, fmt.Errorf("%w (%w: no network; download it first with HF_HUB_OFFLINE unset)", err, ErrOffline)
		}
		return &Snapshot{Dir: dir, Commit: commit, FromCache: true}, nil
	}
	info, err := c.info(ctx, ref)
	for attempt := 1; err != nil; attempt++ {
		// As snapshot_download does: when the hub cannot be asked or refuses (no network, a server error, a token
		// that lapsed), a cached snapshot answers; only a revision the hub says does not exist is final at once.
		if errors.Is(err, ErrRevisionNotFound) {
			return nil, err
		}
		if dir, commit, cerr := c.cache.Snapshot(ref); cerr == nil {
			return &Snapshot{Dir: dir, Commit: commit, FromCache: true, Unreachable: err}, nil
		}
		if !unreachable(err) {
			return nil, err
		}
		if attempt > c.cfg.Retries {
			return nil, fmt.Errorf("%w, and %s is not in the hub cache %s", err, ref, c.cache.Dir)
		}
		wait := c.cfg.Backoff << min(attempt-1, 3)
		if c.cfg.Retry != nil {
			c.cfg.Retry("", attempt, wait, err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		info, err = c.info(ctx, ref)
	}
	var files []string
	for _, s := range info.Siblings {
		if Match(s.Name, patterns) {
			if err := validFile(s.Name); err != nil {
				return nil, fmt.Errorf("model %s: %w", ref, err)
			}
			files = append(files, s.Name)
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("model %s (commit %s) has no file matching %q among its %d", ref, info.SHA, patterns, len(info.Siblings))
	}
	if err := c.cache.writeRef(ref.Repo, ref.Rev(), info.SHA); err != nil {
		return nil, err
	}
	snap := &Snapshot{Dir: c.cache.snapshotDir(ref.Repo, info.SHA), Commit: info.SHA, Files: len(files)}
	at := Ref{Repo: ref.Repo, Revision: info.SHA} // the files of exactly this commit, even if the branch moves
	for _, f := range files {
		_, fetched, err := c.file(ctx, at, f)
		if err != nil {
			return nil, err
		}
		if fetched {
			snap.Downloaded = append(snap.Downloaded, f)
		}
	}
	return snap, nil
}

// unreachable reports an error of the network rather than of the hub's answer: no connection, a timeout, a
// server error (the cases snapshot_download falls back to the cache for).
func unreachable(err error) bool {
	var he *HTTPError
	if errors.As(err, &he) {
		return he.transient()
	}
	var ne net.Error
	var ue *url.Error
	return errors.As(err, &ne) || errors.As(err, &ue) || errors.Is(err, context.DeadlineExceeded)
}
