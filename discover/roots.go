package discover

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
)

// DefaultSystemDir is the machine-wide skill root.
const DefaultSystemDir = "/etc/skillstore/skills"

// DefaultMaxDepth bounds how deep a walk goes below a root. A skill in
// openai/skills sits at depth 3 (skills/.curated/pdf); a namespaced one a
// little deeper.
const DefaultMaxDepth = 6

// Root is a directory searched for skill folders.
type Root struct {
	// Path is the absolute path of the root.
	Path  string `json:"path"`
	Layer Layer  `json:"layer"`
	// Label names the root the same way on every machine ("~/.claude/skills",
	// "<project>/.agents/skills"); it is part of skill IDs. CLI, env and
	// system roots are labelled with their absolute path.
	Label string `json:"label"`
	// Exists is set by Discover: false when the directory is absent.
	Exists bool `json:"exists"`
}

// Options says where and how to discover skills. The zero value searches
// nothing; FromEnvironment fills it the way the CLI does.
type Options struct {
	// CLIDirs are roots given on the command line, highest priority.
	CLIDirs []string
	// EnvPath is the value of $SKILLSTORE_PATH: roots separated by
	// os.PathListSeparator.
	EnvPath string
	// WorkDir is where the project layer starts looking: .claude/skills
	// and .agents/skills in WorkDir and each parent up to the repository
	// root (the directory holding .git). Empty means no project layer.
	WorkDir string
	// Home holds the user layer: ~/.claude/skills, ~/.agents/skills,
	// ~/.codex/skills. Empty means no user layer.
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
// home, $SKILLSTORE_PATH and the system roots from $SKILLSTORE_SYSTEM_PATH
// (DefaultSystemDir when unset).
func FromEnvironment(cliDirs []string) Options {
	wd, _ := os.Getwd()
	home, _ := os.UserHomeDir()
	system := []string{DefaultSystemDir}
	if v, ok := os.LookupEnv("SKILLSTORE_SYSTEM_PATH"); ok {
		system = filepath.SplitList(v)
	}
	return Options{CLIDirs: cliDirs, EnvPath: os.Getenv("SKILLSTORE_PATH"), WorkDir: wd, Home: home, SystemDirs: system}
}

// Roots returns the roots to search, highest priority first: cli, env,
// project (nearest directory first), user, system. A directory listed twice
// is kept once, at its highest priority.
func (o Options) Roots() []Root {
	var roots []Root
	add := func(layer Layer, path, label string) {
		if path == "" {
			return
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return
		}
		if label == "" {
			label = abs
		}
		roots = append(roots, Root{Path: abs, Layer: layer, Label: label})
	}
	for _, d := range o.CLIDirs {
		add(LayerCLI, d, "")
	}
	for _, d := range filepath.SplitList(o.EnvPath) {
		add(LayerEnv, d, "")
	}
	if o.WorkDir != "" {
		for _, dir := range projectDirs(o.WorkDir) {
			for _, sub := range []string{".claude/skills", ".agents/skills"} {
				add(LayerProject, filepath.Join(dir.path, sub), "<project>/"+filepath.ToSlash(filepath.Join(dir.rel, sub)))
			}
		}
	}
	if o.Home != "" {
		for _, sub := range []string{".claude/skills", ".agents/skills", ".codex/skills"} {
			add(LayerUser, filepath.Join(o.Home, sub), "~/"+sub)
		}
	}
	for _, d := range o.SystemDirs {
		add(LayerSystem, d, "")
	}
	return dedupRoots(roots)
}

type projectDir struct{ path, rel string }

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
				out[i] = projectDir{path: d, rel: rel}
			}
			return out
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return []projectDir{{path: wd, rel: "."}}
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
// them although other hidden folders are skipped. They and "skills" are
// left out of namespaces.
var containerDirs = map[string]bool{
	".agents": true, ".claude": true, ".codex": true, ".curated": true, ".system": true, ".experimental": true,
}

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
