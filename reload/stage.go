package reload

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// Staging is most of a first export's work: every file of every skill
// is written once under tmp/, then one filesystem sync makes them all
// durable, then each folder is switched into place (see run). It goes at
// the speed of a plain copy because it does what cp does per file (create,
// write, close), no fsync per file, and overlaps the store reads of one
// batch with the writes of the previous one.

// planBatch is how many skills are planned (and their files read) at a
// time: large enough that a batch's one store read amortises, small
// enough that its files stay a few megabytes.
const planBatch = 256

// stageWorkers is how many folders are staged at once: file creation is
// system-call bound, and a few writers keep the disk and the cores busy
// where one would wait on each call.
const stageWorkers = 4

// planBatch plans batch: the skills whose files it needs within one
// ExportOptions.Reading call when the caller gave one (none when the
// batch is unchanged, as most are when export runs again).
func (x *exporter) planBatch(ctx context.Context, batch []Skill) ([]*job, error) {
	var changed []Skill
	for _, s := range batch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !x.planUnchanged(s) {
			changed = append(changed, s)
		}
	}
	var jobs []*job
	plan := func() error {
		for _, s := range changed {
			if err := ctx.Err(); err != nil {
				return err
			}
			if j := x.planOne(s); j != nil {
				jobs = append(jobs, j)
			}
		}
		return nil
	}
	if len(changed) == 0 {
		return nil, nil
	}
	if x.opts.Reading == nil {
		return jobs, plan()
	}
	ran := false
	err := x.opts.Reading(func() error {
		ran = true
		return plan()
	})
	if !ran {
		x.opts.Logger.Debug("batch read not opened; each skill reads alone", "err", err)
		return jobs, plan()
	}
	return jobs, err
}

// stageInBackground stages jobs once the previous batch (done when
// previous is closed) is staged, while the caller plans the next batch,
// and returns a channel closed when they are staged.
func (x *exporter) stageInBackground(previous <-chan struct{}, jobs []*job) chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-previous
		x.stageAll(jobs)
	}()
	return done
}

// stageAll stages every job that writes a folder, stageWorkers at a
// time, and drops the files' data (the staged folder holds them now):
// j.stage is set, or j.stageErr says why it could not be.
func (x *exporter) stageAll(jobs []*job) {
	work := make(chan *job)
	var wg sync.WaitGroup
	for range min(stageWorkers, len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				j.stage, j.stageErr = x.stage(j)
				j.files = nil
			}
		}()
	}
	for _, j := range jobs {
		if j.kind != jobRemove {
			work <- j
		}
	}
	close(work)
	wg.Wait()
}

// stage writes j's files into a new folder under tmp/, named by the job's
// place in the report (unique within the export; tmp/ is emptied under
// the target lock before an export stages anything), and returns its
// name. The folder is made through tmp/'s handle; the files go in by path
// below it, a folder this export just made. What this system could not
// write as the store holds it (a link, on Windows) is in j.notes.
func (x *exporter) stage(j *job) (string, error) {
	name := strconv.Itoa(j.resultIdx) + "-" + j.name
	if err := x.tmp.Mkdir(name, 0o755); err != nil {
		return "", err
	}
	notes, err := writeFiles(x.tmp.Join(name), j.files)
	if err != nil {
		_ = x.tmp.RemoveAll(name)
		return "", err
	}
	for _, n := range notes {
		j.notes = append(j.notes, "skill "+j.name+": "+n)
	}
	return name, nil
}

// WriteFiles writes files into the existing folder dir: directories 0755,
// files 0644 or 0755 (Executable), symlinks as relative links, each of
// which must resolve inside dir (skillfs.CheckWritable: a list with a link
// out of the folder, or a path below a link, is refused before anything
// is written; see writeLink for a system that cannot make one). Ignored
// files are not written. A path this system cannot hold as a file name
// (skillfs.CheckLocalPath: a device name on Windows) is an error naming
// it, before anything is written.
func WriteFiles(dir string, files []skillfs.File) error {
	_, err := writeFiles(dir, files)
	return err
}

// writeFiles is WriteFiles, returning a note for each link written other
// than as a link.
func writeFiles(dir string, files []skillfs.File) ([]string, error) {
	if err := skillfs.CheckWritable(files); err != nil {
		return nil, err
	}
	for _, f := range files {
		if err := skillfs.CheckPath(f.Path); err != nil {
			return nil, err
		}
		if err := skillfs.CheckLocalPath(f.Path); err != nil && !skillfs.Ignored(f.Path) {
			return nil, err
		}
	}
	var notes []string
	made := map[string]bool{dir: true} // folders known to exist
	for _, f := range files {
		if skillfs.Ignored(f.Path) {
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if parent := filepath.Dir(p); !made[parent] {
			if err := os.MkdirAll(parent, 0o755); err != nil {
				return nil, err
			}
			made[parent] = true
		}
		switch f.Mode {
		case skillfs.Symlink:
			note, err := writeLink(p, f, files)
			if err != nil {
				return nil, err
			}
			if note != "" {
				notes = append(notes, note)
			}
		case skillfs.Executable:
			if err := writeFile(p, f.Data, 0o755); err != nil {
				return nil, err
			}
		default:
			if err := writeFile(p, f.Data, 0o644); err != nil {
				return nil, err
			}
		}
	}
	return notes, nil
}
