package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"github.com/skillstore/skillstore/store/safety"
)

// localRiskName is the file, in the store's local folder (never pushed),
// recording the safety check this machine ran on versions and candidates
// that came from elsewhere (pull, clone). Their commits carry a Risk
// trailer and findings written by whoever made them; those are never
// believed: what this file says is what show, list, log and candidates
// report for them.
const localRiskName = "risk"

// localRiskRecord is one line of the file.
type localRiskRecord struct {
	Commit   Hash             `json:"commit"`
	Risk     safety.RiskLevel `json:"risk"`
	Findings []safety.Finding `json:"findings"`
}

// localRiskCache holds the file's records, read again when it grew.
type localRiskCache struct {
	mu    sync.Mutex
	size  int64
	risks map[Hash]safety.Report
}

// RecordLocalRisk appends the locally computed safety reports of commits
// that entered the store from elsewhere, durably, before any ref points
// at them (the caller holds the write lock).
func (tx *Tx) RecordLocalRisk(reports map[Hash]safety.Report) error {
	if len(reports) == 0 {
		return nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for h, rep := range reports {
		if err := enc.Encode(localRiskRecord{Commit: h, Risk: rep.Risk, Findings: rep.Findings}); err != nil {
			return err
		}
	}
	path := tx.s.LocalPath(localRiskName)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("record local risk: %w", err)
	}
	if _, err := f.Write(b.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("record local risk: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("record local risk: %w", err)
	}
	return f.Close()
}

// localRisk returns the locally computed report of commit h, if it came
// from elsewhere.
func (s *Store) localRisk(h Hash) (safety.Report, bool) {
	c := s.risks
	c.mu.Lock()
	defer c.mu.Unlock()
	path := s.LocalPath(localRiskName)
	info, err := os.Stat(path)
	if err != nil {
		return safety.Report{}, false
	}
	if c.risks == nil || info.Size() != c.size {
		c.risks, c.size = map[Hash]safety.Report{}, info.Size()
		if f, err := os.Open(path); err == nil {
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var rec localRiskRecord
				if json.Unmarshal(sc.Bytes(), &rec) == nil { // a torn last line is skipped
					c.risks[rec.Commit] = safety.Report{Risk: rec.Risk, Findings: rec.Findings}
				}
			}
			f.Close()
		}
	}
	rep, ok := c.risks[h]
	return rep, ok
}

// LocalRisk returns the report this machine computed for commit h when h
// came from elsewhere (pulled): the risk a pulled commit's trailer claims is
// not believed.
func (r *Reader) LocalRisk(h Hash) (safety.Report, bool) { return r.s.localRisk(h) }

// withLocalRisk replaces a version's trailer-borne risk and findings by
// the ones this machine computed, when the version came from elsewhere.
func (r *Reader) withLocalRisk(v Version) Version {
	if rep, ok := r.s.localRisk(v.Commit); ok {
		v.Risk, v.Findings = rep.Risk, rep.Findings
	}
	return v
}
