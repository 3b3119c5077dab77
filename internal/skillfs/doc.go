// Package skillfs is the one definition of a skill's files that every other
// package uses: a [File] (slash-separated path, [Mode], size, git blob [ID],
// content), the git object ids of blobs and trees, the one rule for what
// is never part of a skill ([Ignored]) and the one rule for a skill's name
// ([CheckName]). What is inside a SKILL.md is package skillmd's.
//
// A skill folder is handled flat, as a list of files; directories exist only
// in git's encoding, which [BuildTree] and [TreeID] produce exactly as
// `git write-tree` would, so that a folder on disk, a stored version and an
// exported copy are compared by comparing 20-byte ids.
//
// The package has no dependency beyond the standard library.
package skillfs

// BookkeepingDir is the hidden folder skillstore keeps inside an agent's
// skills folder for its records and staging. It is never a skill and never
// part of one.
const BookkeepingDir = ".skillstore"
