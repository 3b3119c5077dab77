package store

// The ancestry of commits: what sync and pull ask of two histories.

// IsAncestor reports whether commit a is b or one of its ancestors (a
// commit that cannot be read ends its line of the walk).
func (r *Reader) IsAncestor(a, b Hash) bool {
	seen := map[Hash]bool{}
	stack := []Hash{b}
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if h == a {
			return true
		}
		if seen[h] {
			continue
		}
		seen[h] = true
		c, err := r.Commit(h)
		if err != nil {
			continue
		}
		stack = append(stack, c.Parents...)
	}
	return false
}

// MergeBase is the best common ancestor of commits a and b (see
// [MergeBaseWith]), or ZeroHash when they share no history.
func (r *Reader) MergeBase(a, b Hash) (Hash, error) { return MergeBaseWith(r.Commit, a, b) }

// MergeBaseWith is the best common ancestor of a and b, their commits
// read with commit (sync passes a cache), or the zero hash when they
// share none. Upstream snapshots form a line, so the first ancestor of b
// (breadth first) that a also reaches is the accepted base. When b is
// itself an ancestor of a (the upstream was taken in: the usual case) the
// walk stops there instead of reading a's whole history.
func MergeBaseWith(commit func(Hash) (*Commit, error), a, b Hash) (Hash, error) {
	if a == b {
		return a, nil
	}
	seen := map[Hash]bool{}
	queue := []Hash{a}
	for len(queue) > 0 {
		h := queue[0]
		queue = queue[1:]
		if h == b {
			return b, nil
		}
		if seen[h] {
			continue
		}
		seen[h] = true
		c, err := commit(h)
		if err != nil {
			return ZeroHash, err
		}
		queue = append(queue, c.Parents...)
	}
	visited := map[Hash]bool{}
	queue = []Hash{b}
	for len(queue) > 0 {
		h := queue[0]
		queue = queue[1:]
		if seen[h] {
			return h, nil
		}
		if visited[h] {
			continue
		}
		visited[h] = true
		c, err := commit(h)
		if err != nil {
			return ZeroHash, err
		}
		queue = append(queue, c.Parents...)
	}
	return ZeroHash, nil
}
