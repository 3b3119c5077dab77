package mcpserver

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Load is one audit record: a client loaded a skill's version.
type Load struct {
	Time          time.Time `json:"time"`
	Client        string    `json:"client"`
	ClientVersion string    `json:"client_version,omitempty"`
	Skill         string    `json:"skill"`
	Version       int       `json:"version"`
	Commit        string    `json:"commit"`
	Via           string    `json:"via"` // load_skill, read_skill_file or resources/read
}

// AuditLog appends Loads to a file as JSON lines. Each record is one
// write to a file opened for appending, so records of several servers
// sharing the file never interleave within a line.
type AuditLog struct {
	mu   sync.Mutex
	path string
}

// NewAuditLog returns the audit log at path (created on first record).
func NewAuditLog(path string) *AuditLog { return &AuditLog{path: path} }

// Path is the log's file.
func (a *AuditLog) Path() string { return a.path }

// Append writes l as one line.
func (a *AuditLog) Append(l Load) error {
	data, err := json.Marshal(l)
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	f, err := os.OpenFile(a.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	_, err = f.Write(append(data, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("audit log %s: %w", a.path, err)
	}
	return nil
}

// audit records that the session's client loaded v. A failed write is
// logged, not returned: the agent still gets its skill.
func (s *Server) audit(ss *mcp.ServerSession, v *Version, via string) {
	if s.opts.Audit == nil {
		return
	}
	l := Load{Time: s.opts.Now().UTC(), Skill: v.Name, Version: v.Version, Commit: v.Commit, Via: via, Client: "unknown"}
	if ss != nil {
		if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
			l.Client, l.ClientVersion = p.ClientInfo.Name, p.ClientInfo.Version
		}
	}
	if err := s.opts.Audit.Append(l); err != nil {
		s.opts.Logger.Warn("load not recorded", "skill", v.Name, "err", err)
	}
}
