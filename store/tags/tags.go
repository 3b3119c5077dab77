// Package tags keeps the tags a user puts on skills (skillstore tag), so
// a target can hold "@work" rather than a list of names. A tag is a state
// record, "tags/<tag>" holding the store names it tags: push sends it and
// pull merges it record by record, so a team shares its tags.
package tags

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/skillstore/skillstore/internal/skillsel"
	"github.com/skillstore/skillstore/store"
)

// kind is the tags' record kind in the state.
const kind = "tags"

// record is one tag's state record.
type record struct {
	Skills []string `json:"skills"`
}

// Read returns every tag and the skills it holds.
func Read(r *store.Reader) (skillsel.Tags, error) {
	keys, err := r.RecordKeys(kind)
	if err != nil {
		return nil, err
	}
	out := make(skillsel.Tags, len(keys))
	for _, k := range keys {
		var rec record
		if _, err := r.Record(kind+"/"+k, &rec); err != nil {
			return nil, err
		}
		set := make(map[string]bool, len(rec.Skills))
		for _, s := range rec.Skills {
			set[s] = true
		}
		out[k] = set
	}
	return out, nil
}

// List returns every tag's skills, sorted.
func List(ctx context.Context, s *store.Store) (map[string][]string, error) {
	out := map[string][]string{}
	err := s.View(ctx, func(r *store.Reader) error {
		all, err := Read(r)
		for tag, set := range all {
			out[tag] = sorted(set)
		}
		return err
	})
	return out, err
}

// NoMatchError names the patterns that select no skill of the store.
type NoMatchError struct{ Patterns []string }

func (e *NoMatchError) Error() string {
	return fmt.Sprintf("no skill matches %q", e.Patterns)
}

// Add tags with tag every skill one of patterns selects (skillsel
// patterns; @OTHER takes another tag's skills), and returns the skills
// newly tagged. A pattern that selects nothing is an error and nothing is
// written.
func Add(ctx context.Context, s *store.Store, tag string, patterns []string) ([]string, error) {
	if err := skillsel.CheckTag(tag); err != nil {
		return nil, err
	}
	var added []string
	err := s.Update(ctx, func(tx *store.Tx) error {
		all, err := Read(tx.Reader)
		if err != nil {
			return err
		}
		names, err := selectSkills(tx.Reader, patterns, all)
		if err != nil {
			return err
		}
		set := all[tag]
		if set == nil {
			set = map[string]bool{}
		}
		for _, n := range names {
			if !set[n] {
				set[n] = true
				added = append(added, n)
			}
		}
		if len(added) == 0 {
			return nil
		}
		tx.NoteState(fmt.Sprintf("tag %s: add %s", tag, skills(len(added))))
		return tx.PutRecord(kind+"/"+tag, record{Skills: sorted(set)})
	})
	return added, err
}

// Remove takes tag off the skills patterns select (every skill it holds,
// and the tag itself, when patterns is empty), and returns the skills
// untagged. Patterns are matched against the tag's skills, so a skill
// removed from the store can still be untagged.
func Remove(ctx context.Context, s *store.Store, tag string, patterns []string) ([]string, error) {
	var removed []string
	err := s.Update(ctx, func(tx *store.Tx) error {
		all, err := Read(tx.Reader)
		if err != nil {
			return err
		}
		set, ok := all[tag]
		if !ok {
			return fmt.Errorf("no tag named %q", tag)
		}
		var unmatched []string
		for _, p := range patterns {
			if err := skillsel.CheckPlain(p, LeaveOut); err != nil {
				return err
			}
			n := 0
			for name := range set {
				if skillsel.Match(p, name, all) {
					delete(set, name)
					removed = append(removed, name)
					n++
				}
			}
			if n == 0 {
				unmatched = append(unmatched, p)
			}
		}
		if len(unmatched) > 0 {
			return fmt.Errorf("tag %s holds no skill matching %q", tag, unmatched)
		}
		if len(patterns) == 0 {
			removed = sorted(set)
			set = nil
		}
		sort.Strings(removed)
		tx.NoteState(fmt.Sprintf("tag %s: remove %s", tag, skills(len(removed))))
		if len(set) == 0 {
			tx.DeleteRecord(kind + "/" + tag)
			return nil
		}
		return tx.PutRecord(kind+"/"+tag, record{Skills: sorted(set)})
	})
	return removed, err
}

// LeaveOut says what to give instead of '!PATTERN' to tag add and tag rm,
// which name the skills they change.
const LeaveOut = "a tag holds the skills named: name fewer, or take them off with 'skillstore tag rm TAG PATTERN'"

// selectSkills lists the store's skills (not removed, no plugin parts)
// that patterns select; a pattern selecting none is a *NoMatchError.
func selectSkills(r *store.Reader, patterns []string, all skillsel.Tags) ([]string, error) {
	infos, err := r.List(false)
	if err != nil {
		return nil, err
	}
	var out, unmatched []string
	for _, p := range patterns {
		if err := skillsel.CheckPlain(p, LeaveOut); err != nil {
			return nil, err
		}
		n := 0
		for _, info := range infos {
			if store.IsPluginParts(info.Name) || !skillsel.Match(p, info.Name, all) {
				continue
			}
			n++
			if !slices.Contains(out, info.Name) {
				out = append(out, info.Name)
			}
		}
		if n == 0 {
			unmatched = append(unmatched, p)
		}
	}
	if len(unmatched) > 0 {
		return nil, &NoMatchError{Patterns: unmatched}
	}
	return out, nil
}

// skills is "1 skill", "2 skills".
func skills(n int) string {
	if n == 1 {
		return "1 skill"
	}
	return fmt.Sprintf("%d skills", n)
}

func sorted(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
