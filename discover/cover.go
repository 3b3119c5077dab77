package discover

import "math/bits"

// Cover is what 'target detect' proposes for one scope (a home, or a
// project's root): the folders to export to so that every agent found
// reads the skills, with none of them reading a skill twice when that can
// be avoided.
type Cover struct {
	// Add are the folders to add targets for, besides the ones targets
	// already export to.
	Add []CoverFolder
	// Twice are the agents found that read two of the folders (the
	// existing and the proposed ones): they load a skill both hold twice.
	// Empty unless no choice of folders avoids it.
	Twice []TwiceRead
	// Unreached are agents found that no folder with a preset reaches
	// (none in the table today; kept so a new agent cannot be dropped
	// silently).
	Unreached []Agent
}

// CoverFolder is a folder the cover adds, the preset that exports there
// and the agents found that read it.
type CoverFolder struct {
	Dir     string
	Preset  Agent
	Reaches []Agent
}

// TwiceRead is an agent that reads several of the chosen folders.
type TwiceRead struct {
	Agent Agent
	Dirs  []string
}

// CoverAgents chooses, for the agents found at one scope, the folders to
// add to the existing ones (relative to the home, or to the project's
// root when project is set) so that every agent found reads at least one.
// Only folders a preset exports to are proposed (never a deprecated or
// admin folder). The choice is an exact search over the candidates (a
// handful): fewest agents found reading two folders, then fewest folders,
// then fewest of the other known agents reading two, then the most
// folders that are an agent's own (its export folder), then the most
// known agents reached (one installed later sees the skills), then the
// table's order.
func CoverAgents(found []Agent, existing []string, project bool) Cover {
	candidates := coverCandidates(found, existing, project)
	bestMask, bestKey := -1, [5]int{}
	for mask := 0; mask < 1<<len(candidates); mask++ {
		chosen := append(append([]string(nil), existing...), pick(candidates, mask)...)
		if len(unreached(found, chosen, project)) > 0 {
			continue
		}
		key := [5]int{len(twice(found, chosen, project)), bits.OnesCount(uint(mask)),
			len(twice(knownAgents(), chosen, project)), notOwn(found, pick(candidates, mask), project),
			-len(reachedBy(knownAgents(), chosen, project))}
		if bestMask < 0 || less(key, bestKey) {
			bestMask, bestKey = mask, key
		}
	}
	var c Cover
	if bestMask < 0 {
		// Cannot happen with the table as it is: every agent exports to
		// a folder it reads. Propose what reaches the rest.
		bestMask = 1<<len(candidates) - 1
	}
	chosen := append(append([]string(nil), existing...), pick(candidates, bestMask)...)
	for _, d := range pick(candidates, bestMask) {
		c.Add = append(c.Add, CoverFolder{Dir: d, Preset: presetFor(d, found, project), Reaches: reading(found, d, project)})
	}
	c.Twice = twice(found, chosen, project)
	c.Unreached = unreached(found, chosen, project)
	return c
}

// coverCandidates are the folders presets export to that an agent found
// reads, minus the existing ones, in the table's order.
func coverCandidates(found []Agent, existing []string, project bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range existing {
		seen[d] = true
	}
	for _, a := range agents {
		d := a.ExportDir(project)
		if seen[d] || len(reading(found, d, project)) == 0 {
			continue
		}
		seen[d] = true
		out = append(out, d)
	}
	return out
}

func pick(candidates []string, mask int) []string {
	var out []string
	for i, d := range candidates {
		if mask&(1<<i) != 0 {
			out = append(out, d)
		}
	}
	return out
}

func less(a, b [5]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// notOwn counts the folders of dirs that are no found agent's export
// folder (a shared folder such as .agents/skills for Gemini CLI alone).
func notOwn(found []Agent, dirs []string, project bool) int {
	n := 0
	for _, d := range dirs {
		own := false
		for _, a := range found {
			own = own || a.ExportDir(project) == d
		}
		if !own {
			n++
		}
	}
	return n
}

// reachedBy lists the agents of list that read one of chosen.
func reachedBy(list []Agent, chosen []string, project bool) []Agent {
	var out []Agent
	for _, a := range list {
		for _, d := range chosen {
			if a.Reads(d, project) {
				out = append(out, a)
				break
			}
		}
	}
	return out
}

// reading lists the agents of list that read dir.
func reading(list []Agent, dir string, project bool) []Agent {
	var out []Agent
	for _, a := range list {
		if a.Reads(dir, project) {
			out = append(out, a)
		}
	}
	return out
}

func unreached(found []Agent, chosen []string, project bool) []Agent {
	var out []Agent
	for _, a := range found {
		n := 0
		for _, d := range chosen {
			if a.Reads(d, project) {
				n++
			}
		}
		if n == 0 {
			out = append(out, a)
		}
	}
	return out
}

// twice lists the agents of list that read two or more of chosen.
func twice(list []Agent, chosen []string, project bool) []TwiceRead {
	var out []TwiceRead
	for _, a := range list {
		var dirs []string
		for _, d := range chosen {
			if a.Reads(d, project) {
				dirs = append(dirs, d)
			}
		}
		if len(dirs) > 1 {
			out = append(out, TwiceRead{Agent: a, Dirs: dirs})
		}
	}
	return out
}

// knownAgents are the table's agents, without the generic presets.
func knownAgents() []Agent {
	var out []Agent
	for _, a := range agents {
		if !a.Generic {
			out = append(out, a)
		}
	}
	return out
}

// presetFor is the preset that exports to dir: an agent found whose
// export folder it is, else a generic preset ("agents"), else the first
// in the table's order.
func presetFor(dir string, found []Agent, project bool) Agent {
	for _, a := range found {
		if a.ExportDir(project) == dir {
			return a
		}
	}
	var first *Agent
	for i, a := range agents {
		if a.ExportDir(project) != dir {
			continue
		}
		if a.Generic {
			return a
		}
		if first == nil {
			first = &agents[i]
		}
	}
	if first != nil {
		return *first
	}
	return Agent{}
}
