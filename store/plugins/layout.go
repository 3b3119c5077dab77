package plugins

import (
	"path"
	"strings"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/pluginfmt"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/internal/skillmd"
)

// readLayout reads the plugins a source provides with [pluginfmt.Read], the
// one function that decides a repository's layout. A single skill at the
// source's top is named by its SKILL.md's frontmatter name, else by the
// source's base name (see sourceBaseName).
func readLayout(fsys pluginfmt.PluginFS, src Source) (*pluginfmt.Layout, error) {
	return pluginfmt.Read(fsys, pluginfmt.Options{Selector: src.Selector, RootName: rootSkillName(fsys, src), Dialect: pluginfmt.Dialect(src.Dialect)})
}

// rootSkillName names the skill whose SKILL.md is at the top of fsys: the
// frontmatter's name when it is a valid skill name, else the source's base
// name. It is "" when there is no such SKILL.md.
func rootSkillName(fsys pluginfmt.PluginFS, src Source) string {
	data, err := pluginfmt.ReadRegular(fsys, skillmd.FileName, discover.MaxFileSize)
	if err != nil {
		return ""
	}
	if sf, err := discover.Parse(data); err == nil && skillfs.CheckName(sf.Frontmatter.Name) == nil {
		return sf.Frontmatter.Name
	}
	return sourceBaseName(src)
}

// sourceBaseName is the last element of the folder a source reads: its
// Path inside the repository, else its URL without ".git", lower-cased.
func sourceBaseName(src Source) string {
	if src.Path != "" {
		return strings.ToLower(path.Base(src.Path))
	}
	base := path.Base(strings.TrimSuffix(strings.TrimRight(strings.ReplaceAll(src.URL, "\\", "/"), "/"), ".git"))
	if i := strings.LastIndexAny(base, ":"); i >= 0 {
		base = base[i+1:]
	}
	return strings.ToLower(base)
}
