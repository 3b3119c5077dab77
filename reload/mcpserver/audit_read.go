package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"

	"github.com/skillstore/skillstore/internal/safefile"
)

// maxAuditLine is the slack past twice the rotation size that a log may
// hold: the record that crossed the size.
const maxAuditLine = 64 << 10

// ReadLoads returns the records of the audit log at path and its rotated
// predecessor, oldest first. A line that is not a record (a partial write
// from a crash, a line someone else wrote) is skipped and counted in bad.
// Each file is opened through safefile, so a FIFO planted at the path is
// refused with an error naming it, not waited on; of a file larger than
// the log can grow (written by something else), only its newest part is
// read, the cut line counted in bad, so one oversized record never makes
// the whole trail unreadable.
func ReadLoads(path string, maxSize int64) (loads []Load, bad int, err error) {
	if maxSize <= 0 {
		maxSize = DefaultAuditMaxSize
	}
	for _, p := range []string{path + ".1", path} {
		// A record may straddle the rotation size by one line.
		data, cut, err := readTail(p, 2*maxSize+maxAuditLine)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, 0, fmt.Errorf("read the loads log: %w", err)
		}
		if cut {
			bad++
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			var l Load
			if json.Unmarshal(line, &l) != nil || l.Skill == "" {
				bad++
				continue
			}
			loads = append(loads, l)
		}
	}
	sort.SliceStable(loads, func(i, j int) bool { return loads[i].Time.Before(loads[j].Time) })
	return loads, bad, nil
}

// readTail reads the file at path, or, when it is over limit bytes, its
// last limit bytes from the first line start on (cut is then true).
func readTail(path string, limit int64) (data []byte, cut bool, err error) {
	f, err := safefile.Open(path, safefile.Options{})
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if info.Size() > limit {
		if _, err := f.Seek(info.Size()-limit, io.SeekStart); err != nil {
			return nil, false, err
		}
		cut = true
	}
	// A record appended while this reads is left for the next read.
	data, err = io.ReadAll(io.LimitReader(f, limit))
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", path, err)
	}
	if cut {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		} else {
			data = nil
		}
	}
	return data, cut, nil
}
