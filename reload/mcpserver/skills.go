package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/internal/skillmd"
)

// The Skills extension (io.modelcontextprotocol/skills, SEP-2640): the
// server declares it with directoryRead, answers skills/list, skills/get
// and resources/directory/read, and serves every file of every skill it
// lists as a skill:// resource (see skilluri.go for the URIs). The
// extension defines no notification of its own: when the published set
// moves (a skill added or removed, a new version) the server sends
// notifications/resources/list_changed, and a host lists skills again.
const (
	ExtensionID = "io.modelcontextprotocol/skills"

	methodListSkills    = "skills/list"
	methodGetSkill      = "skills/get"
	methodReadDirectory = "resources/directory/read"

	// listPageSize is the most skills one skills/list page holds: 10,000
	// skills are 20 pages.
	listPageSize = 500
	// dirPageSize is the most children one directory page holds.
	dirPageSize = 1000

	// cacheTTL is how long a host may keep a listing, an entry or a file
	// of a published version; cachePinnedTTL, a pinned version's, which
	// never changes.
	cacheTTL       = time.Minute
	cachePinnedTTL = 24 * time.Hour

	mimeDirectory = "inode/directory"
	mimeSymlink   = "inode/symlink"
)

type listSkillsParams struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

type listSkillsResult struct {
	mcp.ResultBase
	ResultType string            `json:"resultType"`
	Skills     []json.RawMessage `json:"skills"`
	NextCursor string            `json:"nextCursor,omitempty"`
	TTLMs      int               `json:"ttlMs"`
	CacheScope string            `json:"cacheScope"`
}

type getSkillParams struct {
	mcp.ParamsBase
	URI string `json:"uri"`
}

type getSkillResult struct {
	mcp.ResultBase
	ResultType string          `json:"resultType"`
	Skill      json.RawMessage `json:"skill"`
	TTLMs      int             `json:"ttlMs"`
	CacheScope string          `json:"cacheScope"`
}

type readDirectoryParams struct {
	mcp.ParamsBase
	URI    string `json:"uri"`
	Cursor string `json:"cursor,omitempty"`
}

type readDirectoryResult struct {
	mcp.ResultBase
	ResultType string          `json:"resultType"`
	Resources  []*mcp.Resource `json:"resources"`
	NextCursor string          `json:"nextCursor,omitempty"`
	TTLMs      int             `json:"ttlMs"`
	CacheScope string          `json:"cacheScope"`
}

// addExtension registers the extension's methods.
func (s *Server) addExtension() {
	for _, err := range []error{
		mcp.AddReceivingCustomMethod(s.mcp, methodListSkills, s.listSkills),
		mcp.AddReceivingCustomMethod(s.mcp, methodGetSkill, s.getSkill),
		mcp.AddReceivingCustomMethod(s.mcp, methodReadDirectory, s.readDirectory),
	} {
		if err != nil {
			panic(err) // only a standard method's name can fail, and these are not
		}
	}
}

func invalidParams(format string, args ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

func internalError(err error) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}

// cursorOf and afterCursor make a page's cursor: the last store name it
// held, so a page after a change of the set neither repeats nor skips.
func cursorOf(name string) string {
	return base64.RawURLEncoding.EncodeToString([]byte("after " + name))
}

func afterCursor(c string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	name, ok := strings.CutPrefix(string(b), "after ")
	if err != nil || !ok {
		return "", invalidParams("bad cursor %q: pass back a nextCursor as it came", c)
	}
	return name, nil
}

func (s *Server) listSkills(ctx context.Context, _ *mcp.ServerSession, p *listSkillsParams) (*listSkillsResult, error) {
	if _, err := s.refresh(ctx); err != nil {
		return nil, internalError(err)
	}
	start := 0
	s.mu.Lock()
	defer s.mu.Unlock()
	listing := s.ext.listing
	if p != nil && p.Cursor != "" {
		after, err := afterCursor(p.Cursor)
		if err != nil {
			return nil, err
		}
		start = sort.Search(len(listing), func(i int) bool { return listing[i].Name > after })
	}
	end := min(start+listPageSize, len(listing))
	res := &listSkillsResult{ResultType: "complete", Skills: make([]json.RawMessage, 0, end-start),
		TTLMs: int(cacheTTL.Milliseconds()), CacheScope: "public"}
	for _, e := range listing[start:end] {
		entry, err := e.entry()
		if err != nil {
			return nil, internalError(err)
		}
		res.Skills = append(res.Skills, entry)
	}
	if end < len(listing) {
		res.NextCursor = cursorOf(listing[end-1].Name)
	}
	return res, nil
}

// resolved is what a skill:// URI names, with the version read.
type resolved struct {
	skillAddr
	e *extSkill // the skill (at the version asked for)
}

// resolve reads uri: the served skill it names, at the version it names.
func (s *Server) resolve(ctx context.Context, uri string) (resolved, error) {
	if _, err := s.refresh(ctx); err != nil {
		return resolved{}, internalError(err)
	}
	s.mu.Lock()
	a, err := s.ext.parseSkillURI(uri)
	e := s.ext.skills[a.name]
	s.mu.Unlock()
	if err != nil {
		return resolved{}, invalidParams("%v", err)
	}
	if a.name == "" { // a plugin's folder
		return resolved{skillAddr: a}, nil
	}
	if e == nil {
		return resolved{}, invalidParams("no skill is served at %s", uri)
	}
	if e.refused != "" {
		return resolved{}, invalidParams("%s is not offered by the Skills extension: %s (the tools load_skill and read_skill_file serve it)", e.Name, e.refused)
	}
	if a.version == 0 {
		if e.v.inFile() { // its files, read from the index file
			v, err := e.v.content()
			if err != nil {
				return resolved{}, internalError(err)
			}
			loaded := *e
			loaded.v = v
			e = &loaded
		}
		return resolved{skillAddr: a, e: e}, nil
	}
	p, err := s.pinned.get(ctx, s.cat, e.Name, a.version)
	if errors.Is(err, ErrUnknownSkill) {
		return resolved{}, invalidParams("%s: %v", uri, err)
	}
	if err != nil {
		return resolved{}, internalError(err)
	}
	if p.refused != "" {
		return resolved{}, invalidParams("%s v%d is not offered by the Skills extension: %s", e.Name, a.version, p.refused)
	}
	return resolved{skillAddr: a, e: p}, nil
}

func (s *Server) getSkill(ctx context.Context, _ *mcp.ServerSession, p *getSkillParams) (*getSkillResult, error) {
	if p == nil || p.URI == "" {
		return nil, invalidParams("skills/get: give the uri of a skill's SKILL.md (skills/list lists them)")
	}
	r, err := s.resolve(ctx, p.URI)
	if err != nil {
		return nil, err
	}
	if r.e == nil || r.file != skillmd.FileName {
		return nil, invalidParams("no skill is served at %s: a skill's URI ends in /SKILL.md", p.URI)
	}
	entry, err := r.e.entry()
	if err != nil {
		return nil, internalError(err)
	}
	return &getSkillResult{ResultType: "complete", Skill: entry, TTLMs: ttlOf(r), CacheScope: "public"}, nil
}

func ttlOf(r resolved) int {
	if r.version > 0 {
		return int(cachePinnedTTL.Milliseconds())
	}
	return int(cacheTTL.Milliseconds())
}

func (s *Server) readDirectory(ctx context.Context, _ *mcp.ServerSession, p *readDirectoryParams) (*readDirectoryResult, error) {
	if p == nil || p.URI == "" {
		return nil, invalidParams("resources/directory/read: give the uri of a directory")
	}
	r, err := s.resolve(ctx, p.URI)
	if err != nil {
		return nil, err
	}
	var children []*mcp.Resource
	if r.e == nil { // a plugin's folder: its skills
		s.mu.Lock()
		for _, e := range s.ext.listing {
			if strings.HasPrefix(e.Name, r.plugin+":") {
				children = append(children, &mcp.Resource{URI: e.uri(""), Name: path.Base(e.path), MIMEType: mimeDirectory})
			}
		}
		s.mu.Unlock()
	} else {
		var ok bool
		if children, ok = directoryChildren(r.e, r.file); !ok {
			return nil, invalidParams("%s is not a directory resource", p.URI)
		}
	}
	start := 0
	if p.Cursor != "" {
		after, err := afterCursor(p.Cursor)
		if err != nil {
			return nil, err
		}
		start = sort.Search(len(children), func(i int) bool { return children[i].URI > after })
	}
	end := min(start+dirPageSize, len(children))
	res := &readDirectoryResult{ResultType: "complete", Resources: children[start:end], TTLMs: ttlOf(r), CacheScope: "public"}
	if end < len(children) {
		res.NextCursor = cursorOf(children[end-1].URI)
	}
	return res, nil
}

// directoryChildren lists the direct children of folder dir ("": the
// skill's root) of e, sorted by URI; false when dir is no folder of it.
func directoryChildren(e *extSkill, dir string) ([]*mcp.Resource, bool) {
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	seen := map[string]bool{}
	var out []*mcp.Resource
	for _, f := range e.v.files {
		rest, ok := strings.CutPrefix(f.Path, prefix)
		if !ok {
			continue
		}
		if sub, _, isDir := strings.Cut(rest, "/"); isDir {
			if !seen[sub] {
				seen[sub] = true
				out = append(out, &mcp.Resource{URI: e.uri(prefix + sub), Name: sub, MIMEType: mimeDirectory})
			}
			continue
		}
		out = append(out, &mcp.Resource{URI: e.uri(f.Path), Name: rest, MIMEType: mimeOf(f), Size: f.size})
	}
	if len(out) == 0 && dir != "" {
		return nil, false
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URI < out[j].URI })
	return out, true
}

// mimeTypes are the types of the files skills hold, by extension; a
// table of our own, so a type does not depend on the machine's.
var mimeTypes = map[string]string{
	".md": "text/markdown", ".markdown": "text/markdown", ".txt": "text/plain", ".py": "text/x-python",
	".sh": "text/x-shellscript", ".js": "text/javascript", ".mjs": "text/javascript", ".ts": "text/x-typescript",
	".json": "application/json", ".yaml": "application/yaml", ".yml": "application/yaml", ".toml": "application/toml",
	".html": "text/html", ".css": "text/css", ".csv": "text/csv", ".xml": "application/xml", ".svg": "image/svg+xml",
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp",
	".pdf": "application/pdf", ".zip": "application/zip",
}

func mimeOf(f extFile) string {
	switch {
	case f.Link:
		return mimeSymlink
	case mimeTypes[strings.ToLower(path.Ext(f.Path))] != "":
		return mimeTypes[strings.ToLower(path.Ext(f.Path))]
	case f.text:
		return "text/plain"
	}
	return "application/octet-stream"
}

// readSkillResource serves one file of a skill:// URI: the blob the
// manifest names, read by its id.
func (s *Server) readSkillResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	r, err := s.resolve(ctx, uri)
	if err != nil {
		return nil, err
	}
	if r.e == nil || r.file == "" {
		return nil, invalidParams("%s is a directory: resources/directory/read lists it", uri)
	}
	f := r.e.v.file(r.file)
	if f == nil {
		if _, isDir := directoryChildren(r.e, r.file); isDir {
			return nil, invalidParams("%s is a directory: resources/directory/read lists it", uri)
		}
		return nil, invalidParams("%s v%d has no file %q: its skills/get entry lists its files", r.e.Name, r.e.Version, r.file)
	}
	var data []byte
	err = s.cat.ReadBlobs(ctx, []skillfs.ID{f.ID}, func(_ skillfs.ID, d []byte) error { data = d; return nil })
	if err != nil {
		return nil, internalError(err)
	}
	if sha256.Sum256(data) != f.digest {
		// Only an index file written by someone else can say so: the
		// server forgets what it holds and reads the store again.
		s.forget()
		return nil, internalError(fmt.Errorf("%s: the digest served for it is not its content's (a damaged index file, %s, was removed): list the skills again", uri, s.opts.IndexFile))
	}
	if r.file == skillmd.FileName {
		s.audit(req.Session, req.Extra, *r.e.Skill, r.e.v, "resources/read")
	}
	c := &mcp.ResourceContents{URI: uri, MIMEType: mimeOf(*f)}
	if f.text {
		c.Text = string(data)
	} else {
		c.Blob = data
	}
	res := &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}
	res.TTLMs, res.CacheScope = ttlOf(r), "public"
	return res, nil
}

// pinnedCache keeps the versions asked for by a pinned URI, the most
// recently used first, up to maxPinned of them.
type pinnedCache struct {
	mu    sync.Mutex
	order []*extSkill
}

const maxPinned = 256

func (c *pinnedCache) get(ctx context.Context, cat Catalog, name string, n int) (*extSkill, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.order {
		if e.Name == name && e.Version == n {
			copy(c.order[1:i+1], c.order[:i])
			c.order[0] = e
			return e, nil
		}
	}
	sk, err := cat.Version(ctx, name, n)
	if err != nil {
		return nil, err
	}
	vs, _, _, err := loadVersions(ctx, cat, []skillfs.ID{sk.Tree}, nil, &known{})
	if err != nil {
		return nil, err
	}
	x := &extState{}
	e := &extSkill{Skill: &sk, path: x.skillPath(name, n), v: vs[sk.Tree]}
	if e.v == nil {
		return nil, fmt.Errorf("%s v%d: no files read", name, n)
	}
	if e.v.md != nil {
		e.Description = e.v.md.fm.Description
	}
	e.refused = refusal(name, e.v)
	c.order = append([]*extSkill{e}, c.order...)
	if len(c.order) > maxPinned {
		c.order = c.order[:maxPinned]
	}
	return e, nil
}

// forget drops what the server holds of the published set and the index
// file, so the next call reads the store again.
func (s *Server) forget() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.Logger.Warn("the index file disagrees with the store: read again", "file", s.opts.IndexFile)
	s.gen, s.index, s.ext, s.disk = "", NewIndex(), newExtState(), nil
	if s.opts.IndexFile != "" && !s.opts.IndexReadOnly {
		_ = os.Remove(s.opts.IndexFile)
	}
}
