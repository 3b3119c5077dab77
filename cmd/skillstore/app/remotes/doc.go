// Package remotes holds the workflows of a store's remotes: remote add,
// list and rm, push, pull (with its dry run on a scratch copy) and clone.
// The store's own mechanics are store/remote's; this package reports
// them to people and runs export after a pull when asked.
package remotes
