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
	problems []checkProblem
	// cur is the skill whose refs are being checked ("" for the state
	// or a ref of no skill): a problem found meanwhile holds that skill.
	cur string
	// badTrees and badCommits are the objects a problem was found in, so
	// a second skill's ref reaching one is held too, not passed as
	// "checked already".
	badTrees   map[store.Hash]string // → the skill it was refused in
	badCommits map[store.Hash]string
	// warnings are the validation policy's warnings about the newest
	// fetched version of each skill: reported, never refusing the pull.
	warnings []discover.Diagnostic
}

func newHistoryCheck(tx *store.Tx, allow safety.RiskLevel) *historyCheck {
	c := &historyCheck{packedReader: newPackedReader(tx), tx: tx, limits: skillfs.DefaultLimits, allow: allow,
		known: map[store.Hash]bool{}, trees: map[store.Hash]bool{}, versions: map[store.Hash]bool{},
		risks: map[store.Hash]safety.Report{}, badTrees: map[store.Hash]string{}, badCommits: map[store.Hash]string{}}
	for _, name := range tx.RefNames("refs/") {
		// Tracking refs are no proof: plain `git fetch` in the store
		// fills them without any check.
		if h, ok := tx.Ref(name); ok && !strings.HasPrefix(name, store.RemoteRefPrefix) {
			c.known[h] = true
		}
	}
	return c
}

// checkProblem is one thing the check refused.
type checkProblem struct {
	text  string
	skill string // the skill it holds; "" when it refuses the whole pull
	// form is set for history git itself would refuse (a malformed tree,
	// a missing or mistyped object): the received pack cannot be kept,
	// so the whole pull is refused.
	form bool
	risk safety.RiskLevel // set for a risk above the allowed level
}

// problem records a problem of content (a file too large, a symlink out,
// a SKILL.md that does not parse, a broken version count): it holds the
// skill being checked.
func (c *historyCheck) problem(where, format string, args ...any) {
	c.problems = append(c.problems, checkProblem{text: where + ": " + fmt.Sprintf(format, args...), skill: c.cur})
}

// fatal records a problem of form, which refuses the whole pull.
func (c *historyCheck) fatal(where, format string, args ...any) {
	c.problems = append(c.problems, checkProblem{text: where + ": " + fmt.Sprintf(format, args...), form: true})
}

// forRef sets the skill the checks that follow are about: the skill a
// ref of a skill's namespaces belongs to, "" for any other.
func (c *historyCheck) forRef(ref string) {
	c.cur = refSkill(ref)
}

// refSkill is the store name of the skill a fetched ref belongs to
// (its published history, candidate, superseded candidate or upstream
// snapshot), "" for the state and other refs.
func refSkill(ref string) string {
	if name, ok := store.SkillNameOfRef(ref); ok {
		return name
	}
	if name, ok := store.CandidateNameOfRef(ref); ok {
		return name
	}
	if name, _, ok := store.SupersededNameOfRef(ref); ok {
		return name
	}
	if name, ok := store.UpstreamNameOfRef(ref); ok {
		return name
	}
	return ""
}

// history checks every commit reachable from tip that the store did not
// hold before.
func (c *historyCheck) history(ref string, tip store.Hash) {
	queue := []store.Hash{tip}
	for len(queue) > 0 {
		h := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if c.known[h] {
			if skill, bad := c.badCommits[h]; bad && skill != c.cur {
				c.problem(ref, "commit %s: refused in %s", short(h), skill)
			}
			continue
		}
		c.known[h] = true
		o, err := c.object(h)
		if err != nil {
			c.fatal(ref, "%v", err)
			continue
		}
		if o.Type != gitdb.CommitObject {
			c.fatal(ref, "%s is a %s, not a commit", short(h), o.Type)
			continue
		}
		commit, err := gitdb.ParseCommit(h, o.Data)
		if err != nil {
			c.fatal(ref, "commit %s: %v", short(h), err)
			continue
		}
		if !c.treeShape(ref, commit.Tree) {
			c.badCommits[h] = c.cur
		}
		queue = append(queue, commit.Parents...)
	}
}

// treeShape checks a tree's shape without reading file contents; it
// reports whether the tree passed (now or when first checked).
func (c *historyCheck) treeShape(ref string, h store.Hash) bool {
	if c.trees[h] {
		skill, bad := c.badTrees[h]
		if bad && skill != c.cur {
			c.problem(ref, "tree %s: refused in %s", short(h), skill)
		}
		return !bad
	}
	c.trees[h] = true
	before := len(c.problems)
	defer func() {
		if len(c.problems) > before {
			c.badTrees[h] = c.cur
		}
	}()
	files := 0
	var listed []store.File // paths, and symlinks with their targets
	var walk func(h store.Hash, prefix string, depth int) bool
	walk = func(h store.Hash, prefix string, depth int) bool {
		raw, err := c.typed(h, gitdb.TreeObject)
		if err == nil {
			err = skillfs.CheckTree(raw)
		}
		if err != nil {
			c.fatal(ref, "tree %s under %q: %v", short(h), prefix, err)
			return false
		}
		entries, err := c.tree(h)
		if err != nil {
			c.fatal(ref, "tree %s: %v", short(h), err)
			return false
		}
		for _, e := range entries {
			if e.Name == "" || e.Name == "." || e.Name == ".." || strings.ContainsAny(e.Name, "/\\\x00") || strings.EqualFold(e.Name, ".git") {
				c.fatal(ref, "tree %s: entry %q under %q is not a plain file name (path escapes the skill folder)", short(h), e.Name, prefix)
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
				c.fatal(ref, "%s: blob %s: %v", p, short(e.ID), err)
				return false
			}
			if size > c.limits.MaxFileSize {
				c.problem(ref, "%s is %d bytes, over the size cap of %d bytes", p, size, c.limits.MaxFileSize)
				return false
			}
		}
		return true
	}
	if !walk(h, "", 1) {
		return false
	}
	for _, e := range skillfs.CheckLinks(listed) {
		c.problem(ref, "tree %s: %v", short(h), e)
	}
	return len(c.problems) == before
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
	c.cur = skill
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
	if _, bad := c.badTrees[commit.Tree]; err != nil || !c.trees[commit.Tree] || bad {
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
	if !c.treeShape(where, tree) {
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
	rep = c.tx.ScanExternal(c.tx.Context(), skill, rep, files, nil)
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
		c.problems[len(c.problems)-1].risk = rep.Risk
		return rep, false
	}
	return rep, true
}

// stateTree checks a fetched state commit's records: "<kind>/<key>.json"
// files that parse as JSON objects.
func (c *historyCheck) stateTree(h store.Hash) {
	c.cur = ""
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

// err returns every problem as one refusal, nil when there is none: for a
// caller taking one skill, whose every problem refuses it.
func (c *historyCheck) err(remote string) error {
	if len(c.problems) == 0 {
		return nil
	}
	return c.refusal(remote)
}

// refusal is the UnsafeRemoteError listing every problem; RiskOnly is set
// when each is a risk above the allowed level.
func (c *historyCheck) refusal(remote string) *UnsafeRemoteError {
	e := &UnsafeRemoteError{Remote: remote}
	riskOnly := true
	for _, p := range c.problems {
		e.Problems = append(e.Problems, p.text)
		riskOnly = riskOnly && p.risk != safety.RiskNone
		e.RiskOnly = max(e.RiskOnly, p.risk)
	}
	if !riskOnly {
		e.RiskOnly = safety.RiskNone
	}
	sort.Strings(e.Problems)
	return e
}

// outcome returns the skills to leave out of the pull, each with its
// problems, or the refusal of the whole pull when a problem is of form
// or about no one skill (the state). Problems of content refuse the
// smallest part: the skill they are in.
func (c *historyCheck) outcome(remote string) ([]RefusedSkill, error) {
	if len(c.problems) == 0 {
		return nil, nil
	}
	whole := false
	for _, p := range c.problems {
		whole = whole || p.form || p.skill == ""
	}
	if whole {
		return nil, c.refusal(remote)
	}
	bySkill := map[string]*RefusedSkill{}
	var out []RefusedSkill
	for _, p := range c.problems {
		r := bySkill[p.skill]
		if r == nil {
			out = append(out, RefusedSkill{Skill: p.skill})
			r = &out[len(out)-1]
			bySkill[p.skill] = r
		}
		r.Problems = append(r.Problems, p.text)
		if p.risk > r.risk {
			r.risk, r.Risk = p.risk, p.risk.String()
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Skill < out[j].Skill })
	for i := range out {
		sort.Strings(out[i].Problems)
	}
	return out, nil
}

// RefusedSkill is a skill a pull left out because what the remote serves
// of it fails the checks here (a file over the size cap, a symlink out of
// the folder, a SKILL.md that does not parse, a risk above the allowed
// level); the rest of the pull went in. Nothing of the skill was taken:
// its refs here are as they were, and the next pull checks it again.
type RefusedSkill struct {
	Skill    string   `json:"skill"`
	Problems []string `json:"problems"`
	// Risk is set when a problem is a risk above the allowed level
	// (--allow-risk takes it in when every problem is).
	Risk string `json:"risk,omitempty"`
	risk safety.RiskLevel
}

// UnsafeRemoteError refuses history a remote served that the store's
// checks reject as a whole: objects git itself would refuse (the pack
// they came in cannot be kept) or a state record that does not parse.
// Nothing was written.
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
