package store

import "github.com/skillstore/skillstore/internal/skillmd"

// SkillMD reads the SKILL.md at the root of a skill's tree, reading no
// other file (the skills list export measures needs only the frontmatter
// of each skill); nil when the tree has none.
func (r *Reader) SkillMD(tree Hash) ([]byte, error) {
	entries, err := r.tree(tree)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Name == skillmd.FileName {
			return r.Blob(e.ID)
		}
	}
	return nil, nil
}
