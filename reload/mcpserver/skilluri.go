package mcpserver

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/skillstore/skillstore/store"
)

// The Skills extension's URIs, skill://SKILL-PATH/FILE-PATH. The last
// segment of SKILL-PATH is the skill's name (its frontmatter name, which
// is also its own name in the store); what comes before it is a prefix
// that tells the store name and the version:
//
//	skill://NAME/PATH             managed skill NAME, its published version
//	skill://PLUGIN/NAME/PATH      PLUGIN:NAME, its published version
//	skill://~vN/NAME/PATH         managed skill NAME at version N
//	skill://PLUGIN~vN/NAME/PATH   PLUGIN:NAME at version N
//	skill://PLUGIN~/NAME/PATH     PLUGIN:NAME, published version, when a
//	                              managed skill is also named PLUGIN
//
// '~' is in no store name, so a first segment holding it never names a
// managed skill, and a pinned URI never reads as a published one. A
// managed skill's folder is the whole of skill://NAME, so a plugin of the
// same name takes the "PLUGIN~" form: its skills' URIs then never fall
// inside the managed skill's folder. Pinned versions are not listed by
// skills/list; skills/get, resources/read and resources/directory/read
// answer them, so a host can keep loading the version it approved.
//
// Store names are used as they are: plugin ids may hold '.' and '_',
// valid in a URI authority and path. A skill whose own name is no Agent
// Skills name (see refusal) is not in the extension at all.
const extScheme = "skill://"

// skillPath is the skill path of store name at version n (0: the
// published version).
func (x *extState) skillPath(name string, n int) string {
	plugin, own := store.SplitName(name)
	switch {
	case n > 0:
		return plugin + "~v" + strconv.Itoa(n) + "/" + own
	case plugin == "":
		return own
	case x.isManaged(plugin):
		return plugin + "~/" + own
	}
	return plugin + "/" + own
}

// skillURIPath is the URI of file (a path in the skill; "" for its
// folder) of the skill at skill path p. Each segment of file is escaped
// as a URI path segment; store names need no escaping.
func skillURIPath(p, file string) string {
	if file == "" {
		return extScheme + p
	}
	segs := strings.Split(file, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return extScheme + p + "/" + strings.Join(segs, "/")
}

// skillAddr is what a skill:// URI names.
type skillAddr struct {
	name    string // store name; "" for a plugin's folder
	plugin  string // the plugin of a plugin's folder (skill://PLUGIN)
	version int    // 0: the published version
	file    string // path in the skill; "" for its folder
}

// parseSkillURI reads uri against the served set. A URI that names
// nothing served, or names it in a form other than its own, is an error
// saying so.
func (x *extState) parseSkillURI(uri string) (skillAddr, error) {
	rest, ok := strings.CutPrefix(uri, extScheme)
	if !ok || strings.HasPrefix(rest, "/") {
		return skillAddr{}, fmt.Errorf("%s is not a skill:// URI of this server", uri)
	}
	if strings.ContainsAny(rest, "?#") {
		return skillAddr{}, fmt.Errorf("%s: a skill URI has no query or fragment", uri)
	}
	decoded, err := url.PathUnescape(rest)
	if err != nil {
		return skillAddr{}, fmt.Errorf("%s: %v", uri, err)
	}
	segs := strings.Split(decoded, "/")
	for _, s := range segs {
		if s == "" {
			return skillAddr{}, fmt.Errorf("%s has an empty path segment", uri)
		}
	}
	auth := segs[0]
	var a skillAddr
	if plugin, ver, tilde := strings.Cut(auth, "~"); tilde {
		if len(segs) == 1 && ver == "" && x.isManaged(plugin) && x.plugins[plugin] {
			return skillAddr{plugin: plugin}, nil // the folder of a plugin named like a managed skill
		}
		if len(segs) < 2 {
			return skillAddr{}, fmt.Errorf("%s names no skill after %q", uri, auth)
		}
		if ver != "" {
			n, err := strconv.Atoi(strings.TrimPrefix(ver, "v"))
			if !strings.HasPrefix(ver, "v") || err != nil || n < 1 || strconv.Itoa(n) != ver[1:] {
				return skillAddr{}, fmt.Errorf("%s: %q is not a version: write ~v1, ~v2 and so on", uri, "~"+ver)
			}
			a.version = n
		} else if plugin == "" || !x.isManaged(plugin) {
			return skillAddr{}, fmt.Errorf("%s: %q is written %q here", uri, auth+"/"+segs[1], x.skillPath(store.QualifiedName(plugin, segs[1]), 0))
		}
		a.name, a.file = store.QualifiedName(plugin, segs[1]), strings.Join(segs[2:], "/")
	} else if x.isManaged(auth) {
		a.name, a.file = auth, strings.Join(segs[1:], "/")
	} else if x.plugins[auth] {
		if len(segs) == 1 {
			return skillAddr{plugin: auth}, nil
		}
		a.name, a.file = store.QualifiedName(auth, segs[1]), strings.Join(segs[2:], "/")
	} else {
		return skillAddr{}, fmt.Errorf("no skill is served at %s", uri)
	}
	if a.file != "" {
		if msg := checkPath(a.file); msg != "" {
			return skillAddr{}, fmt.Errorf("%s: %s", uri, msg)
		}
	}
	return a, nil
}
