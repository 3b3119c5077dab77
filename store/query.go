package store

import (
	"context"
	"sort"
	"strings"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/skillmd"
)

// SkillInfo is one line of a listing: the latest version's summary plus the
// skill's status.
type SkillInfo struct {
	Summary
	Status Status
	Reason string
}

// List returns every skill, sorted by name; removed skills only with all.
func (s *Store) List(ctx context.Context, all bool) ([]SkillInfo, error) {
	var out []SkillInfo
	err := s.View(ctx, func(r *Reader) error {
		var err error
		out, err = r.List(all)
		return err
	})
	return out, err
}

// List is Store.List inside a View or Update.
func (r *Reader) List(all bool) ([]SkillInfo, error) {
	sums, err := r.Summaries()
	if err != nil {
		return nil, err
	}
	recs := map[string]SkillRecord{}
	keys, err := r.SkillRecordNames()
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		rec, err := r.SkillRecord(k)
		if err != nil {
			return nil, err
		}
		recs[k] = rec
	}
	out := make([]SkillInfo, 0, len(sums))
	for name, sum := range sums {
		info := SkillInfo{Summary: sum, Status: StatusActive}
		if rec, ok := recs[name]; ok {
			info.Status, info.Reason = rec.Status, rec.Reason
			if rec.Source != "" {
				info.Source = rec.Source
			}
		}
		if info.Status == StatusRemoved && !all {
			continue
		}
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Details is everything show prints about a version.
type Details struct {
	Version Version
	Record  SkillRecord
	// Latest is the skill's latest version number.
	Latest int
	// Frontmatter is the raw YAML between SKILL.md's --- fences.
	Frontmatter string
	// Fields are the frontmatter's keys and values (discover.Frontmatter.Fields).
	Fields      map[string]any
	Description string
	Files       []File
}

// Show returns the details of the version named by spec.
func (s *Store) Show(ctx context.Context, spec string) (Details, error) {
	var d Details
	err := s.View(ctx, func(r *Reader) error {
		v, err := r.Resolve(spec)
		if err != nil {
			return err
		}
		head, err := r.Head(v.Skill)
		if err != nil {
			return err
		}
		rec, err := r.SkillRecord(v.Skill)
		if err != nil {
			return err
		}
		files, err := r.LoadFiles(v.Tree)
		if err != nil {
			return err
		}
		d = Details{Version: v, Record: rec, Latest: head.Number, Files: files}
		for _, f := range files {
			if f.Path == skillmd.FileName {
				d.Frontmatter = rawFrontmatter(f.Data)
				if sf, err := discover.Parse(f.Data); err == nil && sf != nil {
					d.Description = sf.Frontmatter.Description
					d.Fields = sf.Frontmatter.Fields()
				}
			}
		}
		for i := range d.Files {
			d.Files[i].Data = nil
		}
		return nil
	})
	return d, err
}

// rawFrontmatter returns the YAML between the fences (skillmd.Cut), with
// LF line ends and no final one; "" when there is no frontmatter.
func rawFrontmatter(data []byte) string {
	s, err := skillmd.Cut(data)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(strings.ReplaceAll(string(s.YAML), "\r\n", "\n"), "\n")
}

// Log returns every version of a skill, newest first.
func (s *Store) Log(ctx context.Context, name string) ([]Version, error) {
	var out []Version
	err := s.View(ctx, func(r *Reader) error {
		if err := CheckQualifiedName(name); err != nil {
			return err
		}
		var err error
		out, err = r.Versions(name)
		return err
	})
	return out, err
}

// Match is a search hit.
type Match struct {
	SkillInfo
	Score int
}

// Search ranks active and disabled skills whose name or description
// matches every word of term: an exact name first, then name prefixes,
// names containing the term, and description matches.
func (s *Store) Search(ctx context.Context, term string) ([]Match, error) {
	words := strings.Fields(strings.ToLower(term))
	skills, err := s.List(ctx, false)
	if err != nil || len(words) == 0 {
		return nil, err
	}
	var out []Match
	for _, sk := range skills {
		if score := searchScore(sk.Name, sk.Description, strings.ToLower(term), words); score > 0 {
			out = append(out, Match{SkillInfo: sk, Score: score})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

func searchScore(name, desc, term string, words []string) int {
	name, desc = strings.ToLower(name), strings.ToLower(desc)
	score := 0
	switch {
	case name == term:
		score += 1000
	case strings.HasPrefix(name, term):
		score += 500
	case strings.Contains(name, term):
		score += 300
	}
	for _, w := range words {
		inName, inDesc := strings.Contains(name, w), strings.Contains(desc, w)
		if !inName && !inDesc {
			return 0
		}
		if inName {
			score += 50
		}
		if inDesc {
			score += 10 + min(strings.Count(desc, w), 5)
		}
	}
	return score
}
