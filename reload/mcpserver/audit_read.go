package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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
// Each file is read through safefile, so a FIFO or a huge file planted at
// the path is refused with an error naming it, not waited on.
func ReadLoads(path string, maxSize int64) (loads []Load, bad int, err error) {
	if maxSize <= 0 {
		maxSize = DefaultAuditMaxSize
	}
	for _, p := range []string{path + ".1", path} {
		// A record may straddle the rotation size by one line.
		data, err := safefile.ReadFile(p, 2*maxSize+maxAuditLine)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, 0, fmt.Errorf("read the loads log: %w", err)
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
