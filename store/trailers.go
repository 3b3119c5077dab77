package store

import "github.com/skillstore/skillstore/internal/gitdb"

// Every commit the store writes tells its story in trailers ("Key: value"
// lines at the end of its message), so that `git log` alone explains a
// version, a snapshot, a candidate or a state change. The keys, and the
// values of Merge-Mode, are defined here and nowhere else.

// Trailer keys written on version commits.
const (
	TrailerVersion       = "Skill-Version"
	TrailerSource        = "Source"
	TrailerPlugin        = "Plugin"
	TrailerPluginVersion = "Plugin-Version"
	TrailerMergeMode     = "Merge-Mode"
	TrailerRisk          = "Risk"
	TrailerActor         = "Actor"
	TrailerReason        = "Reason"
	// TrailerRollbackTo names the version a rollback took the tree of.
	TrailerRollbackTo = "Rollback-To"
)

// Trailer keys sync writes on snapshots and candidates.
const (
	TrailerCandidate    = "Skill-Candidate" // marks a candidate's merge commit
	TrailerMergeBase    = "Merge-Base"
	TrailerConflicts    = "Conflicts"
	TrailerSourceURL    = "Source-URL"
	TrailerSourceCommit = "Source-Commit"
	TrailerUpstreamPath = "Upstream-Path"
)

// TrailerMergeResolved is one conflict the skill-aware rules resolved in a
// candidate's merge, "PATH:LINE RULE"; one trailer per conflict.
const TrailerMergeResolved = "Merge-Resolved"

// TrailerLeftOut names, on an upstream snapshot, a file of the upstream
// folder the snapshot leaves out: "PATH: REASON".
const TrailerLeftOut = "Left-Out"

// Trailers pull writes on a remote-merge candidate.
const (
	TrailerRemote        = "Remote"         // the remote whose history was merged
	TrailerRemoteVersion = "Remote-Version" // the remote's version number at the merge
)

// TrailerRenamedFrom names a plugin's old id on the state commit that
// renamed it.
const TrailerRenamedFrom = "Renamed-From"

// SourceManaged is the Source of a skill edited and added by hand.
const SourceManaged = "managed"

// MergeMode says how a version's or candidate's tree was made (its
// Merge-Mode trailer).
type MergeMode string

// Merge modes recorded on versions and candidates.
const (
	MergeModeNone     MergeMode = "none"
	MergeModeRollback MergeMode = "rollback"
	// Sync's: the four cases of the design, a first mirror, and a
	// candidate rejected (the base advances, the published tree stays).
	MergeModeMirror         MergeMode = "mirror"
	MergeModeFastForward    MergeMode = "fast-forward"
	MergeModeThreeWay       MergeMode = "three-way"
	MergeModeAlreadyApplied MergeMode = "already-applied"
	MergeModeRejected       MergeMode = "rejected"
	// MergeModeRemote marks a candidate (and the version accepting it)
	// that joins two published histories of a skill that diverged on two
	// machines.
	MergeModeRemote MergeMode = "remote-merge"
	// MergeModeLocalEdit marks a candidate that merges an edit made in a
	// target folder with a published version that moved since export
	// wrote the folder (both sides changed), and the commit recording that
	// edit.
	MergeModeLocalEdit MergeMode = "local-edit"
	// MergeModeLink marks the version that links a managed skill to a
	// plugin.
	MergeModeLink MergeMode = "link"
)

// Trailer is one "Key: value" line at the end of a commit message; the
// store records versions, sources and reasons in trailers. It is its own
// type, not an alias of gitdb.Trailer (which [Commit.Trailers] returns and
// converts to it), so that the store's many {Key, Value} literals stay
// short: go vet wants keyed fields in literals of another package's types.
type Trailer struct {
	Key   string
	Value string
}

// MergeBaseTrailer is the Merge-Base trailer naming base, the accepted
// upstream a version or candidate was made against ("none" when zero).
func MergeBaseTrailer(base Hash) Trailer {
	if base.IsZero() {
		return Trailer{TrailerMergeBase, "none"}
	}
	return Trailer{TrailerMergeBase, base.String()}
}

// BuildMessage assembles a commit message from a subject, an optional body
// and trailers (see gitdb.BuildMessage).
func BuildMessage(subject, body string, trailers []Trailer) string {
	gt := make([]gitdb.Trailer, len(trailers))
	for i, t := range trailers {
		gt[i] = gitdb.Trailer(t)
	}
	return gitdb.BuildMessage(subject, body, gt)
}
