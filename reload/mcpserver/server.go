package mcpserver

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
}

// Server is an MCP server over a Catalog. Its methods are safe for
// concurrent use: every call first brings the served set up to date.
type Server struct {
	cat  Catalog
	opts Options
	mcp  *mcp.Server

	mu        sync.Mutex
	gen       string
	skills    map[string]Skill
	index     *Index
	resources map[string]string // URIs of the SKILL.md resources registered: their commits
	ext       *extState
	pinned    pinnedCache
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
	s := &Server{cat: cat, opts: opts, index: NewIndex(), skills: map[string]Skill{}, resources: map[string]string{}, ext: newExtState()}
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
	ctx, stop := context.WithCancel(ctx)
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
	all, err := s.cat.Skills(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the published skills: %w", err)
	}
	skills := all[:0:0]
	for _, sk := range all {
		if s.opts.Select == nil || s.opts.Select(sk.Name) {
			skills = append(skills, sk)
		}
	}
	bodies, notes, err := s.ext.rebuild(ctx, s.cat, skills, s.index.Needs(skills))
	if err != nil {
		return nil, fmt.Errorf("read the published skills: %w", err)
	}
	s.index.Build(skills, bodies)
	if s.opts.Note != nil {
		for _, n := range notes {
			s.opts.Note(n)
		}
	}
	s.skills = make(map[string]Skill, len(skills))
	for _, sk := range skills {
		s.skills[sk.Name] = sk
	}
	s.syncResources(skills)
	s.gen = gen
	s.opts.Logger.Debug("published set read", "skills", len(skills), "generation", gen)
	return s.index, nil
}

// syncResources registers a SKILL.md resource per served skill and drops
// those of skills no longer served; a skill at a new version is
// registered again. Either way the SDK tells connected clients that the
// resource list changed, the one notification a host of the Skills
// extension hears of a moved published set by.
func (s *Server) syncResources(skills []Skill) {
	want := make(map[string]Skill, len(skills))
	for _, sk := range skills {
		want[skillURI(sk.Name, "SKILL.md")] = sk
	}
	var gone []string
	for uri := range s.resources {
		if _, ok := want[uri]; !ok {
			gone = append(gone, uri)
			delete(s.resources, uri)
		}
	}
	if len(gone) > 0 {
		s.mcp.RemoveResources(gone...)
	}
	for uri, sk := range want {
		if s.resources[uri] == sk.Commit {
			continue
		}
		s.resources[uri] = sk.Commit
		s.mcp.AddResource(&mcp.Resource{URI: uri, Name: sk.Name, Description: sk.Description, MIMEType: "text/markdown"}, s.readResource)
	}
}

// served reports whether name is a skill the server serves now.
func (s *Server) served(name string) (Skill, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sk, ok := s.skills[name]
	return sk, ok
}
