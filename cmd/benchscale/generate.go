package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// genVersion names the layout of generated data: bump it when the skills
// or the set-up steps change, so stale caches are not reused.
const genVersion = "v2" // v2: ref layout 2 (plugin skills are PLUGIN:NAME)

// skillName is the name of synthetic skill i.
func skillName(i int) string { return fmt.Sprintf("skill-%05d", i) }

// skillFiles returns the three files (~8 KB) of synthetic skill i; extra,
// when not empty, is appended to SKILL.md (to make a new version).
func skillFiles(i int, extra string) map[string][]byte {
	name := skillName(i)
	var md, ref, script strings.Builder
	fmt.Fprintf(&md, "---\nname: %s\ndescription: Benchmark skill number %d, which does one small thing well.\n---\n\n# %s\n\n", name, i, name)
	for l := 0; md.Len() < 2000; l++ {
		fmt.Fprintf(&md, "Step %d of skill %d: read the input, check it, and write the result.\n", l, i)
	}
	md.WriteString(extra)
	for l := 0; ref.Len() < 4000; l++ {
		fmt.Fprintf(&ref, "Reference line %d for %s: details that the agent reads when it needs them.\n", l, name)
	}
	script.WriteString("#!/bin/sh\nset -eu\n")
	for l := 0; script.Len() < 2000; l++ {
		fmt.Fprintf(&script, "echo \"%s step %d\"\n", name, l)
	}
	return map[string][]byte{"SKILL.md": []byte(md.String()), "reference.md": []byte(ref.String()), "scripts/run.sh": []byte(script.String())}
}

var skillPaths = []string{"SKILL.md", "reference.md", "scripts/run.sh"}

func fileMode(p string) os.FileMode {
	if strings.HasSuffix(p, ".sh") {
		return 0o755
	}
	return 0o644
}

// writeSkill writes skill i's files into dir (its folder).
func writeSkill(dir string, i int, extra string) error {
	for p, data := range skillFiles(i, extra) {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, data, fileMode(p)); err != nil {
			return err
		}
	}
	return nil
}

// writeSkillTree writes n skills as root/<name>/... .
func writeSkillTree(root string, n int) error {
	for i := 0; i < n; i++ {
		if err := writeSkill(filepath.Join(root, skillName(i)), i, ""); err != nil {
			return fmt.Errorf("write skills: %w", err)
		}
	}
	return nil
}

// writeFastImportStream writes the same n skills as a git fast-import
// stream into path: one ref and one commit per skill, under
// refs/heads/skills/ as a store keeps them. It streams: this process
// stays small, which matters because a child's peak memory on Linux
// starts from its parent's at the fork.
func writeFastImportStream(path string, n int) error {
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	s := bufio.NewWriter(out)
	mark := 1
	for i := 0; i < n; i++ {
		files := skillFiles(i, "")
		marks := map[string]int{}
		for _, p := range skillPaths {
			fmt.Fprintf(s, "blob\nmark :%d\ndata %d\n%s\n", mark, len(files[p]), files[p])
			marks[p] = mark
			mark++
		}
		msg := fmt.Sprintf("%s v1\n\nSkill-Version: 1\n", skillName(i))
		fmt.Fprintf(s, "commit refs/heads/skills/%s\ncommitter Bench <bench@example.com> 1700000000 +0000\ndata %d\n%s", skillName(i), len(msg), msg)
		for _, p := range skillPaths {
			mode := "100644"
			if fileMode(p) == 0o755 {
				mode = "100755"
			}
			fmt.Fprintf(s, "M %s :%d %s\n", mode, marks[p], p)
		}
		s.WriteString("\n")
	}
	if err := s.Flush(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// fixture is the generated data for one size, under the cache folder.
type fixture struct {
	n      int
	dir    string // <cache>/<genVersion>/n<N>
	skills string // the skill folders, input of import
	store  string // a store holding them, plus the set-up below
	plugin string // a local plugin folder with one skill, "plug"
}

// The set-up steps run once per store, besides importing every skill:
// skill-00001 gets a second version (for diff); plugin "plug" (a local
// folder) brings skill "plug" in, which then carries a local edit, so an
// upstream change makes a candidate (for candidates show/accept).
const (
	diffSkill   = "skill-00001"
	addSkill    = "skill-00002"
	pluginSkill = "plug"
	// pluginSkillName is its store name (the plugin folder is "plugin"),
	// pluginCandidateRef the ref of its candidate.
	pluginSkillName    = "plugin:" + pluginSkill
	pluginCandidateRef = "refs/heads/candidates/plugins/plugin/" + pluginSkill
)

func newFixture(cache string, n int) *fixture {
	dir := filepath.Join(cache, genVersion, fmt.Sprintf("n%d", n))
	return &fixture{n: n, dir: dir, skills: filepath.Join(dir, "skills"), store: filepath.Join(dir, "store"), plugin: filepath.Join(dir, "plugin")}
}

// ensure generates the fixture unless a previous run finished it (the
// "done" marker is written last).
func (f *fixture) ensure(b *bench) error {
	done := filepath.Join(f.dir, "done")
	if _, err := os.Stat(done); err == nil {
		return nil
	}
	fmt.Fprintf(os.Stderr, "generating %d skills under %s (once)\n", f.n, f.dir)
	if err := os.RemoveAll(f.dir); err != nil {
		return err
	}
	if err := writeSkillTree(f.skills, f.n); err != nil {
		return err
	}
	steps := [][]string{
		{"init"},
		{"import", f.skills},
	}
	for _, args := range steps {
		if _, err := b.mustRun(b.bin, f.store, args...); err != nil {
			return err
		}
	}
	// A second version of diffSkill, from a copy edited outside the tree.
	edit := filepath.Join(f.dir, "edit", diffSkill)
	if err := writeSkill(edit, 1, "\nA line added in version 2.\n"); err != nil {
		return err
	}
	if _, err := b.mustRun(b.bin, f.store, "add", edit); err != nil {
		return err
	}
	if err := f.setUpPlugin(b); err != nil {
		return err
	}
	return os.WriteFile(done, []byte(genVersion+"\n"), 0o644)
}

func (f *fixture) pluginSkillDir() string { return filepath.Join(f.plugin, "skills", pluginSkill) }

func (f *fixture) setUpPlugin(b *bench) error {
	md := "---\nname: plug\ndescription: The plugin's one skill.\n---\n\nUpstream line.\n"
	if err := os.MkdirAll(f.pluginSkillDir(), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(f.pluginSkillDir(), "SKILL.md"), []byte(md), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(f.pluginSkillDir(), "notes.md"), []byte("upstream notes\n"), 0o644); err != nil {
		return err
	}
	if _, err := b.mustRun(b.bin, f.store, "plugin", "add", f.plugin); err != nil {
		return err
	}
	// A local edit of the plugin's skill (notes.md), recorded as a version.
	local := filepath.Join(f.dir, "edit", pluginSkill)
	if err := os.MkdirAll(local, 0o755); err != nil {
		return err
	}
	os.WriteFile(filepath.Join(local, "SKILL.md"), []byte(md), 0o644)
	os.WriteFile(filepath.Join(local, "notes.md"), []byte("upstream notes\nlocal note\n"), 0o644)
	_, err := b.mustRun(b.bin, f.store, "add", "--as", pluginSkillName, local)
	return err
}

// newCandidate changes the plugin's SKILL.md upstream (round k) and syncs:
// with the local edit that makes a three-way candidate.
func (f *fixture) newCandidate(b *bench, k int) error {
	md := fmt.Sprintf("---\nname: plug\ndescription: The plugin's one skill.\n---\n\nUpstream line, round %d.\n", k)
	if err := os.WriteFile(filepath.Join(f.pluginSkillDir(), "SKILL.md"), []byte(md), 0o644); err != nil {
		return err
	}
	// sync exits 4 when candidates wait for review: what is wanted here.
	s, err := b.run(b.bin, f.store, "sync")
	if err != nil && s.exit == 4 {
		return nil
	}
	return err
}
