package target

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/internal/lockfile"
	"github.com/skillstore/skillstore/internal/safefile"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/reload"
	"github.com/skillstore/skillstore/store"
)

// catalogRecord is the file, in the target's bookkeeping folder, that
// remembers the catalog export last wrote, so that a catalog someone else
// wrote or edited is never overwritten.
const (
	catalogRecord = "catalog.json"
	catalogLock   = "catalog.lock"
)

type catalogState struct {
	// Written is the blob id of the catalog export last wrote.
	Written skillfs.ID `json:"written"`
}

// exportMarketplace writes (or, with plan, only plans) marketplace target
// t: the plugin folders first, each switched atomically by reload, then
// the catalog, replaced atomically, listing the plugins whose folders are
// now what export wrote. A crash between the two leaves the previous
// catalog, which still describes folders that are whole; the next export
// completes the change. The error is for what stopped the whole target
// (also in te.Error); a plugin that failed is a result.
func exportMarketplace(ctx context.Context, s *store.Store, t Target, eo reload.ExportOptions, plan bool) (Exported, error) {
	te := Exported{Target: t.Name, Dir: t.Dir, Kind: t.Kind, Atomic: true, Results: []reload.Result{}}
	fl := t.flavor()
	eps, err := marketplacePlugins(ctx, s, t)
	if err != nil {
		te.Error = err.Error()
		return te, err
	}
	var folders []reload.Skill
	meta := map[string]*composed{}
	for _, ep := range eps {
		f, c, err := ep.folder(ctx, s, fl)
		if err != nil {
			// Still in the set, so that reload reports it failed and keeps
			// the folder an earlier export wrote, instead of removing it.
			folders = append(folders, reload.Skill{Name: ep.ID, Load: func() ([]skillfs.File, error) { return nil, err }})
			continue
		}
		folders = append(folders, f)
		meta[ep.ID] = c
	}
	pdir := t.PluginsDir()
	// A plugin's loader opens its own View (it composes the folder from
	// several trees), so it is not run inside a batch's View.
	eo.Reading = nil
	eo.HotFile = func(plugin, p string) bool {
		if p == fl.manifest && meta[plugin] != nil {
			// The manifest carries the content's version: a change of
			// that alone follows the content's own class.
			return sameManifest(readManifest(pdir, plugin, fl), meta[plugin].Manifest)
		}
		return pluginHotFile(p)
	}
	var rep *reload.Report
	var k *reload.Bookkeeping // nil when planning
	if plan {
		rep, err = reload.Plan(ctx, pdir, folders, eo)
	} else {
		var lock *lockfile.Lock
		if k, lock, err = lockCatalog(ctx, t, eo); err == nil {
			defer k.Close()
			defer lock.Release()
			rep, err = reload.Export(ctx, pdir, folders, eo)
		}
	}
	if rep != nil {
		te.Atomic, te.Results, te.Warnings = rep.Atomic, rep.Results, rep.Warnings
	}
	if err != nil {
		te.Error = err.Error()
	}
	if rep == nil {
		return te, err
	}
	te.LeftOut = leftOut(te.Results, meta)
	if fl.catalog == "" {
		return te, err
	}
	// Some plugins may have failed: the catalog still lists the others.
	te.Results = append(te.Results, writeCatalog(t, k, fl, te.Results, meta, plan))
	return te, err
}

// lockCatalog takes the marketplace target's catalog lock in its
// bookkeeping folder (reload's rules: a link or anything but a plain
// folder or file there is refused by name). Release the lock, then close
// the folder.
func lockCatalog(ctx context.Context, t Target, eo reload.ExportOptions) (*reload.Bookkeeping, *lockfile.Lock, error) {
	// A marketplace folder may be a git repository people share: the
	// bookkeeping folder ignores itself, as in a target.
	k, err := reload.OpenBookkeeping(t.Dir, true)
	if err != nil {
		return nil, nil, fmt.Errorf("export to %s: %w", t.Dir, err)
	}
	timeout := eo.LockTimeout
	if timeout == 0 {
		timeout = defaultCatalogLockTimeout
	}
	lock, err := k.Lock(ctx, catalogLock, lockfile.Exclusive, timeout)
	if err != nil {
		k.Close()
		return nil, nil, fmt.Errorf("export to %s: %w", t.Dir, err)
	}
	return k, lock, nil
}

// defaultCatalogLockTimeout is reload's default wait for a target's lock.
const defaultCatalogLockTimeout = 30 * time.Second

// writeCatalog brings the catalog in line with the plugin folders and says
// what it did as one more result, named after the catalog file: cold when
// it changed (the agent must update the marketplace), unchanged, or
// foreign / locally-modified when a catalog export did not write is there
// (left alone).
func writeCatalog(t Target, k *reload.Bookkeeping, fl *flavor, results []reload.Result, meta map[string]*composed, plan bool) reload.Result {
	res := reload.Result{Skill: fl.catalog, Action: reload.ActionUnchanged}
	file := filepath.Join(t.Dir, filepath.FromSlash(fl.catalog))
	st := readCatalogState(t, k)
	// The catalog is in a folder others can write: read only as a regular
	// file, bounded (the record goes through the bookkeeping handle).
	cur, err := safefile.ReadFile(file, safefile.RecordLimit)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		msg := err.Error()
		if errors.Is(err, safefile.ErrNotRegular) || errors.Is(err, safefile.ErrTooLarge) {
			msg += ": left alone; remove it and export again"
		}
		return reload.Result{Skill: fl.catalog, Action: reload.ActionFailed, Error: msg}
	}
	ours := exists && !st.Written.IsZero() && skillfs.BlobID(cur) == st.Written
	var prev []byte
	if ours {
		prev = cur
	}
	data, err := catalogData(t, fl, results, meta, prev)
	if err != nil {
		return reload.Result{Skill: fl.catalog, Action: reload.ActionFailed, Error: err.Error()}
	}
	res.NewTree = skillfs.BlobID(data)
	if exists {
		res.OldTree = skillfs.BlobID(cur)
	}
	switch {
	case exists && bytes.Equal(cur, data):
		if !ours && !plan {
			// Written by an export that crashed before its record: adopt it.
			_ = saveCatalogState(k, res.NewTree)
		}
		return res
	case exists && !ours && st.Written.IsZero():
		res.Action, res.DiskTree = reload.ActionForeign, res.OldTree
		return res
	case exists && !ours:
		res.Action, res.DiskTree = reload.ActionLocallyModified, res.OldTree
		return res
	}
	res.Action, res.Paths = reload.ActionCold, []string{fl.catalog}
	if plan {
		return res
	}
	err = os.MkdirAll(filepath.Dir(file), 0o755)
	if err == nil {
		err = atomicfile.WriteFile(file, data, 0o644)
	}
	if err == nil {
		err = saveCatalogState(k, res.NewTree)
	}
	if err != nil {
		return reload.Result{Skill: fl.catalog, Action: reload.ActionFailed, OldTree: res.OldTree, NewTree: res.NewTree, Error: err.Error()}
	}
	return res
}

// readCatalogState reads what export last wrote as the catalog, from the
// bookkeeping folder k (opened here when planning, k nil). A missing or
// unreadable record is none: the catalog is then not export's.
func readCatalogState(t Target, k *reload.Bookkeeping) catalogState {
	var st catalogState
	if k == nil {
		var err error
		if k, err = reload.OpenBookkeeping(t.Dir, false); err != nil {
			return st
		}
		defer k.Close()
	}
	if data, err := k.ReadFile(catalogRecord); err == nil {
		_ = json.Unmarshal(data, &st)
	}
	return st
}

func saveCatalogState(k *reload.Bookkeeping, written skillfs.ID) error {
	data, err := json.Marshal(catalogState{Written: written})
	if err != nil {
		return err
	}
	return k.WriteFile(catalogRecord, append(data, '\n'))
}

// catalogData is the catalog listing every plugin whose folder holds what
// export wrote now; a plugin export skipped (edited in the target,
// failed) keeps its entry from the previous catalog prev, if it had one.
func catalogData(t Target, fl *flavor, results []reload.Result, meta map[string]*composed, prev []byte) ([]byte, error) {
	old := map[string]json.RawMessage{}
	if prev != nil {
		var c struct {
			Plugins []json.RawMessage `json:"plugins"`
		}
		if json.Unmarshal(prev, &c) == nil {
			for _, raw := range c.Plugins {
				var e struct {
					Name string `json:"name"`
				}
				if json.Unmarshal(raw, &e) == nil && e.Name != "" {
					old[e.Name] = raw
				}
			}
		}
	}
	entries := []any{}
	for _, r := range results {
		c := meta[r.Skill]
		switch {
		case r.Action == reload.ActionRemoved:
		case c != nil && !r.Action.Skipped():
			entries = append(entries, fl.entry(r.Skill, c))
		case old[r.Skill] != nil:
			entries = append(entries, old[r.Skill])
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(fl.catalogDoc(t.MarketplaceName(), entries)); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// entryVersion is version with the content's short tree id as semver
// build metadata (VERSION+skillstore.TREE8), appended to any build
// metadata version already has.
func entryVersion(version string, tree skillfs.ID) string {
	sep := "+"
	if strings.Contains(version, "+") {
		sep = "."
	}
	return version + sep + "skillstore." + tree.String()[:8]
}

// readManifest reads the plugin.json export last wrote in plugin's folder.
func readManifest(pdir, plugin string, fl *flavor) []byte {
	data, _ := safefile.ReadFile(filepath.Join(pdir, plugin, filepath.FromSlash(fl.manifest)), safefile.ManifestLimit)
	return data
}

// leftOut is what the format could not say of each plugin export wrote
// now (or, planning, would write): said once, when the folder changes,
// not at every export of an unchanged folder.
func leftOut(results []reload.Result, meta map[string]*composed) []LeftOut {
	var out []LeftOut
	for _, r := range results {
		if c := meta[r.Skill]; c != nil && (r.Action == reload.ActionCold || r.Action == reload.ActionHot) {
			out = append(out, c.LeftOut...)
		}
	}
	return out
}

// sameManifest reports whether two manifests differ at most in their
// version.
func sameManifest(a, b []byte) bool {
	var ma, mb map[string]json.RawMessage
	if json.Unmarshal(a, &ma) != nil || json.Unmarshal(b, &mb) != nil {
		return false
	}
	delete(ma, "version")
	delete(mb, "version")
	if len(ma) != len(mb) {
		return false
	}
	for k, v := range ma {
		if !bytes.Equal(v, mb[k]) {
			return false
		}
	}
	return true
}
