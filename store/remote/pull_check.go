package remote

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/gitdb"
	"github.com/skillstore/skillstore/internal/problem"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

// historyCheck runs the store's safety checks on history fetched from a
// remote before any local ref points at it. Every commit reachable from a
// fetched ref and not already in the store is parsed and its tree walked:
// every tree passes git fsck --strict's rules (skillfs.CheckTree), only
// regular files and folders, plain names (no "..", ".git", "/" or NUL), at most Limits.MaxFiles files of at most Limits.MaxFileSize bytes,
// sizes read from object headers so a huge blob is never loaded. Published
// versions are checked further exactly like local input: version trailers
// counting down to v1, a SKILL.md that parses, and the content safety
// check with its risk threshold.
type historyCheck struct {
	*packedReader
	tx     *store.Tx
	limits skillfs.Limits
	allow  safety.RiskLevel
	// known are commits checked already and the tips of the store's own
	// refs (whose history was checked when it was written).
	known    map[store.Hash]bool
	trees    map[store.Hash]bool // trees checked
	versions map[store.Hash]bool // version commits fully checked
	// risks are the safety reports computed here for the versions and
	// candidates the remote brings: their Risk trailers are not believed.
	risks    map[store.Hash]safety.Report
	problems []string
	// riskProblems counts the problems that are risk findings above the
	// allowed level, the highest of which is maxRisk.
	riskProblems int
	maxRisk      safety.RiskLevel
	// warnings are the validation policy's warnings about the newest
	// fetched version of each skill: reported, never refusing the pull.
	warnings []discover.Diagnostic
}

func newHistoryCheck(tx *store.Tx, allow safety.RiskLevel) *historyCheck {
	c := &historyCheck{packedReader: newPackedReader(tx), tx: tx, limits: skillfs.DefaultLimits, allow: allow,
		known: map[store.Hash]bool{}, trees: map[store.Hash]bool{}, versions: map[store.Hash]bool{},
		risks: map[store.Hash]safety.Report{}}
	for _, name := range tx.RefNames("refs/") {
		// Tracking refs are no proof: plain `git fetch` in the store
		// fills them without any check.
		if h, ok := tx.Ref(name); ok && !strings.HasPrefix(name, store.RemoteRefPrefix) {
			c.known[h] = true
		}
	}
	return c
}

func (c *historyCheck) problem(where, format string, args ...any) {
	c.problems = append(c.problems, where+": "+fmt.Sprintf(format, args...))
}

// history checks every commit reachable from tip that the store did not
// hold before.
func (c *historyCheck) history(ref string, tip store.Hash) {
	queue := []store.Hash{tip}
	for len(queue) > 0 {
		h := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if c.known[h] {
			continue
		}
		c.known[h] = true
		o, err := c.object(h)
		if err != nil {
			c.problem(ref, "%v", err)
			continue
		}
		if o.Type != gitdb.CommitObject {
			c.problem(ref, "%s is a %s, not a commit", short(h), o.Type)
			continue
		}
		commit, err := gitdb.ParseCommit(h, o.Data)
		if err != nil {
			c.problem(ref, "commit %s: %v", short(h), err)
			continue
		}
		c.treeShape(ref, commit.Tree)
		queue = append(queue, commit.Parents...)
	}
}

// treeShape checks a tree's shape without reading file contents.
func (c *historyCheck) treeShape(ref string, h store.Hash) {
	if c.trees[h] {
		return
	}
	c.trees[h] = true
	files := 0
	var listed []store.File // paths, and symlinks with their targets
	var walk func(h store.Hash, prefix string, depth int) bool
	walk = func(h store.Hash, prefix string, depth int) bool {
		raw, err := c.typed(h, gitdb.TreeObject)
		if err == nil {
			err = skillfs.CheckTree(raw)
		}
		if err != nil {
			c.problem(ref, "tree %s under %q: %v", short(h), prefix, err)
			return false
		}
		entries, err := c.tree(h)
		if err != nil {
			c.problem(ref, "tree %s: %v", short(h), err)
			return false
		}
		for _, e := range entries {
			if e.Name == "" || e.Name == "." || e.Name == ".." || strings.ContainsAny(e.Name, "/\\\x00") || strings.EqualFold(e.Name, ".git") {
				c.problem(ref, "tree %s: entry %q under %q is not a plain file name (path escapes the skill folder)", short(h), e.Name, prefix)
				return false
			}
			p, err := skillfs.ChildPath(prefix, e.Name, depth)
			if err != nil {
				c.problem(ref, "tree %s: %v", short(h), err)
				return false
			}
			switch e.Mode {
			case skillfs.Dir:
				if !walk(e.ID, p, depth+1) {
					return false
				}
				continue
			case skillfs.Regular, skillfs.Executable:
				listed = append(listed, store.File{Path: p, Mode: e.Mode})
			case skillfs.Symlink:
				if !c.linkTarget(ref, p, e.ID, &listed) {
					return false
				}
			default:
				c.problem(ref, "%s has mode %o (submodule or special file); a store holds files and symlinks inside the folder only", p, uint32(e.Mode))
				return false
			}
			if files++; files > c.limits.MaxFiles {
				c.problem(ref, "tree %s holds more than %d files", short(h), c.limits.MaxFiles)
				return false
			}
			size, err := c.size(e.ID)
			if err != nil {
				c.problem(ref, "%s: blob %s: %v", p, short(e.ID), err)
				return false
			}
			if size > c.limits.MaxFileSize {
				c.problem(ref, "%s is %d bytes, over the size cap of %d bytes", p, size, c.limits.MaxFileSize)
				return false
			}
		}
		return true
	}
	if walk(h, "", 1) {
		for _, e := range skillfs.CheckLinks(listed) {
			c.problem(ref, "tree %s: %v", short(h), e)
		}
	}
}

// linkTarget reads the target of the symlink p (blob id), bounded, into
// listed, for the check of the tree's links.
func (c *historyCheck) linkTarget(ref, p string, id store.Hash, listed *[]store.File) bool {
	size, err := c.size(id)
	if err == nil && size > skillfs.MaxLinkTarget {
		err = fmt.Errorf("a symlink target of %d bytes", size)
	}
	var target []byte
	if err == nil {
		target, err = c.typed(id, gitdb.BlobObject)
	}
	if err != nil {
		c.problem(ref, "%s: blob %s: %v", p, short(id), err)
		return false
	}
	*listed = append(*listed, store.File{Path: p, Mode: skillfs.Symlink, Data: target})
	return true
}

// versions checks the published history of skill from tip down its first
// parents, the way verify does, until it reaches stop (a version this
// store already holds, checked when it was written) or v1.
func (c *historyCheck) skillVersions(skill string, tip, stop store.Hash) {
	ref := store.SkillRef(skill)
	want := 0
	for h := tip; !h.IsZero(); {
		if h == stop || c.versions[h] {
			// Known good below here; the numbers must still meet.
			if commit, err := c.commit(h); err == nil && want != 0 {
				if v, err := store.ParseVersion(skill, commit); err == nil && v.Number != want {
					c.problem(ref, "commit %s is v%d but its child is v%d (versions must count down by one)", short(h), v.Number, want+1)
				}
			}
			return
		}
		c.versions[h] = true
		commit, err := c.commit(h)
		if err != nil {
			c.problem(ref, "%v", err)
			return
		}
		v, err := store.ParseVersion(skill, commit)
		if err != nil {
			c.problem(ref, "%v", err)
			return
		}
		if want != 0 && v.Number != want {
			c.problem(ref, "commit %s is v%d but its child is v%d (versions must count down by one)", short(h), v.Number, want+1)
			return
		}
		want = v.Number - 1
		latest := h == tip
		h = store.ZeroHash
		if len(commit.Parents) > 0 {
			h = commit.Parents[0]
		}
		if rep, ok := c.versionTree(fmt.Sprintf("%s@v%d", skill, v.Number), skill, commit.Tree, c.parentFiles(h), latest); ok {
			c.risks[commit.Hash] = rep
		}
	}
	if want != 0 {
		c.problem(ref, "history starts at v%d instead of v1", want+1)
	}
}

// parentFiles loads the files of version commit h (zero: none), the
// previous version the safety check compares scripts with.
func (c *historyCheck) parentFiles(h store.Hash) []store.File {
	if h.IsZero() {
		return nil
	}
	commit, err := c.commit(h)
	if err != nil {
		return nil
	}
	files, err := c.loadFiles(commit.Tree)
	if err != nil {
		return nil
	}
	return files
}

// candidateRisk computes the risk of a candidate the remote brings
// against the published version it would replace, so that review shows
// this machine's finding and not the candidate's Risk trailer. It refuses
// nothing: a candidate waits for a person's review.
func (c *historyCheck) candidateRisk(skill string, tip, published store.Hash) {
	commit, err := c.commit(tip)
	if err != nil || !c.trees[commit.Tree] {
		return // not fetched by this pull, or its shape failed
	}
	files, err := c.loadFiles(commit.Tree)
	if err != nil {
		return
	}
	previous := c.parentFiles(published)
	if rep, err := safety.Check(skill, files, previous, c.limits); err == nil {
		c.risks[tip] = withPartsFindings(skill, rep, files, previous)
	}
}

// versionTree runs the content checks local input gets: the safety check
// and the validation policy (discover.Check, lenient), whose warnings are
// kept for the newest version (latest). It returns the safety report; ok
// is false when a problem was recorded.
func (c *historyCheck) versionTree(where, skill string, tree store.Hash, previous []store.File, latest bool) (safety.Report, bool) {
	c.treeShape(where, tree)
	if len(c.problems) > 0 {
		return safety.Report{}, false // never load a tree whose shape failed
	}
	files, err := c.loadFiles(tree)
	if err != nil {
		c.problem(where, "%v", err)
		return safety.Report{}, false
	}
	rep, err := safety.Check(skill, files, previous, c.limits)
	if err != nil {
		c.problem(where, "%v", err)
		return safety.Report{}, false
	}
	if store.IsPluginParts(skill) {
		return c.allowedRisk(where, withPartsFindings(skill, rep, files, previous))
	}
	md, ok := store.FileMap(files)[store.SkillFile]
	if !ok {
		c.problem(where, "no %s at the top of the tree", store.SkillFile)
		return rep, false
	}
	verdict := discover.Check(where+"/"+store.SkillFile, store.OwnName(skill), md.Data, discover.Lenient)
	if !verdict.Accepted() {
		for _, d := range verdict.Errors() {
			c.problem(where, "%s", d)
		}
		return rep, false
	}
	if latest {
		c.warnings = append(c.warnings, verdict.Warnings()...)
	}
	return c.allowedRisk(where, rep)
}

// allowedRisk records a problem when a version's risk is above what the
// pull allows.
func (c *historyCheck) allowedRisk(where string, rep safety.Report) (safety.Report, bool) {
	if rep.Risk > c.allow {
		var found []string
		for _, f := range rep.Findings {
			if f.Level > c.allow {
				found = append(found, f.String())
			}
		}
		c.problem(where, "risk %s is above the allowed %s (%s)", rep.Risk, c.allow, strings.Join(found, "; "))
		c.riskProblems++
		c.maxRisk = max(c.maxRisk, rep.Risk)
		return rep, false
	}
	return rep, true
}

// stateTree checks a fetched state commit's records: "<kind>/<key>.json"
// files that parse as JSON objects.
func (c *historyCheck) stateTree(h store.Hash) {
	commit, err := c.tx.Commit(h)
	if err != nil {
		c.problem(store.StateRef, "%v", err)
		return
	}
	files, err := c.tx.Files(commit.Tree)
	if err != nil {
		c.problem(store.StateRef, "%v", err)
		return
	}
	for _, f := range files {
		where := store.StateRef + ":" + f.Path
		kind, key, ok := strings.Cut(strings.TrimSuffix(f.Path, recordExt), "/")
		if !strings.HasSuffix(f.Path, recordExt) || !ok || kind == "" || key == "" {
			c.problem(where, "not a <kind>/<key>%s record", recordExt)
			continue
		}
		data, err := c.tx.Blob(f.ID)
		if err != nil {
			c.problem(where, "%v", err)
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal(data, &rec); err != nil {
			c.problem(where, "does not parse: %v", err)
		}
	}
}

// err returns the refusal, or nil when everything passed.
func (c *historyCheck) err(remote string) error {
	if len(c.problems) == 0 {
		return nil
	}
	sort.Strings(c.problems)
	e := &UnsafeRemoteError{Remote: remote, Problems: c.problems}
	if c.riskProblems == len(c.problems) {
		e.RiskOnly = c.maxRisk
	}
	return e
}

// UnsafeRemoteError refuses history a remote served that the store's
// safety checks reject. Nothing was written.
type UnsafeRemoteError struct {
	Remote   string
	Problems []string
	// RiskOnly is set when every problem is a content risk above the
	// allowed level: it is the highest, which --allow-risk would accept.
	// A problem of form (a symlink, a huge file, a broken history) no
	// flag accepts, and leaves it zero.
	RiskOnly safety.RiskLevel
}

func (e *UnsafeRemoteError) Error() string { return problem.Format(e.Summary(), e.Details()) }

// Summary names the remote.
func (e *UnsafeRemoteError) Summary() string {
	return "remote " + e.Remote + " serves history the safety checks refuse; nothing was written"
}

// Details are the problems, each led by the ref or object it is about.
func (e *UnsafeRemoteError) Details() []string { return e.Problems }
