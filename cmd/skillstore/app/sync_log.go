package app

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/skillstore/skillstore/cmd/skillstore/internal/cliout"
	"github.com/skillstore/skillstore/internal/safefile"
	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/store"
)

// SyncsFileName is the log of sync runs, in the store's local folder (never
// pushed): one JSON line per run of 'skillstore sync', what 'log --syncs'
// and the review page's Activity show.
const SyncsFileName = "syncs.jsonl"

// syncsMaxSize is where the log rotates: PATH is renamed to PATH.1
// (replacing the one before), so it keeps the last few thousand runs.
const syncsMaxSize = 1 << 20

// SyncRecord is one sync run in the log: when, how it ended, and what
// it changed.
type SyncRecord struct {
	Time time.Time `json:"time"`
	// Outcome is "review" (candidates wait), "failed" (a plugin, skill,
	// capture or export failed; the rest went on), "ok" or "error" (the
	// run stopped: Error says why).
	Outcome string `json:"outcome"`
	Plugins int    `json:"plugins"`
	// Skills counts the skills of the run by classification
	// ("fast-forward": 3, "three-way": 1, ...).
	Skills            map[string]int `json:"skills"`
	CandidatesWaiting int            `json:"candidates_waiting"`
	Captured          int            `json:"captured"`
	// Exported counts the skill folders export wrote or removed.
	Exported int `json:"exported"`
	// Changed names the skills the run published or made a candidate
	// for (at most 50), as "NAME: CLASSIFICATION".
	Changed []string `json:"changed,omitempty"`
	Errors  []string `json:"errors,omitempty"`
	Error   string   `json:"error,omitempty"`
}

// newSyncRecord sums up a run (nil when it stopped before the plugins)
// and the error that stopped it.
func newSyncRecord(now time.Time, run *SyncRun, err error) SyncRecord {
	rec := SyncRecord{Time: now.UTC(), Outcome: "ok", Skills: map[string]int{}}
	if run != nil {
		rec.Captured = len(run.Captured)
		for _, te := range run.Exported {
			for _, r := range te.Results {
				if r.Action == reload.ActionHot || r.Action == reload.ActionCold || r.Action == reload.ActionRemoved {
					rec.Exported++
				}
			}
			if te.Error != "" {
				rec.Errors = append(rec.Errors, "export "+te.Target+": "+te.Error)
			}
		}
		if run.Report != nil {
			rec.Plugins = len(run.Plugins)
			rec.CandidatesWaiting = run.CandidatesWaiting
			for _, p := range run.Plugins {
				if p.Error != "" {
					rec.Errors = append(rec.Errors, "plugin "+p.Plugin+": "+p.Error)
				}
				for _, sk := range p.Skills {
					name := store.QualifiedName(p.Plugin, sk.Skill)
					rec.Skills[string(sk.Classification)]++
					if sk.Error != "" {
						rec.Errors = append(rec.Errors, name+": "+sk.Error)
					}
					if sk.Changed() && (sk.NewVersion > 0 || sk.Candidate != "") && len(rec.Changed) < 50 {
						rec.Changed = append(rec.Changed, name+": "+string(sk.Classification))
					}
				}
			}
		}
		if run.Report != nil { // outcome reads the plugins' report
			switch end := run.outcome(); {
			case errors.Is(end, ErrReview):
				rec.Outcome = "review"
			case end != nil:
				rec.Outcome = "failed"
			}
		}
	}
	if err != nil {
		rec.Outcome, rec.Error = "error", err.Error()
	}
	return rec
}

// recordSync appends the run to the store's log of syncs. A log that
// cannot be written is a note, never the run's failure.
func (g Global) recordSync(s *store.Store, rec SyncRecord) {
	path := s.LocalPath(SyncsFileName)
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && fi.Size() > syncsMaxSize {
		_ = os.Rename(path, path+".1")
	}
	line, err := json.Marshal(rec)
	if err == nil {
		err = appendLine(path, line)
	}
	if err != nil {
		cliout.Printf(g.Stderr, "skillstore: note: the run was not logged in %s: %v\n", path, err)
	}
}

// appendLine appends one line in one write (O_APPEND: lines of runs that
// end together do not interleave), as the loads log does.
func appendLine(path string, line []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// SyncsOptions are 'log --syncs' options.
type SyncsOptions struct {
	Global
	Output
}

// Syncs prints the log of sync runs, newest first.
func Syncs(ctx context.Context, opts SyncsOptions) error {
	s, err := opts.OpenStore(ctx)
	if err != nil {
		return err
	}
	recs, err := readSyncs(s.LocalPath(SyncsFileName))
	if err != nil {
		return err
	}
	if opts.JSON {
		return cliout.JSON(opts.Stdout, recs)
	}
	if len(recs) == 0 {
		cliout.Println(opts.Stderr, "no sync run logged yet ('skillstore sync' logs each run)")
		return nil
	}
	t := cliout.NewTable(-1)
	t.Add("TIME", "OUTCOME", "PLUGINS", "SKILLS", "CANDIDATES", "EXPORTED")
	for _, r := range recs {
		t.Add(r.Time.Local().Format("2006-01-02 15:04:05"), r.Outcome, fmt.Sprint(r.Plugins), countsLine(r.Skills),
			fmt.Sprint(r.CandidatesWaiting), fmt.Sprint(r.Exported))
	}
	return t.Write(opts.Stdout, cliout.NewPainter(opts.Stdout), 0)
}

// countsLine is "3 fast-forward, 1 three-way", in the order classes
// appear in a sync's report, unchanged last.
func countsLine(counts map[string]int) string {
	var parts []string
	for _, c := range []string{"new", "fast-forward", "three-way", "already-applied", "candidate-pending", "removed-upstream", "left-out", "unchanged"} {
		if n := counts[c]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, c))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// readSyncs reads the log and its predecessor, newest first; a line that
// is not a record is passed over, a log larger than the rotation bound
// (written by something else) is read from its last part.
func readSyncs(path string) ([]SyncRecord, error) {
	out := []SyncRecord{}
	for _, p := range []string{path + ".1", path} {
		f, err := safefile.Open(p, safefile.Options{NoFollow: true})
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if fi, err := f.Stat(); err == nil && fi.Size() > 4*syncsMaxSize {
			_, _ = f.Seek(fi.Size()-4*syncsMaxSize, 0)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		for sc.Scan() {
			var r SyncRecord
			if json.Unmarshal(sc.Bytes(), &r) == nil && !r.Time.IsZero() {
				out = append(out, r)
			}
		}
		f.Close()
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}
