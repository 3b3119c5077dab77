package projectlock

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/skillstore/skillstore/internal/gitfetch"
	"github.com/skillstore/skillstore/internal/semver"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/internal/skillsel"
	"github.com/skillstore/skillstore/reload/target"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/plugins"
	"github.com/skillstore/skillstore/store/remote"
)

// Every part of a lock file is checked as the commands check what a user
// types (plugin ids and skill names as plugin add and the store name them,
// URLs with gitfetch.CheckURL, target names as target add), and more
// strictly where a lock file has no business being loose: a URL must be
// absolute, a target's folder a clean path inside the project, ids and
// trees full 40-digit hashes.

// checker validates a lock file's entries and keeps the problems.
type checker struct {
	file     string
	data     []byte
	problems []Problem
	plugins  map[string]bool // the plugin ids kept
	refused  map[string]bool // the plugin ids refused
	skills   map[string]bool // the skill names kept
	targets  map[string]bool // the target names and folders kept
}

// problem notes a refused part; field, when not "", is the field at fault
// inside e, whose line is then given.
func (c *checker) problem(e element, part string, err error) {
	c.problems = append(c.problems, Problem{File: c.file, Line: lineAt(c.data, e.offset), Part: part, Err: err})
}

// decodeProblem notes an entry that does not decode: named by what of it
// decoded (name), at the line of the unknown field when that is the fault.
func (c *checker) decodeProblem(e element, kind, name string, err error) {
	part := kind
	if name != "" {
		part += " " + quoteName(name)
	} else if kind != "remote" {
		part = "a " + kind
	}
	if m := unknownFieldRE().FindStringSubmatch(err.Error()); m != nil {
		c.fieldProblem(e, part, m[1], errors.New("not a field of the format (misspelt?): the entry is refused"))
		return
	}
	c.problem(e, part, err)
}

// fieldProblem is problem with the line of field inside e.
func (c *checker) fieldProblem(e element, part, field string, err error) {
	at := e.offset
	if i := bytes.Index(e.raw, []byte(`"`+field+`"`)); i >= 0 {
		at += i
	}
	c.problems = append(c.problems, Problem{File: c.file, Line: lineAt(c.data, at), Part: part, Err: fmt.Errorf("%s: %w", field, err)})
}

// Compiled on first use rather than at start-up, which every command pays.
var (
	hashRE         = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{40}$`) })
	versionRE      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^v[1-9][0-9]{0,8}$`) })
	refRE          = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._/-]{0,199}$`) })
	unknownFieldRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`unknown field "([^"]+)"`) })
	schemeRE       = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([a-z][a-z0-9+.-]*)://`) })
	scpRE          = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^/-]`) })
)

func (c *checker) remote(e element) *Remote {
	var r Remote
	if err := decodeStrict(e.raw, &r); err != nil {
		c.decodeProblem(e, "remote", "", err)
		return nil
	}
	var err error
	switch {
	case r.Name == "" || r.URL == "":
		err = errors.New(`give "name" and "url"`)
	default:
		if err = checkURL(r.URL, "git"); err == nil {
			err = remote.CheckRemote(r.Name, r.URL)
		}
	}
	if err == nil && hasPassword(r.URL) {
		err = errors.New("the URL holds a password: a lock file is shared, give the URL without it (git's credential helpers supply it)")
	}
	if err != nil {
		c.fieldProblem(e, "remote", "url", err)
		return nil
	}
	return &r
}

func (c *checker) plugin(e element) (Plugin, bool) {
	var p Plugin
	if err := decodeStrict(e.raw, &p); err != nil {
		c.decodeProblem(e, "plugin", p.ID, err)
		return p, false
	}
	part := "plugin " + quoteName(p.ID)
	if field, err := checkPlugin(&p); err != nil {
		if skillfs.CheckName(p.ID) == nil {
			c.refused[p.ID] = true
		}
		c.fieldProblem(e, part, field, err)
		return p, false
	}
	if c.plugins[p.ID] {
		c.fieldProblem(e, part, "id", errors.New("listed twice: this entry is ignored"))
		return p, false
	}
	c.plugins[p.ID] = true
	return p, true
}

// checkPlugin checks a plugin entry, cleaning its path; field names the
// field at fault.
func checkPlugin(p *Plugin) (field string, err error) {
	if err := skillfs.CheckName(p.ID); err != nil {
		return "id", err
	}
	src := lockSource(*p)
	if !src.Fetched() && p.Kind != string(plugins.SourceFolder) {
		return "kind", fmt.Errorf("%q: a source is \"git\", \"folder\", \"archive\", \"skill-md\", \"well-known\" or \"npm\"", p.Kind)
	}
	if src.Fetched() && p.Kind != string(plugins.SourceGit) {
		if u, err := url.Parse(p.URL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return "url", fmt.Errorf("%q: a %s source is an http(s) URL", p.URL, p.Kind)
		}
		if p.Ref != "" || p.Path != "" {
			return "kind", fmt.Errorf("a %s source has no ref or path", p.Kind)
		}
	}
	if p.SHA256 != "" {
		if err := plugins.CheckSHA256(p.SHA256); err != nil {
			return "sha256", err
		}
	}
	if p.Tags != "" {
		if _, err := semver.ParseRange(p.Tags); err != nil {
			return "tags", err
		}
	}
	if err := checkURL(p.URL, p.Kind); err != nil {
		return "url", err
	}
	if p.Ref != "" && !validRef(p.Ref) {
		return "ref", fmt.Errorf("%q is not a branch, tag or commit name", p.Ref)
	}
	if p.Kind == string(plugins.SourceFolder) && (p.Ref != "" || p.Commit != "" || p.Path != "") {
		return "kind", errors.New("a folder source has no ref, commit or path")
	}
	if src.Fetched() && !hashRE().MatchString(p.Commit) {
		return "commit", fmt.Errorf("%q: a fetched source's commit is 40 lowercase hex digits", p.Commit)
	}
	if p.Path != "" {
		src, err := (plugins.Source{Kind: plugins.SourceGit, URL: p.URL}).WithPath(p.Path)
		if err != nil {
			return "path", err
		}
		if src.Path != p.Path {
			return "path", fmt.Errorf("%q: write the folder as %q", p.Path, src.Path)
		}
	}
	if p.Selector != "" {
		if err := skillfs.CheckName(p.Selector); err != nil {
			return "selector", err
		}
	}
	for _, pat := range p.Select {
		if err := plugins.CheckSkillPattern(pat); err != nil {
			return "select", err
		}
	}
	return "", nil
}

// checkURL refuses a source or remote URL that is not an absolute git
// address: control characters (gitfetch.CheckURL), a leading '-' (a git
// option), schemes git runs commands for (ext::) or skillstore does not
// speak, relative paths (they would name a folder of whoever runs install).
func checkURL(raw, kind string) error {
	if raw == "" {
		return errors.New("empty")
	}
	if _, err := gitfetch.CanonicalURL(raw); err != nil {
		return err
	}
	if strings.HasPrefix(raw, "-") {
		return fmt.Errorf("%q starts with '-'", raw)
	}
	if kind == string(plugins.SourceFolder) {
		if !strings.HasPrefix(raw, "/") {
			return fmt.Errorf("%q: a folder source is an absolute path", raw)
		}
		return nil
	}
	if m := schemeRE().FindStringSubmatch(raw); m != nil {
		switch m[1] {
		case "https", "http", "ssh", "git", "file":
			return nil
		}
		return fmt.Errorf("%q: scheme %q is not one skillstore fetches (https, http, ssh, git, file)", raw, m[1])
	}
	if scpRE().MatchString(raw) || strings.HasPrefix(raw, "/") {
		return nil
	}
	return fmt.Errorf("%q is not an absolute git URL or path", raw)
}

// validRef accepts the branch, tag and commit names git accepts, more
// strictly: no "..", no "//", no ".lock" or '/' at the end.
func validRef(ref string) bool {
	return refRE().MatchString(ref) && !strings.Contains(ref, "..") && !strings.Contains(ref, "//") &&
		!strings.HasSuffix(ref, "/") && !strings.HasSuffix(ref, ".lock") && !strings.HasSuffix(ref, ".")
}

func hasPassword(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return false
	}
	_, ok := u.User.Password()
	return ok
}

func (c *checker) skill(e element) (Skill, bool) {
	var s Skill
	if err := decodeStrict(e.raw, &s); err != nil {
		c.decodeProblem(e, "skill", s.Name, err)
		return s, false
	}
	part := "skill " + quoteName(s.Name)
	field, err := "", error(nil)
	plugin, _ := store.SplitName(s.Name)
	switch {
	case store.CheckQualifiedName(s.Name) != nil:
		field, err = "name", store.CheckQualifiedName(s.Name)
	case store.IsPluginParts(s.Name):
		field, err = "name", errors.New("a plugin's parts are not exported to a skills folder: not part of a lock")
	case plugin != "" && c.refused[plugin]:
		field, err = "name", fmt.Errorf("its plugin %s is refused (see above)", plugin)
	case plugin != "" && !c.plugins[plugin]:
		field, err = "name", fmt.Errorf("plugin %s is not in the lock's plugins", plugin)
	case !hashRE().MatchString(s.Tree):
		field, err = "tree", fmt.Errorf("%q: a tree id is 40 lowercase hex digits", s.Tree)
	case s.Version != "" && !versionRE().MatchString(s.Version):
		field, err = "version", fmt.Errorf("%q: a version is v followed by its number (v1, v2)", s.Version)
	case c.skills[s.Name]:
		field, err = "name", errors.New("listed twice: this entry is ignored")
	}
	if err != nil {
		c.fieldProblem(e, part, field, err)
		return s, false
	}
	c.skills[s.Name] = true
	// A managed skill has no upstream: its version can only come from the
	// team remote, whatever the file says.
	s.Local = s.Local || plugin == ""
	return s, true
}

func (c *checker) target(e element) (Target, bool) {
	var t Target
	if err := decodeStrict(e.raw, &t); err != nil {
		c.decodeProblem(e, "target", t.Name, err)
		return t, false
	}
	part := "target " + quoteName(t.Name)
	if c.targets == nil {
		c.targets = map[string]bool{}
	}
	field, err := "", error(nil)
	switch {
	case target.CheckName(t.Name) != nil:
		field, err = "name", target.CheckName(t.Name)
	case checkProjectDir(t.Dir) != nil:
		field, err = "dir", checkProjectDir(t.Dir)
	case c.targets["name:"+t.Name]:
		field, err = "name", errors.New("listed twice: this entry is ignored")
	case c.targets["dir:"+t.Dir]:
		field, err = "dir", errors.New("another target of the lock has this folder: this entry is ignored")
	case len(t.Skills) > maxEntries:
		field, err = "skills", fmt.Errorf("more than %d skills", maxEntries)
	}
	for _, f := range []struct {
		name string
		pats []string
	}{{"select", t.Select}, {"except", t.Except}} {
		for _, g := range f.pats {
			if perr := skillsel.Check(g); err == nil && perr != nil {
				field, err = f.name, perr
			}
		}
	}
	if err != nil {
		c.fieldProblem(e, part, field, err)
		return t, false
	}
	c.targets["name:"+t.Name], c.targets["dir:"+t.Dir] = true, true
	kept := make([]string, 0, len(t.Skills))
	seen := map[string]bool{}
	for _, n := range t.Skills {
		switch {
		case !c.skills[n]:
			c.fieldProblem(e, fmt.Sprintf("%s, skill %s", part, quoteName(n)), "skills", errors.New("not a skill of the lock (or refused above): left out of the target"))
		case !seen[n]:
			seen[n] = true
			kept = append(kept, n)
		}
	}
	t.Skills = kept
	return t, true
}

// checkProjectDir accepts a target's folder as a lock file may name it:
// relative to the project's root, clean, slash-separated, inside the
// project, never the root itself nor inside .git (in any spelling a file
// system resolves to it). Symbolic links are checked when the folder is
// used (see install.go): the file cannot say where they point.
func checkProjectDir(dir string) error {
	if dir == "" || dir == "." {
		return errors.New("a target's folder is a folder inside the project, not its root")
	}
	if len(dir) > 1 && dir[1] == ':' {
		return fmt.Errorf("%q must be a path relative to the project", dir)
	}
	if err := skillfs.CheckPath(dir); err != nil {
		return fmt.Errorf("%w: a target's folder is a clean path inside the project", err)
	}
	if strings.ContainsFunc(dir, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return fmt.Errorf("%q holds a control character", dir)
	}
	return nil
}
