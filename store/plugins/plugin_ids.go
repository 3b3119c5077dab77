package plugins

import (
	"fmt"
	"slices"
	"strings"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store"
)

// Plugin ids are one namespace across every source: "ID:SKILL" names a
// skill everywhere, and refs and agents' folders are named after it. The
// rules, in order:
//
//   - --id, for a source that holds one plugin (or SOURCE#plugin);
//   - the plugin's name in its manifest or marketplace entry;
//   - for a source that names none, derivedPluginID: OWNER-REPO for a
//     remote repository, the folder's name for one on this machine.
//
// A marketplace's plugin whose name is taken by a plugin of another source
// is named "NAME-MARKETPLACE" (qualifiedEntryID): Claude Code writes
// NAME@MARKETPLACE, but '@' starts a version in "ID:SKILL@v3" and cannot
// be part of an id. The plugin record keeps the entry's name (Entry), so
// adding the marketplace again finds it under its new id.

// ChooseID picks a plugin's id: --id, the manifest's name, else the one
// derived from the source (derivedPluginID). A name from a manifest or a
// folder that a store cannot hold as an id ("Agent Tools", "My_Plugin!")
// is repaired, not refused: lowercased, what an id may not hold turned
// into '-', cut to the longest id (the report prints the id it got). Only
// --id, the user's own word, is taken as written (and checked).
func ChooseID(flag, name string, src Source) string {
	if flag != "" {
		return flag
	}
	if id := repairID(name); id != "" {
		return id
	}
	if id := repairID(derivedPluginID(src)); id != "" {
		return id
	}
	return derivedPluginID(src) // refused by the caller's check, with the name
}

// RepairedNote is the remark for a plugin whose id ChooseID repaired
// from name, "" when the id is the name.
func RepairedNote(id, name string) string {
	if name == "" || id == name || repairID(name) != id {
		return ""
	}
	return fmt.Sprintf("its manifest names it %q, which is no plugin id: added as %s (--id picks another)", name, id)
}

// repairID is name when it is a valid id, else its idSafe form cut to
// maxIDLen when that is one, else "".
func repairID(name string) string {
	if name == "" || skillfs.CheckName(name) == nil {
		return name
	}
	id := idSafe(name)
	id = strings.TrimRight(id[:min(len(id), maxIDLen)], "-._")
	if skillfs.CheckName(id) != nil {
		return ""
	}
	return id
}

// maxQualifiedTries bounds the numbered ids tried after NAME-MARKETPLACE.
const maxQualifiedTries = 99

// QualifiedID is the id of marketplace entry name when name itself
// is taken by a plugin of another source: "NAME-QUALIFIER", cut to the
// longest name allowed, then "NAME-QUALIFIER-2", "-3"... until one is
// free. claimed holds the ids this add has given but not written yet.
// qualifier is the marketplace's own name (marketplaceQualifier).
func QualifiedID(tx *store.Tx, name, qualifier string, claimed map[string]bool) (string, error) {
	base := idSafe(name + "-" + qualifier)
	for i := 1; i <= maxQualifiedTries; i++ {
		suffix := ""
		if i > 1 {
			suffix = fmt.Sprintf("-%d", i)
		}
		id := strings.TrimRight(base[:min(len(base), maxIDLen-len(suffix))], "-._") + suffix
		if skillfs.CheckName(id) != nil || claimed[id] {
			continue
		}
		if _, err := Get(tx.Reader, id); err != nil {
			return id, nil
		}
	}
	return "", fmt.Errorf("plugin %q: %w, and so are %s-%s and the numbered ids after it: add it alone with SOURCE#%s and --id NEW",
		name, ErrPluginExists, name, qualifier, name)
}

// maxIDLen is the longest plugin id (skillfs.CheckName's bound).
const maxIDLen = 64

// MarketplaceQualifier is what tells a marketplace's plugins from those of
// the same name elsewhere: the marketplace's "name" in marketplace.json
// (Claude Code's PLUGIN@MARKETPLACE) when it makes a valid id part, else
// the id derived from its repository.
func MarketplaceQualifier(manifestName string, src Source) string {
	if q := idSafe(manifestName); q != "" && skillfs.CheckName(q) == nil {
		return q
	}
	return derivedPluginID(src)
}

// maxListedPlugins bounds the plugins an error lists (the official
// directory has hundreds).
const maxListedPlugins = 20

// IDForOneError is --id given for a source of several plugins: it names
// them and says how to pick one.
func IDForOneError(src Source, id string, names []string) error {
	names = slices.DeleteFunc(slices.Sorted(slices.Values(names)), func(n string) bool { return n == "" })
	if len(names) == 0 {
		names = []string{"<plugin>"}
	}
	list := strings.Join(names[:min(len(names), maxListedPlugins)], ", ")
	if len(names) > maxListedPlugins {
		list += fmt.Sprintf(" and %d more", len(names)-maxListedPlugins)
	}
	loc := src.URL
	if src.Path != "" {
		loc += "#" + src.Path + "/" // a folder, told from a plugin by its '/'
	}
	return fmt.Errorf("--id names one plugin, and %s holds %d (%s): pick one with 'skillstore plugin add %s#%s --id %s', or leave --id out to add them all (a name another source holds already becomes NAME-MARKETPLACE)",
		src, len(names), list, loc, names[0], id)
}
