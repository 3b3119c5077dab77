package store

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/store/safety"
)

// Version is one published version of a skill: a commit on its skill ref.
type Version struct {
	Skill         string
	Number        int
	Commit        Hash
	Tree          Hash
	Parents       []Hash
	Time          time.Time
	Actor         string
	Source        string
	Reason        string
	MergeMode     MergeMode
	Plugin        string
	PluginVersion string
	Risk          safety.RiskLevel
	Findings      []safety.Finding
	Subject       string
}

// Name is the version's full name, "deploy@v3".
func (v Version) Name() string { return fmt.Sprintf("%s@v%d", v.Skill, v.Number) }

// VersionInfo describes a version about to be written.
type VersionInfo struct {
	// Source is SourceManaged (the default) or a plugin source such as
	// "plugin:acme".
	Source string
	Reason string
	// MergeMode is how the tree was made (default MergeModeNone).
	MergeMode     MergeMode
	Plugin        string
	PluginVersion string
	// Risk and Findings are the safety check's result for the tree.
	Risk     safety.RiskLevel
	Findings []safety.Finding
	// ExtraParents follow the previous version as parents, for example the
	// upstream snapshot a version takes in.
	ExtraParents []Hash
	// Subject overrides the default first line of the commit message.
	Subject string
	// Trailers are added after the standard ones.
	Trailers []Trailer
	// Actor, when set, records who made the version instead of the
	// store's actor (capture records a person's edit in a target).
	Actor *Signature
}

// CommitVersion queues a new version of skill name with the given tree on
// top of the skill's current head (if any), numbered one past it, and moves
// the skill ref to it. It does not compare trees: callers decide whether a
// new version is needed.
func (tx *Tx) CommitVersion(name string, tree Hash, info VersionInfo) (Version, error) {
	if err := CheckQualifiedName(name); err != nil {
		return Version{}, err
	}
	number := 1
	var parents []Hash
	if head, ok := tx.Ref(SkillRef(name)); ok {
		prev, err := tx.VersionAt(name, head)
		if err != nil {
			return Version{}, err
		}
		number = prev.Number + 1
		parents = append(parents, head)
	}
	parents = append(parents, info.ExtraParents...)
	return tx.WriteVersion(name, number, parents, tree, info)
}

// WriteVersion queues version number of skill name with the given parents
// and tree, and moves the skill ref to it. It is [Tx.CommitVersion] for
// callers that choose the number and parents themselves: a version joining
// two diverged histories (package store/candidates) is numbered past both.
func (tx *Tx) WriteVersion(name string, number int, parents []Hash, tree Hash, info VersionInfo) (Version, error) {
	sig := tx.Signature()
	if info.Actor != nil {
		sig.Name, sig.Email = info.Actor.Name, info.Actor.Email
	}
	c := versionCommit(name, number, parents, tree, info, sig)
	tx.WriteCommit(c)
	tx.SetRef(SkillRef(name), c.Hash)
	return ParseVersion(name, c)
}

// versionCommit builds the commit of version number of skill name.
func versionCommit(name string, number int, parents []Hash, tree Hash, info VersionInfo, sig Signature) *Commit {
	if info.Source == "" {
		info.Source = SourceManaged
	}
	if info.MergeMode == "" {
		info.MergeMode = MergeModeNone
	}
	subject := info.Subject
	if subject == "" {
		subject = fmt.Sprintf("%s v%d", name, number)
		if info.Reason != "" {
			subject += ": " + info.Reason
		}
	}
	trailers := []Trailer{
		{TrailerVersion, strconv.Itoa(number)},
		{TrailerSource, info.Source},
		{TrailerPlugin, info.Plugin},
		{TrailerPluginVersion, info.PluginVersion},
		{TrailerMergeMode, string(info.MergeMode)},
		{TrailerRisk, info.Risk.String()},
		{TrailerActor, sig.Name + " <" + sig.Email + ">"},
		{TrailerReason, info.Reason},
	}
	trailers = append(trailers, info.Trailers...)
	return &Commit{
		Tree: tree, Parents: parents, Author: sig, Committer: sig,
		Message: BuildMessage(subject, formatFindings(info.Findings), trailers),
	}
}

// VersionAt decodes the version commit h of skill name.
func (r *Reader) VersionAt(name string, h Hash) (Version, error) {
	c, err := r.Commit(h)
	if err != nil {
		return Version{}, fmt.Errorf("%s: %w", name, err)
	}
	v, err := ParseVersion(name, c)
	if err != nil {
		return Version{}, err
	}
	return r.withLocalRisk(v), nil
}

// ParseVersion decodes c as a version commit of skill name (its
// trailers); [Reader.VersionAt] reads the commit first.
func ParseVersion(name string, c *Commit) (Version, error) {
	v := Version{
		Skill: name, Commit: c.Hash, Tree: c.Tree, Parents: c.Parents, Time: c.Committer.When,
		Subject: c.Subject(),
	}
	for _, t := range c.Trailers() {
		switch t.Key {
		case TrailerVersion:
			n, err := strconv.Atoi(t.Value)
			if err != nil || n < 1 {
				return Version{}, fmt.Errorf("%s: commit %s has a bad %s trailer %q", name, ShortHash(c.Hash), TrailerVersion, t.Value)
			}
			v.Number = n
		case TrailerSource:
			v.Source = t.Value
		case TrailerPlugin:
			v.Plugin = t.Value
		case TrailerPluginVersion:
			v.PluginVersion = t.Value
		case TrailerMergeMode:
			v.MergeMode = MergeMode(t.Value)
		case TrailerRisk:
			v.Risk, _ = safety.ParseRiskLevel(t.Value)
		case TrailerActor:
			v.Actor = t.Value
		case TrailerReason:
			v.Reason = t.Value
		}
	}
	if v.Number == 0 {
		return Version{}, fmt.Errorf("%s: commit %s has no %s trailer", name, ShortHash(c.Hash), TrailerVersion)
	}
	v.Findings = parseFindings(c.Body())
	return v, nil
}

// Head returns the latest version of skill name.
func (r *Reader) Head(name string) (Version, error) {
	h, ok := r.Ref(SkillRef(name))
	if !ok {
		return Version{}, r.unknownSkill(name)
	}
	return r.VersionAt(name, h)
}

// Versions returns every version of skill name, newest first, following
// first parents from the head.
func (r *Reader) Versions(name string) ([]Version, error) {
	var out []Version
	err := r.WalkVersions(name, func(v Version) bool { out = append(out, v); return true })
	return out, err
}

// WalkVersions calls fn on each version of skill name, newest first, until
// fn returns false.
func (r *Reader) WalkVersions(name string, fn func(Version) bool) error {
	h, ok := r.Ref(SkillRef(name))
	if !ok {
		return r.unknownSkill(name)
	}
	for !h.IsZero() {
		v, err := r.VersionAt(name, h)
		if err != nil {
			return err
		}
		if !fn(v) {
			return nil
		}
		h = ZeroHash
		if len(v.Parents) > 0 {
			h = v.Parents[0]
		}
	}
	return nil
}

// Skills returns the store names of every skill with a published ref
// (managed "NAME" and plugin "PLUGIN:NAME", not plugins' parts), sorted.
func (r *Reader) Skills() []string {
	names := r.skillRefNames()
	slices.Sort(names)
	return names
}

// formatFindings renders findings as the commit body, one per line, in a
// form parseFindings reads back. A path that holds a newline (or any
// character to escape) is quoted (skillfs.QuotePath), so a file name can
// never add a line, a trailer among them, to the commit message.
func formatFindings(fs []safety.Finding) string {
	if len(fs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Safety findings:\n")
	for _, f := range fs {
		b.WriteString("- " + f.String() + "\n")
	}
	return b.String()
}

// Compiled on first use rather than at start-up, which every command pays.
var findingLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^- (none|low|medium|high|critical): ([^:]+?)(?::(\d+))?: (.*)$`)
})

// quotedFindingLine is a finding line whose path is quoted: the level,
// then what follows the path's closing quote.
var quotedFindingLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^- (none|low|medium|high|critical): (".*)$`)
})
var findingRest = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?::(\d+))?: (.*)$`) })

func parseFindings(body string) []safety.Finding {
	var out []safety.Finding
	for _, line := range strings.Split(body, "\n") {
		if f, ok := parseQuotedFinding(line); ok {
			out = append(out, f)
			continue
		}
		m := findingLine().FindStringSubmatch(line)
		if m == nil {
			continue
		}
		level, _ := safety.ParseRiskLevel(m[1])
		n, _ := strconv.Atoi(m[3])
		out = append(out, safety.Finding{Level: level, Path: m[2], Line: n, Message: m[4]})
	}
	return out
}

// parseQuotedFinding reads a finding line whose path formatFindings quoted.
func parseQuotedFinding(line string) (safety.Finding, bool) {
	m := quotedFindingLine().FindStringSubmatch(line)
	if m == nil {
		return safety.Finding{}, false
	}
	path, rest, ok := skillfs.UnquotePrefix(m[2])
	if !ok {
		return safety.Finding{}, false
	}
	r := findingRest().FindStringSubmatch(rest)
	if r == nil {
		return safety.Finding{}, false
	}
	level, _ := safety.ParseRiskLevel(m[1])
	n, _ := strconv.Atoi(r[1])
	return safety.Finding{Level: level, Path: path, Line: n, Message: r[2]}, true
}
