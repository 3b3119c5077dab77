package mcpserver

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillstore/skillstore/internal/skillmd"
)

// Options tune a Server. The zero value serves every published skill and
// keeps no audit log.
type Options struct {
	// Name and Version identify the server in the MCP handshake.
	Name, Version string
	// Select, when set, picks the published skills served (by qualified
	// name); nil serves all.
	Select func(name string) bool
	// Audit, when set, receives one Load per skill loaded.
	Audit *AuditLog
	// Poll is how often the server looks at the published set between
	// calls, so subscribed clients hear of changes (default 2s; negative:
	// never between calls).
	Poll time.Duration
	// Logger receives debug logs; nil discards them.
	Logger *slog.Logger
	// Now is the clock of audit records (default time.Now).
	Now func() time.Time
	// Note, when set, is told once of each published skill version that
	// the Skills extension cannot offer, and why (the tools still serve
	// it).
	Note func(msg string)
	// IndexFile, when set, is where the server keeps what it read of the
	// published set between runs (see diskindex.go): read at the first
	// call, and written again when the server read what it lacked (not by
	// a server of a Select: it does not serve the whole set).
	IndexFile string
	// IndexReadOnly reads IndexFile but never writes it (a dry run, a
	// store this process cannot write).
	IndexReadOnly bool
}

// Server is an MCP server over a Catalog. Its methods are safe for
// concurrent use: every call first brings the served set up to date.
type Server struct {
	cat  Catalog
	opts Options
	mcp  *mcp.Server

	mu         sync.Mutex
	gen        string
	index      *Index
	registered []Skill // the skills whose SKILL.md resources are registered
	ext        *extState
	pinned     pinnedCache
	// disk is the index file's content until a rebuild took it in;
	// diskRead, whether the file was read.
	disk     *diskIndex
	diskRead bool

	saves   sync.WaitGroup // index files being written
	saveMu  sync.Mutex     // one writer of the index file at a time
	saveSeq uint64         // snapshots taken (under mu)
	saved   uint64         // the newest snapshot written (under saveMu)
}

// New returns a server of cat's published skills. It reads nothing yet:
// the first call (or Run) does.
func New(cat Catalog, opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Poll == 0 {
		opts.Poll = 2 * time.Second
	}
	if opts.Name == "" {
		opts.Name = "skillstore"
	}
	s := &Server{cat: cat, opts: opts, index: NewIndex(), ext: newExtState()}
	caps := &mcp.ServerCapabilities{
		Resources: &mcp.ResourceCapabilities{ListChanged: true},
		Tools:     &mcp.ToolCapabilities{},
	}
	caps.AddExtension(ExtensionID, map[string]any{"directoryRead": true})
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: opts.Name, Version: opts.Version}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       opts.Logger,
		Capabilities: caps,
	})
	s.addTools()
	s.addExtension()
	// Both forms of URI go to one handler, whichever template matches.
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "skill-file",
		URITemplate: uriScheme + "{name}/{+path}",
		Description: "A file of a published skill.",
	}, s.readAnyResource)
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "skill-resource",
		URITemplate: extScheme + "{+path}",
		Description: "A file of a skill offered by the Skills extension (skills/list lists them).",
	}, s.readAnyResource)
	return s
}

// readAnyResource serves both URI forms: skill:///NAME/PATH, for hosts
// without the Skills extension, and the extension's skill://PATH.
func (s *Server) readAnyResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	if strings.HasPrefix(req.Params.URI, uriScheme) {
		return s.readResource(ctx, req)
	}
	return s.readSkillResource(ctx, req)
}

// instructions is what the server tells the agent once, at the handshake.
const instructions = "Skills are instructions for tasks. Before a task, find_skills with a few words of it; load_skill the best match and follow it."

// Run serves one client over t (stdio: &mcp.StdioTransport{}) until the
// client leaves or ctx ends, checking the published set every Poll
// meanwhile so subscribed clients hear of changes.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	ctx, stop, err := s.start(ctx)
	if err != nil {
		return err
	}
	defer stop()
	return s.mcp.Run(ctx, t)
}

// start checks that the catalog can be read (a store that cannot fails
// the command at once), then reads the published set in the background:
// the handshake is answered at once, whatever the number of skills, and
// the first call that needs the skills waits for the read (refresh builds
// under the server's lock; whichever comes first builds, the other finds
// it built). Then it polls every Poll.
func (s *Server) start(ctx context.Context) (context.Context, context.CancelFunc, error) {
	if _, err := s.cat.Generation(ctx); err != nil {
		return nil, nil, fmt.Errorf("read the published skills: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	stop := func() {
		cancel()
		s.saves.Wait()
	}
	warm := make(chan struct{})
	go func() {
		defer close(warm)
		if _, err := s.refresh(ctx); err != nil {
			s.opts.Logger.Debug("published set not read", "err", err)
		}
	}()
	if s.opts.Poll > 0 {
		go func() {
			<-warm
			s.poll(ctx)
		}()
	}
	return ctx, stop, nil
}

func (s *Server) poll(ctx context.Context) {
	t := time.NewTicker(s.opts.Poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := s.refresh(ctx); err != nil {
				s.opts.Logger.Debug("published set not read", "err", err)
			}
		}
	}
}

// refresh brings the served set, its index and its resources up to date
// with the catalog and returns the index to search. It reads the skills
// only when the catalog's generation changed.
func (s *Server) refresh(ctx context.Context) (*Index, error) {
	gen, err := s.cat.Generation(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the published skills: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if gen == s.gen && s.gen != "" {
		return s.index, nil
	}
	all, gen, err := s.cat.Skills(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the published skills: %w", err)
	}
	skills := all
	if s.opts.Select != nil {
		skills = all[:0:0]
		for _, sk := range all {
			if s.opts.Select(sk.Name) {
				skills = append(skills, sk)
			}
		}
	}
	first := !s.diskRead
	if first && s.opts.IndexFile != "" {
		s.diskRead = true
		d, err := readIndexFile(s.opts.IndexFile)
		if err != nil {
			s.opts.Logger.Debug("index file not used: the published set is read again", "err", err)
		}
		if d != nil && s.index.adopt(d) {
			s.disk = d
		}
	}
	bodies, notes, read, err := s.ext.rebuild(ctx, s.cat, skills, s.index.Needs(skills), s.disk)
	if err != nil {
		return nil, fmt.Errorf("read the published skills: %w", err)
	}
	s.index.Build(skills, bodies)
	if s.opts.Note != nil {
		for _, n := range notes {
			s.opts.Note(n)
		}
	}
	s.syncResources(skills)
	// The file is written when it lacked something served, or held more.
	disk := s.disk
	s.disk = nil
	stale := first && (disk == nil || len(disk.versions) != len(s.ext.versions) || disk.ndocs != len(s.index.cache))
	// A server of a selection reads the file and leaves it as it is: what
	// it serves is not the whole published set.
	if s.opts.IndexFile != "" && !s.opts.IndexReadOnly && s.opts.Select == nil && (read > 0 || stale) {
		s.saveIndex()
	}
	s.gen = gen
	s.opts.Logger.Debug("published set read", "skills", len(skills), "generation", gen, "read", read)
	return s.index, nil
}

// saveIndex writes what the server serves as its index file, in the
// background (under s.mu); a failure (a read-only store) costs the next
// start its read, nothing else.
func (s *Server) saveIndex() {
	s.saveSeq++
	sn := &indexSnapshot{versions: s.ext.versions, docs: s.index.cache, words: s.index.words, seq: s.saveSeq}
	s.saves.Add(1)
	go func() {
		defer s.saves.Done()
		s.saveMu.Lock()
		defer s.saveMu.Unlock()
		if sn.seq < s.saved {
			return // a newer one was written
		}
		if err := writeIndexFile(s.opts.IndexFile, sn); err != nil {
			s.opts.Logger.Debug("index file not written", "err", err)
			return
		}
		s.saved = sn.seq
	}()
}

// syncResources registers a SKILL.md resource per served skill and drops
// those of skills no longer served; a skill at a new version is
// registered again. Either way the SDK tells connected clients that the
// resource list changed, the one notification a host of the Skills
// extension hears of a moved published set by.
func (s *Server) syncResources(skills []Skill) {
	// What is registered is the last list served, which the index and
	// the extension hold anyway: maps of it are made only to compare it
	// with a new one, and dropped.
	var was map[string]string // name -> commit registered
	if len(s.registered) > 0 {
		want := make(map[string]bool, len(skills))
		for _, sk := range skills {
			want[sk.Name] = true
		}
		var gone []string
		was = make(map[string]string, len(s.registered))
		for _, sk := range s.registered {
			if !want[sk.Name] {
				gone = append(gone, skillURI(sk.Name, "SKILL.md"))
			} else {
				was[sk.Name] = sk.Commit
			}
		}
		if len(gone) > 0 {
			s.mcp.RemoveResources(gone...)
		}
	}
	first := s.registered == nil
	s.registered = skills
	var add []*Skill
	size := 0
	for i := range skills {
		sk := &skills[i]
		if c, ok := was[sk.Name]; !ok || c != sk.Commit {
			add = append(add, sk)
			size += len(uriScheme) + len(sk.Name) + 1 + len(skillmd.FileName)
			if !first {
				size += len(sk.Description)
			}
		}
	}
	// The SDK keeps the resources until they are replaced, longer than
	// the list they are of. Their URIs (which hold the names) are made in
	// one string, and they are one slice: a few allocations, not a few a
	// skill. The first list's descriptions are shared: that list's
	// strings (one string, see StoreCatalog) stay while one of its
	// resources does, one list's worth at most; a later list's are
	// copied with the URIs, so the resources never keep every list.
	var b strings.Builder
	b.Grow(size)
	for _, sk := range add {
		// skillURI(sk.Name, skillmd.FileName), then the description
		b.WriteString(uriScheme)
		b.WriteString(sk.Name)
		b.WriteString("/" + skillmd.FileName)
		if !first {
			b.WriteString(sk.Description)
		}
	}
	all, at := b.String(), 0
	cut := func(n int) string {
		at += n
		return all[at-n : at]
	}
	rs := make([]mcp.Resource, len(add))
	read := s.readResource
	for i, sk := range add {
		r := &rs[i]
		r.URI = cut(len(uriScheme) + len(sk.Name) + 1 + len(skillmd.FileName))
		r.Name, r.Description, r.MIMEType = r.URI[len(uriScheme):len(uriScheme)+len(sk.Name)], sk.Description, "text/markdown"
		if !first {
			r.Description = cut(len(sk.Description))
		}
		s.mcp.AddResource(r, read)
	}
}

// served reports whether name is a skill the server serves now.
func (s *Server) served(name string) (Skill, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.ext.skills[name]
	if !ok {
		return Skill{}, false
	}
	return *e.Skill, true
}
