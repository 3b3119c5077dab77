package watch

import (
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/skillstore/skillstore/discover"
	"github.com/skillstore/skillstore/internal/skillfs"
	"github.com/skillstore/skillstore/reload"
)

// EventType names what an event records; the audit trail may hold other
// types later, so readers should check it.
type EventType string

// EventReload is the type of every event a Watcher reports: one settled
// change of one skill.
const EventReload EventType = "reload"

// EventAction is what happened to a skill, as an agent sees it.
type EventAction string

const (
	// EventAdded: a skill folder appeared (or a skill that did not load
	// before now does).
	EventAdded EventAction = "added"
	// EventUpdated: a skill the agent has loaded changed.
	EventUpdated EventAction = "updated"
	// EventRemoved: the skill folder is gone; the agent should unload it.
	// Its class is cold (a restart forgets it).
	EventRemoved EventAction = "removed"
)

// Outcome is how a reload ended.
type Outcome string

const (
	// Success: the reload callback returned nil (or there was none).
	Success Outcome = "success"
	// Failure: the skill would not load (Diagnostics say why, and no hook
	// ran), the callback failed or panicked, or the skill folder could not
	// be read; Error says why.
	Failure Outcome = "failure"
)

// Event is one settled change of one skill folder and the outcome of its
// reload: the audit record the watcher writes as one JSON line.
type Event struct {
	Time time.Time `json:"time"`
	// ID is unique among the events of one Watcher: "<run>-<sequence>".
	ID   string    `json:"id"`
	Type EventType `json:"type"`
	// Skill is the skill folder's name.
	Skill  string      `json:"skill"`
	Action EventAction `json:"action,omitempty"`
	// Dir is the skill folder.
	Dir   string       `json:"dir"`
	Class reload.Class `json:"class,omitempty"`
	// Paths are the added, removed and changed paths, relative to the
	// skill folder, sorted.
	Paths []string `json:"paths"`
	// Files are Paths named with the skill ("deploy/SKILL.md"), as the
	// audit trail lists them.
	Files []string `json:"files"`
	// OldTree is the tree seen before (zero when the skill appeared);
	// NewTree the tree now (zero when it was removed).
	OldTree skillfs.ID `json:"old_tree,omitzero"`
	NewTree skillfs.ID `json:"new_tree,omitzero"`
	Outcome Outcome    `json:"outcome,omitempty"`
	Error   string     `json:"error,omitempty"`
	// Diagnostics are the errors that stop the skill from loading (lenient
	// rules, as agents apply them), set on such a failure.
	Diagnostics []discover.Diagnostic `json:"diagnostics,omitempty"`
}

// ReloadFunc is a reload hook: it is called once per settled change of a
// skill that loads (its SKILL.md passes validation) and once per removal
// (Action is EventRemoved), with the event before its outcome is known. An error (or a panic)
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
