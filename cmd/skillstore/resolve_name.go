package main

import (
	"errors"

	"github.com/urfave/cli/v2"

	"github.com/skillstore/skillstore/store"
)

// Every command that takes a skill resolves what was typed first: the
// qualified name PLUGIN:NAME always, or a short NAME that one published
// skill has (store.Reader.ResolveSkill). The store calls that follow take
// the resolved name, and what they print names the skill as the store does.

// resolveSpecArg resolves the skill of a NAME[@VERSION] argument, keeping
// the version: "access@v2" may become "chat:access@v2".
func resolveSpecArg(c *cli.Context, s *store.Store, spec string) (string, error) {
	return s.ResolveSpec(c.Context, spec)
}

// resolveNameArg resolves one skill name argument.
func resolveNameArg(c *cli.Context, s *store.Store, name string) (string, error) {
	return s.ResolveSkill(c.Context, name)
}

// resolveCandidateArg resolves the skill a candidates command names
// (store.Reader.ResolveCandidateName: a candidate may wait for a skill not yet
// published); a name with neither is passed on as typed, and the store
// says there is no candidate.
func resolveCandidateArg(c *cli.Context, s *store.Store, name string) (string, error) {
	return s.ResolveCandidateName(c.Context, name)
}

// candidateSkillArg is oneArg for the candidates commands: run gets the
// resolved skill name.
func candidateSkillArg(run func(c *cli.Context, skill string) error) cli.ActionFunc {
	return oneArg("SKILL", func(c *cli.Context, arg string) error {
		s, err := openStore(c)
		if err != nil {
			return err
		}
		skill, err := resolveCandidateArg(c, s, arg)
		if err != nil {
			return err
		}
		return run(c, skill)
	})
}

// pluginSkillArgs reads the PLUGIN SKILL arguments of 'plugin adopt' and
// 'plugin link', where SKILL is the skill's own name; PLUGIN:SKILL is
// accepted for it too, when PLUGIN is the plugin named first.
func pluginSkillArgs(c *cli.Context) (id, skill string, err error) {
	id, skill = c.Args().Get(0), c.Args().Get(1)
	if plugin, short := store.SplitName(skill); plugin != "" {
		if plugin != id {
			return "", "", usageErrorf("%s names plugin %s's skill, not one of plugin %s", skill, plugin, id)
		}
		skill = short
	}
	return id, skill, nil
}

// skillCompletions offers every skill by its store name and, for a
// plugin's skill whose short name no other skill has, by that short name
// too (what ResolveSkill accepts).
func skillCompletions(skills []store.SkillInfo) []string {
	shortCount := map[string]int{}
	for _, sk := range skills {
		_, short := store.SplitName(sk.Name)
		shortCount[short]++
	}
	var out []string
	for _, sk := range skills {
		desc := oneLine(sk.Description)
		out = append(out, sk.Name+"\t"+desc)
		if plugin, short := store.SplitName(sk.Name); plugin != "" && shortCount[short] == 1 && !store.IsPluginParts(sk.Name) {
			out = append(out, short+"\t"+desc+" ("+sk.Name+")")
		}
	}
	return out
}

// resolveCaptureArgs resolves the skills capture is limited to; a name no
// published skill has is kept as typed, for capture to report that no
// target has edits of it.
func resolveCaptureArgs(c *cli.Context, s *store.Store, names []string) ([]string, error) {
	out := make([]string, len(names))
	for i, name := range names {
		resolved, err := s.ResolveSkill(c.Context, name)
		switch {
		case errors.As(err, new(*store.UnknownSkillError)):
			out[i] = name
		case err != nil:
			return nil, err
		default:
			out[i] = resolved
		}
	}
	return out, nil
}
