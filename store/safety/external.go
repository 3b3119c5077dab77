package safety

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/skillstore/skillstore/internal/procgroup"
	"github.com/skillstore/skillstore/internal/skillfs"
)

// Defaults of an external scanner's bounds.
const (
	DefaultScanTimeout = 60 * time.Second
	DefaultScanOutput  = 1 << 20
)

// The environment an external scanner runs with, beside its two
// arguments.
const (
	ScanDirEnv     = "SKILLSTORE_SCAN_DIR"
	ScanVersionEnv = "SKILLSTORE_SCAN_VERSION"
)

// ruleExternal is the rule of the one finding that says a scanner could
// not give a verdict.
const ruleExternal = "external-scanner"

// Scanner is an external command a team already trusts (a skill scanner
// of its own or a vendor's), run on every new version's files: its
// verdict joins the built-in check's, so a version it flags is held or
// refused like one the built-in rules flag. It reads the version from a
// folder and writes JSON findings on stdout:
//
//	{"findings":[{"rule":"R","level":"low|medium|high|critical","file":"scripts/x.sh","line":3,"message":"..."}]}
//
// (a plain array of findings is read too). A scanner that fails, overruns
// its deadline or output cap, or writes anything else holds the version
// for review: a scanner's silence is never taken for a clean verdict.
type Scanner struct {
	// Command is the program and its first arguments; the folder and
	// the version are appended.
	Command []string
	// Timeout bounds a run (zero: DefaultScanTimeout).
	Timeout time.Duration
	// MaxOutput bounds what it writes on stdout (zero: DefaultScanOutput).
	MaxOutput int64
	// From names where the setting comes from (a policy file, the store's
	// scanner file), for messages.
	From string
	// Broken, when set, is why the setting could not be read: every scan
	// holds the version for review, naming From.
	Broken error
}

// Name is the scanner's name, the prefix of its findings' rules: the base
// name of its program.
func (s *Scanner) Name() string {
	if s == nil || len(s.Command) == 0 {
		return ""
	}
	return filepath.Base(s.Command[0])
}

// ScannerLine reads one line of a scanner setting, in a policy file or
// the store's scanner file: "scanner COMMAND [ARG...]" (split on spaces;
// a command needing quoting goes in a script), "scanner-timeout
// DURATION" or "scanner-max-output BYTES". cur is what earlier lines set
// (nil for nothing); ok is false for a line of another kind.
func ScannerLine(fields []string, cur *Scanner, from string) (s *Scanner, ok bool, err error) {
	if len(fields) == 0 {
		return cur, false, nil
	}
	s = &Scanner{From: from}
	if cur != nil {
		*s = *cur
	}
	switch fields[0] {
	case "scanner":
		if len(fields) < 2 {
			return cur, true, errors.New("scanner needs a command: scanner COMMAND [ARG...]")
		}
		s.Command = fields[1:]
	case "scanner-timeout":
		d, err := time.ParseDuration(strings.Join(fields[1:], ""))
		if len(fields) != 2 || err != nil || d <= 0 {
			return cur, true, fmt.Errorf("scanner-timeout needs one duration such as 30s or 2m, not %q", strings.Join(fields[1:], " "))
		}
		s.Timeout = d
	case "scanner-max-output":
		n, err := strconv.ParseInt(strings.Join(fields[1:], ""), 10, 64)
		if len(fields) != 2 || err != nil || n <= 0 {
			return cur, true, fmt.Errorf("scanner-max-output needs one number of bytes, not %q", strings.Join(fields[1:], " "))
		}
		s.MaxOutput = n
	default:
		return cur, false, nil
	}
	return s, true, nil
}

// ParseScannerSetting reads a file of scanner lines (ScannerLine; "#"
// starts a comment), the store's setting. Any other line is an error
// naming the file and line; a file with no scanner line sets none.
func ParseScannerSetting(path string, data []byte) (*Scanner, error) {
	var s *Scanner
	for n, line := range strings.Split(string(data), "\n") {
		line, _, _ = strings.Cut(line, "#")
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		next, ok, err := ScannerLine(fields, s, path)
		if !ok {
			err = fmt.Errorf("%q: write scanner COMMAND, scanner-timeout DURATION or scanner-max-output BYTES", strings.TrimSpace(line))
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n+1, err)
		}
		s = next
	}
	if s != nil && len(s.Command) == 0 {
		return nil, fmt.Errorf("%s: no scanner line names the command", path)
	}
	return s, nil
}

// externalFinding is one finding as a scanner writes it.
type externalFinding struct {
	Rule    string `json:"rule"`
	Level   string `json:"level"`
	File    string `json:"file"`
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// Scan writes files (which need Data) to a fresh folder, runs the scanner
// on it and returns its findings, each rule prefixed with the scanner's
// name. A scanner that gives no verdict yields one high finding saying
// why, naming the command, and that reason as the error (for logs): the
// version is held, never let through.
func (s *Scanner) Scan(ctx context.Context, version string, files []skillfs.File) ([]Finding, error) {
	if s.Broken != nil || len(s.Command) == 0 {
		err := s.Broken
		if err == nil {
			err = errors.New("no command")
		}
		err = fmt.Errorf("the scanner setting in %s cannot be used: %w", s.From, err)
		return []Finding{{Level: RiskHigh, Path: ".", Rule: ruleExternal, Message: "held for review: " + err.Error()}}, err
	}
	out, err := s.run(ctx, version, files)
	if err == nil {
		var fs []Finding
		if fs, err = s.parse(out); err == nil {
			return fs, nil
		}
	}
	err = fmt.Errorf("scanner %q: %w", strings.Join(s.Command, " "), err)
	return []Finding{{Level: RiskHigh, Path: ".", Rule: s.Name() + "/" + ruleExternal,
		Message: "held for review: " + err.Error()}}, err
}

func (s *Scanner) run(ctx context.Context, version string, files []skillfs.File) ([]byte, error) {
	dir, err := os.MkdirTemp("", "skillstore-scan-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := writeScanFolder(dir, files); err != nil {
		return nil, err
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = DefaultScanTimeout
	}
	limit := s.MaxOutput
	if limit <= 0 {
		limit = DefaultScanOutput
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.Command[0], append(s.Command[1:], dir, version)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), ScanDirEnv+"="+dir, ScanVersionEnv+"="+version)
	procgroup.New(cmd) // the deadline ends the scanner and all it started
	cmd.Cancel = func() error { return procgroup.Kill(cmd) }
	cmd.WaitDelay = time.Second // a child outside the group holding stdout does not hang the check
	stdout := &capped{limit: limit}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &capped{limit: 4096, w: &stderr}
	err = cmd.Run()
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return nil, fmt.Errorf("gave no verdict within %s", timeout)
	case stdout.over:
		return nil, fmt.Errorf("wrote more than %d bytes", limit)
	case err != nil:
		if msg := lastLine(stderr.String()); msg != "" {
			return nil, fmt.Errorf("%w: %s", err, msg)
		}
		return nil, err
	}
	return stdout.buf.Bytes(), nil
}

// parse reads the scanner's JSON: an object with "findings", or a plain
// array of them.
func (s *Scanner) parse(out []byte) ([]Finding, error) {
	out = bytes.TrimSpace(out)
	var list []externalFinding
	if bytes.HasPrefix(out, []byte("[")) {
		if err := json.Unmarshal(out, &list); err != nil {
			return nil, fmt.Errorf("output is not JSON findings: %w", err)
		}
	} else {
		var doc struct {
			Findings *[]externalFinding `json:"findings"`
		}
		if err := json.Unmarshal(out, &doc); err != nil || doc.Findings == nil {
			if err == nil {
				err = errors.New(`no "findings" field`)
			}
			return nil, fmt.Errorf("output is not JSON findings: %w", err)
		}
		list = *doc.Findings
	}
	fs := make([]Finding, 0, len(list))
	for i, e := range list {
		level, err := ParseRiskLevel(e.Level)
		if err != nil {
			return nil, fmt.Errorf("finding %d: %w", i+1, err)
		}
		p := path.Clean(strings.TrimPrefix(filepath.ToSlash(e.File), "./"))
		if e.File == "" || strings.HasPrefix(p, "../") || path.IsAbs(p) {
			p = "."
		}
		rule := s.Name()
		if e.Rule != "" {
			rule += "/" + plainText(e.Rule, 80)
		}
		msg := plainText(e.Message, maxScanMessage)
		if msg == "" {
			msg = "flagged by " + s.Name()
		}
		fs = append(fs, Finding{Level: level, Path: p, Line: max(e.Line, 0), Message: s.Name() + ": " + msg, Rule: rule})
	}
	if len(fs) > maxScanFindings {
		rest := NewReport(fs[maxScanFindings-1:])
		fs = append(fs[:maxScanFindings-1], Finding{Level: rest.Risk, Path: ".", Rule: s.Name(),
			Message: fmt.Sprintf("%s: %d more findings, the highest %s", s.Name(), len(rest.Findings), rest.Risk)})
	}
	return fs, nil
}

// Bounds of what one scan adds to a report: its findings are shown in
// sync and show and recorded in the version's commit message.
const (
	maxScanFindings = 100
	maxScanMessage  = 300
)

// plainText is s on one line of at most limit runes, control and format
// characters (newlines, escapes, bidirectional and tag characters) made
// spaces: a scanner's words cannot forge lines of skillstore's output.
func plainText(s string, limit int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > limit {
		s = string(r[:limit-1]) + "…"
	}
	return s
}

// writeScanFolder writes the regular files of a version under dir
// (links are left out: a scanner reads what the store holds, nothing
// they point at).
func writeScanFolder(dir string, files []skillfs.File) error {
	for _, f := range files {
		if f.Mode != skillfs.Regular && f.Mode != skillfs.Executable {
			continue
		}
		if skillfs.CheckPath(f.Path) != nil {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if f.Executable() {
			mode = 0o755
		}
		if err := os.WriteFile(p, f.Data, mode); err != nil {
			return err
		}
	}
	return nil
}

// capped keeps the first limit bytes written and notes an overrun; it
// never fails a write, so the command is not killed by a broken pipe
// before its exit says what happened.
type capped struct {
	limit int64
	buf   bytes.Buffer
	w     *bytes.Buffer
	over  bool
}

func (c *capped) Write(p []byte) (int, error) {
	b := &c.buf
	if c.w != nil {
		b = c.w
	}
	if room := c.limit - int64(b.Len()); int64(len(p)) > room {
		c.over = true
		b.Write(p[:max(room, 0)])
		return len(p), nil
	}
	b.Write(p)
	return len(p), nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
