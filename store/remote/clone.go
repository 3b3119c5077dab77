package remote

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/skillstore/skillstore/internal/problem"
	"github.com/skillstore/skillstore/store"
	"github.com/skillstore/skillstore/store/safety"
)

// CloneOptions tune a clone.
type CloneOptions struct {
	// Remote names the remote in the new store (default DefaultRemote).
	Remote string
	// AllowRisk is passed to the pull (see PullOptions).
	AllowRisk safety.RiskLevel
	// MaxNewSkills is passed to the pull (see PullOptions).
	MaxNewSkills int
}

// Clone creates a new store at dir from the store at url: a bare
// repository with url as its remote, filled by a pull (so every fetched
// tree passes the safety checks) and then verified. It is all or nothing:
// on any failure the directory it created is removed again.
func Clone(ctx context.Context, url, dir string, opts store.Options, copts CloneOptions) (*store.Store, *PullReport, error) {
	if copts.Remote == "" {
		copts.Remote = DefaultRemote
	}
	if store.Exists(dir) {
		return nil, nil, fmt.Errorf("clone into %s: %w", dir, store.ErrStoreExists)
	}
	entries, err := os.ReadDir(dir)
	existed := err == nil
	switch {
	case existed && len(entries) > 0:
		return nil, nil, fmt.Errorf("clone into %s: %w", dir, store.ErrNotEmpty)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, nil, fmt.Errorf("clone into %s: %w", dir, err)
	}
	s, rep, err := cloneInto(ctx, url, dir, opts, copts)
	if err == nil && len(rep.Refused) > 0 && len(rep.Skills) == 0 {
		// Every skill was refused: a store holding none of them is no
		// clone, so it is refused whole and nothing stays behind.
		e := &UnsafeRemoteError{Remote: rep.Remote}
		for _, r := range rep.Refused {
			e.Problems = append(e.Problems, r.Problems...)
		}
		err = e
	}
	if err != nil {
		if existed {
			clearDir(dir)
		} else {
			os.RemoveAll(dir)
		}
		return nil, nil, err
	}
	return s, rep, nil
}

// CloneVerifyError refuses a clone whose store does not pass verify once
// fetched; the clone's folder is removed.
type CloneVerifyError struct {
	URL      string // credentials redacted
	Problems []string
}

func (e *CloneVerifyError) Error() string { return problem.Format(e.Summary(), e.Details()) }

// Summary names the cloned URL.
func (e *CloneVerifyError) Summary() string {
	return "clone " + e.URL + ": the cloned store does not verify"
}

// Details are what verify found.
func (e *CloneVerifyError) Details() []string { return e.Problems }

func cloneInto(ctx context.Context, url, dir string, opts store.Options, copts CloneOptions) (*store.Store, *PullReport, error) {
	s, err := store.Init(ctx, dir, opts)
	if err != nil {
		return nil, nil, err
	}
	if _, err := Add(ctx, s, copts.Remote, url); err != nil {
		return nil, nil, err
	}
	rep, err := Pull(ctx, s, PullOptions{Remote: copts.Remote, AllowRisk: copts.AllowRisk, MaxNewSkills: copts.MaxNewSkills}) // a clone is a pull into an empty store
	if err != nil {
		return nil, nil, err
	}
	// Quick: the pull's checks already read, and so re-hashed, every
	// version's files; trees are still checked against git fsck's rules.
	vr, err := s.VerifyWith(ctx, store.VerifyOptions{Quick: true})
	if err != nil {
		return nil, nil, err
	}
	if !vr.OK() {
		err := &CloneVerifyError{URL: RedactURL(url)}
		for _, p := range vr.Problems {
			err.Problems = append(err.Problems, p.String())
		}
		return nil, nil, err
	}
	return s, rep, nil
}

// clearDir empties a directory that was empty before a failed clone.
func clearDir(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		os.RemoveAll(dir + string(os.PathSeparator) + e.Name())
	}
}
