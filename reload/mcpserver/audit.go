package mcpserver

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxClientField is the most bytes of a client's name or version a
// record keeps: the client chooses them, and a record must stay small
// enough that rotation at maxSize keeps many of them (a 15 MB name would
// otherwise rotate every earlier record away, and make the log too large
// to read).
const MaxClientField = 256

// clipMark ends a client field that clip shortened.
const clipMark = "…[clipped]"

// clip shortens s to at most MaxClientField bytes, cut at a character
// boundary and marked, so a reader of the log sees it was cut.
func clip(s string) string {
	if len(s) <= MaxClientField {
		return s
	}
	n := MaxClientField - len(clipMark)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + clipMark
}

// Load is one audit record: a client loaded a skill's version.
type Load struct {
	Time          time.Time `json:"time"`
	Client        string    `json:"client"`
	ClientVersion string    `json:"client_version,omitempty"`
	Skill         string    `json:"skill"`
	Version       int       `json:"version"`
	Commit        string    `json:"commit"`
	Via           string    `json:"via"` // load_skill, read_skill_file or resources/read
	// Manifest names the set of files served, with their digests: the
	// SHA-256 of what sha256sum prints for the version's files in path
	// order (see extVersion.manifestDigest).
	Manifest string `json:"manifest,omitempty"`
	// Token is the holder of the bearer token the request came with
	// (over HTTP; "" over stdio).
	Token string `json:"token,omitempty"`
}

// AuditLog appends Loads to a file as JSON lines. Each record is one
// write to a file opened for appending, so records of several servers
// sharing the file never interleave within a line. Past maxSize the file
// is renamed to PATH.1 (replacing the one before), so the log keeps at
// most about twice maxSize on disk.
type AuditLog struct {
	mu      sync.Mutex
	path    string
	maxSize int64
}

// DefaultAuditMaxSize is the size at which the audit log rotates.
const DefaultAuditMaxSize = 1 << 20

// NewAuditLog returns the audit log at path (created on first record),
// rotated at maxSize bytes (0: DefaultAuditMaxSize).
func NewAuditLog(path string, maxSize int64) *AuditLog {
	if maxSize <= 0 {
		maxSize = DefaultAuditMaxSize
	}
	return &AuditLog{path: path, maxSize: maxSize}
}

// Append writes l as one line.
func (a *AuditLog) Append(l Load) error {
	data, err := json.Marshal(l)
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if info, err := os.Stat(a.path); err == nil && info.Size() >= a.maxSize {
		// Another server may rotate at the same moment: a failed rename
		// only means the file moved already.
		_ = os.Rename(a.path, a.path+".1")
	}
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

// audit records that the session's client loaded version sk, whose files
// are ev (nil: those the server keeps for sk's commit). A failed write is
// logged, not returned: the agent still gets its skill.
func (s *Server) audit(ss *mcp.ServerSession, extra *mcp.RequestExtra, sk Skill, ev *extVersion, via string) {
	if s.opts.Audit == nil {
		return
	}
	if ev == nil {
		s.mu.Lock()
		ev = s.ext.versions[sk.Tree]
		s.mu.Unlock()
	}
	if ev != nil {
		if full, err := ev.content(); err == nil {
			ev = full
		} else {
			ev = nil
		}
	}
	l := Load{Time: s.opts.Now().UTC(), Skill: sk.Name, Version: sk.Version, Commit: sk.Commit, Via: via, Client: "unknown"}
	if ev != nil {
		l.Manifest = ev.manifestDigest()
	}
	if extra != nil && extra.TokenInfo != nil {
		l.Token = clip(extra.TokenInfo.UserID)
	}
	if ss != nil {
		if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
			l.Client, l.ClientVersion = clip(p.ClientInfo.Name), clip(p.ClientInfo.Version)
		}
	}
	if err := s.opts.Audit.Append(l); err != nil {
		s.opts.Logger.Warn("load not recorded", "skill", sk.Name, "err", err)
	}
}
