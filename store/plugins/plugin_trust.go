package plugins

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/skillstore/skillstore/internal/atomicfile"
	"github.com/skillstore/skillstore/internal/safefile"
	"github.com/skillstore/skillstore/store"
)

// untrustedName is the local file (never pushed) listing the plugins whose
// record, or whose source, came from a remote by pull and that no person
// on this machine has approved yet. Sync never fetches them: a teammate's
// server must not make this machine fetch an internal URL with its
// credentials. Plugins added here (plugin add) are never listed.
const untrustedName = "untrusted-plugins.json"

// ErrNotUntrusted is returned by TrustPlugin for a plugin that waits for
// no approval.
var ErrNotUntrusted = errors.New("does not wait for approval")

// Untrusted lists the plugins waiting for approval, by id, with the
// source that came from the remote.
func Untrusted(r *store.Reader) (map[string]Source, error) {
	return readUntrusted(r.Store().LocalPath(untrustedName))
}

func readUntrusted(path string) (map[string]Source, error) {
	return readRecordMap[Source](path, "untrusted plugins")
}

// readRecordMap reads a JSON object of records, by key, from the store's
// local file at path; a missing file is an empty map. what names the
// records in errors.
func readRecordMap[T any](path, what string) (map[string]T, error) {
	data, err := safefile.ReadFile(path, safefile.RecordLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]T{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	out := map[string]T{}
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("%s: %s: %w", what, path, err)
	}
	return out, nil
}

func writeUntrusted(path string, m map[string]Source) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(data, '\n'), 0o644)
}

// MarkUntrusted records plugins whose record or source a pull takes from
// a remote; the caller writes it before the state ref moves, so that a
// crash in between never leaves such a plugin looking approved.
func MarkUntrusted(tx *store.Tx, plugins map[string]Source) error {
	if len(plugins) == 0 {
		return nil
	}
	path := tx.Store().LocalPath(untrustedName)
	m, err := readUntrusted(path)
	if err != nil {
		return err
	}
	for id, src := range plugins {
		m[id] = src
	}
	return writeUntrusted(path, m)
}

// Trust approves plugin id, which came from a remote, on this
// machine: sync fetches its source from now on. It returns the approved
// source.
func Trust(ctx context.Context, s *store.Store, id string) (Source, error) {
	var src Source
	err := s.Update(ctx, func(tx *store.Tx) error {
		path := s.LocalPath(untrustedName)
		m, err := readUntrusted(path)
		if err != nil {
			return err
		}
		p, err := Get(tx.Reader, id)
		if err != nil {
			return err
		}
		if _, ok := m[id]; !ok {
			return fmt.Errorf("plugin %q %w: it was added on this machine or approved already", id, ErrNotUntrusted)
		}
		if err := CheckSource(tx.Store(), p.Source, p.Marketplace); err != nil {
			return fmt.Errorf("plugin %q: %w", id, err)
		}
		if p.Source.IsLocal() {
			return fmt.Errorf("plugin %q: a source on this machine's disk (%s) that came from a remote cannot be approved; add it with 'skillstore plugin add' if it is yours", id, p.Source.URL)
		}
		delete(m, id)
		src = p.Source
		return writeUntrusted(path, m)
	})
	return src, err
}
