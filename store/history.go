package store

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
