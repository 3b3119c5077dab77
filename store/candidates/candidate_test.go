package candidates_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/candidates"
	"github.com/skillstore/skillstore/store/internal/storetest"
	"github.com/skillstore/skillstore/store/safety"
	"github.com/skillstore/skillstore/store/treediff"
)

// The skills these tests make candidates for: a managed one and a
// plugin's one, whose candidate refs live in different namespaces.
const (
	managed = "deploy"
	plugged = "acme:lint"
)

// Files of a skill as path → content.
type files map[string]string

// list turns fs into store files with content, as a folder scan gives them.
func (fs files) list() []store.File {
	var out []store.File
	for p, data := range fs {
		out = append(out, store.File{Path: p, Data: []byte(data)})
	}
	return out
}

// marked is a SKILL.md of skill name whose second step is left in conflict.
func marked(name, theirs string) string {
	return storetest.SkillMD(name, "step one",
		"<<<<<<< published", "step two", "=======", theirs, ">>>>>>> upstream")
}

// scene is a skill published once (head) with the two commits a
// candidate is made of: the last accepted upstream (base) and the new one.
type scene struct {
	s              *store.Store
	head           store.Version
	base, upstream store.Hash
}

// newScene publishes name with SKILL.md "step one, step two" and a local
// notes.md; its upstream changed step two to "step two, faster".
func newScene(t *testing.T, name string) scene {
	t.Helper()
	own := store.OwnName(name)
	sc := scene{s: storetest.NewStore(t)}
	update(t, sc.s, func(tx *store.Tx) error {
		sc.base = snapshot(t, tx, files{"SKILL.md": storetest.SkillMD(own, "step one", "step two")})
		sc.upstream = snapshot(t, tx, files{"SKILL.md": storetest.SkillMD(own, "step one", "step two, faster")}, sc.base)
		var err error
		sc.head, err = publish(tx, name, files{"SKILL.md": storetest.SkillMD(own, "step one", "step two"), "notes.md": "local notes\n"})
		return err
	})
	return sc
}

// write makes a candidate of skill name whose tree holds fs, on its
// published head and the scene's upstream, as plugin acme 1.2.0 would,
// and returns its commit.
func (sc scene) write(t *testing.T, name string, fs files, conflicts ...string) store.Hash {
	t.Helper()
	var h store.Hash
	update(t, sc.s, func(tx *store.Tx) error {
		head, err := tx.Head(name)
		if err != nil {
			return err
		}
		tree, err := tx.WriteTree(fs.list())
		h = candidates.Write(tx, candidates.Spec{
			Skill: name, Subject: "candidate " + name, Tree: tree,
			Published: head.Commit, Upstream: sc.upstream, Base: sc.base,
			Source: "plugin:acme", Plugin: "acme", PluginVersion: "1.2.0",
			Mode: store.MergeModeThreeWay, Conflicts: conflicts, Risk: safety.RiskLow,
		})
		return err
	})
	return h
}

// clean is the tree of a merge without conflicts: upstream's SKILL.md and
// the local notes.
func clean(name string) files {
	return files{"SKILL.md": storetest.SkillMD(store.OwnName(name), "step one", "step two, faster"), "notes.md": "local notes\n"}
}

// conflicted is the tree of a merge that left SKILL.md in conflict.
func conflicted(name string) files {
	return files{"SKILL.md": marked(store.OwnName(name), "step two, faster"), "notes.md": "local notes\n"}
}

func update(t *testing.T, s *store.Store, fn func(tx *store.Tx) error) {
	t.Helper()
	if err := s.Update(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

func view[T any](t *testing.T, s *store.Store, fn func(r *store.Reader) (T, error)) T {
	t.Helper()
	var out T
	err := s.View(context.Background(), func(r *store.Reader) error {
		var err error
		out, err = fn(r)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// publish commits fs as the next version of name.
func publish(tx *store.Tx, name string, fs files) (store.Version, error) {
	tree, err := tx.WriteTree(fs.list())
	if err != nil {
		return store.Version{}, err
	}
	return tx.CommitVersion(name, tree, store.VersionInfo{Reason: "test"})
}

// snapshot commits fs as a plain commit, as an upstream snapshot is.
func snapshot(t *testing.T, tx *store.Tx, fs files, parents ...store.Hash) store.Hash {
	t.Helper()
	tree, err := tx.WriteTree(fs.list())
	if err != nil {
		t.Fatal(err)
	}
	return tx.CommitTree(tree, parents, "upstream snapshot", "")
}

// gitRef is what the git CLI resolves ref to in the store's repository.
func gitRef(t *testing.T, s *store.Store, ref string) string {
	t.Helper()
	return strings.TrimSpace(storetest.Git(t, s.Dir(), "rev-parse", "--verify", ref))
}

// gitRefs lists the refs under prefix as git sees them, "REF HASH" a line.
func gitRefs(t *testing.T, s *store.Store, prefix string) string {
	t.Helper()
	return strings.TrimSpace(storetest.Git(t, s.Dir(), "for-each-ref", "--format=%(refname) %(objectname)", prefix))
}

// TestWriteAndRead: a candidate written for a managed and for a plugin
// skill lives on the ref CandidateRef names (which plain git resolves),
// and Names, List, Get and LoadFiles read back what Write was given.
func TestWriteAndRead(t *testing.T) {
	sc := newScene(t, managed)
	update(t, sc.s, func(tx *store.Tx) error {
		_, err := publish(tx, plugged, files{"SKILL.md": storetest.SkillMD("lint", "step one", "step two")})
		return err
	})
	m := sc.write(t, managed, conflicted(managed), "SKILL.md (content)")
	pc := sc.write(t, plugged, clean(plugged))

	for ref, want := range map[string]store.Hash{
		"refs/heads/candidates/skills/deploy":     m,
		"refs/heads/candidates/plugins/acme/lint": pc,
	} {
		if got := gitRef(t, sc.s, ref); got != want.String() {
			t.Errorf("git rev-parse --verify %s = %s, want %s", ref, got, want)
		}
	}
	if store.CandidateRef(managed) != "refs/heads/candidates/skills/deploy" || store.CandidateRef(plugged) != "refs/heads/candidates/plugins/acme/lint" {
		t.Errorf("CandidateRef = %s, %s", store.CandidateRef(managed), store.CandidateRef(plugged))
	}
	if names := view(t, sc.s, func(r *store.Reader) ([]string, error) { return candidates.Names(r), nil }); !slices.Equal(names, []string{plugged, managed}) {
		t.Errorf("Names = %q, want [acme:lint deploy]", names)
	}
	list := view(t, sc.s, candidates.List)
	if len(list) != 2 || list[0].Skill != plugged || list[1].Skill != managed {
		t.Fatalf("List = %+v, want acme:lint then deploy", list)
	}

	c := list[1]
	if c.Head != m || c.Merge != m || c.Resolved || c.Stale {
		t.Errorf("Get head %s merge %s resolved %v stale %v, want both %s, not resolved, not stale", c.Head, c.Merge, c.Resolved, c.Stale, m)
	}
	if c.Published != sc.head.Commit || c.PublishedVersion != 1 || c.Upstream != sc.upstream || c.Base != sc.base {
		t.Errorf("Get sides published %s (v%d) upstream %s base %s", c.Published, c.PublishedVersion, c.Upstream, c.Base)
	}
	if c.Mode != store.MergeModeThreeWay || c.Plugin != "acme" || c.PluginVersion != "1.2.0" || c.Risk != "low" {
		t.Errorf("Get mode %s plugin %s %s risk %s", c.Mode, c.Plugin, c.PluginVersion, c.Risk)
	}
	if !slices.Equal(c.Conflicts, []string{"SKILL.md (content)"}) || !slices.Equal(c.ConflictPaths(), []string{"SKILL.md"}) || !slices.Equal(c.Markers, []string{"SKILL.md"}) {
		t.Errorf("Get conflicts %q paths %q markers %q, want SKILL.md in all three", c.Conflicts, c.ConflictPaths(), c.Markers)
	}
	if pl := list[0]; pl.Head != pc || pl.Conflicts != nil || pl.Markers != nil || pl.PublishedVersion != 1 {
		t.Errorf("plugin candidate %+v, want head %s without conflicts, made on v1", pl, pc)
	}

	lf := view(t, sc.s, func(r *store.Reader) (candidates.Files, error) { return candidates.LoadFiles(r, managed) })
	baseMD := files{"SKILL.md": storetest.SkillMD("deploy", "step one", "step two")}
	for side, tc := range map[string]struct {
		got  []store.File
		want files
	}{
		"head":   {lf.Head, conflicted(managed)},
		"base":   {lf.Base, baseMD},
		"ours":   {lf.Ours, files{"SKILL.md": baseMD["SKILL.md"], "notes.md": "local notes\n"}},
		"theirs": {lf.Theirs, files{"SKILL.md": storetest.SkillMD("deploy", "step one", "step two, faster")}},
	} {
		got, err := store.TreeHash(tc.got)
		want, _ := store.TreeHash(tc.want.list())
		if err != nil || got != want {
			t.Errorf("LoadFiles %s: %d files of tree %s (%v), want %s", side, len(tc.got), got, err, want)
		}
	}

	err := sc.s.View(context.Background(), func(r *store.Reader) error { _, err := candidates.Get(r, "other"); return err })
	if !errors.Is(err, candidates.ErrNoCandidate) {
		t.Errorf("Get of a skill without candidate = %v, want ErrNoCandidate", err)
	}
}

// TestDiff: Diff compares the published head with the candidate's tree.
func TestDiff(t *testing.T) {
	sc := newScene(t, managed)
	fs := clean(managed)
	fs["CHANGELOG.md"] = "faster\n"
	sc.write(t, managed, fs)
	changes := view(t, sc.s, func(r *store.Reader) ([]treediff.FileChange, error) {
		_, ch, err := candidates.Diff(r, managed)
		return ch, err
	})
	var got []string
	for _, c := range changes {
		got = append(got, string(c.Kind)+" "+c.OldPath+c.NewPath)
		if c.NewPath == "SKILL.md" && (!strings.Contains(c.Patch, "-step two\n") || !strings.Contains(c.Patch, "+step two, faster\n")) {
			t.Errorf("SKILL.md patch:\n%s", c.Patch)
		}
	}
	slices.Sort(got)
	if want := []string{"added CHANGELOG.md", "modified SKILL.mdSKILL.md"}; !slices.Equal(got, want) {
		t.Errorf("Diff = %q, want %q", got, want)
	}
}

// TestAccept: a clean candidate becomes the next version, whose tree is
// the candidate's and whose parents are the old head and the candidate;
// the candidate ref goes.
func TestAccept(t *testing.T) {
	for _, name := range []string{managed, plugged} {
		t.Run(name, func(t *testing.T) {
			sc := newScene(t, name)
			cand := sc.write(t, name, clean(name))
			c := view(t, sc.s, func(r *store.Reader) (candidates.Candidate, error) { return candidates.Get(r, name) })
			v, err := candidates.Accept(context.Background(), sc.s, name, "")
			if err != nil {
				t.Fatal(err)
			}
			if v.Number != sc.head.Number+1 || v.Tree != c.Tree || !slices.Equal(v.Parents, []store.Hash{sc.head.Commit, cand}) {
				t.Errorf("accepted v%d tree %s parents %v, want v%d tree %s parents [%s %s]", v.Number, v.Tree, v.Parents, sc.head.Number+1, c.Tree, sc.head.Commit, cand)
			}
			if head := storetest.HeadOf(t, sc.s, name); head.Commit != v.Commit {
				t.Errorf("head is %s, want the accepted %s", head.Name(), v.Name())
			}
			if refs := gitRefs(t, sc.s, store.CandidateRefPrefix); refs != "" {
				t.Errorf("candidate refs left after accept: %s", refs)
			}
		})
	}
}

// TestAcceptRefused: a candidate still holding conflict markers, or made
// on a version that is no longer the head, is refused and nothing changes.
func TestAcceptRefused(t *testing.T) {
	sc := newScene(t, managed)
	cand := sc.write(t, managed, conflicted(managed), "SKILL.md (content)")
	_, err := candidates.Accept(context.Background(), sc.s, managed, "")
	var cm *candidates.ConflictMarkersError
	if !errors.As(err, &cm) || cm.Skill != managed || !slices.Equal(cm.Files, []string{"SKILL.md"}) {
		t.Fatalf("Accept = %v, want a ConflictMarkersError naming SKILL.md", err)
	}
	unchanged(t, sc.s, sc.head, cand)

	sc.write(t, managed, clean(managed))
	storetest.LocalEdit(t, sc.s, managed, storetest.SkillMD("deploy", "moved on"))
	current := storetest.HeadOf(t, sc.s, managed)
	if _, err := candidates.Accept(context.Background(), sc.s, managed, ""); !errors.Is(err, candidates.ErrHeadMoved) {
		t.Fatalf("Accept of a stale candidate = %v, want ErrHeadMoved", err)
	}
	unchanged(t, sc.s, current, view(t, sc.s, func(r *store.Reader) (store.Hash, error) { h, _ := r.Ref(store.CandidateRef(managed)); return h, nil }))
}

// unchanged checks that skill deploy's head and candidate are still head
// and cand, as git sees them.
func unchanged(t *testing.T, s *store.Store, head store.Version, cand store.Hash) {
	t.Helper()
	if got := gitRef(t, s, store.SkillRef(managed)); got != head.Commit.String() {
		t.Errorf("published ref at %s, want %s still", got, head.Commit)
	}
	if got := gitRef(t, s, store.CandidateRef(managed)); got != cand.String() {
		t.Errorf("candidate ref at %s, want %s still", got, cand)
	}
}

// TestReject: the skill keeps its files in a new version whose second
// parent is the upstream snapshot (so it is not proposed again); the
// candidate ref goes and the candidate stays under its superseded ref.
func TestReject(t *testing.T) {
	sc := newScene(t, managed)
	cand := sc.write(t, managed, clean(managed))
	v, err := candidates.Reject(context.Background(), sc.s, managed, "not now")
	if err != nil {
		t.Fatal(err)
	}
	if v.Number != sc.head.Number+1 || v.Tree != sc.head.Tree || v.MergeMode != store.MergeModeRejected || !slices.Equal(v.Parents, []store.Hash{sc.head.Commit, sc.upstream}) {
		t.Errorf("reject made v%d tree %s mode %s parents %v, want v%d with the published tree %s, parents [%s %s]",
			v.Number, v.Tree, v.MergeMode, v.Parents, sc.head.Number+1, sc.head.Tree, sc.head.Commit, sc.upstream)
	}
	if refs := gitRefs(t, sc.s, store.CandidateRefPrefix); refs != "" {
		t.Errorf("candidate refs left after reject: %s", refs)
	}
	ref := "refs/skillstore/superseded/skills/deploy/" + cand.String()
	if store.SupersededRef(managed, cand) != ref || gitRef(t, sc.s, ref) != cand.String() {
		t.Errorf("superseded ref %s does not hold the rejected candidate %s", store.SupersededRef(managed, cand), cand)
	}
}

// TestResolve: a resolved folder becomes the candidate's new head (a
// commit on top of the merge), which accept then publishes; a folder
// still holding markers is taken too, and accept refuses it.
func TestResolve(t *testing.T) {
	ctx := context.Background()
	sc := newScene(t, managed)
	cand := sc.write(t, managed, conflicted(managed), "SKILL.md (content)")

	dir := filepath.Join(t.TempDir(), "deploy")
	half := files{"SKILL.md": marked("deploy", "step two, fast"), "notes.md": "local notes\n"}
	for p, data := range half {
		storetest.WriteFile(t, filepath.Join(dir, p), data)
	}
	c, err := candidates.Resolve(ctx, sc.s, managed, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if !c.Resolved || c.Merge != cand || c.Head == cand || !slices.Equal(c.Markers, []string{"SKILL.md"}) {
		t.Errorf("resolve with markers: %+v, want a new head on %s still marked in SKILL.md", c, cand)
	}
	var cm *candidates.ConflictMarkersError
	if _, err := candidates.Accept(ctx, sc.s, managed, ""); !errors.As(err, &cm) {
		t.Errorf("Accept after a resolve with markers = %v, want ConflictMarkersError", err)
	}

	resolved := clean(managed)
	for p, data := range resolved {
		storetest.WriteFile(t, filepath.Join(dir, p), data)
	}
	prev := c.Head
	c, err = candidates.Resolve(ctx, sc.s, managed, dir, "by hand")
	if err != nil {
		t.Fatal(err)
	}
	want, err := store.TreeHash(resolved.list())
	if err != nil {
		t.Fatal(err)
	}
	head := view(t, sc.s, func(r *store.Reader) (*store.Commit, error) { return r.Commit(c.Head) })
	if c.Tree != want || c.Markers != nil || c.Merge != cand || !slices.Equal(head.Parents, []store.Hash{prev}) {
		t.Errorf("resolve: tree %s markers %q merge %s parents %v, want the folder's tree %s, no markers, on %s", c.Tree, c.Markers, c.Merge, head.Parents, want, prev)
	}
	if got := gitRef(t, sc.s, store.CandidateRef(managed)); got != c.Head.String() {
		t.Errorf("candidate ref at %s, want the resolution %s", got, c.Head)
	}
	v, err := candidates.Accept(ctx, sc.s, managed, "")
	if err != nil || v.Tree != want {
		t.Errorf("Accept after resolve = %v (tree %s), want the folder's tree %s", err, v.Tree, want)
	}
}

// TestResolvedWithGit: a resolution a person commits on the candidate
// branch with plain git is the candidate's head; Get still finds the merge
// below it, and accept publishes the resolution.
func TestResolvedWithGit(t *testing.T) {
	sc := newScene(t, managed)
	cand := sc.write(t, managed, conflicted(managed), "SKILL.md (content)")
	dir := sc.s.Dir()
	blob := storetest.GitPlumb(t, dir, []byte(clean(managed)["SKILL.md"]), "hash-object", "-w", "--stdin")
	var entries []string
	for _, line := range strings.Split(storetest.GitPlumb(t, dir, nil, "ls-tree", cand.String()), "\n") {
		if strings.HasSuffix(line, "\tSKILL.md") {
			line = "100644 blob " + blob + "\tSKILL.md"
		}
		entries = append(entries, line)
	}
	tree := storetest.GitPlumb(t, dir, []byte(strings.Join(entries, "\n")+"\n"), "mktree")
	commit := storetest.GitPlumb(t, dir, nil, "commit-tree", tree, "-p", cand.String(), "-m", "resolve by hand")
	storetest.GitPlumb(t, dir, nil, "update-ref", store.CandidateRef(managed), commit)

	c := view(t, sc.s, func(r *store.Reader) (candidates.Candidate, error) { return candidates.Get(r, managed) })
	if c.Head.String() != commit || c.Merge != cand || !c.Resolved || c.Tree.String() != tree || c.Markers != nil || c.Upstream != sc.upstream {
		t.Errorf("Get = %+v, want head %s (tree %s) resolved on the merge %s, no markers", c, commit, tree, cand)
	}
	v, err := candidates.Accept(context.Background(), sc.s, managed, "")
	if err != nil || v.Tree.String() != tree || !slices.Equal(v.Parents, []store.Hash{sc.head.Commit, c.Head}) {
		t.Errorf("Accept = v%d tree %s parents %v, %v; want the resolution's tree %s on [%s %s]", v.Number, v.Tree, v.Parents, err, tree, sc.head.Commit, commit)
	}
}

// TestSupersede: a newer candidate replaces a waiting one, which stays
// reachable under its superseded ref; with no candidate nothing happens.
func TestSupersede(t *testing.T) {
	for _, name := range []string{managed, plugged} {
		t.Run(name, func(t *testing.T) {
			sc := newScene(t, name)
			var none store.Hash
			update(t, sc.s, func(tx *store.Tx) error { none = candidates.Supersede(tx, name); return nil })
			if !none.IsZero() || gitRefs(t, sc.s, store.SupersededRefPrefix) != "" {
				t.Fatalf("Supersede without a candidate = %s, want zero and no ref", none)
			}
			old := sc.write(t, name, conflicted(name), "SKILL.md (content)")
			var retired store.Hash
			update(t, sc.s, func(tx *store.Tx) error { retired = candidates.Supersede(tx, name); return nil })
			newer := sc.write(t, name, clean(name))
			if retired != old {
				t.Errorf("Supersede = %s, want the waiting candidate %s", retired, old)
			}
			if got := gitRef(t, sc.s, store.CandidateRef(name)); got != newer.String() {
				t.Errorf("candidate ref at %s, want the newer %s", got, newer)
			}
			want := store.SupersededRef(name, old) + " " + old.String()
			if got := gitRefs(t, sc.s, store.SupersededRefPrefix); got != want || gitRef(t, sc.s, store.SupersededRef(name, old)) != old.String() {
				t.Errorf("superseded refs %q, want %q", got, want)
			}
		})
	}
}

// TestReplace: a newer candidate replaces a waiting one. One that never
// left this store is dropped (no superseded ref: nobody else can hold it,
// and it is the merge of versions the history keeps); one a remote holds
// (its tracking ref points at it) or that holds a person's resolution is
// kept under its superseded ref, as Supersede keeps every one.
func TestReplace(t *testing.T) {
	for _, name := range []string{managed, plugged} {
		t.Run(name, func(t *testing.T) {
			sc := newScene(t, name)
			ctx := context.Background()
			replace := func() store.Hash {
				var h store.Hash
				update(t, sc.s, func(tx *store.Tx) error { h = candidates.Replace(tx, name); return nil })
				return h
			}
			if h := replace(); !h.IsZero() {
				t.Fatalf("Replace without a candidate = %s", h)
			}

			private := sc.write(t, name, conflicted(name), "SKILL.md (content)")
			if got := replace(); got != private {
				t.Errorf("Replace = %s, want %s", got, private)
			}
			if got := gitRefs(t, sc.s, store.SupersededRefPrefix); got != "" {
				t.Errorf("a candidate no remote had left superseded refs %q", got)
			}
			if got := gitRefs(t, sc.s, store.CandidateRef(name)); got != "" {
				t.Errorf("candidate ref still there: %q", got)
			}

			pushed := sc.write(t, name, conflicted(name), "SKILL.md (content)")
			update(t, sc.s, func(tx *store.Tx) error {
				tx.SetRef(store.TrackingRef("origin", store.CandidateRef(name)), pushed)
				return nil
			})
			replace()
			if got := gitRef(t, sc.s, store.SupersededRef(name, pushed)); got != pushed.String() {
				t.Errorf("a candidate origin holds: superseded ref at %q, want %s", got, pushed)
			}

			sc.write(t, name, conflicted(name), "SKILL.md (content)")
			dir := filepath.Join(t.TempDir(), "resolved")
			storetest.WriteFile(t, filepath.Join(dir, "SKILL.md"), storetest.SkillMD(store.OwnName(name), "step one", "step two, by hand"))
			resolved, err := candidates.Resolve(ctx, sc.s, name, dir, "by hand")
			if err != nil {
				t.Fatal(err)
			}
			replace()
			if got := gitRef(t, sc.s, store.SupersededRef(name, resolved.Head)); got != resolved.Head.String() {
				t.Errorf("a resolved candidate: superseded ref at %q, want %s", got, resolved.Head)
			}
			if n := len(strings.Fields(gitRefs(t, sc.s, store.SupersededRefPrefix))); n != 4 {
				t.Errorf("superseded refs: %d fields, want 2 refs", n)
			}
		})
	}
}

// TestHasConflictMarkers: only a line starting with "<<<<<<< " or
// ">>>>>>> " counts, not one that merely looks like it.
func TestHasConflictMarkers(t *testing.T) {
	for _, tc := range []struct {
		data string
		want bool
	}{
		{"<<<<<<< ours\na\n=======\nb\n>>>>>>> theirs\n", true},
		{"<<<<<<< published\n", true},
		{"text\n>>>>>>> upstream\n", true},
		{"text\r\n<<<<<<< ours\r\n", true},
		{"", false},
		{"plain text\n", false},
		{"a\n=======\nb\n", false},
		{"<<<<<<<\nno space after the marker\n", false},
		{"<<<<<<<< eight, not seven\n", false},
		{"  <<<<<<< indented\n", false},
		{"see the marker <<<<<<< here\n", false},
		{">>>>>>>theirs\n", false},
		{"> >>>>>> quoted\n", false},
	} {
		if got := candidates.HasConflictMarkers([]byte(tc.data)); got != tc.want {
			t.Errorf("HasConflictMarkers(%q) = %v, want %v", tc.data, got, tc.want)
		}
	}
}
