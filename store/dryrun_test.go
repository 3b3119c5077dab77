package store

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dirDigest lists every file under dir with its mode and content hash.
func dirDigest(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		sum := ""
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum = fmt.Sprintf("%x", sha256.Sum256(data))
		}
		fmt.Fprintf(&b, "%s %s %s\n", p, info.Mode(), sum)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestDryRunWritesNothing: a dry run returns what the write would give (the
// next version, its commit) and leaves the store byte for byte as it was.
func TestDryRunWritesNothing(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	src := t.TempDir()
	dir := writeSkill(t, src, "deploy", "Deploy.", nil)
	if _, err := s.Add(ctx, []string{dir}, defaultAdd()); err != nil {
		t.Fatal(err)
	}
	writeSkill(t, src, "deploy", "Deploy the service.", map[string]string{"run.sh": "#!/bin/sh\n"})
	before := dirDigest(t, s.Dir())

	dry := s.DryRun()
	if !dry.IsDryRun() || s.IsDryRun() {
		t.Fatal("DryRun must return a dry-run view and leave s as it is")
	}
	res, err := dry.Add(ctx, []string{dir}, defaultAdd())
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Version.Number != 2 || res[0].Version.Commit.IsZero() {
		t.Fatalf("dry run reported %+v, want v2 with a commit", res[0].Version)
	}
	if _, err := dry.Rollback(ctx, "deploy", "v1", ""); err == nil {
		t.Fatal("rollback to the only version's content must say there is no change")
	}
	if after := dirDigest(t, s.Dir()); after != before {
		t.Fatalf("a dry run changed the store:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	// The real store still has v1 only, and the same Add now writes v2.
	res, err = s.Add(ctx, []string{dir}, defaultAdd())
	if err != nil || res[0].Version.Number != 2 {
		t.Fatalf("real add after the dry run: %+v, %v", res, err)
	}
	if dirDigest(t, s.Dir()) == before {
		t.Fatal("the real add wrote nothing")
	}
}
