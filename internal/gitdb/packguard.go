package gitdb

import (
	"bufio"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// MaxFetchedObjectSize caps one object a fetch or a pull receives, read
// from the pack entry's header (a delta's from the size it records)
// before the object is inflated: a 1.2 MB pack can hold a 1 GB blob of
// zeros. It is well above the store's per-file cap (skillfs.DefaultLimits,
// which the checks after the fetch apply to skill files), so that a git
// plugin's repository may hold a larger asset outside its skills.
const MaxFetchedObjectSize = 16 << 20

// MaxFetchedTotal caps the sum of the objects' sizes in one received pack.
const MaxFetchedTotal = 1 << 30

// ObjectTooLargeError refuses a received pack holding an object (or a
// total) over the cap; nothing of it is kept.
type ObjectTooLargeError struct {
	Type ObjectType // the entry's type (a delta's: ofs-delta or ref-delta)
	Size int64      // bytes the object would take inflated
	Max  int64
	// Total is set when the sum of the pack's objects is over the cap.
	Total bool
}

func (e *ObjectTooLargeError) Error() string {
	if e.Total {
		return fmt.Sprintf("the pack's objects add up to more than %d bytes", e.Max)
	}
	return fmt.Sprintf("pack holds a %s of %d bytes, over the cap of %d bytes per object (refused before inflating it)", e.Type, e.Size, e.Max)
}

// PackGuard checks a pack as it streams past, one entry header at a time,
// and fails the stream at the first object over MaxFetchedObjectSize:
// writes fail from then on, so the fetch stops before anything inflates
// the object. Objects under the cap are inflated into a discard buffer to
// find the next entry (memory stays bounded by one window).
type PackGuard struct {
	pw   *io.PipeWriter
	done chan error
	// refDeltas is set when an entry is a delta naming its base by id
	// (as a thin pack's deltas on objects outside it do); read after Close.
	refDeltas bool
}

// NewPackGuard starts checking the pack written to it.
func NewPackGuard() *PackGuard {
	pr, pw := io.Pipe()
	g := &PackGuard{pw: pw, done: make(chan error, 1)}
	go func() {
		err := checkPack(bufio.NewReader(pr), MaxFetchedObjectSize, MaxFetchedTotal, &g.refDeltas)
		if err != nil {
			pr.CloseWithError(err)
		} else {
			io.Copy(io.Discard, pr) // the trailer, and whatever follows
		}
		g.done <- err
	}()
	return g
}

// Write passes p to the check; it fails once the check has refused.
func (g *PackGuard) Write(p []byte) (int, error) { return g.pw.Write(p) }

// RefDeltas reports, after Close, whether the pack holds a delta that
// names its base by id (a REF_DELTA): a pack that may need objects from
// elsewhere to be read, so it is not kept as it is (see InstallPack).
func (g *PackGuard) RefDeltas() bool { return g.refDeltas }

// Close ends the stream and returns the check's verdict. A pack cut short
// is not the guard's to judge (the parser reports it): only a refusal is
// an error.
func (g *PackGuard) Close() error {
	g.pw.Close()
	err := <-g.done
	var tooLarge *ObjectTooLargeError
	if errors.As(err, &tooLarge) {
		return err
	}
	return nil
}

// checkPack reads a pack stream's header and entries, refusing an object
// over max (or a total over maxTotal) from its header.
func checkPack(r *bufio.Reader, max, maxTotal int64, refDeltas *bool) error {
	var hdr [12]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return err
	}
	if string(hdr[:4]) != "PACK" {
		return errors.New("not a pack")
	}
	count := binary.BigEndian.Uint32(hdr[8:])
	var total int64
	var zr io.ReadCloser
	for range count {
		typ, size, err := readEntryHeader(r)
		if err != nil {
			return err
		}
		if size > max {
			return &ObjectTooLargeError{Type: typ, Size: size, Max: max}
		}
		if zr == nil {
			zr, err = zlib.NewReader(r)
		} else {
			err = zr.(zlib.Resetter).Reset(r, nil)
		}
		if err != nil {
			return err
		}
		if typ == REFDeltaObject {
			*refDeltas = true
		}
		if typ == OFSDeltaObject || typ == REFDeltaObject {
			// The delta starts with the base's size and the result's.
			var head [20]byte
			n, _ := io.ReadFull(zr, head[:])
			_, rest, _ := deltaVarint(head[:n])
			if target, _, ok := deltaVarint(rest); ok && int64(target) > max {
				return &ObjectTooLargeError{Type: typ, Size: int64(target), Max: max}
			} else if ok {
				size = int64(target)
			}
		}
		if total += size; total > maxTotal {
			return &ObjectTooLargeError{Max: maxTotal, Total: true}
		}
		if _, err := io.Copy(io.Discard, zr); err != nil {
			return err
		}
	}
	return nil
}

// readEntryHeader reads a streamed pack entry's type and size and, for a
// delta, the reference to its base.
func readEntryHeader(r *bufio.Reader) (ObjectType, int64, error) {
	e, size, err := decodeEntryHeader(r, -1)
	return e.typ, size, err
}
