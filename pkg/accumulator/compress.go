package accumulator

import (
	"fmt"
	"slices"

	"github.com/kproduce/kproduce/pkg/protocol"
)

// Compression states of a batch (Batch.compress), guarded by Accumulator.mu.
const (
	compressIdle    uint8 = iota // not given to the workers (none, or not sealed yet)
	compressQueued               // waiting for a worker
	compressRunning              // a worker reads its records
	compressDone                 // compressed (or failed: compressErr)
)

// compressWorkers compresses sealed batches ahead of Drain, up to max at
// once, each on a goroutine of its own (see the package doc). A worker
// goroutine is started when a batch is queued and fewer than max run; it
// takes batches in queue order until the queue is empty, then ends, so
// none outlives the work and nothing needs stopping. Its encoder (a
// protocol.Compressor and the output buffer it reuses) is kept for the
// next worker.
type compressWorkers struct {
	max   int          // immutable
	spawn func(func()) // immutable: starts a worker; tests run them by hand
	level int          // immutable: the codec's level
	// compress is a worker's work on one batch (Accumulator.compressBatch);
	// immutable, a benchmark models a worker per core with it.
	compress func(*Batch, *protocol.Compressor)

	// Guarded by Accumulator.mu.
	queue   []*Batch // sealed batches to compress, oldest first; a batch no longer queued is skipped
	running int      // worker goroutines started and not ended
	idle    []*protocol.Compressor
}

// newCompressWorkers returns the workers of cfg, or nil when batches are
// compressed by Close (no codec, or no workers).
func newCompressWorkers(cfg *Config) *compressWorkers {
	if cfg.Codec == protocol.CodecNone || cfg.CompressionWorkers <= 0 {
		return nil
	}
	return &compressWorkers{max: cfg.CompressionWorkers, level: cfg.CompressionLevel, spawn: func(f func()) { go f() }}
}

// sealLocked closes b, the head or a full batch of dq, for appends and
// hands it to the compression workers. a.mu must be held.
func (a *Accumulator) sealLocked(dq *deque, b *Batch) {
	if !b.appendsClosed {
		a.noteFillLocked(dq, len(b.buf))
		b.appendsClosed = true
	}
	a.submitLocked(b)
}

// submitLocked queues a batch closed for appends for compression, starting
// a worker if fewer than the maximum run. a.mu must be held.
func (a *Accumulator) submitLocked(b *Batch) {
	w := a.workers
	if w == nil || b.compress != compressIdle || b.buf == nil || b.IsDone() {
		return
	}
	b.compress = compressQueued
	w.queue = append(w.queue, b)
	if w.running < w.max {
		w.running++
		w.spawn(a.runCompressWorker)
	}
}

// drainableLocked reports whether Drain may take b: it needs no worker, or
// a worker compressed it. a.mu must be held.
func (a *Accumulator) drainableLocked(b *Batch) bool {
	return a.workers == nil || b.compress == compressDone || b.encoded != nil
}

// runCompressWorker is a worker goroutine: it compresses queued batches
// until the queue is empty.
func (a *Accumulator) runCompressWorker() {
	a.mu.Lock()
	comp := a.workers.takeCompressorLocked(a.cfg.Codec)
	for {
		b := a.workers.nextLocked()
		if b == nil {
			a.workers.running--
			a.workers.idle = append(a.workers.idle, comp)
			a.mu.Unlock()
			return
		}
		b.compress = compressRunning
		a.mu.Unlock()
		a.workers.compress(b, comp)
		a.signal() // the sender may drain it now
		a.mu.Lock()
	}
}

// takeCompressorLocked returns an idle encoder, or a new one.
func (w *compressWorkers) takeCompressorLocked(codec protocol.Codec) *protocol.Compressor {
	if n := len(w.idle); n > 0 {
		c := w.idle[n-1]
		w.idle = w.idle[:n-1]
		return c
	}
	return protocol.NewCompressor(protocol.WithLevel(codec, w.level), protocol.WithGoroutines(1))
}

// dequeueLocked takes a queued batch out of the queue (it was deallocated
// before a worker took it).
func (w *compressWorkers) dequeueLocked(b *Batch) {
	w.queue = slices.DeleteFunc(w.queue, func(x *Batch) bool { return x == b })
	b.compress = compressIdle
}

// nextLocked pops the oldest batch still queued, or returns nil.
func (w *compressWorkers) nextLocked() *Batch {
	for len(w.queue) > 0 {
		b := w.queue[0]
		w.queue[0] = nil
		w.queue = w.queue[1:]
		if len(w.queue) == 0 {
			w.queue = w.queue[:0:0] // let the backing array go once drained
		}
		if b.compress == compressQueued {
			return b
		}
	}
	return nil
}

// compressBatch compresses a batch a worker took (compressRunning) and
// publishes the result under the lock; a Deallocate that came meanwhile
// is carried out then.
func (a *Accumulator) compressBatch(b *Batch, comp *protocol.Compressor) {
	compressed, release, err := b.compressRecords(comp)
	a.mu.Lock()
	defer a.mu.Unlock()
	b.compress = compressDone
	b.compressErr = err
	if err == nil {
		b.compressed = compressed
		if release {
			b.buf = nil
		}
	}
	if b.releasePending {
		a.releaseLocked(b)
	}
}

// compressRecords compresses the batch's records (Close's or a worker's
// work; only its owner touches the buffer meanwhile). The compressed
// records go in place of the uncompressed ones, in the same buffer, when
// they fit and the records are not needed any more (see keepsRecords):
// nothing else is taken from the buffer memory then. Otherwise they go to
// a buffer of their own, taken without waiting (which can overdraw the
// budget for a moment; appenders wait meanwhile). release says whether
// the batch's buffer now holds the compressed records (or was released)
// rather than the uncompressed ones, which the caller records under the
// lock.
func (b *Batch) compressRecords(comp *protocol.Compressor) (compressed []byte, release bool, _ error) {
	codec := b.acc.cfg.Codec
	records := b.buf[headerRoom:]
	out, err := comp.CompressOwned(codec, records)
	if err != nil {
		return nil, false, fmt.Errorf("close batch for %s/%d: compress %d bytes with %s: %w", b.tp.Topic, b.tp.Partition, len(records), codec, err)
	}
	keep := b.keepsRecords()
	if !keep && headerRoom+len(out) <= cap(b.buf) {
		dst := b.buf[:headerRoom+len(out)]
		copy(dst[headerRoom:], out)
		return dst, true, nil
	}
	pool := b.acc.pool
	dst := pool.forceAllocate(pool.sizeFor(headerRoom + len(out)))
	dst = append(dst[:headerRoom], out...)
	if !keep {
		pool.release(b.buf)
	}
	return dst, !keep, nil
}

// keepsRecords reports whether the uncompressed records stay after
// compression: the reports need them (ResultRecords, or timestamps too far
// apart for the record list). Otherwise they are gone once compressed, as
// in Kafka's producer: a split decompresses.
func (b *Batch) keepsRecords() bool { return b.acc.cfg.ResultRecords || b.wideTimestamps }
