// Package hubtest is a Hugging Face hub on loopback for tests: the model API
// (/api/models/{repo}/revision/{revision}), HEAD and GET on the resolve endpoint with the hub's headers
// (X-Repo-Commit, ETag, X-Linked-Etag, X-Linked-Size, X-Error-Code), large files redirected to a CDN on another
// host:port (an absolute Location) or on the same server (a relative one), renamed repositories redirected by a
// relative Location, gated repositories, and faults a download must survive or report: a range answered with the
// whole file, a connection dropped mid-file, a size that lies.
package hubtest

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// File is one file of a commit. LFS files are served like the hub's large files: an ETag of their SHA-256 and a
// redirect to the CDN; the others directly, with the git blob id as ETag.
type File struct {
	Name string
	Data []byte
	LFS  bool
}

// Repo is one model repository: commits and the branches (and tags) naming them.
type Repo struct {
	Gated    bool // resolve needs "Authorization: Bearer <Server.Token>"
	Branches map[string]string
	commits  map[string][]File
}

// Commit adds a commit holding files, points branch at it and returns its hash.
func (r *Repo) Commit(branch string, files ...File) string {
	h := sha1.New()
	fmt.Fprintf(h, "commit %d", len(r.commits))
	for _, f := range files {
		fmt.Fprintf(h, "%s %x\n", f.Name, sha256.Sum256(f.Data))
	}
	commit := hex.EncodeToString(h.Sum(nil))
	r.commits[commit] = files
	if branch != "" {
		r.Branches[branch] = commit
	}
	return commit
}

// Request is one request the hub or its CDN received.
type Request struct {
	Method, Path, Range, Auth string
	CDN                       bool
}

// Server is the hub (Server.URL, for HF_ENDPOINT) and its CDN.
type Server struct {
	*httptest.Server
	CDN *httptest.Server

	Token string // the token that opens gated repositories

	mu      sync.Mutex
	repos   map[string]*Repo
	renamed map[string]string
	blobs   map[string][]byte // sha256 → data, served by the CDN
	log     []Request

	// Faults, read at each request (set them before the download starts).
	RelativeCDN bool  // LFS Location is the path /cdn/<sha256> on the hub itself (relative) instead of the CDN's URL
	IgnoreRange bool  // answer 200 and the whole file to a Range request
	DropAfter   int64 // > 0: the next DropTimes GETs of a file send this many body bytes, then close the connection
	DropTimes   int
	SizeDelta   int64         // added to the size HEAD reports (X-Linked-Size, Content-Length)
	Delay       time.Duration // each GET of a file's bytes waits this long before answering
}

// New starts a hub and its CDN on loopback; Close stops both.
func New() *Server {
	s := &Server{repos: map[string]*Repo{}, renamed: map[string]string{}, blobs: map[string][]byte{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serveHub))
	s.CDN = httptest.NewServer(http.HandlerFunc(s.serveCDN))
	return s
}

// Close stops the hub and the CDN.
func (s *Server) Close() {
	s.Server.Close()
	s.CDN.Close()
}

// AddRepo adds an empty repository "org/name".
func (s *Server) AddRepo(name string) *Repo {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := &Repo{Branches: map[string]string{}, commits: map[string][]File{}}
	s.repos[name] = r
	return r
}

// Rename makes old answer with relative redirects to the repository now.
func (s *Server) Rename(old, now string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.renamed[old] = now
}

// Requests is what the hub and the CDN received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.log...)
}

// Reset forgets the requests received.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = nil
}

// GitBlobID is the ETag the hub sends for a file kept in git: git's blob hash.
func GitBlobID(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// Etag is the blob name a client stores f under: its SHA-256 for an LFS file, its git blob id otherwise.
func Etag(f File) string {
	if f.LFS {
		s := sha256.Sum256(f.Data)
		return hex.EncodeToString(s[:])
	}
	return GitBlobID(f.Data)
}

func (s *Server) record(r *http.Request, cdn bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, Request{Method: r.Method, Path: r.URL.Path, Range: r.Header.Get("Range"), Auth: r.Header.Get("Authorization"), CDN: cdn})
}

func hubError(w http.ResponseWriter, status int, code, msg, commit string) {
	if code != "" {
		w.Header().Set("X-Error-Code", code)
	}
	w.Header().Set("X-Error-Message", msg)
	if commit != "" {
		w.Header().Set("X-Repo-Commit", commit)
	}
	http.Error(w, msg, status)
}

// segments splits the escaped path so that an escaped '/' inside the revision stays in its segment.
func segments(r *http.Request) []string {
	parts := strings.Split(strings.TrimPrefix(r.URL.EscapedPath(), "/"), "/")
	for i, p := range parts {
		if u, err := url.PathUnescape(p); err == nil {
			parts[i] = u
		}
	}
	return parts
}

func (s *Server) serveHub(w http.ResponseWriter, r *http.Request) {
	s.record(r, false)
	seg := segments(r)
	switch {
	case len(seg) >= 2 && seg[0] == "cdn":
		s.serveBlob(w, r, seg[1])
	case len(seg) == 6 && seg[0] == "api" && seg[1] == "models" && seg[4] == "revision" && r.Method == http.MethodGet:
		s.serveInfo(w, r, seg[2]+"/"+seg[3], seg[5])
	case len(seg) >= 5 && seg[2] == "resolve" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		s.serveResolve(w, r, seg[0]+"/"+seg[1], seg[3], strings.Join(seg[4:], "/"))
	default:
		http.NotFound(w, r)
	}
}

// lookup finds a repository and a revision's commit; ok false when it answered with an error (or a redirect).
func (s *Server) lookup(w http.ResponseWriter, r *http.Request, name, rev string) (*Repo, string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if now, ok := s.renamed[name]; ok {
		w.Header().Set("Location", strings.Replace(r.URL.EscapedPath(), "/"+name+"/", "/"+now+"/", 1))
		w.WriteHeader(http.StatusTemporaryRedirect)
		return nil, "", false
	}
	repo, ok := s.repos[name]
	if !ok {
		// The hub answers 401 for a repository that does not exist or that the caller may not see.
		hubError(w, http.StatusUnauthorized, "RepoNotFound", "Repository not found", "")
		return nil, "", false
	}
	commit := repo.Branches[rev]
	if _, ok := repo.commits[rev]; ok {
		commit = rev
	}
	if commit == "" && len(rev) >= 7 {
		for c := range repo.commits {
			if strings.HasPrefix(c, rev) {
				commit = c
			}
		}
	}
	if commit == "" {
		hubError(w, http.StatusNotFound, "RevisionNotFound", "Invalid rev id: "+rev, "")
		return nil, "", false
	}
	return repo, commit, true
}

func (s *Server) serveInfo(w http.ResponseWriter, r *http.Request, name, rev string) {
	repo, commit, ok := s.lookup(w, r, name, rev)
	if !ok {
		return
	}
	type sibling struct {
		Name string `json:"rfilename"`
	}
	info := struct {
		ID       string    `json:"id"`
		SHA      string    `json:"sha"`
		Gated    any       `json:"gated"`
		Siblings []sibling `json:"siblings"`
	}{ID: name, SHA: commit, Gated: false}
	if repo.Gated {
		info.Gated = "manual" // the API describes a gated repository to anyone; its files need the token
	}
	for _, f := range repo.commits[commit] {
		info.Siblings = append(info.Siblings, sibling{f.Name})
	}
	sort.Slice(info.Siblings, func(i, j int) bool { return info.Siblings[i].Name < info.Siblings[j].Name })
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(info)
}

func (s *Server) serveResolve(w http.ResponseWriter, r *http.Request, name, rev, file string) {
	repo, commit, ok := s.lookup(w, r, name, rev)
	if !ok {
		return
	}
	if repo.Gated && r.Header.Get("Authorization") != "Bearer "+s.Token {
		hubError(w, http.StatusUnauthorized, "GatedRepo", "Access to model "+name+" is restricted. You must have access to it and be authenticated to access it. Please log in.", "")
		return
	}
	var f *File
	for i := range repo.commits[commit] {
		if repo.commits[commit][i].Name == file {
			f = &repo.commits[commit][i]
		}
	}
	if f == nil {
		hubError(w, http.StatusNotFound, "EntryNotFound", "Entry not found", commit)
		return
	}
	h := w.Header()
	h.Set("X-Repo-Commit", commit)
	size := int64(len(f.Data)) + s.SizeDelta
	if f.LFS {
		sum := Etag(*f)
		s.mu.Lock()
		s.blobs[sum] = f.Data
		s.mu.Unlock()
		h.Set("ETag", `"`+GitBlobID([]byte("version https://git-lfs.github.com/spec/v1\noid sha256:"+sum))+`"`)
		h.Set("X-Linked-Etag", `"`+sum+`"`)
		h.Set("X-Linked-Size", strconv.FormatInt(size, 10))
		loc := s.CDN.URL + "/repos/" + sum[:2] + "/" + sum + "?X-Amz-Signature=" + sum[:16]
		if s.RelativeCDN {
			loc = "/cdn/" + sum
		}
		h.Set("Location", loc)
		w.WriteHeader(http.StatusFound)
		return
	}
	h.Set("ETag", `"`+GitBlobID(f.Data)+`"`)
	if r.Method == http.MethodHead {
		h.Set("Content-Length", strconv.FormatInt(size, 10))
		w.WriteHeader(http.StatusOK)
		return
	}
	s.serveBytes(w, r, f.Data)
}

func (s *Server) serveCDN(w http.ResponseWriter, r *http.Request) {
	s.record(r, true)
	seg := segments(r)
	if len(seg) != 3 || seg[0] != "repos" || r.URL.Query().Get("X-Amz-Signature") == "" {
		http.Error(w, "AccessDenied", http.StatusForbidden)
		return
	}
	s.serveBlob(w, r, seg[2])
}

func (s *Server) serveBlob(w http.ResponseWriter, r *http.Request, sum string) {
	s.mu.Lock()
	data, ok := s.blobs[sum]
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	s.serveBytes(w, r, data)
}

// serveBytes answers a GET: "Range: bytes=N-" with 206 (unless IgnoreRange), else 200, and the drop fault.
func (s *Server) serveBytes(w http.ResponseWriter, r *http.Request, data []byte) {
	time.Sleep(s.Delay)
	start := int64(0)
	if rg := r.Header.Get("Range"); rg != "" && !s.IgnoreRange {
		n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(rg, "bytes="), "-"), 10, 64)
		if err != nil || n < 0 {
			http.Error(w, "bad range", http.StatusBadRequest)
			return
		}
		if n >= int64(len(data)) {
			w.Header().Set("Content-Range", fmt.Sprintf("bytes */%d", len(data)))
			w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
			return
		}
		start = n
	}
	status := http.StatusOK
	if start > 0 {
		status = http.StatusPartialContent
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, len(data)-1, len(data)))
	}
	body := data[start:]
	s.mu.Lock()
	drop := s.DropAfter > 0 && s.DropTimes > 0 && s.DropAfter < int64(len(body))
	if drop {
		s.DropTimes--
	}
	s.mu.Unlock()
	if drop {
		// Promise the whole body, send part of it, and close the connection under the client.
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(fmt.Sprintf("hubtest: hijack: %v", err))
		}
		fmt.Fprintf(buf, "HTTP/1.1 %d %s\r\nContent-Length: %d\r\n", status, http.StatusText(status), len(body))
		if start > 0 {
			fmt.Fprintf(buf, "Content-Range: %s\r\n", w.Header().Get("Content-Range"))
		}
		buf.WriteString("\r\n")
		buf.Write(body[:s.DropAfter])
		buf.Flush()
		conn.Close()
		return
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}
