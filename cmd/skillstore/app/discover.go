package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/discover"
)

// DiscoverWith runs discovery with the --skill-dir roots first.
func DiscoverWith(ctx context.Context, g Global, skillDirs []string) (*discover.Result, error) {
	if err := checkSkillDirs(skillDirs); err != nil {
		return nil, err
	}
	opts := discover.FromEnvironment(skillDirs)
	opts.Logger = g.Log
	res, err := discover.Discover(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("discover skills: %w", err)
	}
	return res, nil
}

// checkSkillDirs refuses a --skill-dir that is not a folder: a root the
// user named explicitly and mistyped would otherwise just find nothing.
func checkSkillDirs(dirs []string) error {
	for _, d := range dirs {
		info, err := os.Stat(d)
		switch {
		case err != nil && errors.Is(err, fs.ErrNotExist):
			return WithHint(UsageErrorf("--skill-dir %s: no such folder", d), "check the path; --skill-dir names a folder holding skill folders")
		case err != nil:
			return WithHint(UsageErrorf("--skill-dir %s: %v", d, err), "check the path; --skill-dir names a folder holding skill folders")
		case !info.IsDir():
			return WithHint(UsageErrorf("--skill-dir %s: not a folder", d), "check the path; --skill-dir names a folder holding skill folders")
		}
	}
	return nil
}

// SkillView is a skill in discover's and doctor's JSON output.
type SkillView struct {
	ID            string            `json:"id"`
	Name          string            `json:"name"`
	Namespace     string            `json:"namespace,omitempty"`
	QualifiedName string            `json:"qualified_name"`
	Description   string            `json:"description"`
	Layer         discover.Layer    `json:"layer"`
	Root          string            `json:"root"`
	Dir           string            `json:"dir"`
	Path          string            `json:"path"`
	Status        string            `json:"status"`
	ShadowedBy    *originView       `json:"shadowed_by,omitempty"`
	BodyHash      string            `json:"body_hash,omitempty"`
	Agent         string            `json:"agent,omitempty"`
	Plugin        string            `json:"plugin,omitempty"`
	Copy          discover.CopyKind `json:"copy,omitempty"`
	// FrontmatterFields is every frontmatter key, typed where skillstore
	// knows it (Claude Code's extensions included).
	FrontmatterFields map[string]any        `json:"frontmatter_fields,omitempty"`
	Diagnostics       []discover.Diagnostic `json:"diagnostics,omitempty"`
	AgentIssues       []discover.AgentIssue `json:"agent_issues,omitempty"`
}

type originView struct {
	Layer discover.Layer `json:"layer"`
	Dir   string         `json:"dir"`
}

func SkillStatus(s *discover.Skill) string {
	switch {
	case !s.Loads():
		return "broken"
	case s.ShadowedBy != nil:
		return "shadowed"
	}
	return "active"
}

func NewSkillView(s *discover.Skill, withDetails bool) SkillView {
	v := SkillView{
		ID: s.ID, Name: s.Name, Namespace: s.Namespace, QualifiedName: s.QualifiedName(),
		Description: s.Description, Layer: s.Layer, Root: s.Root, Dir: s.Dir, Path: s.Path(),
		Status: SkillStatus(s), BodyHash: s.BodyHash, Agent: s.Agent, Plugin: s.Plugin, Copy: s.Copy,
	}
	if s.File != nil {
		v.FrontmatterFields = s.File.Frontmatter.Fields()
	}
	if s.ShadowedBy != nil {
		v.ShadowedBy = &originView{Layer: s.ShadowedBy.Layer, Dir: s.ShadowedBy.Dir}
	}
	if withDetails {
		v.Diagnostics = s.Diagnostics
		v.AgentIssues = discover.AgentIssues(s)
	}
	return v
}

// DiscoverOptions are discover's, doctor's and prompt's: SkillDirs are
// searched before every other root.
type DiscoverOptions struct {
	Global
	Output
	SkillDirs []string
}

// Discover lists every skill found in the layered skill roots.
func Discover(ctx context.Context, opts DiscoverOptions) error {
	res, err := DiscoverWith(ctx, opts.Global, opts.SkillDirs)
	if err != nil {
		return err
	}
	if opts.JSON {
		out := struct {
			Roots  []discover.Root `json:"roots"`
			Skills []SkillView     `json:"skills"`
		}{Roots: res.Roots, Skills: []SkillView{}}
		for _, s := range res.Skills {
			out.Skills = append(out.Skills, NewSkillView(s, false))
		}
		return cliout.JSON(opts.Stdout, out)
	}
	if len(res.Skills) == 0 {
		cliout.Println(opts.Stdout, "no skills found; run 'skillstore doctor' to see where skillstore looked")
		return nil
	}
	WriteSkillTable(opts.Stdout, res.Skills)
	return nil
}

// WriteSkillTable prints one line per skill: qualified name, layer,
// status, origin folder and, for a shadowed skill, the folder that wins.
func WriteSkillTable(w io.Writer, skills []*discover.Skill) {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
	cliout.Printf(tw, "NAME\tLAYER\tSTATUS\tORIGIN\tSHADOWED BY\n")
	for _, s := range skills {
		by := ""
		if s.ShadowedBy != nil {
			by = s.ShadowedBy.Layer.String() + " " + DisplayPath(s.ShadowedBy.Dir)
		}
		cliout.Printf(tw, "%s\t%s\t%s\t%s\t%s\n", s.QualifiedName(), s.Layer, SkillStatus(s), DisplayPath(s.Dir), by)
	}
	tw.Flush()
	// An empty last column leaves padding behind; trim it.
	for _, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		cliout.Println(w, strings.TrimRight(line, " "))
	}
}
