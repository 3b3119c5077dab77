package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tools' descriptions and schemas are all an agent keeps in its
// context for this server: they are kept to a few words each (the whole
// tools/list is measured by TestToolsCostLessThanTenListings).
const (
	findDesc = "Find skills for a task: a few words in, matching skills out (name, version, description)."
	loadDesc = "Load a skill by name: its SKILL.md and the list of its other files."
	readDesc = "Read one file of a skill (a path that load_skill listed)."
)

var (
	findSchema = json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer"}},"required":["query"]}`)
	loadSchema = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)
	readSchema = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"path":{"type":"string"}},"required":["name","path"]}`)
)

// Bounds on what a call may ask.
const (
	maxQueryLen  = 1000
	defaultLimit = 10
	maxLimit     = 50
	maxNameLen   = 300
	maxPathLen   = 4096
)

func (s *Server) addTools() {
	s.mcp.AddTool(&mcp.Tool{Name: "find_skills", Description: findDesc, InputSchema: findSchema}, s.findSkills)
	s.mcp.AddTool(&mcp.Tool{Name: "load_skill", Description: loadDesc, InputSchema: loadSchema}, s.loadSkill)
	s.mcp.AddTool(&mcp.Tool{Name: "read_skill_file", Description: readDesc, InputSchema: readSchema}, s.readSkillFile)
}

// errResult is a tool error: the call ran and failed for a reason the
// agent can act on (an unknown skill, a path the skill lacks).
func errResult(format string, args ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, args...)}}}
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// args decodes a call's arguments strictly: an unknown field or a wrong
// type is an invalid-params error naming it.
func args(req *mcp.CallToolRequest, v any) error {
	raw := req.Params.Arguments
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	d := json.NewDecoder(strings.NewReader(string(raw)))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("%s: arguments: %w", req.Params.Name, err)
	}
	return nil
}

func (s *Server) findSkills(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Query string `json:"query"`
		Limit int    `json:"limit"`
	}
	if err := args(req, &in); err != nil {
		return nil, err
	}
	switch {
	case strings.TrimSpace(in.Query) == "":
		return errResult("find_skills: the query is empty: give a few words of the task"), nil
	case len(in.Query) > maxQueryLen:
		return errResult("find_skills: the query is %d bytes, over %d: give a few words", len(in.Query), maxQueryLen), nil
	case in.Limit < 0 || in.Limit > maxLimit:
		return errResult("find_skills: limit %d is not between 1 and %d", in.Limit, maxLimit), nil
	case in.Limit == 0:
		in.Limit = defaultLimit
	}
	ix, err := s.refresh(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	found := ix.Search(in.Query, in.Limit)
	s.mu.Unlock()
	if len(found) == 0 {
		return textResult(fmt.Sprintf("no skill matches %q", in.Query)), nil
	}
	var b strings.Builder
	for _, r := range found {
		fmt.Fprintf(&b, "%s v%d: %s\n", r.Name, r.Version, oneLine(r.Description))
	}
	return textResult(b.String()), nil
}

func (s *Server) loadSkill(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Name string `json:"name"`
	}
	if err := args(req, &in); err != nil {
		return nil, err
	}
	v, res := s.open(ctx, "load_skill", in.Name)
	if res != nil {
		return res, nil
	}
	s.audit(req.Session, req.Extra, v.Skill, nil, "load_skill")
	md := v.file("SKILL.md")
	var b strings.Builder
	fmt.Fprintf(&b, "skill %s v%d (commit %s)\n\n", v.Name, v.Version, short(v.Commit))
	if md != nil {
		b.Write(md.Data)
	}
	if len(v.Files) > 1 {
		b.WriteString("\n\nOther files (read_skill_file):\n")
		for _, f := range v.Files {
			if f.Path != "SKILL.md" {
				fmt.Fprintf(&b, "- %s (%d bytes)\n", f.Path, f.Size)
			}
		}
	}
	return textResult(b.String()), nil
}

func (s *Server) readSkillFile(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Name string `json:"name"`
		Path string `json:"path"`
	}
	if err := args(req, &in); err != nil {
		return nil, err
	}
	if msg := checkPath(in.Path); msg != "" {
		return errResult("read_skill_file: %s", msg), nil
	}
	v, res := s.open(ctx, "read_skill_file", in.Name)
	if res != nil {
		return res, nil
	}
	f := v.file(in.Path)
	if f == nil {
		return errResult("read_skill_file: skill %s v%d has no file %q: load_skill lists its files", v.Name, v.Version, in.Path), nil
	}
	if in.Path == "SKILL.md" {
		s.audit(req.Session, req.Extra, v.Skill, nil, "read_skill_file")
	}
	if !utf8.Valid(f.Data) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
			URI: skillURI(v.Name, f.Path), MIMEType: "application/octet-stream", Blob: f.Data}}}}, nil
	}
	return textResult(string(f.Data)), nil
}

// open reads a served skill for a tool, or returns the tool error to send.
func (s *Server) open(ctx context.Context, tool, name string) (*Version, *mcp.CallToolResult) {
	if name == "" || len(name) > maxNameLen {
		return nil, errResult("%s: give a skill's name (find_skills finds one)", tool)
	}
	if _, err := s.refresh(ctx); err != nil {
		return nil, errResult("%s: %v", tool, err)
	}
	if _, ok := s.served(name); !ok {
		return nil, errResult("%s: no skill %q is served here: find_skills finds one by words", tool, name)
	}
	v, err := s.cat.Open(ctx, name)
	switch {
	case errors.Is(err, ErrUnknownSkill):
		return nil, errResult("%s: no skill %q is served here: find_skills finds one by words", tool, name)
	case err != nil:
		return nil, errResult("%s: skill %s: %v", tool, name, err)
	}
	return v, nil
}

// checkPath says what is wrong with a file path asked for ("" if
// nothing): it must be a clean path inside the skill folder. The file is
// looked up in the version's list only, so no path ever reaches a disk.
func checkPath(p string) string {
	switch {
	case p == "":
		return "give a file's path, as load_skill lists it"
	case len(p) > maxPathLen:
		return fmt.Sprintf("the path is %d bytes, over %d", len(p), maxPathLen)
	case strings.HasPrefix(p, "/") || strings.Contains(p, "\\") || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../"):
		return fmt.Sprintf("%q is not a path inside the skill: use one load_skill lists", p)
	}
	return ""
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}
