package discover

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillstore/skillstore/internal/pluginfmt"
)

// DefaultSystemDir is the machine-wide skill root.
const DefaultSystemDir = "/etc/skillstore/skills"

// DefaultMaxDepth bounds how deep a walk goes below a root, for discovery
// and import alike. A skill in openai/skills sits at depth 3
// (skills/.curated/pdf); a project's .agents/skills/pdf, when import walks a
// folder of repositories at depth 5 (repo/sub/.agents/skills/pdf). A skill
// folder one level past the bound is reported, not silently dropped.
const DefaultMaxDepth = 8

// Root is a directory searched for skill folders.
type Root struct {
	// Path is the absolute path of the root.
	Path  string `json:"path"`
	Layer Layer  `json:"layer"`
	// Label names the root's role the same way on every machine and
	// wherever the root lives ("~/.claude/skills", "<project>/.agents/skills",
	// "cli:1" for the first --skill-dir); it is part of skill IDs, so
	// moving a root does not change the IDs of its skills.
	Label string `json:"label"`
	// Agent is the agent whose view the root belongs to (AgentClaudeCode
	// for .claude folders and Claude Code plugins, AgentCodex for .agents
	// and .codex folders), or "" for roots every agent shares (skillstore's
	// own). Shadowing applies within one agent's view.
	Agent string `json:"agent,omitempty"`
	// Plugin is set on the roots of installed Claude Code plugins: the
	// plugin's name, which qualifies its skills as plugin:skill.
	Plugin string `json:"plugin,omitempty"`
	// Exists is set by Discover: false when the directory is absent.
	Exists bool `json:"exists"`

	// listedAt is the manifest line that names a manifest root.
	listedAt *Diagnostic
}

// Options says where and how to discover skills. The zero value searches
// nothing; FromEnvironment fills it the way the CLI does.
type Options struct {
	// CLIDirs are roots given on the command line, highest priority.
	CLIDirs []string
	// EnvPath is the value of $SKILLSTORE_PATH: roots separated by
	// os.PathListSeparator.
	EnvPath string
	// WorkDir is where the project layers start looking: a ManifestFile
	// and the agents' project folders (.claude/skills, .agents/skills, ...)
	// in WorkDir and each parent up to the repository root (the directory holding .git).
	// Empty means no project or manifest layer. It also picks the
	// project-scoped Claude Code plugins.
	WorkDir string
	// ConfigDir is the user's configuration directory ($XDG_CONFIG_HOME);
	// the config layer is ConfigDir/skillstore/skills. Empty means none.
	ConfigDir string
	// Home holds the user layer (the agents' folders, ~/.claude/skills,
	// ~/.agents/skills, ...; see Agents) and the plugin layer (the Claude Code plugins listed
	// in ~/.claude/plugins/installed_plugins.json). Empty means neither.
	Home string
	// SystemDirs are the system layer's roots.
	SystemDirs []string
	// Mode is how skills are validated; Lenient matches what agents load.
	Mode Mode
	// MaxDepth bounds the walk below each root (DefaultMaxDepth when 0).
	MaxDepth int
	// Workers bounds concurrent directory reads and parses (GOMAXPROCS when 0).
	Workers int
	// Logger receives debug messages about skipped folders (none when nil).
	Logger *slog.Logger
}

// FromEnvironment returns the options the CLI uses: the working directory,
// home, the XDG config directory, $SKILLSTORE_PATH and the system roots
// from $SKILLSTORE_SYSTEM_PATH (DefaultSystemDir when unset).
func FromEnvironment(cliDirs []string) Options {
	wd, _ := os.Getwd()
	home, _ := os.UserHomeDir()
	config, _ := os.UserConfigDir()
	system := []string{DefaultSystemDir}
	if v, ok := os.LookupEnv("SKILLSTORE_SYSTEM_PATH"); ok {
		system = filepath.SplitList(v)
	}
	return Options{CLIDirs: cliDirs, EnvPath: os.Getenv("SKILLSTORE_PATH"), WorkDir: wd, ConfigDir: config, Home: home, SystemDirs: system}
}

// cliLabel and friends label the roots that have no fixed place by their
// layer and position in it: the n-th --skill-dir is "cli:n" wherever it is.
func cliLabel(n int) string { return fmt.Sprintf("cli:%d", n) }

// Roots returns the roots to search, highest priority first: cli, env,
// manifest, project (nearest directory first), config, user, plugin,
// system. A directory listed twice is kept once, at its highest priority.
func (o Options) Roots() []Root {
	roots, _ := o.roots()
	return roots
}

// roots is Roots plus the problems found reading the project manifests
// and the plugin list.
func (o Options) roots() ([]Root, []Diagnostic) {
	var roots []Root
	var diags []Diagnostic
	add := func(r Root) {
		if r.Path == "" {
			return
		}
		abs, err := filepath.Abs(r.Path)
		if err != nil {
			return
		}
		r.Path = abs
		roots = append(roots, r)
	}
	for i, d := range o.CLIDirs {
		add(Root{Path: d, Layer: LayerCLI, Label: cliLabel(i + 1)})
	}
	for i, d := range filepath.SplitList(o.EnvPath) {
		add(Root{Path: d, Layer: LayerEnv, Label: fmt.Sprintf("env:%d", i+1)})
	}
	var project []projectDir
	if o.WorkDir != "" {
		project = projectDirs(o.WorkDir)
	}
	for _, dir := range project {
		listed, d := readManifest(dir)
		diags = append(diags, d...)
		for _, r := range listed {
			add(r)
		}
	}
	for _, dir := range project {
		for _, f := range AgentDirs(true) {
			add(Root{Path: filepath.Join(dir.path, f.Path), Layer: LayerProject, Agent: f.View,
				Label: "<project>/" + filepath.ToSlash(filepath.Join(dir.rel, f.Path))})
		}
	}
	if o.ConfigDir != "" {
		add(Root{Path: filepath.Join(o.ConfigDir, "skillstore", "skills"), Layer: LayerConfig, Label: "$XDG_CONFIG_HOME/skillstore/skills"})
	}
	if o.Home != "" {
		for _, f := range AgentDirs(false) {
			add(Root{Path: filepath.Join(o.Home, f.Path), Layer: LayerUser, Agent: f.View, Label: "~/" + f.Path})
		}
		plugins, d := readInstalledPlugins(filepath.Join(o.Home, ClaudePluginsFile), o.WorkDir)
		diags = append(diags, d...)
		for _, r := range plugins {
			add(r)
		}
	}
	for i, d := range o.SystemDirs {
		add(Root{Path: d, Layer: LayerSystem, Label: fmt.Sprintf("system:%d", i+1)})
	}
	return dedupRoots(roots), diags
}

// projectDir is a folder of the project: its path, its path relative to
// the project's top (the repository root) and that top.
type projectDir struct{ path, rel, top string }

// projectDirs lists wd and its parents up to the repository root (the
// nearest directory holding .git), nearest first, each with its path
// relative to the repository root. Outside a repository it is wd alone.
func projectDirs(wd string) []projectDir {
	wd, err := filepath.Abs(wd)
	if err != nil {
		return nil
	}
	var chain []string
	for dir := wd; ; {
		chain = append(chain, dir)
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			out := make([]projectDir, len(chain))
			for i, d := range chain {
				rel, _ := filepath.Rel(dir, d)
				out[i] = projectDir{path: d, rel: rel, top: dir}
			}
			return out
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return []projectDir{{path: wd, rel: ".", top: wd}}
		}
		dir = parent
	}
}

// dedupRoots drops roots whose real path was already listed.
func dedupRoots(roots []Root) []Root {
	seen := make(map[string]bool, len(roots))
	out := roots[:0]
	for _, r := range roots {
		key := r.Path
		if real, err := filepath.EvalSymlinks(r.Path); err == nil {
			key = real
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, r)
	}
	return out
}

// skipDirs are never entered: version control, dependencies, virtualenvs,
// build outputs and caches. A folder with one of these names that holds a
// SKILL.md itself (a skill named "build") is still loaded.
var skipDirs = map[string]bool{
	".git": true, "node_modules": true, "__pycache__": true, ".venv": true, "venv": true,
	"dist": true, "build": true, "target": true, ".cache": true, ".mypy_cache": true,
	".pytest_cache": true, ".ruff_cache": true, ".tox": true, ".hg": true, ".svn": true,
}

// containerDirs are hidden folders that hold skills, so the walk enters
// them although other hidden folders are skipped: the agents' folders
// (.agents, where npx skills installs, .claude, .codex) and openai/skills'
// category folders (.curated, .system, .experimental). .claude-plugin,
// .codex-plugin and .cursor-plugin hold manifests, never skills, so they
// are not entered.
// Container folders and "skills" are left out of namespaces.
var containerDirs = map[string]bool{
	".agents": true, ".claude": true, ".codex": true, ".curated": true, ".system": true, ".experimental": true,
}

// repoMarkers are entries that make a folder a source tree: a git work
// tree or a Claude Code or Codex plugin. Skills below one rank first among
// copies (see CopyKind).
var repoMarkers = func() map[string]bool {
	m := map[string]bool{".git": true}
	for _, d := range pluginfmt.ManifestDirs() {
		m[d] = true
	}
	return m
}()

// isNamespaceNeutral reports whether a folder name only groups skills
// (skills/, .curated/, ...) and so does not count in a namespace.
func isNamespaceNeutral(name string) bool {
	return name == "skills" || containerDirs[name]
}

// namespaceOf derives the namespace of a skill from its folder relative to
// its root: the parent folders, minus container folders.
func namespaceOf(rel string) string {
	parts := strings.Split(rel, "/")
	if len(parts) <= 1 {
		return ""
	}
	var ns []string
	for _, p := range parts[:len(parts)-1] {
		if !isNamespaceNeutral(p) {
			ns = append(ns, p)
		}
	}
	return strings.Join(ns, "/")
}
