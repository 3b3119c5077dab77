// Package store is the embedded git repository in which every skill version
// is a commit: published skills, upstream snapshots, candidates and the
// store's own state are refs that plain git can read.
package store
