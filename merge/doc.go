// Package merge merges three versions of a skill: base (the last accepted
// upstream), ours (the published version with local edits) and theirs (the new
// upstream). It merges text line by line like git merge-file, SKILL.md
// frontmatter key by key, and whole trees path by path. It does no I/O.
package merge
