package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"maps"
	"slices"
	"strings"
)

// skipBuffer is the read size of Skip: large reads keep the hashing at
// the speed of SHA-256.
const skipBuffer = 256 << 10

// ErrMismatch is wrapped by every error saying that the input of a
// resumed run is not what the earlier run committed.
var ErrMismatch = errors.New("the input differs from what the earlier run committed")

// MismatchError says which source differs from the checkpoint, and where:
// one source, or a range of the sources it folds (Folded).
type MismatchError struct {
	Source string // the source's name, the first of a range
	Index  int    // its place among the inputs, from 1
	// Last and LastIndex are the last source of a range; "" and 0 for
	// one source.
	Last      string
	LastIndex int
	What      string // what differs and where
}

// Error names the source, or the range, and the difference.
func (e *MismatchError) Error() string {
	if e.LastIndex > e.Index {
		return fmt.Sprintf("%s to %s (inputs %d to %d): %s", e.Source, e.Last, e.Index, e.LastIndex, e.What)
	}
	return fmt.Sprintf("%s (input %d): %s", e.Source, e.Index, e.What)
}

// Unwrap returns ErrMismatch.
func (e *MismatchError) Unwrap() error { return ErrMismatch }

// Skip reads the first src.Bytes bytes of r into a new SHA-256 and checks
// them against src; for a source read to its end (src.Complete) it also
// checks that r ends there. It returns the hash state, to go on hashing
// the bytes that follow. index is the source's place among the inputs
// (from 1), for the error. Only a buffer's worth of r is held at a time.
func Skip(r io.Reader, src *Source, index int) (hash.Hash, error) {
	h := sha256.New()
	buf := make([]byte, skipBuffer)
	n, err := io.CopyBuffer(h, io.LimitReader(r, src.Bytes), buf)
	if err != nil {
		return nil, fmt.Errorf("%s: reading the part committed by the earlier run: %w", src.Name, err)
	}
	mismatch := func(format string, args ...any) error {
		return &MismatchError{Source: src.Name, Index: index, What: fmt.Sprintf(format, args...)}
	}
	if n < src.Bytes {
		return nil, mismatch("ends at byte %d, before the %d bytes (%d records) the earlier run committed",
			n, src.Bytes, src.Records)
	}
	if sum := hex.EncodeToString(h.Sum(nil)); sum != src.SHA256 {
		return nil, mismatch("its first %d bytes (records 1 to %d) are not the bytes the earlier run committed (sha256 %s, the earlier run's %s)",
			src.Bytes, src.Records, sum[:12], src.SHA256[:12])
	}
	if src.Complete {
		var one [1]byte
		if m, _ := io.ReadFull(r, one[:]); m > 0 {
			return nil, mismatch("has grown: the earlier run read it to its end at byte %d", src.Bytes)
		}
	}
	return h, nil
}

// CheckInputs checks that a run's inputs (names in order) and options are
// those of the load cp records: the same options, and the checkpoint's
// sources first among the inputs, in the same order (the names of the
// sources it folds are checked with their bytes, by Tracker.Resume). A
// finished load must have no more inputs than it read. An option the
// checkpoint does not record (one written by a kproduce that recorded
// fewer) is not compared.
func CheckInputs(cp *Checkpoint, names []string, options map[string]string) error {
	if keys := changedOptions(cp.Options, options); len(keys) > 0 {
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("--%s was %q in the earlier run, %q now", k, cp.Options[k], options[k])
		}
		return fmt.Errorf("%w: %s; a resumed load keeps every option that decides where its records go and what they hold"+
			" (to change one, start a new load with another --transactional-id)", ErrMismatch, strings.Join(parts, "; "))
	}
	folded, begun := cp.FoldedCount(), cp.Begun()
	if begun > len(names) {
		return fmt.Errorf("%w: the earlier run read %d inputs (%s), this run names %d", ErrMismatch,
			begun, sourceNames(cp), len(names))
	}
	for i, s := range cp.Sources {
		if k := folded + i; names[k] != s.Name {
			return &MismatchError{Source: names[k], Index: k + 1, What: fmt.Sprintf("the earlier run read %s as input %d", s.Name, k+1)}
		}
	}
	if cp.Done && len(names) > begun {
		return fmt.Errorf("%w: the earlier run finished its load of %d inputs (%s), this run names %d", ErrMismatch,
			begun, sourceNames(cp), len(names))
	}
	return nil
}

// changedOptions lists, sorted, the options recorded in earlier whose
// value in now differs (an option missing from now has the value "").
func changedOptions(earlier, now map[string]string) []string {
	var keys []string
	for k := range maps.Keys(earlier) {
		if now[k] != earlier[k] {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// sourceNames lists the sources cp names: the folded ones by their
// number, the others by their names.
func sourceNames(cp *Checkpoint) string {
	names := make([]string, len(cp.Sources))
	for i, s := range cp.Sources {
		names[i] = s.Name
	}
	list := strings.Join(names, ", ")
	if n := cp.FoldedCount(); n > 0 {
		return fmt.Sprintf("the first %d, then %s", n, list)
	}
	return list
}
