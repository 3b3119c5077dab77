// Package npxhash computes the folder digest that 'npx skills' records as
// computedHash in a project's skills-lock.json (version 1), so adopt can
// tell which upstream version an installed skill came from when the lock
// gives no git tree id.
//
// The digest is one SHA-256 over the folder's regular files (symbolic
// links and other special files are not read; folders named .git or
// node_modules are skipped wherever they are), taken in the order of
// their slash-separated relative paths, each fed as the path's UTF-8
// bytes and then the file's bytes, with nothing between them. The order
// is JavaScript's String.prototype.localeCompare in Node's default
// locale: Unicode collation (ICU's root order), not byte order, so
// "references/x.md" comes before "SKILL.md". [Less] is that order for
// the paths skills use (ASCII, the case of letters compared after the
// letters themselves); other characters follow ASCII in code point order,
// a choice that can differ from ICU's for names in other scripts, in
// which case a digest does not match and adopt falls back on comparing
// trees.
package npxhash
