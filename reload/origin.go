package reload

import (
	"sort"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// Origin says which skill of the store a target folder holds when the
// folder alone does not say it: a plugin's skill "PLUGIN:NAME" is exported
// to a flat target as NAME, or, when another skill wanted there has the
// same short name, as PLUGIN-NAME with its frontmatter name adjusted to the
// folder (package target decides; see its flat.go). Export keeps the
// origin in the target's record beside the tree it wrote, so status and
// capture map a folder back to its skill and version, and a folder that
// changes hands is reported as such.
type Origin struct {
	// StoreName is the skill's name in the store when it differs from the
	// folder's name.
	StoreName string `json:"store_name,omitempty"`
	// StoreTree is the tree of the store's version when the folder's files
	// differ from it (the frontmatter name was adjusted); zero when the
	// folder holds that very tree.
	StoreTree skillfs.ID `json:"store_tree,omitzero"`
}

// Identity is the store name of the skill the folder named folder holds.
func (o Origin) Identity(folder string) string {
	if o.StoreName != "" {
		return o.StoreName
	}
	return folder
}

// with sets e's origin and returns e.
func (e *recordEntry) with(o Origin) *recordEntry {
	e.Origin = o
	return e
}

// sameVersion reports whether entry e records the version s would write,
// judged without reading s's files: by the store's tree when s's files
// are derived from it, else by the tree itself.
func (e *recordEntry) sameVersion(s Skill) bool {
	if e.StoreName != s.StoreName || !e.Pending.IsZero() {
		return false
	}
	if !s.StoreTree.IsZero() {
		return e.StoreTree == s.StoreTree
	}
	return !s.Tree.IsZero() && e.StoreTree.IsZero() && e.Tree == s.Tree
}

// identify turns the results' folder names into the skills' store names
// (keeping the folder in Folder when they differ) and notes folders that
// changed hands: Was names the skill a folder held before when another one
// takes it over, MovedFrom the folder a skill was exported to before, and
// MovedTo, on the removal of that folder, where the skill went. before
// is the record's origins as the export found them; set, the skills
// exported.
func identify(results []Result, set []Skill, before map[string]Origin) {
	now := make(map[string]Origin, len(set))
	at := make(map[string]string, len(set)) // identity → folder now
	for _, s := range set {
		now[s.Name] = s.Origin
		at[s.Origin.Identity(s.Name)] = s.Name
	}
	// Where each skill was before, by identity.
	was := make(map[string]string, len(before))
	for folder, o := range before {
		was[o.Identity(folder)] = folder
	}
	for i := range results {
		r := &results[i]
		folder := r.Skill
		o, inSet := now[folder]
		if !inSet {
			o = before[folder]
		}
		id := o.Identity(folder)
		if id != folder {
			r.Folder = folder
			r.Skill = id
		}
		if !inSet {
			if to, ok := at[id]; ok && to != folder {
				r.MovedTo = to
			}
			continue
		}
		if old, ok := before[folder]; ok && old.Identity(folder) != id {
			r.Was = old.Identity(folder)
		}
		if g, ok := was[id]; ok && g != folder {
			r.MovedFrom = g
		}
	}
	sort.SliceStable(results, func(i, j int) bool { return results[i].Skill < results[j].Skill })
}

// origins copies the record's origins.
func (r *record) origins() map[string]Origin {
	out := make(map[string]Origin, len(r.Skills))
	for name, e := range r.Skills {
		out[name] = e.Origin
	}
	return out
}

// Origins returns the origin export recorded for each folder of target
// that holds a skill under another name (see Origin); read without the
// target's lock, for filters that tolerate a record one export old.
func Origins(target string) (map[string]Origin, error) {
	r, err := readRecord(target)
	if err != nil {
		return nil, err
	}
	out := map[string]Origin{}
	for name, e := range r.Skills {
		if e.StoreName != "" {
			out[name] = e.Origin
		}
	}
	return out, nil
}
