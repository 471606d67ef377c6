package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"maps"
	"slices"
	"sync"
	"time"
)

// Tracker follows how far a run has read its input, for the checkpoint of
// each transaction. The input readers write every byte they consume to
// the source's Tap, in order; the run reports each record it reads with
// Record and each source read to its end with Complete. The sources read
// to their end at the start of the input, all but the last begun, are
// folded (Folded): its memory and its checkpoints stay the same size
// however many sources the load reads. Safe for concurrent use.
type Tracker struct {
	mu              sync.Mutex // guards the fields below
	transactionalID string
	options         map[string]string
	names           []string
	fold            *folder       // the sources folded: the first fold.count
	sources         []sourceState // the sources begun after them, in order
	records         int64
	transactions    int64
}

// sourceState is the progress of one source.
type sourceState struct {
	Source
	h hash.Hash // SHA-256 of the Bytes bytes consumed
}

// NewTracker returns a tracker for a load of the sources named names
// (in input order) that nothing was read of yet.
func NewTracker(transactionalID string, names []string, options map[string]string) *Tracker {
	return &Tracker{transactionalID: transactionalID, names: names, options: maps.Clone(options),
		fold: newFolder(groupSize(len(names)))}
}

// Resume takes up where the earlier run's checkpoint cp ends, once cp
// passed CheckInputs for the tracker's names: it reads the part of each
// source that cp accounts for from input(i) (i from 0, in order), checks
// it and goes on hashing from there. The sources cp folds are read to
// their end and checked a group at a time (the first group that differs
// is the error's range of inputs), the others with Skip. A difference is a
// *MismatchError; nothing is taken up then.
func (t *Tracker) Resume(cp *Checkpoint, input func(i int) io.Reader) error {
	fold := newFolder(groupSize(len(t.names)))
	if cp.Folded != nil {
		if err := skipFolded(cp.Folded, t.names, input, fold); err != nil {
			return err
		}
	}
	first := cp.FoldedCount()
	sources := make([]sourceState, 0, len(cp.Sources))
	for i := range cp.Sources {
		h, err := Skip(input(first+i), &cp.Sources[i], first+i+1)
		if err != nil {
			return err
		}
		sources = append(sources, sourceState{Source: cp.Sources[i], h: h})
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.fold, t.sources = fold, sources
	t.foldCompleted() // a version 1 checkpoint's
	t.records, t.transactions = cp.Records, cp.Transactions
	return nil
}

// foldCompleted folds the sources read to their end at the start of
// t.sources, all but the last source begun. t.mu must be held.
func (t *Tracker) foldCompleted() {
	k := 0
	for ; k < len(t.sources)-1 && t.sources[k].Complete; k++ {
		s := &t.sources[k]
		t.fold.add(s.Name, s.Bytes, s.h.Sum(nil))
	}
	t.sources = slices.Delete(t.sources, 0, k)
}

// source returns the state of source i, beginning it (and the sources
// before it) when needed. Source i is never one already folded: a source
// is folded once read to its end and another begun, and it is then done
// with. t.mu must be held.
func (t *Tracker) source(i int) *sourceState {
	for int(t.fold.count)+len(t.sources) <= i {
		t.foldCompleted()
		n := int(t.fold.count) + len(t.sources)
		t.sources = append(t.sources, sourceState{Source: Source{Name: t.names[n]}, h: sha256.New()})
	}
	return &t.sources[i-int(t.fold.count)]
}

// Tap is where the reader of source i writes the bytes it consumes.
func (t *Tracker) Tap(i int) *Tap { return &Tap{t: t, i: i} }

// Tap is an io.Writer counting and hashing the bytes consumed from one
// source.
type Tap struct {
	t *Tracker
	i int
}

// Write adds p to the source's consumed bytes; it never fails.
func (w *Tap) Write(p []byte) (int, error) {
	w.t.mu.Lock()
	s := w.t.source(w.i)
	s.h.Write(p)
	s.Bytes += int64(len(p))
	w.t.mu.Unlock()
	return len(p), nil
}

// Record notes that record number of source i was read (and handed to
// the producer).
func (t *Tracker) Record(i int, number int64) {
	t.mu.Lock()
	t.source(i).Records = number
	t.records++
	t.mu.Unlock()
}

// Complete notes that source i was read to its end.
func (t *Tracker) Complete(i int) {
	t.mu.Lock()
	t.source(i).Complete = true
	t.mu.Unlock()
}

// Records is the number of records read by the load, earlier runs
// included.
func (t *Tracker) Records() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.records
}

// Checkpoint is the checkpoint of the transaction being committed: what
// was read so far, done when the whole input was. It counts that
// transaction among those committed.
func (t *Tracker) Checkpoint(done bool, now time.Time) *Checkpoint {
	return t.checkpoint(done, 1, now)
}

// Final is the checkpoint of a transaction holding nothing but it: the
// load is done, and the transaction is not counted.
func (t *Tracker) Final(now time.Time) *Checkpoint { return t.checkpoint(true, 0, now) }

func (t *Tracker) checkpoint(done bool, txns int64, now time.Time) *Checkpoint {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.foldCompleted()
	cp := &Checkpoint{Version: Version, TransactionalID: t.transactionalID, Options: maps.Clone(t.options),
		Folded: t.fold.state(), Records: t.records, Transactions: t.transactions + txns, Done: done, Written: formatTime(now)}
	for _, s := range t.sources {
		src := s.Source
		src.SHA256 = hex.EncodeToString(s.h.Sum(nil))
		cp.Sources = append(cp.Sources, src)
	}
	return cp
}

// Committed notes that the transaction of the last Checkpoint (not
// Final) was committed.
func (t *Tracker) Committed() {
	t.mu.Lock()
	t.transactions++
	t.mu.Unlock()
}
