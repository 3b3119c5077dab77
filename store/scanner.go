package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/skillstore/skillstore/internal/safefile"
	"github.com/skillstore/skillstore/store/safety"
)

// scannerName is the store's scanner setting, a file in its local folder
// (never pushed): the external scanner (safety.Scanner) every new version
// of this store's skills is run through, written as a policy file's lines
// are ("scanner COMMAND...", "scanner-timeout 30s"). A policy file's
// scanner line (Options.Scanner) wins over it.
const scannerName = "scanner"

// ScannerPath is the store's scanner setting file.
func (s *Store) ScannerPath() string { return s.LocalPath(scannerName) }

// Scanner is the external scanner in force: Options.Scanner (a policy
// file's) or the store's own setting; nil for none. A setting that
// cannot be read is a scanner that holds every version, naming the file
// (safety.Scanner.Broken). It is read once per open store.
func (s *Store) Scanner() *safety.Scanner { return s.scanner() }

func (s *Store) loadScanner() *safety.Scanner {
	if s.opts.Scanner != nil {
		return s.opts.Scanner
	}
	path := s.ScannerPath()
	data, err := safefile.ReadFile(path, safefile.RecordLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err == nil {
		var sc *safety.Scanner
		if sc, err = safety.ParseScannerSetting(path, data); err == nil {
			return sc
		}
	}
	return &safety.Scanner{From: path, Broken: err}
}

// ScanExternal joins the external scanner's findings (Store.Scanner) on a
// new version's files (with Data) to the built-in check's report. As
// safety.CheckUpdate does, a finding in a file unchanged from accepted
// (the version in force here; nil when nobody here accepted one) is
// marked Known and does not raise the risk. A scanner with no verdict, or
// a setting that cannot be read, holds the version: one high finding
// says why, and the reason is logged.
func (r *Reader) ScanExternal(ctx context.Context, skill string, rep safety.Report, files, accepted []File) safety.Report {
	sc := r.s.Scanner()
	if sc == nil {
		return rep
	}
	version := skill
	if tree, err := TreeHash(files); err == nil {
		version = fmt.Sprintf("%s@%s", skill, ShortHash(tree))
	}
	found, err := sc.Scan(ctx, version, files)
	if err != nil {
		r.s.log.Warn("external scanner gave no verdict", "skill", skill, "err", err)
	} else if len(accepted) > 0 {
		now, before := FileMap(files), FileMap(accepted)
		for i, f := range found {
			if old, ok := before[f.Path]; ok {
				cur, ok := now[f.Path]
				found[i].Known = ok && cur.WithID().SameContent(old.WithID())
			}
		}
	}
	rep.Findings = append(rep.Findings, found...)
	return safety.NewReport(rep.Findings)
}

// Context is the context of the View or Update the reader serves, for
// the few slow steps inside it reached through calls that take none (an
// external scanner run from a sync's intake).
func (r *Reader) Context() context.Context {
	if r.ctx == nil {
		return context.Background()
	}
	return r.ctx
}
