package target

import "path/filepath"

// A project's target (an agent's folder inside a project, such as
// <project>/.claude/skills) is recorded as the project's root and the
// folder relative to it, so the record says which project it belongs to
// and where in it; in memory Dir is always absolute.

// ProjectPath is the target's folder relative to its project's root, or ""
// for a target that belongs to no project.
func (t Target) ProjectPath() string {
	if t.Project == "" {
		return ""
	}
	rel, err := filepath.Rel(t.Project, t.Dir)
	if err != nil {
		return ""
	}
	return filepath.ToSlash(rel)
}

// toFile is the target as the records file holds it.
func (t Target) toFile() Target {
	if rel := t.ProjectPath(); rel != "" && Inside(t.Dir, t.Project) {
		t.Dir = rel
	}
	return t
}

// fromFile is the target read from the records file, Dir made absolute.
func (t Target) fromFile() Target {
	if t.Project != "" && !filepath.IsAbs(t.Dir) {
		t.Dir = filepath.Join(t.Project, filepath.FromSlash(t.Dir))
	}
	return t
}
