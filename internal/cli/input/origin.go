package input

import (
	"sync"
	"sync/atomic"
	"time"
)

// Origin is where a record was read: the Opaque of every record the
// command line hands to the producer, which its promise and report get
// back. The records of one read share a Chunk. An Origin is valid until
// the producer is done with its read's records (see Origins): whoever
// needs it later keeps a copy of its fields.
type Origin struct {
	*Chunk
	Number int64 // 1-based record number in its source
}

// Chunk is what the records of one read (see ReadBatch) share.
type Chunk struct {
	Input  int    // the input's index among the run's inputs
	Source string // its name: a file name or "-"
	// ReadAt is when the chunk's bytes were read from the source.
	ReadAt time.Time
}

// Origins are the Origins of the records of one read, on their Chunk, in
// memory reused from read to read: an OriginPool hands them out, and they
// go back to it when their last user releases them. Take gives them with
// one user (the read); Hold adds one for each user that keeps them past
// the read (a producer call that took its records), Release ends one.
type Origins struct {
	Chunk Chunk
	List  []Origin // the Origin of each record of the read, in order

	users atomic.Int32
	pool  *OriginPool
	// release is Release as a func value, made once: a completion to hand
	// to the producer with no allocation a call.
	release func()
}

// Hold adds a user, who must Release them.
func (o *Origins) Hold() { o.users.Add(1) }

// Release ends one user's use; after the last, the Origins go back to
// their pool and must not be read. It is safe on any goroutine.
func (o *Origins) Release() {
	if o.users.Add(-1) == 0 {
		o.pool.put(o)
	}
}

// ReleaseFunc returns Release as a func value (the same one every time).
func (o *Origins) ReleaseFunc() func() { return o.release }

// OriginPool keeps the Origins of a run's reads for reuse: without it,
// every read would make an array of them (16 bytes a record) that lives
// until the producer reported its records, the garbage of a bulk load.
// It is safe for concurrent use. The zero value is ready.
type OriginPool struct {
	mu   sync.Mutex
	free []*Origins
}

// Take returns the Origins of recs, read from input in (named source) at
// readAt, with one user.
func (p *OriginPool) Take(in int, source string, readAt time.Time, recs []Record) *Origins {
	p.mu.Lock()
	var o *Origins
	if n := len(p.free); n > 0 {
		o = p.free[n-1]
		p.free[n-1] = nil
		p.free = p.free[:n-1]
	}
	p.mu.Unlock()
	if o == nil {
		o = &Origins{pool: p}
		o.release = o.Release
	}
	o.Chunk = Chunk{Input: in, Source: source, ReadAt: readAt}
	if cap(o.List) < len(recs) {
		o.List = make([]Origin, len(recs))
	}
	o.List = o.List[:len(recs)]
	for i := range o.List {
		o.List[i] = Origin{Chunk: &o.Chunk, Number: recs[i].Number}
	}
	o.users.Store(1)
	return o
}

// put takes back Origins no one uses any more.
func (p *OriginPool) put(o *Origins) {
	p.mu.Lock()
	p.free = append(p.free, o)
	p.mu.Unlock()
}
