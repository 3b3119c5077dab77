package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/problem"
	"github.com/skillstore/skillstore/reload/target"
)

// agentFound is an agent target detect found, and what gave it away.
type agentFound struct {
	Agent string `json:"agent"`
	Title string `json:"title"`
	// Scope is "user", "project" or "admin" (a machine-wide folder the
	// agent reads, which skillstore never writes: Codex's /etc/codex/skills).
	Scope   string `json:"scope"`
	FoundBy string `json:"found_by"`
	agent   discover.Agent
}

// proposal is a folder that reaches agents found: a target already
// exporting there, or one to add.
type proposal struct {
	Name    string   `json:"name"`
	Preset  string   `json:"preset,omitempty"`
	Scope   string   `json:"scope"`
	Dir     string   `json:"dir"`
	ReadBy  []string `json:"read_by"`
	Target  string   `json:"target,omitempty"`  // the target already exporting there
	Command string   `json:"command,omitempty"` // what adds it otherwise
	// Refused says why the folder cannot be a target: a project's folder
	// reached through a link (target.CheckInProject).
	Refused string `json:"refused,omitempty"`
	refusal error
	project string
}

// refusedState is a refused proposal's state in target detect's table:
// what stands on the way, relative to the project.
func (pr proposal) refusedState() string {
	var out *target.OutsideProjectError
	if errors.As(pr.refusal, &out) && out.Entry != "" {
		if rel, err := filepath.Rel(out.Project, out.Entry); err == nil {
			return "refused: " + filepath.ToSlash(rel) + " is " + out.What
		}
	}
	return "refused: " + pr.Refused
}

// twiceView is an agent found that reads two of the folders.
type twiceView struct {
	Agent string   `json:"agent"`
	Scope string   `json:"scope"`
	Dirs  []string `json:"dirs"`
}

// detection is target detect's report.
type detection struct {
	Agents  []agentFound `json:"agents"`
	Targets []proposal   `json:"targets"`
	// LoadsTwice are agents found that read two of the folders (existing
	// or proposed), when no choice avoids it.
	LoadsTwice []twiceView `json:"loads_twice"`
}

// detectEnv is where detection looks: the home, the project's root ("" or
// the home: none), and the prefix of the admin folders ("" for /).
type detectEnv struct {
	home, project, adminRoot string
}

// findAgents finds the agents of the table used here: for the user by
// their folder in the home or their command on $PATH, or by an admin
// folder the agent reads; for the project by their entries in its root.
func findAgents(env detectEnv) []agentFound {
	var out []agentFound
	for _, a := range discover.Agents() {
		if a.Generic {
			continue
		}
		if by := foundBy(env.home, "~/", a.Markers); by != "" {
			out = append(out, agentFound{Agent: a.Name, Title: a.Title, Scope: "user", FoundBy: by, agent: a})
		} else if bin := onPath(a.Binaries); bin != "" {
			out = append(out, agentFound{Agent: a.Name, Title: a.Title, Scope: "user", FoundBy: bin + " on $PATH", agent: a})
		}
		for _, d := range a.AdminDirs {
			if isDir(filepath.Join(env.adminRoot, d)) {
				out = append(out, agentFound{Agent: a.Name, Title: a.Title, Scope: "admin", FoundBy: d, agent: a})
			}
		}
		if env.project != "" && env.project != env.home {
			if by := foundBy(env.project, "<project>/", a.ProjectMarkers); by != "" {
				out = append(out, agentFound{Agent: a.Name, Title: a.Title, Scope: "project", FoundBy: by, agent: a})
			}
		}
	}
	return out
}

// foundBy is the first of names present under base, shown with label.
func foundBy(base, label string, names []string) string {
	if base == "" {
		return ""
	}
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(base, filepath.FromSlash(n))); err == nil {
			return label + n
		}
	}
	return ""
}

// onPath is the first of the commands on $PATH, or "".
func onPath(commands []string) string {
	for _, c := range commands {
		if _, err := exec.LookPath(c); err == nil {
			return c
		}
	}
	return ""
}

func isDir(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}

// detect finds the agents and chooses, per scope, the folders that reach
// them (discover.CoverAgents), given the targets there already.
func detect(env detectEnv, targets []target.Target) detection {
	d := detection{Agents: findAgents(env), Targets: []proposal{}, LoadsTwice: []twiceView{}}
	if d.Agents == nil {
		d.Agents = []agentFound{}
	}
	names := map[string]bool{}
	for _, t := range targets {
		names[t.Name] = true
	}
	for _, scope := range []struct {
		name, root string
		project    bool
	}{{"user", env.home, false}, {"project", env.project, true}} {
		var found []discover.Agent
		for _, a := range d.Agents {
			if a.Scope == scope.name || a.Scope == "admin" && !scope.project {
				found = appendAgent(found, a.agent)
			}
		}
		if len(found) == 0 || scope.root == "" {
			continue
		}
		var existing []string
		for _, t := range targets {
			r := t.Reach(env.home)
			if r.Scope != scope.name || r.Root != scope.root || !readsAny(found, r.Rel, scope.project) {
				continue
			}
			existing = append(existing, r.Rel)
			d.Targets = append(d.Targets, proposal{Name: t.Name, Scope: scope.name, Dir: t.Dir, Target: t.Name,
				ReadBy: titles(readers(found, r.Rel, scope.project))})
		}
		cover := discover.CoverAgents(found, existing, scope.project)
		for _, f := range cover.Add {
			p := proposal{Preset: f.Preset.Name, Scope: scope.name, Dir: filepath.Join(scope.root, filepath.FromSlash(f.Dir)),
				ReadBy: titles(f.Reaches)}
			p.Name, p.Command = proposedName(f.Preset, scope.root, scope.project, p.Dir, names)
			if scope.project {
				p.project = scope.root
				if err := target.CheckInProject(scope.root, p.Dir); err != nil {
					p.Command, p.Refused, p.refusal = "", err.Error(), err
				}
			}
			names[p.Name] = true
			d.Targets = append(d.Targets, p)
		}
		for _, tw := range cover.Twice {
			v := twiceView{Agent: tw.Agent.Title, Scope: scope.name}
			for _, dir := range tw.Dirs {
				v.Dirs = append(v.Dirs, filepath.Join(scope.root, filepath.FromSlash(dir)))
			}
			d.LoadsTwice = append(d.LoadsTwice, v)
		}
	}
	return d
}

func appendAgent(list []discover.Agent, a discover.Agent) []discover.Agent {
	for _, b := range list {
		if b.Name == a.Name {
			return list
		}
	}
	return append(list, a)
}

func readers(list []discover.Agent, rel string, project bool) []discover.Agent {
	var out []discover.Agent
	for _, a := range list {
		if a.Reads(rel, project) {
			out = append(out, a)
		}
	}
	return out
}

func readsAny(list []discover.Agent, rel string, project bool) bool {
	return len(readers(list, rel, project)) > 0
}

func titles(list []discover.Agent) []string {
	out := []string{}
	for _, a := range list {
		out = append(out, a.Title)
	}
	return out
}

// proposedName names a proposed target and says how to add it: the
// preset's own name (PROJECT-PRESET in a project) when free, else one
// with a number.
func proposedName(a discover.Agent, root string, project bool, dir string, taken map[string]bool) (string, string) {
	base := a.Name
	if project {
		base = ProjectTargetName(root, a)
	}
	name := base
	for i := 2; taken[name]; i++ {
		name = fmt.Sprintf("%s-%d", base, i)
	}
	switch {
	case project && name == base:
		return name, "skillstore target add --project " + a.Name
	case project:
		return name, "skillstore target add --project " + a.Name + " " + name
	case name == base:
		return name, "skillstore target add " + a.Name
	}
	return name, "skillstore target add " + name + " " + dir
}

// detectHere is detect for this machine and the project holding the
// working directory.
func detectHere(ctx context.Context, targets []target.Target) detection {
	home, _ := os.UserHomeDir()
	root, _ := ProjectRoot(ctx)
	return detect(detectEnv{home: home, project: root}, targets)
}

// DetectTargets proposes targets for the agents found on this machine and
// in the project holding the working directory. Nothing is written.
func DetectTargets(ctx context.Context, opts TargetOptions) error {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	targets, err := target.List(ctx, s, nil)
	if err != nil {
		return err
	}
	d := detectHere(ctx, targets)
	if opts.JSON {
		return cliout.JSON(opts.Stdout, d)
	}
	writeDetection(opts.Stdout, d)
	return nil
}

func writeDetection(w io.Writer, d detection) {
	if len(d.Agents) == 0 {
		cliout.Println(w, "no agent found: add a folder with 'skillstore target add NAME DIR'")
		return
	}
	p := cliout.NewPainter(w)
	cliout.Println(w, "Agents found:")
	t := cliout.NewTable(-1)
	t.Add("  AGENT", "SCOPE", "FOUND BY")
	for _, a := range d.Agents {
		by := a.FoundBy
		if a.Scope == "admin" {
			by += " (read by the agent; skillstore never writes there)"
		}
		t.Add("  "+a.Title, a.Scope, by)
	}
	t.Write(w, p, 0)
	cliout.Println(w, "Targets that reach them (the fewest folders, none read twice by one agent where that can be avoided):")
	t = cliout.NewTable(-1)
	t.Add("  TARGET", "SCOPE", "FOLDER", "READ BY", "STATE")
	adds, refused := 0, 0
	for _, pr := range d.Targets {
		state := "target " + pr.Target
		switch {
		case pr.Refused != "":
			state, refused = pr.refusedState(), refused+1
		case pr.Target == "":
			state, adds = "not added: "+pr.Command, adds+1
		}
		t.Add("  "+pr.Name, pr.Scope, pr.Dir, strings.Join(pr.ReadBy, ", "), state)
	}
	t.Write(w, p, 0)
	writeLoadsTwice(w, d.LoadsTwice, "no choice of folders avoids it, so ")
	if refused > 0 {
		cliout.Println(w, "A project's target is reached inside the project without following links: replace the link with a plain folder to add it.")
	}
	if adds > 0 {
		cliout.Println(w, "Add the proposed targets with 'skillstore target add --detected'.")
	}
}

// AddDetected adds the targets target detect proposes.
func AddDetected(ctx context.Context, opts AddTargetOptions) error {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	targets, err := target.List(ctx, s, nil)
	if err != nil {
		return err
	}
	d := detectHere(ctx, targets)
	added := 0
	var refused []error
	for _, pr := range d.Targets {
		if pr.Target != "" {
			continue
		}
		t := target.Target{Name: pr.Name, Dir: pr.Dir, Project: pr.project, Skills: opts.Skills, Except: opts.Except, MaxBudget: opts.MaxBudget}
		// A folder refused is left out alone; the others are added.
		if err := target.Add(ctx, s, t); err != nil {
			refused = append(refused, err)
			continue
		}
		added++
		cliout.Printf(opts.Stdout, "added target %s: %s (read by %s)\n", pr.Name, pr.Dir, strings.Join(pr.ReadBy, ", "))
	}
	if len(refused) > 0 {
		writeLoadsTwice(opts.Stdout, d.LoadsTwice, "")
		return &notAddedError{Errs: refused}
	}
	if added == 0 {
		if len(d.Agents) == 0 {
			cliout.Println(opts.Stdout, "no agent found: add a folder with 'skillstore target add NAME DIR'")
		} else {
			cliout.Println(opts.Stdout, "every agent found is reached by a target already")
		}
	}
	writeLoadsTwice(opts.Stdout, d.LoadsTwice, "")
	return nil
}

// notAddedError lists the targets target add --detected proposed and
// could not add (the others were added).
type notAddedError struct{ Errs []error }

func (e *notAddedError) Error() string { return problem.Format(e.Summary(), e.Details()) }

// Summary says what failed.
func (e *notAddedError) Summary() string {
	return Plural(len(e.Errs), "target") + " proposed could not be added"
}

// Details are the refusals, one line each.
func (e *notAddedError) Details() []string {
	out := make([]string, len(e.Errs))
	for i, err := range e.Errs {
		out[i] = err.Error()
	}
	return out
}

// writeLoadsTwice warns once per set of folders about the agents that
// read them all.
func writeLoadsTwice(w io.Writer, twice []twiceView, why string) {
	var order []string
	agents := map[string][]string{}
	for _, tw := range twice {
		var dirs []string
		for _, d := range tw.Dirs {
			dirs = append(dirs, tilde(d))
		}
		key := strings.Join(dirs, " and ")
		if agents[key] == nil {
			order = append(order, key)
		}
		agents[key] = append(agents[key], tw.Agent)
	}
	for _, key := range order {
		cliout.Reportf(w, "    ", "warning: %s %s both %s: a skill in both is loaded twice; %sgive those targets disjoint skills (skillstore target set NAME --except PATTERN)\n",
			joinAnd(agents[key]), readVerb(len(agents[key])), key, why)
	}
}
