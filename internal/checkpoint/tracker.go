package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"maps"
	"sync"
	"time"
)

// Tracker follows how far a run has read its input, for the checkpoint of
// each transaction. The input readers write every byte they consume to
// the source's Tap, in order; the run reports each record it reads with
// Record and each source read to its end with Complete. Safe for
// concurrent use.
type Tracker struct {
	mu              sync.Mutex // guards the fields below
	transactionalID string
	options         map[string]string
	names           []string
	sources         []sourceState // len is the number of sources begun
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
	return &Tracker{transactionalID: transactionalID, names: names, options: maps.Clone(options)}
}

// Resume takes up where the earlier run's checkpoint cp ends: hashes are
// the SHA-256 states after Skip of each of cp's sources, in order, and
// reading goes on from there.
func (t *Tracker) Resume(cp *Checkpoint, hashes []hash.Hash) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sources = t.sources[:0]
	for i, s := range cp.Sources {
		t.sources = append(t.sources, sourceState{Source: s, h: hashes[i]})
	}
	t.records, t.transactions = cp.Records, cp.Transactions
}

// source returns the state of source i, beginning it (and the sources
// before it) when needed. t.mu must be held.
func (t *Tracker) source(i int) *sourceState {
	for len(t.sources) <= i {
		n := len(t.sources)
		t.sources = append(t.sources, sourceState{Source: Source{Name: t.names[n]}, h: sha256.New()})
	}
	return &t.sources[i]
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
	cp := &Checkpoint{Version: Version, TransactionalID: t.transactionalID, Options: maps.Clone(t.options),
		Records: t.records, Transactions: t.transactions + txns, Done: done, Written: formatTime(now)}
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
