package store

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/internal/skillmd"
	"github.com/skillstore/skillstore/store/safety"
)

// Summary is what listing a skill needs from its latest version.
type Summary struct {
	Name        string
	Commit      Hash
	Tree        Hash
	Number      int
	Time        time.Time
	Source      string
	Risk        safety.RiskLevel
	Description string
}

// The summary cache (skillstore/summary) keeps one Summary per skill, keyed
// by the commit its ref pointed at, so listing 10,000 skills reads one file
// instead of 10,000 commits and SKILL.md blobs. It is derived: an entry
// whose commit no longer matches the ref, or is no longer stored, is
// recomputed (an error if the commit is gone), and any reader may
// rewrite the file (atomically) after filling gaps.
const summaryFile = "summary"

func (s *Store) summaryPath() string { return filepath.Join(s.dir, metaDir, summaryFile) }

func loadSummaries(path string) map[string]Summary {
	out, _ := loadSummaryLines(path)
	return out
}

// loadSummaryLines reads the cache and counts its lines (appends leave
// several of one name).
//
// The file is read into one string and its lines are slices of it: one
// allocation, not one a line (the summaries keep their names and sources,
// which are slices of the lines, either way).
func loadSummaryLines(path string) (map[string]Summary, int) {
	out := map[string]Summary{}
	lines := 0
	data, err := readFileString(path)
	if err != nil {
		return out, 0
	}
	for data != "" {
		line, rest, _ := strings.Cut(data, "\n")
		if len(line) > maxSummaryLine {
			break // as bufio.Scanner stops at a line over its buffer
		}
		data = rest
		lines++
		if sum, ok := parseSummaryLine(strings.TrimSuffix(line, "\r")); ok {
			out[sum.Name] = sum
		}
	}
	return out, lines
}

// maxSummaryLine bounds a line of the summary cache.
const maxSummaryLine = 4 << 20

// readFileString reads the file at path as a string, without a copy of
// its bytes.
func readFileString(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var b strings.Builder
	if info, err := f.Stat(); err == nil {
		b.Grow(int(info.Size()) + 1)
	}
	if _, err := io.Copy(&b, f); err != nil {
		return "", err
	}
	return b.String(), nil
}

func parseSummaryLine(line string) (Summary, bool) {
	f := strings.SplitN(line, "\t", 8)
	if len(f) != 8 {
		return Summary{}, false
	}
	commit, ok1 := ParseHash(f[1])
	tree, ok2 := ParseHash(f[2])
	n, err1 := strconv.Atoi(f[3])
	sec, err2 := strconv.ParseInt(f[4], 10, 64)
	risk, err3 := safety.ParseRiskLevel(f[6])
	desc, err4 := strconv.Unquote(f[7])
	if !ok1 || !ok2 || err1 != nil || err2 != nil || err3 != nil || err4 != nil {
		return Summary{}, false
	}
	return Summary{Name: f[0], Commit: commit, Tree: tree, Number: n, Time: time.Unix(sec, 0), Source: f[5], Risk: risk, Description: desc}, true
}

// loadSummariesOf reads the cached summaries of names alone: each is the
// last line of its name that parses (appends come last), found by a
// search of the file instead of parsing all of it.
func loadSummariesOf(path string, names []string) map[string]Summary {
	out := map[string]Summary{}
	data, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	for _, name := range names {
		key := []byte("\n" + name + "\t")
		for end := len(data); end > 0; {
			i := bytes.LastIndex(data[:end], key) + 1 // start of the line
			if i == 0 {
				if !bytes.HasPrefix(data, key[1:]) {
					break
				}
				end = 0 // the first line; the loop ends after it
			} else {
				end = i - 1
			}
			line, _, _ := bytes.Cut(data[i:], []byte{'\n'})
			if sum, ok := parseSummaryLine(string(line)); ok {
				out[name] = sum
				break
			}
		}
	}
	return out
}

// folderNames are the base names of dirs (the fast path's skill names).
func folderNames(dirs []string) []string {
	out := make([]string, len(dirs))
	for i, d := range dirs {
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		out[i] = filepath.Base(d)
	}
	return out
}

// fewFolders is the most folders that add or import reads without the
// store-wide stat cache and summary cache.
const fewFolders = 16

func saveSummaries(path string, sums map[string]Summary) error {
	var b bytes.Buffer
	for _, s := range sums {
		writeSummaryLine(&b, s)
	}
	return atomicfile.WriteFile(path, b.Bytes(), 0o644)
}

func writeSummaryLine(b *bytes.Buffer, s Summary) {
	b.WriteString(s.Name + "\t" + s.Commit.String() + "\t" + s.Tree.String() + "\t" + strconv.Itoa(s.Number) + "\t" +
		strconv.FormatInt(s.Time.Unix(), 10) + "\t" + strings.ReplaceAll(s.Source, "\t", " ") + "\t" + s.Risk.String() + "\t" +
		strconv.Quote(s.Description) + "\n")
}

// updateSummaries records a writer's new summaries in the cache. Best
// effort: the cache is derived data. Changed entries are appended (a
// later line of a name wins when the file is read), so a writer that
// moves one skill does not rewrite the entries of every other; a deleted
// skill's line is left, as every entry is checked against its skill's
// ref, and Summaries rewrites the file whole when it holds stale lines.
// A torn append fails to parse and is skipped, like any bad line.
func (s *Store) updateSummaries(changed map[string]*Summary) {
	var b bytes.Buffer
	for _, sum := range changed {
		if sum != nil {
			writeSummaryLine(&b, *sum)
		}
	}
	if b.Len() == 0 {
		return
	}
	if err := appendSummaries(s.summaryPath(), b.Bytes()); err != nil {
		s.log.Debug("summary cache not saved", "err", err)
	}
}

func appendSummaries(path string, lines []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	// After a torn append, start on a line of our own.
	if info, err := f.Stat(); err == nil && info.Size() > 0 {
		last := make([]byte, 1)
		if r, err := os.Open(path); err == nil {
			if _, err := r.ReadAt(last, info.Size()-1); err == nil && last[0] != '\n' {
				lines = append([]byte{'\n'}, lines...)
			}
			r.Close()
		}
	}
	if _, err := f.Write(lines); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Summaries returns the summary of every skill with a published ref.
func (r *Reader) Summaries() (map[string]Summary, error) {
	cached, lines := loadSummaryLines(r.s.summaryPath())
	// The cache's map is updated in place: not a second map of every
	// skill.
	out, was := cached, len(cached)
	names := r.Skills()
	changed := false
	for _, name := range names {
		head, _ := r.Ref(SkillRef(name))
		// A cached entry is trusted only while its commit is still stored:
		// a store that lost the object must not keep listing the skill as
		// if nothing happened (summarize below reports the loss).
		if s, ok := cached[name]; ok && s.Commit == head && r.hasStored(head) {
			out[name] = s
			continue
		}
		s, err := r.summarize(name, head)
		if err != nil {
			return nil, err
		}
		out[name] = s
		changed = true
	}
	if len(out) != len(names) { // names the cache holds and no ref has
		published := make(map[string]bool, len(names))
		for _, name := range names {
			published[name] = true
		}
		for name := range out {
			if !published[name] {
				delete(out, name)
			}
		}
	}
	// Rewrite what changed, and compact once appends left many stale lines.
	// A dry run's summaries may name versions it never wrote: not cached.
	if !r.s.dryRun && (changed || was != len(out) || lines > len(out)+len(out)/8+64) {
		if err := saveSummaries(r.s.summaryPath(), out); err != nil {
			r.s.log.Debug("summary cache not saved", "err", err)
		}
	}
	return out, nil
}

// Summary returns the summary of one skill.
func (r *Reader) Summary(name string) (Summary, error) {
	head, ok := r.Ref(SkillRef(name))
	if !ok {
		return Summary{}, r.unknownSkill(name)
	}
	return r.summarize(name, head)
}

func (r *Reader) summarize(name string, head Hash) (Summary, error) {
	v, err := r.VersionAt(name, head)
	if err != nil {
		return Summary{}, err
	}
	s := Summary{Name: name, Commit: head, Tree: v.Tree, Number: v.Number, Time: v.Time, Source: v.Source, Risk: v.Risk}
	s.Description = r.description(v.Tree)
	return s, nil
}

// description reads the frontmatter description of a tree's SKILL.md,
// empty if it has none or does not parse.
func (r *Reader) description(tree Hash) string {
	entries, err := r.tree(tree)
	if err != nil {
		return ""
	}
	for _, e := range entries {
		if e.Name == skillmd.FileName {
			data, err := r.Blob(e.ID)
			if err != nil {
				return ""
			}
			sf, err := discover.Parse(data)
			if err != nil || sf == nil {
				return ""
			}
			return sf.Frontmatter.Description
		}
	}
	return ""
}
