package gitdb

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/skillstore/skillstore/internal/atomicfile"
)

// quarantinePrefix names the folder under objects/ that a pack being
// received is written to. git skips folders of objects/ that are not two
// hex digits, so a quarantine a crash leaves behind never fails git fsck.
const quarantinePrefix = "incoming-"

// ReceivePack stores the pack read from r (as a fetch receives it: whole,
// not thin) in the repository. The pack and its index are written and
// fsynced in a quarantine folder first, then renamed into objects/pack,
// index before pack, so that a process killed at any moment leaves either
// no new pack, a complete index without its pack (which git and gitdb
// skip), or the complete pair, and never a truncated index that git fsck
// rejects. Quarantines left by earlier crashes are removed first: the
// caller holds the repository's write lock, so nobody else is receiving.
// Open DBs must be closed (and reopened) to see the new pack.
func ReceivePack(gitDir string, r io.Reader) error {
	objects := filepath.Join(gitDir, "objects")
	removeQuarantines(objects)
	dir, err := os.MkdirTemp(objects, quarantinePrefix)
	if err != nil {
		return fmt.Errorf("receive pack: %w", err)
	}
	defer os.RemoveAll(dir)
	st := filesystem.NewStorage(osfs.New(dir), cache.NewObjectLRUDefault())
	// The guard sees the pack as it arrives and stops it at an object over
	// MaxFetchedObjectSize, before go-git inflates it to index it.
	guard := NewPackGuard()
	err = packfile.UpdateObjectStorage(st, io.TeeReader(r, guard))
	if gerr := guard.Close(); gerr != nil {
		return fmt.Errorf("receive pack: %w", gerr)
	}
	if err != nil {
		return fmt.Errorf("receive pack: %w", err)
	}
	received := filepath.Join(dir, "objects", "pack")
	names, err := os.ReadDir(received)
	if err != nil {
		return fmt.Errorf("receive pack: %w", err)
	}
	packDir := filepath.Join(objects, "pack")
	if err := os.MkdirAll(packDir, 0o755); err != nil {
		return fmt.Errorf("receive pack: %w", err)
	}
	for _, n := range names {
		base, ok := strings.CutSuffix(n.Name(), ".pack")
		if !ok || !strings.HasPrefix(base, "pack-") {
			continue
		}
		for _, ext := range []string{".pack", ".idx"} {
			if err := syncFile(filepath.Join(received, base+ext)); err != nil {
				return fmt.Errorf("receive pack: %w", err)
			}
		}
		if err := os.Rename(filepath.Join(received, base+".idx"), filepath.Join(packDir, base+".idx")); err != nil {
			return fmt.Errorf("receive pack: %w", err)
		}
		if err := os.Rename(filepath.Join(received, base+".pack"), filepath.Join(packDir, base+".pack")); err != nil {
			return fmt.Errorf("receive pack: %w", err)
		}
	}
	return atomicfile.SyncDir(packDir)
}

func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// removeQuarantines deletes the quarantine folders of receives a crash
// interrupted.
func removeQuarantines(objects string) {
	entries, _ := os.ReadDir(objects)
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), quarantinePrefix) {
			os.RemoveAll(filepath.Join(objects, e.Name()))
		}
	}
}

// InstallPack stores in the repository a pack that a fetch received and
// indexed already: size bytes of pack (read from its start), whose
// trailing checksum is sum, and its v2 index idx. The pack is written as
// it is (no object is inflated or compressed again) next to a temporary
// name in objects/pack and fsynced, its index is put in place, then the
// pack, as WritePack does: a process killed at any moment leaves no new
// pack, an index without its pack (which git and gitdb skip), or both.
// The pack must be whole (not thin: no delta on an object outside it).
func InstallPack(gitDir string, pack io.ReaderAt, size int64, sum ID, idx []byte) error {
	packDir := filepath.Join(gitDir, "objects", "pack")
	if err := os.MkdirAll(packDir, 0o755); err != nil {
		return fmt.Errorf("install pack: %w", err)
	}
	base := filepath.Join(packDir, "pack-"+sum.String())
	if _, err := os.Stat(base + ".pack"); err == nil {
		return nil // the same pack, stored before
	}
	tmp, err := os.CreateTemp(packDir, "tmp_pack_")
	if err != nil {
		return fmt.Errorf("install pack: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	defer tmp.Close()
	if _, err := io.Copy(tmp, io.NewSectionReader(pack, 0, size)); err != nil {
		return fmt.Errorf("install pack: %w", err)
	}
	if err := tmp.Chmod(0o444); err != nil {
		return fmt.Errorf("install pack: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("install pack: %w", err)
	}
	if err := writeSynced(packDir, "tmp_idx_", base+".idx", idx); err != nil {
		return fmt.Errorf("install pack: %w", err)
	}
	if err := os.Rename(tmp.Name(), base+".pack"); err != nil {
		return fmt.Errorf("install pack: %w", err)
	}
	return atomicfile.SyncDir(packDir)
}
