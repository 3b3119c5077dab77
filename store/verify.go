package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/gitdb"
	"github.com/skillstore/skillstore/internal/lockfile"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/internal/skillmd"
)

// VerifyProblem is one broken invariant found by Verify.
type VerifyProblem struct {
	// Where names the ref, file or record concerned.
	Where   string `json:"where"`
	Message string `json:"message"`
}

func (p VerifyProblem) String() string { return p.Where + ": " + p.Message }

// VerifyReport is the outcome of Verify.
type VerifyReport struct {
	Skills   int `json:"skills"`
	Versions int `json:"versions"`
	Refs     int `json:"refs"`
	// PluginParts and PartsVersions count the plugins' parts units
	// (PLUGIN:_plugin) and their versions, checked like skills but
	// counted apart.
	PluginParts   int `json:"plugin_parts,omitempty"`
	PartsVersions int `json:"parts_versions,omitempty"`
	// ObjectsRead counts the objects read (inflated and re-hashed): each
	// at most once per run, however many refs reach it.
	ObjectsRead int             `json:"objects_read"`
	Problems    []VerifyProblem `json:"problems"`
	// Warnings are the validation policy's warnings (discover.Check,
	// lenient) about each skill's latest version: what an agent truncates,
	// defaults or skips. They never make the store unsound.
	Warnings []VerifyProblem `json:"warnings"`
}

// OK reports whether no problem was found; warnings do not count.
func (r VerifyReport) OK() bool { return len(r.Problems) == 0 }

// Verify checks every invariant of the store: every ref file holds an id
// and resolves to a commit, every skill version's tree is complete, holds a
// SKILL.md that parses and only regular files, version trailers count down
// by one along first parents to v1, and every state record parses.
// SKILL.md files are judged by the validation policy every way into the
// store applies (discover.Check, lenient), so a store that any command
// accepted verifies; the policy's warnings are reported apart. It
// returns an error only when it cannot run; what is wrong is in the report.
func (s *Store) Verify(ctx context.Context) (VerifyReport, error) {
	return s.VerifyWith(ctx, VerifyOptions{})
}

// VerifyOptions tune Verify.
type VerifyOptions struct {
	// Quick checks that every blob of a version is present instead of
	// reading it, which re-hashes its content against its id.
	Quick bool
}

// VerifyWith is Verify with options. Besides Verify's checks, every tree
// reached passes git fsck --strict's rules (skillfs.CheckTree), and every
// object read is re-hashed against its id (reads refuse altered content);
// without Quick, that is every object of every version.
func (s *Store) VerifyWith(ctx context.Context, opts VerifyOptions) (VerifyReport, error) {
	var rep VerifyReport
	err := s.withSharedLock(ctx, func() error {
		refs, err := gitdb.ReadRefsReport(s.dir, func(ce *CorruptRefError) {
			rep.Problems = append(rep.Problems, VerifyProblem{Where: ce.Path, Message: fmt.Sprintf("corrupt ref file (holds %q, not an object id)", ce.Content)})
		})
		if err != nil {
			return err
		}
		rep.Refs = len(refs)
		return s.verifyRefs(ctx, refs, opts, &rep)
	})
	return rep, err
}

// verifyRef checks one ref by what it is.
func (v *verifier) verifyRef(name string, h Hash) {
	plugin, isParts := PluginPartsOfRef(name)
	switch {
	case isParts:
		v.pluginParts(plugin, h)
	case strings.HasPrefix(name, SkillRefPrefix) || strings.HasPrefix(name, PluginRefPrefix):
		skill, ok := SkillNameOfRef(name)
		if !ok {
			v.problem(name, "not a skill ref: want %sNAME or %sPLUGIN/NAME", SkillRefPrefix, PluginRefPrefix)
			return
		}
		v.rep.Skills++
		v.skill(skill, h)
	case name == StateRef:
		v.state(h)
	default:
		v.commitRef(name, h)
	}
}

func (s *Store) withSharedLock(ctx context.Context, fn func() error) error {
	l, err := s.lock(ctx, lockfile.Shared)
	if err != nil {
		return err
	}
	defer l.Release()
	return fn()
}

type verifier struct {
	r *Reader
	// rep holds this verifier's counts; problems and warnings are kept
	// apart, in order (see verify_objects.go).
	rep *VerifyReport
	// shared is what every verifier of the run found sound (see
	// verify_objects.go).
	shared       *verifyShared
	seen         map[Hash]bool // version trees already checked
	treeOK       map[Hash]bool // version trees checked without a problem
	treesChecked map[Hash]bool // trees already checked against git fsck's rules
	// problems, warnings, ref and seq: see verify_objects.go.
	problems, warnings []seqProblem
	ref, seq           int
	// blobs are the blobs already read and re-hashed (or, with quick,
	// found present), and commits the commits commitRef already checked
	// whole: each object is checked once however many refs reach it, as
	// git fsck does. Plugins of one marketplace share its repository's
	// commit, and versions share most of their files.
	blobs   map[Hash]bool
	commits map[Hash]bool
	quick   bool
}

// trees checks tree and every subtree with git fsck --strict's rules; it
// reports false when one fails (a problem is recorded).
func (v *verifier) trees(where string, tree Hash) bool {
	if v.treesChecked[tree] {
		return true
	}
	v.treesChecked[tree] = true
	if _, ok := v.shared.tree(tree); ok {
		return true
	}
	raw, err := v.counted().typed(tree, gitdb.TreeObject)
	if err == nil {
		err = skillfs.CheckTree(raw)
	}
	if err != nil {
		v.problem(where, "tree %s: %v", ShortHash(tree), err)
		return false
	}
	entries, err := parseTree(raw)
	if err != nil {
		v.problem(where, "tree %s: %v", ShortHash(tree), err)
		return false
	}
	for _, e := range entries {
		if e.Mode == skillfs.Dir && !v.trees(where, e.ID) {
			return false
		}
	}
	v.shared.putTree(tree, entries)
	return true
}

// counted is the verifier's reader, for one object read that the report
// counts.
func (v *verifier) counted() *Reader {
	v.rep.ObjectsRead++
	return v.r
}

func (v *verifier) problem(where, format string, args ...any) {
	v.note(VerifyProblem{Where: where, Message: fmt.Sprintf(format, args...)})
}

func (v *verifier) skill(name string, head Hash) {
	ref := SkillRef(name)
	if err := CheckQualifiedName(name); err != nil {
		v.problem(ref, "%v", err)
	}
	want := 0
	for h := head; !h.IsZero(); {
		c, err := v.counted().Commit(h)
		if err != nil {
			v.problem(ref, "commit %s: %v", ShortHash(h), err)
			return
		}
		ver, err := ParseVersion(name, c)
		if err != nil {
			v.problem(ref, "%v", err)
			return
		}
		v.rep.Versions++
		if want != 0 && ver.Number != want {
			v.problem(ref, "commit %s is v%d but its child is v%d (versions must count down by one)", ShortHash(h), ver.Number, want+1)
		}
		want = ver.Number - 1
		v.versionTree(fmt.Sprintf("%s@v%d", name, ver.Number), c.Tree, h == head)
		if v.treeOK[c.Tree] {
			// What commitRef checks of a commit (an upstream snapshot
			// is often a version's commit) holds for this one.
			v.shared.put(v.shared.commits, h)
		}
		h = ZeroHash
		if len(c.Parents) > 0 {
			h = c.Parents[0]
		}
	}
	if want != 0 {
		v.problem(ref, "history starts at v%d instead of v1", want+1)
	}
}

// versionTree checks a version's tree: complete, files and symlinks that
// stay inside it only (skillfs.CheckLinks), and a SKILL.md the validation
// policy accepts. The policy's warnings are kept
// for the latest version only (latest), the one agents get.
func (v *verifier) versionTree(where string, tree Hash, latest bool) {
	if v.seen[tree] {
		return
	}
	v.seen[tree] = true
	problems := len(v.problems)
	defer func() { v.treeOK[tree] = len(v.problems) == problems }()
	files, ok := v.files(where, tree, false)
	if !ok {
		return
	}
	hasSkill := false
	v.links(where, files)
	for _, f := range files {
		if !f.Mode.IsFile() {
			v.problem(where, "%s has mode %s; only files and symlinks inside the folder belong in a version", f.Path, f.ModeString())
		}
		if err := checkTreePath(f.Path); err != nil {
			v.problem(where, "%v", err)
		}
		if f.Path == skillmd.FileName {
			hasSkill = true
			data, err := v.counted().Blob(f.ID)
			if err != nil {
				v.problem(where, "%s: %v", f.Path, err)
				continue
			}
			v.blobs[f.ID] = true
			v.shared.put(v.shared.blobs, f.ID)
			skill, _, _ := strings.Cut(where, "@")
			verdict := discover.Check(f.Path, OwnName(skill), data, discover.Lenient)
			for _, d := range verdict.Errors() {
				v.problem(where, "%s", d)
			}
			if latest {
				for _, d := range verdict.Warnings() {
					v.warn(VerifyProblem{Where: where, Message: d.String()})
				}
			}
			continue
		}
		v.checkBlob(where, f.Path, f.ID)
	}
	if skill, _, _ := strings.Cut(where, "@"); !hasSkill && !IsPluginParts(skill) {
		v.problem(where, "no %s at the top of the tree", skillmd.FileName)
	}
}

func (v *verifier) state(head Hash) {
	c, err := v.counted().Commit(head)
	if err != nil {
		v.problem(StateRef, "%v", err)
		return
	}
	files, ok := v.files(StateRef, c.Tree, false)
	if !ok {
		return
	}
	for _, f := range files {
		where := StateRef + ":" + f.Path
		if !strings.HasSuffix(f.Path, recordExt) {
			v.problem(where, "not a %s record", recordExt)
			continue
		}
		data, err := v.counted().Blob(f.ID)
		if err != nil {
			v.problem(where, "%v", err)
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal(data, &rec); err != nil {
			v.problem(where, "does not parse: %v", err)
		}
	}
	for _, p := range c.Parents {
		if !v.r.hasStored(p) {
			v.problem(StateRef, "parent %s is missing", ShortHash(p))
		}
	}
}

// commitRef checks a ref that skillstore does not interpret in detail
// (upstream snapshots, candidates, plugin sources): it must reach a
// complete commit.
func (v *verifier) commitRef(name string, h Hash) {
	if v.commits[h] {
		return
	}
	v.commits[h] = true
	if v.shared.has(v.shared.commits, h) {
		return
	}
	problems := len(v.problems)
	defer func() {
		if len(v.problems) == problems {
			v.shared.put(v.shared.commits, h)
		}
	}()
	o, err := v.counted().object(h)
	if err != nil {
		v.problem(name, "%v", err)
		return
	}
	if o.Type != gitdb.CommitObject {
		return // a tag or similar kept by a fetch
	}
	c, err := gitdb.ParseCommit(h, o.Data)
	if err != nil {
		v.problem(name, "%v", err)
		return
	}
	files, ok := v.files(name, c.Tree, true)
	if !ok || v.quick {
		return
	}
	for _, f := range files {
		if f.Mode != skillfs.Gitlink {
			v.checkBlob(name, f.Path, f.ID)
		}
	}
}

// links checks a version's symlinks as the intake does (skillfs.CheckLinks):
// a link leading out of the folder, or looping, has no place in a version.
func (v *verifier) links(where string, files []File) {
	var withTargets []File
	for _, f := range files {
		if f.Mode == skillfs.Symlink {
			data, err := v.counted().Blob(f.ID)
			if err != nil {
				v.problem(where, "%s: %v", f.Path, err)
				continue
			}
			f.Data = data
			v.blobs[f.ID] = true // read and re-hashed: checkBlob need not
			v.shared.put(v.shared.blobs, f.ID)
		}
		withTargets = append(withTargets, f)
	}
	for _, e := range skillfs.CheckLinks(withTargets) {
		v.problem(where, "%v", e)
	}
}

// pluginParts verifies a parts unit's history like a skill's (versions
// counting down, trees git fsck accepts, regular files only; no SKILL.md
// needed), counting it apart from the skills.
func (v *verifier) pluginParts(plugin string, head Hash) {
	before := v.rep.Versions
	v.skill(PluginPartsUnit(plugin), head)
	v.rep.PluginParts++
	v.rep.PartsVersions += v.rep.Versions - before
	v.rep.Versions = before
}
