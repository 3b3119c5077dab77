package store

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// The store's own records live in the tree of the commit at StateRef, one
// JSON file per record at "<kind>/<key>.json" (for example
// "skills/deploy.json"). Every change is a new commit whose parent is the
// previous state, so `git log refs/skillstore/state` is the audit log.
// Only what cannot be derived from refs and trees is recorded.

const recordExt = ".json"

// stateTree is the state commit's tree, loaded once per Reader.
type stateTree struct {
	commit Hash
	files  map[string]Hash // record path (without .json) -> blob
}

// stateChange is what a transaction changes in the state.
type stateChange struct {
	puts     map[string][]byte // nil value: delete
	subjects []string
	trailers []Trailer
}

func (r *Reader) loadState() (*stateTree, error) {
	if r.st8 != nil {
		return r.st8, nil
	}
	st := &stateTree{files: map[string]Hash{}}
	if h, ok := r.storedRef(StateRef); ok {
		c, err := r.Commit(h)
		if err != nil {
			return nil, fmt.Errorf("read state: %w", err)
		}
		files, err := r.Files(c.Tree)
		if err != nil {
			return nil, fmt.Errorf("read state: %w", err)
		}
		st.commit = h
		for _, f := range files {
			st.files[strings.TrimSuffix(f.Path, recordExt)] = f.ID
		}
	}
	r.st8 = st
	return st, nil
}

// Record reads the record at path ("skills/deploy") into v and reports
// whether it exists. Inside Update it sees the transaction's own changes.
func (r *Reader) Record(path string, v any) (bool, error) {
	var data []byte
	if r.tx != nil {
		if d, ok := r.tx.state.puts[path]; ok {
			if d == nil {
				return false, nil
			}
			data = d
		}
	}
	if data == nil {
		st, err := r.loadState()
		if err != nil {
			return false, err
		}
		h, ok := st.files[path]
		if !ok {
			return false, nil
		}
		if data, err = r.Blob(h); err != nil {
			return false, fmt.Errorf("read record %s: %w", path, err)
		}
	}
	if err := json.Unmarshal(data, v); err != nil {
		return false, fmt.Errorf("state record %s%s does not parse: %w", path, recordExt, err)
	}
	return true, nil
}

// RecordKeys returns the sorted keys of the records of a kind ("skills").
func (r *Reader) RecordKeys(kind string) ([]string, error) {
	st, err := r.loadState()
	if err != nil {
		return nil, err
	}
	prefix := kind + "/"
	seen := map[string]bool{}
	for p := range st.files {
		if strings.HasPrefix(p, prefix) {
			seen[p] = true
		}
	}
	if r.tx != nil {
		for p, d := range r.tx.state.puts {
			if strings.HasPrefix(p, prefix) {
				seen[p] = d != nil
			}
		}
	}
	var keys []string
	for p, ok := range seen {
		if ok {
			keys = append(keys, strings.TrimPrefix(p, prefix))
		}
	}
	sort.Strings(keys)
	return keys, nil
}

// PutRecord queues writing v as the record at path.
func (tx *Tx) PutRecord(path string, v any) error {
	if err := checkTreePath(path + recordExt); err != nil {
		return fmt.Errorf("record: %w", err)
	}
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("record %s: %w", path, err)
	}
	if tx.state.puts == nil {
		tx.state.puts = map[string][]byte{}
	}
	tx.state.puts[path] = append(data, '\n')
	return nil
}

// DeleteRecord queues removing the record at path.
func (tx *Tx) DeleteRecord(path string) {
	if tx.state.puts == nil {
		tx.state.puts = map[string][]byte{}
	}
	tx.state.puts[path] = nil
}

// NoteState adds a line to the message of the state commit this
// transaction writes (if it changes any record), and trailers to it.
func (tx *Tx) NoteState(subject string, trailers ...Trailer) {
	tx.state.subjects = append(tx.state.subjects, subject)
	tx.state.trailers = append(tx.state.trailers, trailers...)
}

// commitState writes the state commit when records changed.
func (tx *Tx) commitState() error {
	if len(tx.state.puts) == 0 {
		return nil
	}
	st, err := tx.loadState()
	if err != nil {
		return err
	}
	if _, ok := st.files[layoutRecord]; !ok && st.commit.IsZero() {
		// The first state commit of a store records its layout (a store
		// with older state is refused before any write, see checkLayout).
		if _, queued := tx.state.puts[layoutRecord]; !queued {
			if err := tx.PutRecord(layoutRecord, layoutRec{Version: LayoutVersion}); err != nil {
				return err
			}
		}
	}
	var files []File
	for p, h := range st.files {
		if _, changed := tx.state.puts[p]; !changed {
			files = append(files, File{Path: p + recordExt, Mode: regularMode, ID: h})
		}
	}
	for p, d := range tx.state.puts {
		if d != nil {
			files = append(files, File{Path: p + recordExt, Mode: regularMode, Data: d})
		}
	}
	tree, err := tx.WriteTree(files)
	if err != nil {
		return fmt.Errorf("write state: %w", err)
	}
	var parents []Hash
	if !st.commit.IsZero() {
		parents = []Hash{st.commit}
		if old, err := tx.Commit(st.commit); err == nil && old.Tree == tree {
			return nil
		}
	}
	subject := "state: update"
	body := ""
	if len(tx.state.subjects) > 0 {
		subject = tx.state.subjects[0]
		body = strings.Join(tx.state.subjects[1:], "\n")
	}
	sig := tx.signature()
	trailers := append([]Trailer{{Key: "Actor", Value: sig.Name + " <" + sig.Email + ">"}}, tx.state.trailers...)
	c := &Commit{Tree: tree, Parents: parents, Author: sig, Committer: sig, Message: buildMessage(subject, body, trailers)}
	tx.SetRef(StateRef, tx.WriteCommit(c))
	return nil
}
