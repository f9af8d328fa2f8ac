// One file into the cache: HEAD for its commit, ETag and size; under the blob's lock, GET into
// blobs/<etag>.incomplete (resumed with Range where a previous attempt left one, restarted from 0 when a server
// answers a range with the whole file), the size checked, the blob renamed into place and the snapshot's symlink
// made. A dropped or stalled connection is retried with backoff from where it stopped.
package hub

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// file makes ref's file (ref's revision a commit hash) present in its snapshot and returns the snapshot path and
// whether it was fetched now.
func (c *Client) file(ctx context.Context, ref Ref, name string) (string, bool, error) {
	if err := validFile(name); err != nil {
		return "", false, fmt.Errorf("model %s: %w", ref, err)
	}
	if p, err := c.cache.File(ref, name); err == nil || errors.Is(err, ErrNoExist) {
		return p, false, err
	}
	m, err := c.meta(ctx, ref, name)
	var he *HTTPError
	if errors.As(err, &he) && errors.Is(err, ErrEntryNotFound) {
		// The hub answered for a commit: remember it, as huggingface_hub does, so offline look-ups know.
		if commitHash.MatchString(he.commit) {
			c.cache.markNoExist(ref.Repo, he.commit, name)
		}
	}
	if err != nil {
		return "", false, err
	}
	pointer := c.cache.pointerPath(ref.Repo, m.commit, name)
	if _, err := os.Stat(pointer); err == nil {
		return pointer, false, nil
	}
	blob := c.cache.blobPath(ref.Repo, m.etag)
	if err := os.MkdirAll(filepath.Dir(blob), 0o755); err != nil {
		return "", false, fmt.Errorf("hub cache: %w", err)
	}
	c.cache.tag()
	unlock, err := lockFile(ctx, c.cache.lockPath(ref.Repo, m.etag))
	if err != nil {
		return "", false, fmt.Errorf("model %s file %s: %w", ref, name, err)
	}
	defer unlock()
	fetched := false
	if _, err := os.Stat(blob); errors.Is(err, fs.ErrNotExist) {
		if err := c.fetchBlob(ctx, ref, name, m, blob); err != nil {
			return "", false, err
		}
		fetched = true
	} else if err != nil {
		return "", false, fmt.Errorf("hub cache: %w", err)
	}
	p, err := c.cache.link(ref.Repo, m.commit, name, m.etag)
	return p, fetched, err
}

// permanent marks an error a retry cannot mend.
type permanent struct{ err error }

func (p permanent) Error() string { return p.err.Error() }
func (p permanent) Unwrap() error { return p.err }

// errStalled cancels a request that received nothing for StallTimeout.
var errStalled = errors.New("no data received within the stall timeout")

// fetchBlob downloads m into blob.incomplete and renames it to blob. The caller holds the blob's lock.
func (c *Client) fetchBlob(ctx context.Context, ref Ref, name string, m fileMeta, blob string) error {
	part := blob + ".incomplete"
	f, err := os.OpenFile(part, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("hub cache: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("hub cache: %w", err)
	}
	have := st.Size()
	if have > m.size { // not a prefix of this blob: start over
		if err := f.Truncate(0); err != nil {
			return fmt.Errorf("hub cache: %w", err)
		}
		have = 0
	}
	dl := &download{c: c, ref: ref, name: name, m: m, f: f, have: have}
	if c.cfg.Progress != nil {
		c.cfg.Progress(name, have, m.size)
	}
	high := dl.have // the furthest any attempt got
	for attempt := 0; dl.have < m.size; {
		err := dl.once(ctx)
		if err == nil {
			continue
		}
		var p permanent
		if errors.As(err, &p) || ctx.Err() != nil {
			if errors.Is(err, ErrSize) {
				f.Close()
				os.Remove(part) // what it holds cannot be trusted as a prefix of the blob
			}
			return err
		}
		if dl.have > high {
			// New bytes: a fresh run of failures (http_get resets its retries on any chunk; counting only bytes
			// past the furthest point keeps a server that drops every restart at the same place from looping).
			high, attempt = dl.have, 0
		}
		attempt++
		if attempt > c.cfg.Retries {
			return fmt.Errorf("model %s file %s: giving up after %d attempts at byte %d of %d: %w", ref, name, attempt, dl.have, m.size, err)
		}
		wait := c.cfg.Backoff << min(attempt-1, 3)
		if c.cfg.Retry != nil {
			c.cfg.Retry(name, attempt, wait, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("hub cache: %w", err)
	}
	if err := os.Rename(part, blob); err != nil {
		return fmt.Errorf("hub cache: %w", err)
	}
	return nil
}

// download is one blob's transfer state across attempts.
type download struct {
	c    *Client
	ref  Ref
	name string
	m    fileMeta
	f    *os.File
	have int64 // bytes of the blob in f
}

// once makes one GET from d.have on and copies what arrives; an error wrapped in permanent ends the download.
func (d *download) once(ctx context.Context) error {
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stall := time.AfterFunc(d.c.cfg.StallTimeout, func() { cancel(errStalled) })
	defer stall.Stop()

	req, token, err := d.c.request(rctx, http.MethodGet, d.m.location)
	if err != nil {
		return permanent{err}
	}
	if d.have > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(d.have, 10)+"-")
	}
	resp, err := d.c.cfg.HTTP.Do(req)
	if err != nil {
		return d.cause(rctx, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusPartialContent && d.have > 0:
		start, total, ok := contentRange(resp.Header.Get("Content-Range"))
		if !ok || start != d.have {
			return permanent{fmt.Errorf("model %s file %s: asked for bytes %d-, got Content-Range %q", d.ref, d.name, d.have, resp.Header.Get("Content-Range"))}
		}
		if total >= 0 && total != d.m.size {
			return d.sizeError(total)
		}
	case resp.StatusCode == http.StatusOK:
		if d.have > 0 { // the server ignored Range: what follows is the whole file
			if err := d.f.Truncate(0); err != nil {
				return permanent{fmt.Errorf("hub cache: %w", err)}
			}
			d.have = 0
			d.progress()
		}
		if resp.ContentLength >= 0 && identity(resp) && resp.ContentLength != d.m.size {
			return d.sizeError(resp.ContentLength)
		}
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && d.have > 0:
		if err := d.f.Truncate(0); err != nil {
			return permanent{fmt.Errorf("hub cache: %w", err)}
		}
		d.have = 0
		return errors.New("the server refused the range of the partial download; starting over")
	default:
		he := d.c.httpError(resp, d.ref, d.name, token)
		if he.transient() {
			return he
		}
		return permanent{he}
	}
	if _, err := d.f.Seek(d.have, io.SeekStart); err != nil {
		return permanent{fmt.Errorf("hub cache: %w", err)}
	}
	buf := make([]byte, 1<<20)
	for {
		n, rerr := resp.Body.Read(buf)
		if n > 0 {
			stall.Reset(d.c.cfg.StallTimeout)
			if d.have+int64(n) > d.m.size {
				return d.sizeError(d.have + int64(n))
			}
			if _, err := d.f.Write(buf[:n]); err != nil {
				return permanent{fmt.Errorf("hub cache: %w", err)}
			}
			d.have += int64(n)
			d.progress()
		}
		if rerr == io.EOF {
			if d.have < d.m.size {
				return errors.New("the response ended early")
			}
			return nil
		}
		if rerr != nil {
			return d.cause(rctx, rerr)
		}
	}
}

func (d *download) progress() {
	if d.c.cfg.Progress != nil {
		d.c.cfg.Progress(d.name, d.have, d.m.size)
	}
}

func (d *download) sizeError(got int64) error {
	return permanent{fmt.Errorf("model %s file %s: %w: the server sends %d bytes, the hub's metadata says %d (X-Linked-Size/Content-Length)",
		d.ref, d.name, ErrSize, got, d.m.size)}
}

// cause is a transfer error without the URL: a stall stays transient, the caller's cancellation is permanent.
func (d *download) cause(rctx context.Context, err error) error {
	if c := context.Cause(rctx); errors.Is(c, errStalled) {
		err = errStalled
	} else if c != nil {
		return permanent{c}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err // the URL is signed and long; fetchBlob's message names the file
	}
	return err
}

// identity reports whether the body is the file's bytes as stored (Content-Length then is its size).
func identity(resp *http.Response) bool {
	e := strings.ToLower(resp.Header.Get("Content-Encoding"))
	return (e == "" || e == "identity") && !resp.Uncompressed
}

// contentRange reads "bytes START-END/TOTAL" (TOTAL may be "*": -1).
func contentRange(v string) (start, total int64, ok bool) {
	rest, found := strings.CutPrefix(v, "bytes ")
	if !found {
		return 0, 0, false
	}
	span, tot, found := strings.Cut(rest, "/")
	first, _, found2 := strings.Cut(span, "-")
	if !found || !found2 {
		return 0, 0, false
	}
	start, err := strconv.ParseInt(first, 10, 64)
	if err != nil {
		return 0, 0, false
	}
	if tot == "*" {
		return start, -1, true
	}
	total, err = strconv.ParseInt(tot, 10, 64)
	return start, total, err == nil
}
