package discover

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/skillstore/skillstore/internal/skillmd"
)

// rootWalk finds the skill folders under one root. Directories are read and
// skills parsed by a bounded pool of workers; symlinked directories are
// followed afterwards, one at a time in sorted order, so which path reaches
// a folder first (and so names it) does not depend on scheduling.
type rootWalk struct {
	ctx      context.Context
	root     Root
	index    int
	realRoot string
	mode     Mode
	maxDepth int
	workers  int
	// locate skips reading SKILL.md: Locate only needs the folders.
	locate bool
	log    *slog.Logger
	// seenSkills holds the real paths of skill folders already loaded from
	// any root, so a folder reached twice is loaded once.
	seenSkills *syncSet

	mu      sync.Mutex
	queue   []dirTask
	pending int
	cond    *sync.Cond
	visited map[string]bool // real paths of directories entered
	links   []dirTask       // symlinks to directories, followed after the walk
	skills  []*Skill
	diags   []Diagnostic
}

// dirTask is a directory to read: its path as reached (through symlinks),
// its real path, its path relative to the root and its depth.
type dirTask struct {
	path, real, rel string
	depth           int
	// onlySkill is set for skip-listed folders: loaded if they hold a
	// SKILL.md, never walked.
	onlySkill bool
	// parentReal is the real path of the directory holding a symlink.
	parentReal string
	// viaLink is set when the path goes through a symlinked directory.
	viaLink bool
	// inRepo is set below a folder holding .git, .claude-plugin or
	// .codex-plugin: a source tree rather than an installed copy.
	inRepo bool
}

type syncSet struct {
	mu sync.Mutex
	m  map[string]bool
}

// add records key and reports whether it was new.
func (s *syncSet) add(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m[key] {
		return false
	}
	s.m[key] = true
	return true
}

func (w *rootWalk) run() error {
	w.cond = sync.NewCond(&w.mu)
	w.visited = map[string]bool{w.realRoot: true}
	w.push(dirTask{path: w.root.Path, real: w.realRoot, rel: "."})
	w.drain()
	// Follow symlinked directories in a stable order. Following one may
	// find more; those are handled after it.
	for len(w.links) > 0 {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		sort.Slice(w.links, func(i, j int) bool { return w.links[i].path < w.links[j].path })
		links := w.links
		w.links = nil
		for _, l := range links {
			if t, ok := w.followLink(l); ok {
				w.push(t)
				w.drain()
			}
		}
	}
	return w.ctx.Err()
}

func (w *rootWalk) push(tasks ...dirTask) {
	w.mu.Lock()
	w.queue = append(w.queue, tasks...)
	w.pending += len(tasks)
	w.mu.Unlock()
	w.cond.Broadcast()
}

// drain runs workers until the queue is empty and no task is in flight.
func (w *rootWalk) drain() {
	var wg sync.WaitGroup
	for range w.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				w.mu.Lock()
				for len(w.queue) == 0 && w.pending > 0 {
					w.cond.Wait()
				}
				if w.pending == 0 {
					w.mu.Unlock()
					return
				}
				t := w.queue[len(w.queue)-1]
				w.queue = w.queue[:len(w.queue)-1]
				w.mu.Unlock()

				if w.ctx.Err() == nil {
					w.visit(t)
				}

				w.mu.Lock()
				w.pending--
				done := w.pending == 0
				w.mu.Unlock()
				if done {
					w.cond.Broadcast()
				}
			}
		}()
	}
	wg.Wait()
}

func (w *rootWalk) warn(path, format string, args ...any) {
	w.mu.Lock()
	w.diags = append(w.diags, warningAt(path, 0, format, args...))
	w.mu.Unlock()
}

// visit reads one directory: a folder holding SKILL.md is a skill and is
// not walked further (skills never nest); otherwise its subdirectories are
// queued, minus hidden, skip-listed and too deep ones.
func (w *rootWalk) visit(t dirTask) {
	// One lstat tells a skill folder, which is most folders a walk of
	// installed skills meets, without listing it.
	if info, err := os.Lstat(filepath.Join(t.path, skillmd.FileName)); err == nil && (info.Mode().IsRegular() || info.Mode()&fs.ModeSymlink != 0) {
		w.loadSkill(t, info.Mode())
		return
	}
	if t.onlySkill {
		w.log.Debug("skip folder", "path", t.path, "reason", "skip list")
		return
	}
	entries, err := readDirUnsorted(t.path)
	if err != nil {
		w.warn(t.path, "cannot read directory: %v; its skills are not loaded", unwrapPathError(err))
		return
	}
	manifests := false
	for _, e := range entries {
		if repoMarkers[e.Name()] {
			t.inRepo = true
			manifests = manifests || e.Name() != ".git"
		}
	}
	if manifests {
		if tasks, ok := w.pluginSkills(t); ok {
			w.pushChildren(tasks)
			return
		}
	}
	var children []dirTask
	for _, e := range entries {
		name := e.Name()
		typ := e.Type()
		if typ.IsRegular() && name != skillmd.FileName && strings.EqualFold(name, skillmd.FileName) {
			w.warn(filepath.Join(t.path, name), "found %s; agents only load a file named exactly %s, rename it", name, skillmd.FileName)
			continue
		}
		isLink := typ&fs.ModeSymlink != 0
		if !typ.IsDir() && !isLink {
			continue
		}
		if strings.HasPrefix(name, ".") && !containerDirs[name] {
			w.log.Debug("skip folder", "path", filepath.Join(t.path, name), "reason", "hidden")
			continue
		}
		if t.depth+1 > w.maxDepth {
			w.reportTooDeep(filepath.Join(t.path, name))
			continue
		}
		child := dirTask{
			path:      filepath.Join(t.path, name),
			real:      filepath.Join(t.real, name),
			rel:       joinRel(t.rel, name),
			depth:     t.depth + 1,
			onlySkill: skipDirs[name],
			viaLink:   t.viaLink || isLink,
			inRepo:    t.inRepo,
		}
		if isLink {
			child.parentReal = t.real
			w.mu.Lock()
			w.links = append(w.links, child)
			w.mu.Unlock()
			continue
		}
		children = append(children, child)
	}
	w.pushChildren(children)
}

// pushChildren marks the folders visited and queues them.
func (w *rootWalk) pushChildren(children []dirTask) {
	if len(children) == 0 {
		return
	}
	w.mu.Lock()
	for _, c := range children {
		w.visited[c.real] = true
	}
	w.mu.Unlock()
	w.push(children...)
}

// reportTooDeep looks one level past the depth bound, so a skill folder
// just beyond it is a warning rather than silently missing. Deeper
// folders are not looked at: the bound is what keeps walks of big trees
// cheap.
func (w *rootWalk) reportTooDeep(dir string) {
	w.log.Debug("skip folder", "path", dir, "reason", "deeper than the depth bound", "max_depth", w.maxDepth)
	if _, err := os.Stat(filepath.Join(dir, skillmd.FileName)); err == nil {
		w.warn(dir, "skill folder is %d folders below its root %s, past the depth bound of %d; not loaded: move it up or give a folder nearer to it as the root",
			w.maxDepth+1, w.root.Path, w.maxDepth)
	}
}

// followLink resolves a symlink found during the walk and returns the task
// that walks its target, unless the target is outside the root, an
// ancestor of the link (a cycle), already walked, or not a directory.
func (w *rootWalk) followLink(l dirTask) (dirTask, bool) {
	target, err := filepath.EvalSymlinks(l.path)
	if err != nil {
		w.warn(l.path, "broken symlink: %v", unwrapPathError(err))
		return l, false
	}
	info, err := os.Stat(target)
	if err != nil || !info.IsDir() {
		return l, false
	}
	if !within(target, w.realRoot) {
		w.warn(l.path, "symlink points outside its root %s (to %s); not followed, copy or move the skill into the root", w.root.Path, target)
		return l, false
	}
	if within(l.parentReal, target) {
		w.warn(l.path, "symlink cycle: it points to its own ancestor %s; not followed", target)
		return l, false
	}
	w.mu.Lock()
	seen := w.visited[target]
	w.visited[target] = true
	w.mu.Unlock()
	if seen {
		w.log.Debug("skip folder", "path", l.path, "reason", "already walked", "target", target)
		return l, false
	}
	l.real = target
	return l, true
}

// loadSkill reads and validates the SKILL.md of the skill folder t.
func (w *rootWalk) loadSkill(t dirTask, mode fs.FileMode) {
	if !w.seenSkills.add(t.real) {
		w.log.Debug("skip skill", "path", t.path, "reason", "already loaded from another path", "real", t.real)
		return
	}
	if w.locate {
		w.addSkill(t, nil, nil)
		return
	}
	path := filepath.Join(t.path, skillmd.FileName)
	if mode&fs.ModeSymlink != 0 {
		t.viaLink = true
		target, err := filepath.EvalSymlinks(path)
		if err != nil {
			w.addSkill(t, nil, []Diagnostic{errorAt(path, 0, "broken symlink: %v", unwrapPathError(err))})
			return
		}
		if !within(target, w.realRoot) {
			w.addSkill(t, nil, []Diagnostic{errorAt(path, 0, "symlink points outside its root %s (to %s); not followed, copy the file into the skill", w.root.Path, target)})
			return
		}
	}
	data, d := readSkillFile(path, path)
	if d != nil {
		w.addSkill(t, nil, []Diagnostic{*d})
		return
	}
	s, diags := newSkill(t.path, path, data, w.mode)
	w.addSkill(t, s, diags)
}

// addSkill records a skill; s is nil when its SKILL.md could not be read
// or parsed, and a stand-in named after the folder carries the diagnostics.
func (w *rootWalk) addSkill(t dirTask, s *Skill, diags []Diagnostic) {
	if s == nil {
		s = &Skill{Name: filepath.Base(t.path), Dir: t.path, Diagnostics: diags}
	}
	s.Layer = w.root.Layer
	s.Root = w.root.Path
	s.RelDir = t.rel
	s.Namespace = namespaceOf(t.rel)
	s.ID = skillID(w.root, t.rel)
	s.rootIndex = w.index
	s.Symlinked = t.viaLink
	s.Copy = classifyCopy(t.path, t.inRepo)
	s.Agent, s.Plugin = w.root.Agent, w.root.Plugin
	w.mu.Lock()
	w.skills = append(w.skills, s)
	w.mu.Unlock()
}

// skillID hashes what locates a skill independent of the machine: its
// layer, its root's label and its folder relative to the root.
func skillID(r Root, rel string) string {
	sum := sha256.Sum256([]byte(r.Layer.String() + "\x00" + r.Label + "\x00" + rel))
	return hex.EncodeToString(sum[:8])
}

func joinRel(rel, name string) string {
	if rel == "." {
		return name
	}
	return rel + "/" + name
}

// within reports whether path is dir or inside it (both clean and absolute).
func within(path, dir string) bool {
	if path == dir {
		return true
	}
	if dir == string(filepath.Separator) {
		return strings.HasPrefix(path, dir)
	}
	return strings.HasPrefix(path, dir+string(filepath.Separator))
}

// readDirUnsorted lists a directory without sorting it: the walk sorts its
// results once at the end.
func readDirUnsorted(dir string) ([]fs.DirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil && !errors.Is(err, io.EOF) {
		return entries, err
	}
	return entries, nil
}

func defaultWorkers(n int) int {
	if n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}
