package discover

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/skillstore/skillstore/internal/safefile"
)

// ClaudePluginsFile is where Claude Code records the plugins it installed,
// relative to the home directory.
const ClaudePluginsFile = ".claude/plugins/installed_plugins.json"

// ClaudeInstall is one install of a plugin that Claude Code recorded in
// installed_plugins.json.
type ClaudeInstall struct {
	// Key is "plugin@marketplace", split into Plugin and Marketplace.
	Key         string
	Plugin      string
	Marketplace string
	InstallPath string
	Version     string
	// Commit is the upstream commit installed (gitCommitSha), when known.
	Commit string
	// Scope is "user" (the default), "project" or "local"; a project's
	// install names the project in ProjectPath.
	Scope       string
	ProjectPath string
}

// ClaudeInstalls is what installed_plugins.json holds: the installs, by
// key and then in the file's order, and the entries that could not be
// read, by key.
type ClaudeInstalls struct {
	Installs []ClaudeInstall
	Problems []*ClaudeEntryError
}

// ClaudeEntryError is an entry of installed_plugins.json that could not be
// read: its key is not plugin@marketplace (Err nil), or its value is not
// an install record nor a list of them (Err says why).
type ClaudeEntryError struct {
	Key string
	Err error
}

func (e *ClaudeEntryError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("plugin key %q is not plugin@marketplace", e.Key)
	}
	return fmt.Sprintf("plugin %s: %v", e.Key, e.Err)
}

func (e *ClaudeEntryError) Unwrap() error { return e.Err }

// RecordVersionError is a record file of a version skillstore does not
// read: what it holds may mean something else, so none of it is used.
type RecordVersionError struct {
	Version int
	Known   []int
}

func (e *RecordVersionError) Error() string {
	return fmt.Sprintf("version %d is not one skillstore reads (%s)", e.Version, knownText(e.Known))
}

// knownText lists versions as "1 or 2".
func knownText(versions []int) string {
	var s []string
	for _, v := range versions {
		s = append(s, fmt.Sprint(v))
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// JSONError is a record file that is not the JSON it should be. Line is
// where a syntax error is (0 when the JSON is valid but of another shape).
type JSONError struct {
	Line int
	Err  error
}

func (e *JSONError) Error() string { return e.Err.Error() }
func (e *JSONError) Unwrap() error { return e.Err }

// claudeInstallVersions are the versions of installed_plugins.json read:
// version 1 keeps one install object per plugin, version 2 a list of them
// (one per scope).
var claudeInstallVersions = []int{1, 2}

// claudeInstallRecord is one install as installed_plugins.json writes it.
type claudeInstallRecord struct {
	Scope        string `json:"scope"`
	ProjectPath  string `json:"projectPath"`
	InstallPath  string `json:"installPath"`
	Version      string `json:"version"`
	GitCommitSha string `json:"gitCommitSha"`
}

// ReadClaudeInstalls reads Claude Code's installed_plugins.json: {"version":
// N, "plugins": {"plugin@marketplace": [install, ...]}}, an install object
// instead of the list read too. It is the one reader of the file (discovery
// lists the installs' skills, adopt takes them over). The file may sit in
// a home someone else set up: only a regular file of at most
// safefile.RecordLimit bytes is read (the error is safefile's), and a FIFO
// never blocks the read. A missing file holds no installs. A file that
// does not parse is a *JSONError, one of another version a
// *RecordVersionError; an entry that cannot be read is left out and named
// in Problems.
func ReadClaudeInstalls(file string) (ClaudeInstalls, error) {
	var out ClaudeInstalls
	data, err := safefile.ReadFile(file, safefile.RecordLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return out, err
	}
	var doc struct {
		Version int                        `json:"version"`
		Plugins map[string]json.RawMessage `json:"plugins"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return out, NewJSONError(data, err)
	}
	known := false
	for _, v := range claudeInstallVersions {
		known = known || v == doc.Version
	}
	if !known {
		return out, &RecordVersionError{Version: doc.Version, Known: claudeInstallVersions}
	}
	keys := make([]string, 0, len(doc.Plugins))
	for k := range doc.Plugins {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		i := strings.LastIndex(key, "@")
		if i <= 0 || i == len(key)-1 {
			out.Problems = append(out.Problems, &ClaudeEntryError{Key: key})
			continue
		}
		records, err := decodeInstalls(doc.Plugins[key])
		if err != nil {
			out.Problems = append(out.Problems, &ClaudeEntryError{Key: key, Err: err})
			continue
		}
		for _, r := range records {
			if r.Scope == "" {
				r.Scope = "user"
			}
			out.Installs = append(out.Installs, ClaudeInstall{Key: key, Plugin: key[:i], Marketplace: key[i+1:],
				InstallPath: r.InstallPath, Version: r.Version, Commit: r.GitCommitSha, Scope: r.Scope, ProjectPath: r.ProjectPath})
		}
	}
	return out, nil
}

// decodeInstalls reads a plugin's entry: a list of installs, or one.
func decodeInstalls(raw json.RawMessage) ([]claudeInstallRecord, error) {
	if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) {
		var list []claudeInstallRecord
		err := json.Unmarshal(raw, &list)
		return list, err
	}
	var one claudeInstallRecord
	err := json.Unmarshal(raw, &one)
	return []claudeInstallRecord{one}, err
}

// NewJSONError is err, from decoding the JSON record data, with the line
// of a syntax error.
func NewJSONError(data []byte, err error) *JSONError {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return &JSONError{Line: 1 + bytes.Count(data[:min(int(syn.Offset), len(data))], []byte("\n")), Err: err}
	}
	return &JSONError{Err: err}
}

// readInstalledPlugins returns a root for the skills folder of every
// Claude Code plugin installed_plugins.json (file) lists. A plugin
// installed for a project counts only when wd is inside that project. A
// missing file means no plugins; what cannot be read is a warning.
func readInstalledPlugins(file, wd string) ([]Root, []Diagnostic) {
	installs, err := ReadClaudeInstalls(file)
	if err != nil {
		return nil, []Diagnostic{warningAt(file, 0, "cannot read Claude Code's installed plugins: %v; plugin skills are not listed", unwrapPathError(err))}
	}
	var roots []Root
	type keyed struct {
		key  string
		diag Diagnostic
	}
	var diags []keyed
	for _, p := range installs.Problems {
		if p.Err == nil {
			diags = append(diags, keyed{p.Key, warningAt(file, 0, "plugin %q: the key is not plugin@marketplace; its skills are not listed", p.Key)})
			continue
		}
		diags = append(diags, keyed{p.Key, warningAt(file, 0, "plugin %q: not an install record or a list of them; its skills are not listed", p.Key)})
	}
	for _, in := range installs.Installs {
		if (in.Scope == "project" || in.Scope == "local") && (wd == "" || in.ProjectPath == "" || !within(filepath.Clean(wd), filepath.Clean(in.ProjectPath))) {
			continue
		}
		if !filepath.IsAbs(in.InstallPath) {
			diags = append(diags, keyed{in.Key, warningAt(file, 0, "plugin %q: installPath %q is not absolute; its skills are not listed", in.Key, in.InstallPath)})
			continue
		}
		roots = append(roots, Root{Path: filepath.Join(in.InstallPath, "skills"), Layer: LayerPlugin,
			Label: "plugin:" + in.Key, Agent: AgentClaudeCode, Plugin: in.Plugin})
	}
	// In the file's key order, as the entries are.
	sort.SliceStable(diags, func(i, j int) bool { return diags[i].key < diags[j].key })
	out := make([]Diagnostic, len(diags))
	for i, d := range diags {
		out[i] = d.diag
	}
	return roots, out
}
