// The hub's two metadata calls: the model API (/api/models/{repo}/revision/{revision}: the commit and the file
// list) and HEAD on the resolve endpoint (/{repo}/resolve/{revision}/{file}: a file's commit, ETag, size and
// download location), with relative redirects followed (a renamed repository) and absolute ones returned (the
// CDN), as huggingface_hub's get_hf_file_metadata does; a relative redirect that carries the file's metadata is
// taken as its location too.
package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Client downloads from one hub endpoint into one cache. Its methods are safe for concurrent use, and processes
// sharing the cache exclude each other per blob through the lock files.
type Client struct {
	cfg   Config
	cache Cache
	host  string // the endpoint's host[:port]: the only one that is sent the token
	head  *http.Client
}

// New makes a client from cfg (see FromEnv).
func New(cfg Config) (*Client, error) {
	cfg = cfg.withDefaults()
	if cfg.tokenErr != nil {
		return nil, cfg.tokenErr
	}
	if cfg.CacheDir == "" {
		return nil, errors.New("hub: no cache directory")
	}
	u, err := url.Parse(cfg.Endpoint)
	if err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("hub: HF_ENDPOINT %q is not an http(s) URL", cfg.Endpoint)
	}
	head := *cfg.HTTP
	head.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &Client{cfg: cfg, cache: Cache{Dir: cfg.CacheDir}, host: u.Host, head: &head}, nil
}

// Cache is the cache the client writes.
func (c *Client) Cache() Cache { return c.cache }

// request builds a hub request: the user agent, identity encoding (so Content-Length is the file's size, as
// get_hf_file_metadata asks) and the token when the URL is on the endpoint's host.
func (c *Client) request(ctx context.Context, method, u string) (*http.Request, bool, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return nil, false, fmt.Errorf("hub: %w", err)
	}
	req.Header.Set("User-Agent", c.cfg.UserAgent)
	req.Header.Set("Accept-Encoding", "identity")
	token := c.cfg.Token != "" && req.URL.Host == c.host
	if token {
		req.Header.Set("Authorization", "Bearer "+c.cfg.Token)
	}
	return req, token, nil
}

// repoInfo is the part of the model API's answer a snapshot needs.
type repoInfo struct {
	SHA      string `json:"sha"`
	Siblings []struct {
		Name string `json:"rfilename"`
	} `json:"siblings"`
}

// info asks the model API for ref's commit and files.
func (c *Client) info(ctx context.Context, ref Ref) (*repoInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.MetadataTimeout)
	defer cancel()
	u := c.cfg.Endpoint + "/api/models/" + ref.Repo + "/revision/" + url.PathEscape(ref.Rev())
	req, token, err := c.request(ctx, http.MethodGet, u)
	if err != nil {
		return nil, err
	}
	resp, err := c.cfg.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", ref, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, c.httpError(resp, ref, "", token)
	}
	var info repoInfo
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&info); err != nil {
		return nil, fmt.Errorf("model %s: %s: the API answer is not JSON: %w", ref, u, err)
	}
	if !commitHash.MatchString(info.SHA) {
		return nil, fmt.Errorf("model %s: %s: the API answer's sha %q is not a commit hash", ref, u, info.SHA)
	}
	return &info, nil
}

// fileMeta is what HEAD on the resolve endpoint says of a file.
type fileMeta struct {
	commit   string // X-Repo-Commit
	etag     string // X-Linked-Etag, else ETag, without W/ and quotes: the blob's name
	size     int64  // X-Linked-Size, else (not redirected) Content-Length
	location string // where to GET it: the redirect's target, else the resolve URL
}

// resolveURL is the file's resolve endpoint URL (hf_hub_url: the revision escaped whole, the file per segment).
func (c *Client) resolveURL(repo, revision, file string) string {
	segs := strings.Split(file, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return c.cfg.Endpoint + "/" + repo + "/resolve/" + url.PathEscape(revision) + "/" + strings.Join(segs, "/")
}

// meta asks HEAD on the resolve endpoint for one file. A relative Location (a renamed repository) is asked again;
// an absolute one (the CDN), or any that comes with X-Repo-Commit and X-Linked-Etag, ends the walk and becomes the
// download location.
func (c *Client) meta(ctx context.Context, ref Ref, file string) (fileMeta, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.MetadataTimeout)
	defer cancel()
	u := c.resolveURL(ref.Repo, ref.Rev(), file)
	for hops := 0; ; hops++ {
		if hops == 10 {
			return fileMeta{}, fmt.Errorf("model %s file %s: more than 10 relative redirects from %s", ref, file, c.cfg.Endpoint)
		}
		req, token, err := c.request(ctx, http.MethodHead, u)
		if err != nil {
			return fileMeta{}, err
		}
		resp, err := c.head.Do(req)
		if err != nil {
			return fileMeta{}, fmt.Errorf("model %s file %s: %w", ref, file, err)
		}
		resp.Body.Close()
		if resp.StatusCode >= 400 {
			return fileMeta{}, c.httpError(resp, ref, file, token)
		}
		redirect := resp.StatusCode >= 300 && resp.StatusCode <= 399
		location := u
		if redirect {
			loc, err := url.Parse(resp.Header.Get("Location"))
			if err != nil || resp.Header.Get("Location") == "" {
				return fileMeta{}, fmt.Errorf("model %s file %s: %s redirect without a usable Location", ref, file, resp.Status)
			}
			base, _ := url.Parse(u)
			target := base.ResolveReference(loc).String()
			// A redirect that carries the file's metadata (the hub's answer for a large file) points at its bytes,
			// wherever they are; a relative one without (a renamed repository) is asked again.
			fileRedirect := resp.Header.Get("X-Repo-Commit") != "" && resp.Header.Get("X-Linked-Etag") != ""
			if loc.Host == "" && !fileRedirect {
				u = target
				continue
			}
			location = target
		}
		m := fileMeta{commit: resp.Header.Get("X-Repo-Commit"), location: location}
		m.etag = resp.Header.Get("X-Linked-Etag")
		if m.etag == "" {
			m.etag = resp.Header.Get("ETag")
		}
		m.etag = strings.Trim(strings.TrimPrefix(m.etag, "W/"), `"`)
		sizeText := resp.Header.Get("X-Linked-Size")
		if sizeText == "" && !redirect {
			sizeText = resp.Header.Get("Content-Length")
		}
		size, serr := strconv.ParseInt(sizeText, 10, 64)
		m.size = size
		switch {
		case !commitHash.MatchString(m.commit):
			return fileMeta{}, fmt.Errorf("model %s file %s: %s sent no X-Repo-Commit: is HF_ENDPOINT a hub?", ref, file, c.cfg.Endpoint)
		case validEtag(m.etag) != nil:
			return fileMeta{}, fmt.Errorf("model %s file %s: %s: %w", ref, file, c.cfg.Endpoint, validEtag(m.etag))
		case serr != nil || size < 0:
			return fileMeta{}, fmt.Errorf("model %s file %s: %s sent no size (X-Linked-Size or Content-Length)", ref, file, c.cfg.Endpoint)
		}
		return m, nil
	}
}
