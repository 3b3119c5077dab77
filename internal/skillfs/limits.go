package skillfs

// Limits bound what a skill tree may hold: the scan of a folder stops
// reading past them (package folderscan) and the safety check refuses a
// tree that exceeds them (package store/safety).
type Limits struct {
	MaxFileSize int64 // bytes per file
	MaxFiles    int
}

// DefaultLimits are the caps add and sync apply.
var DefaultLimits = Limits{MaxFileSize: 2 << 20, MaxFiles: 1000}
