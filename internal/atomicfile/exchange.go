package atomicfile

import "errors"

// ErrExchangeUnsupported is returned by Exchange where the kernel or the
// filesystem cannot swap two names atomically; callers fall back to two
// renames and say so.
var ErrExchangeUnsupported = errors.New("atomic exchange not supported")
