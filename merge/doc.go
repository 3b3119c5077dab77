// Package merge merges three versions of a skill: base (the last accepted
// upstream), ours (the published version with local edits) and theirs (the
// new upstream). It produces the merged skill or an exact account of its
// conflicts. It is pure: bytes and trees in, bytes and trees out, no git and
// no file I/O.
//
// Three levels build on each other:
//
//   - [Text] merges a text file line by line with the semantics and output
//     of git merge-file, byte for byte (package
//     [github.com/skillstore/skillstore/merge/diff3], which has no
//     dependency beyond the standard library). A change
//     made on one side is taken, the same change made on both sides is
//     taken once, and changes that overlap or touch are a conflict: written
//     between git's markers in the [Diff3], [Plain] or [ZDiff3] [Style], and
//     listed in [TextResult.Conflicts] with their line ranges and texts.
//   - [SkillMD] merges a SKILL.md: its YAML frontmatter key by key (so an
//     upstream description change and a local allowed-tools addition on the
//     next line merge cleanly where git conflicts), with the text as the
//     truth (a key only one side changed keeps that side's bytes), its body
//     line by line, and falls back to [Text] on the whole file when a key
//     conflicts.
//   - [MergeTrees] merges skill folders ([Tree]) path by path, with modes,
//     symlinks, binary files, additions and deletions; its [TreeResult] is
//     clean, or lists every [PathConflict] by path and [ConflictKind].
//
// On top of the line merge, opt-in ([Options.SkillAware], or [Markdown]),
// skill-aware rules resolve some conflicts git leaves in Markdown: both
// sides inserting at one point ([RuleSections], [RuleInsertions]) and
// changes to the same or adjacent lines that are apart word by word
// ([RuleWords]), and lines one side added right before or after what the
// other rewrote ([RuleLines]). A clean line merge is never changed; a resolution keeps
// every word either side added and nothing either side deleted, and is
// listed ([Resolution], [TreeResult.Resolved]) so that it gets reviewed.
//
// Every merge is deterministic: the same inputs give the same bytes.
package merge
