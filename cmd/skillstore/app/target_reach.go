package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/reload/target"
	"github.com/skillstore/skillstore/store"
)

// homeDir is the user's home, "" when unknown.
func homeDir() string {
	home, _ := os.UserHomeDir()
	return home
}

// DoubleLoads finds the agents that two targets reach with skills they
// both hold (target.DoubleLoads over the active published skills). A
// store that cannot be read gives none: the warning is advice.
func DoubleLoads(ctx context.Context, g Global, s *store.Store, targets []target.Target) []target.DoubleLoad {
	if len(targets) < 2 {
		return nil
	}
	published, err := target.Published(ctx, s)
	if err != nil {
		g.Log.Debug("double loads not checked", "err", err)
		return nil
	}
	names := make([]string, 0, len(published))
	for _, p := range published {
		if !store.IsPluginParts(p.Name) {
			names = append(names, p.Name)
		}
	}
	return target.DoubleLoads(targets, homeDir(), names)
}

// doublesOf are the double loads that involve the target named name.
func doublesOf(all []target.DoubleLoad, name string) []target.DoubleLoad {
	var out []target.DoubleLoad
	for _, d := range all {
		for _, t := range d.Targets {
			if t == name {
				out = append(out, d)
				break
			}
		}
	}
	return out
}

// WriteDoubleLoads prints one warning per set of targets, naming the
// agents that reach them all and the skills they share.
func WriteDoubleLoads(w io.Writer, doubles []target.DoubleLoad) {
	type group struct {
		agents []string
		d      target.DoubleLoad
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, d := range doubles {
		key := strings.Join(d.Targets, "\x00") + "\x00" + strings.Join(d.Skills, "\x00")
		g := byKey[key]
		if g == nil {
			g = &group{d: d}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.agents = append(g.agents, d.Title)
	}
	for _, g := range groups {
		times := "twice"
		if len(g.d.Targets) > 2 {
			times = "more than once"
		}
		cliout.Reportf(w, "    ", "warning: %s %s the folders of targets %s (%s); %s in %s of them %s loaded %s: give the targets disjoint skills with 'skillstore target set NAME --except PATTERN'\n",
			joinAnd(g.agents), readVerb(len(g.agents)), joinAnd(g.d.Targets), strings.Join(displayPaths(g.d.Dirs, g.d.Root), ", "),
			namesSummary(g.d.Skills, 5), bothOrSeveral(len(g.d.Targets)), isAre(len(g.d.Skills)), times)
	}
}

// warnDoubleLoads prints the double loads the target named name is part
// of (after target add or set).
func warnDoubleLoads(ctx context.Context, g Global, w io.Writer, s *store.Store, name string) {
	targets, err := target.List(ctx, s, nil)
	if err != nil {
		return
	}
	WriteDoubleLoads(w, doublesOf(DoubleLoads(ctx, g, s, targets), name))
}

func readVerb(n int) string {
	if n == 1 {
		return "reads"
	}
	return "read"
}

func bothOrSeveral(n int) string {
	if n == 2 {
		return "both"
	}
	return "several"
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// tilde shows a path in the home as ~/...
func tilde(p string) string {
	if home := homeDir(); home != "" && home != "/" {
		if rel, ok := strings.CutPrefix(p, home+string(os.PathSeparator)); ok {
			return "~/" + filepath.ToSlash(rel)
		}
	}
	return p
}

// displayPaths shows folders relative to root as ~/... or <project>/...
func displayPaths(rels []string, root string) []string {
	out := make([]string, len(rels))
	for i, r := range rels {
		if root == homeDir() {
			out[i] = "~/" + r
		} else {
			out[i] = root + "/" + r
		}
	}
	return out
}

// joinAnd lists names in prose: "a", "a and b", "a, b and c".
func joinAnd(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// namesSummary names up to n skills and counts the rest: "a, b and 3 more".
func namesSummary(names []string, n int) string {
	if len(names) <= n {
		return Plural(len(names), "skill") + " (" + joinAnd(names) + ")"
	}
	return fmt.Sprintf("%s (%s and %d more)", Plural(len(names), "skill"), strings.Join(names[:n], ", "), len(names)-n)
}
