package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/skillstore/skillstore/cmd/skillstore/app"
)

// produce runs one of the CLI's workflows with --json, its report into a
// buffer, and decodes the report into v: the page shows exactly what
// the command prints. A workflow that printed its report and then
// failed (status with one target unreadable) still fills v; the error
// is returned beside it.
func (s *Server) produce(ctx context.Context, v any, run func(g app.Global, out app.Output) error) error {
	var stdout, stderr bytes.Buffer
	g := s.opts.Global
	g.Stdin, g.Stdout, g.Stderr = strings.NewReader(""), &stdout, &stderr
	g.PrintError = func(error) {}
	err := run(g, app.Output{JSON: true})
	if stdout.Len() > 0 {
		if jerr := json.Unmarshal(stdout.Bytes(), v); jerr != nil {
			return errors.Join(fmt.Errorf("read the report: %w", jerr), err)
		}
	}
	return err
}

// The reports, decoded: the fields the page uses, named as the JSON
// names them.

type candidateJSON struct {
	Skill            string    `json:"skill"`
	Time             time.Time `json:"time"`
	PublishedVersion int       `json:"published_version"`
	Mode             string    `json:"mode"`
	Plugin           string    `json:"plugin"`
	PluginVersion    string    `json:"plugin_version"`
	Remote           string    `json:"remote"`
	RemoteVersion    string    `json:"remote_version"`
	EditAuthor       string    `json:"edit_author"`
	Risk             string    `json:"risk"`
	Conflicts        []string  `json:"conflicts"`
	Markers          []string  `json:"markers"`
	Resolved         bool      `json:"resolved"`
	Stale            bool      `json:"stale"`
	MergeResolved    []string  `json:"merge_resolved"`
	Head             string    `json:"head"`
	Published        string    `json:"published"`
	Upstream         string    `json:"upstream"`
	Base             string    `json:"base"`
	State            string    `json:"state"`
	From             string    `json:"from"`
	Files            *struct {
		Base, Ours, Theirs, Head []sideFile
	} `json:"files"`
}

type sideFile struct {
	Path   string `json:"path"`
	Mode   string `json:"mode"`
	Size   int64  `json:"size"`
	Binary bool   `json:"binary"`
	Text   string `json:"text"`
}

type fileChange struct {
	Kind    string `json:"kind"`
	OldPath string `json:"old_path"`
	NewPath string `json:"new_path"`
	OldMode string `json:"old_mode"`
	NewMode string `json:"new_mode"`
	Binary  bool   `json:"binary"`
	Patch   string `json:"patch"`
}

// Path is the file's path after the change (before it, when removed).
func (c fileChange) Path() string {
	if c.NewPath != "" {
		return c.NewPath
	}
	return c.OldPath
}

type candidateDiffJSON struct {
	Skill   string       `json:"skill"`
	Changes []fileChange `json:"changes"`
	Exports []struct {
		Target string `json:"target"`
		Dir    string `json:"dir"`
		Class  string `json:"class"`
	} `json:"exports"`
}

type skillJSON struct {
	Name        string    `json:"name"`
	Plugin      string    `json:"plugin"`
	Version     int       `json:"version"`
	Status      string    `json:"status"`
	Source      string    `json:"source"`
	Description string    `json:"description"`
	Time        time.Time `json:"time"`
	Risk        string    `json:"risk"`
}

type finding struct {
	Level   string `json:"level"`
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Message string `json:"message"`
}

type versionJSON struct {
	Skill         string    `json:"skill"`
	Version       int       `json:"version"`
	Commit        string    `json:"commit"`
	Time          time.Time `json:"time"`
	Actor         string    `json:"actor"`
	Source        string    `json:"source"`
	Reason        string    `json:"reason"`
	MergeMode     string    `json:"merge_mode"`
	Plugin        string    `json:"plugin"`
	PluginVersion string    `json:"plugin_version"`
	Risk          string    `json:"risk"`
	Findings      []finding `json:"findings"`
	Merged        string    `json:"merged"`
}

type showJSON struct {
	versionJSON
	Latest      int    `json:"latest"`
	Status      string `json:"status"`
	Description string `json:"description"`
	Frontmatter string `json:"frontmatter"`
	Files       []struct {
		Path string `json:"path"`
		Mode string `json:"mode"`
		Size int64  `json:"size"`
	} `json:"files"`
}

type diffJSON struct {
	From    string       `json:"from"`
	To      string       `json:"to"`
	Changes []fileChange `json:"changes"`
}

type targetJSON struct {
	Name    string   `json:"name"`
	Dir     string   `json:"dir"`
	Kind    string   `json:"kind"`
	Skills  []string `json:"skills"`
	Except  []string `json:"except"`
	ReadBy  []string `json:"read_by"`
	Context *struct {
		Skills int `json:"skills"`
		Chars  int `json:"chars"`
		Tokens int `json:"approx_tokens"`
		OverBy int `json:"over_by_chars"`
		Budget *struct {
			Agent string `json:"agent"`
			Chars int    `json:"chars"`
			Basis string `json:"basis"`
		} `json:"budget"`
		Shortened []struct {
			Skill  string `json:"skill"`
			Action string `json:"action"`
			Chars  int    `json:"chars"`
			Reason string `json:"reason"`
		} `json:"shortened"`
	} `json:"context"`
}

type statusJSON struct {
	Target   string   `json:"target"`
	Skill    string   `json:"skill"`
	Folder   string   `json:"folder"`
	State    string   `json:"state"`
	Outdated bool     `json:"outdated"`
	Class    string   `json:"class"`
	Paths    []string `json:"paths"`
	Error    string   `json:"error"`
}

type loadJSON struct {
	Time          time.Time `json:"time"`
	Client        string    `json:"client"`
	ClientVersion string    `json:"client_version"`
	Skill         string    `json:"skill"`
	Version       int       `json:"version"`
	Commit        string    `json:"commit"`
	Via           string    `json:"via"`
	Token         string    `json:"token"`
}
