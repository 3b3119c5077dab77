package store_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/store/internal/storetest"
	"github.com/skillstore/skillstore/store/plugins"
	"github.com/skillstore/skillstore/store/pluginsync"
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
	s := storetest.NewStore(t)
	src := t.TempDir()
	dir := storetest.WriteSkill(t, src, "deploy", "Deploy.", nil)
	if _, err := s.Add(ctx, []string{dir}, storetest.DefaultAdd()); err != nil {
		t.Fatal(err)
	}
	storetest.WriteSkill(t, src, "deploy", "Deploy the service.", map[string]string{"run.sh": "#!/bin/sh\n"})
	before := dirDigest(t, s.Dir())

	dry := s.DryRun()
	if !dry.IsDryRun() || s.IsDryRun() {
		t.Fatal("DryRun must return a dry-run view and leave s as it is")
	}
	res, err := dry.Add(ctx, []string{dir}, storetest.DefaultAdd())
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Version.Number != 2 || res[0].Version.Commit.IsZero() {
		t.Fatalf("dry run reported %+v, want v2 with a commit", res[0].Version)
	}
	// The dry run's next transaction sees its v2: a rollback to v1 is a
	// change there (v3), while the real store has only v1.
	v, err := dry.Rollback(ctx, "deploy", "v1", "")
	if err != nil || v.Number != 3 {
		t.Fatalf("rollback in the dry run after its add: %+v, %v; want v3", v, err)
	}
	if _, err := s.Rollback(ctx, "deploy", "v1", ""); err == nil {
		t.Fatal("the real store must still hold v1 only: a rollback to it is no change")
	}
	if _, err := s.DryRun().Rollback(ctx, "deploy", "v1", ""); err == nil {
		t.Fatal("a new dry run must not see another dry run's writes")
	}
	if after := dirDigest(t, s.Dir()); after != before {
		t.Fatalf("a dry run changed the store:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	// The real store still has v1 only, and the same Add now writes v2.
	res, err = s.Add(ctx, []string{dir}, storetest.DefaultAdd())
	if err != nil || res[0].Version.Number != 2 {
		t.Fatalf("real add after the dry run: %+v, %v", res, err)
	}
	if dirDigest(t, s.Dir()) == before {
		t.Fatal("the real add wrote nothing")
	}
}

// TestDryRunStepsSeeEachOther: the transactions of one dry run read each
// other's writes — versions, the ref listing, state records, a plugin a
// step added — as a real run's steps would, so a dry run of several steps
// (check: capture, then sync, then export) says what the real run does;
// the store stays byte for byte as it was, caches included.
func TestDryRunStepsSeeEachOther(t *testing.T) {
	ctx := context.Background()
	s := storetest.NewStore(t)
	src := t.TempDir()
	dir := storetest.WriteSkill(t, src, "deploy", "Deploy.", nil)
	if _, err := s.Add(ctx, []string{dir}, storetest.DefaultAdd()); err != nil {
		t.Fatal(err)
	}
	up := t.TempDir()
	storetest.WriteSkill(t, filepath.Join(up, "skills"), "lint", "Lint.", nil)
	// Summaries cached, as a real command leaves them.
	if _, err := s.List(ctx, false); err != nil {
		t.Fatal(err)
	}
	before := dirDigest(t, s.Dir())

	dry := s.DryRun()
	storetest.WriteSkill(t, src, "deploy", "Deploy the service.", nil)
	if _, err := dry.Add(ctx, []string{dir}, storetest.DefaultAdd()); err != nil {
		t.Fatal(err)
	}
	src2, err := plugins.ParseSource(up, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pluginsync.Add(ctx, dry, src2, pluginsync.AddOptions{ID: "tools"}); err != nil {
		t.Fatal(err)
	}
	infos, err := dry.List(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, in := range infos {
		got[in.Name] = in.Number
	}
	if got["deploy"] != 2 || got["tools:lint"] != 1 || len(got) != 2 {
		t.Fatalf("the dry run lists %v, want deploy v2 and tools:lint v1", got)
	}
	// A later step of the dry run syncs the plugin it added: the record
	// and refs of the earlier step are there, so nothing is new.
	rep, err := pluginsync.Run(ctx, dry, pluginsync.Options{Plugins: []string{"tools"}})
	if err != nil {
		t.Fatal(err)
	}
	if sk := rep.Plugins[0].Skills; len(sk) != 1 || sk[0].Classification != pluginsync.ClassUnchanged {
		t.Fatalf("sync in the dry run after its plugin add: %+v, want lint unchanged", rep.Plugins[0])
	}
	if after := dirDigest(t, s.Dir()); after != before {
		t.Fatalf("a dry run of several steps changed the store:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	infos, err = s.List(ctx, false)
	if err != nil || len(infos) != 1 || infos[0].Number != 1 {
		t.Fatalf("the real store lists %+v (%v), want deploy v1 alone", infos, err)
	}
}
