package reload

import (
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/skillstore/skillstore/internal/skillfs"
)

// Outcome is how a reload ended.
type Outcome string

const (
	// Success: the reload callback returned nil (or there was none).
	Success Outcome = "success"
	// Failure: the callback failed, panicked, or the skill folder could not
	// be read; Error says why.
	Failure Outcome = "failure"
)

// Event is one settled change of one skill folder and the outcome of its
// reload: the audit record the watcher writes as one JSON line.
type Event struct {
	Time time.Time `json:"time"`
	// ID is unique among the events of one Watcher: "<run>-<sequence>".
	ID    string `json:"id"`
	Skill string `json:"skill"`
	// Dir is the skill folder.
	Dir   string `json:"dir"`
	Class Class  `json:"class,omitempty"`
	// Paths are the added, removed and changed paths, sorted.
	Paths []string `json:"paths"`
	// OldTree is the tree seen before (zero when the skill appeared);
	// NewTree the tree now (zero when it was removed).
	OldTree skillfs.ID `json:"old_tree,omitzero"`
	NewTree skillfs.ID `json:"new_tree,omitzero"`
	Outcome Outcome    `json:"outcome,omitempty"`
	Error   string     `json:"error,omitempty"`
}

// ReloadFunc is a reload hook: it is called once per settled change of a
// skill, with the event before its outcome is known. An error (or a panic)
// makes the event a failure; the watcher keeps going. ctx is cancelled when
// the watcher stops.
type ReloadFunc func(ctx context.Context, ev Event) error

// EventLog writes events as JSON lines to w, one Write per event, safe for
// concurrent use.
type EventLog struct {
	mu  sync.Mutex
	enc *json.Encoder
}

// NewEventLog returns an EventLog writing to w.
func NewEventLog(w io.Writer) *EventLog {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &EventLog{enc: enc}
}

// Write appends ev as one line.
func (l *EventLog) Write(ev Event) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.enc.Encode(ev)
}
